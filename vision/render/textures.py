"""Printed artwork as linear-RGB float32 textures: the board print, tile garden sides, icons, cards.

Art is drawn in 8-bit sRGB with anti-aliased OpenCV primitives (so the spec's hex colours are
used as they are) and converted to linear light at the end, where the low-contrast mottling of
the cardboard is multiplied in. ``ppm`` is texture pixels per millimetre.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from scoring.garden import GRID
from vision.profile import Profile, rgb, srgb_to_linear
from vision.render.looks import ICON_VARIANTS, Artwork

_SHIFT = 4
_ONE = 1 << _SHIFT
_LUT = srgb_to_linear(np.arange(256, dtype=np.float32) / 255.0)


def linear(hex_colour: str) -> np.ndarray:
    """Hex sRGB -> linear float32 RGB."""
    return srgb_to_linear(rgb(hex_colour))


def _bgr8(hex_colour: str) -> tuple[int, int, int]:
    r, g, b = (rgb(hex_colour) * 255).round().astype(int)
    return (int(r), int(g), int(b))  # textures are RGB order; cv2 does not care


def _to_linear(img8: np.ndarray) -> np.ndarray:
    return _LUT[img8]


BOARD_MOTTLE = 0.035  #: the board's cardboard mottling (times Artwork.mottle)
TILE_MOTTLE = 0.07  #: a tile's garden green mottling (times Artwork.mottle)
REFERENCE_ART = Artwork()
_PAPER = "#EDE4CF"  #: the cardboard under the print, where wear shows it
_LUMA = np.array([0.2126, 0.7152, 0.0722], np.float32)
MIN_SHIFT_PX = 0.3  #: a colour plate off register by less than this (texture pixels) is left in place


def mottle(shape: tuple[int, int], rng: np.random.Generator, amount: float, cells: int = 24) -> np.ndarray:
    """Low-contrast multiplicative noise (mean 1): two octaves of smooth random fields."""
    h, w = shape
    out = np.ones((h, w), np.float32)
    for k, amp in ((cells, 1.0), (cells * 4, 0.5)):
        small = rng.standard_normal((max(2, k * h // max(h, w)), max(2, k * w // max(h, w)))).astype(
            np.float32
        )
        out += amount * amp * cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    return out


class _Canvas:
    """An 8-bit RGB drawing surface addressed in millimetres."""

    def __init__(self, w_mm: float, h_mm: float, ppm: float, fill: str) -> None:
        self.ppm = ppm
        self.img = np.empty((max(2, round(h_mm * ppm)), max(2, round(w_mm * ppm)), 3), np.uint8)
        self.img[:] = _bgr8(fill)

    def _p(self, xy: np.ndarray) -> np.ndarray:
        return np.round((np.asarray(xy, np.float64) * self.ppm - 0.5) * _ONE).astype(np.int32)

    def rect(self, x0: float, y0: float, x1: float, y1: float, colour: str) -> None:
        self.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], colour)

    def poly(self, pts, colour: str) -> None:
        cv2.fillPoly(self.img, [self._p(pts).reshape(-1, 1, 2)], _bgr8(colour), cv2.LINE_AA, _SHIFT)

    def disc(self, x: float, y: float, d: float, colour: str) -> None:
        c = self._p((x, y))
        cv2.circle(
            self.img,
            (int(c[0]), int(c[1])),
            int(round(d / 2 * self.ppm * _ONE)),
            _bgr8(colour),
            -1,
            cv2.LINE_AA,
            _SHIFT,
        )

    def ellipse(
        self,
        x: float,
        y: float,
        ax: float,
        ay: float,
        angle: float,
        colour: str,
        a0: float = 0,
        a1: float = 360,
        thick: float = -1,
    ) -> None:
        pts = cv2.ellipse2Poly((0, 0), (1000, 1000), 0, int(a0), int(a1), 5).astype(np.float64) / 1000
        ca, sa = np.cos(np.radians(angle)), np.sin(np.radians(angle))
        e = np.column_stack([pts[:, 0] * ax, pts[:, 1] * ay]) @ np.array([[ca, sa], [-sa, ca]])
        e += (x, y)
        if thick < 0:
            self.poly(e, colour)
        else:
            self.line(e, thick, colour)

    def line(self, pts, thick: float, colour: str) -> None:
        t = max(1, int(round(thick * self.ppm)))
        cv2.polylines(
            self.img, [self._p(pts).reshape(-1, 1, 2)], False, _bgr8(colour), t, cv2.LINE_AA, _SHIFT
        )

    def frame(self, x0: float, y0: float, x1: float, y1: float, width: float, colour: str) -> None:
        """A border ``width`` mm wide just inside the rectangle (x0, y0)-(x1, y1)."""
        self.rect(x0, y0, x1, y0 + width, colour)
        self.rect(x0, y1 - width, x1, y1, colour)
        self.rect(x0, y0, x0 + width, y1, colour)
        self.rect(x1 - width, y0, x1, y1, colour)

    def linear(self, rng: np.random.Generator | None = None, amount: float = 0.0) -> np.ndarray:
        lin = _to_linear(self.img)
        if rng is not None and amount > 0:
            lin *= mottle(lin.shape[:2], rng, amount)[..., None]
        return lin


def _rot(pts, quarter: int) -> np.ndarray:
    p = np.asarray(pts, np.float64)
    for _ in range(quarter % 4):
        p = np.column_stack([-p[:, 1], p[:, 0]])
    return p


class _Icon:
    """Pen for one icon: coordinates in a 14 x 14 box around the origin (y down), scaled into the
    canvas, turned by quarter turns. The shapes are drawn as one ink mask (4 x supersampled), grown
    (bolder strokes) or shrunk (lighter strokes) by ``stroke`` mm, and laid over the canvas."""

    SUPER = 4

    def __init__(self, cv: _Canvas, cx: float, cy: float, box: float, colour: str, quarter: int,
                 stroke: float) -> None:
        # a bolder stroke draws the shapes a little smaller, so that the outline stays in the box
        self.cv, self.c, self.q = cv, np.array([cx, cy]), quarter
        self.s = (box - 2 * max(stroke, 0.0)) / 14.0
        self.box, self.colour, self.stroke = box, colour, stroke
        self.shapes: list[tuple[str, np.ndarray, float]] = []

    def _map(self, p) -> np.ndarray:
        return _rot(np.asarray(p, np.float64) * self.s, self.q) + self.c

    def poly(self, p) -> None:
        self.shapes.append(("poly", self._map(p), 0.0))

    def line(self, p, t: float) -> None:
        self.shapes.append(("line", self._map(p), t * self.s))

    def disc(self, x: float, y: float, d: float) -> None:
        self.shapes.append(("disc", self._map([(x, y)]), d * self.s))

    def draw(self) -> None:
        cv, S = self.cv, self.SUPER
        ppm = cv.ppm
        h, w = cv.img.shape[:2]
        half = (self.box / 2 + 1.0) * ppm
        x0 = max(0, int(np.floor(self.c[0] * ppm - 0.5 - half)))
        y0 = max(0, int(np.floor(self.c[1] * ppm - 0.5 - half)))
        x1 = min(w, int(np.ceil(self.c[0] * ppm - 0.5 + half)) + 1)
        y1 = min(h, int(np.ceil(self.c[1] * ppm - 0.5 + half)) + 1)
        if x1 <= x0 or y1 <= y0:
            return
        mask = np.zeros(((y1 - y0) * S, (x1 - x0) * S), np.uint8)

        def px(pts: np.ndarray) -> np.ndarray:
            m = ((pts * ppm - 0.5 - (x0, y0)) * S + (S - 1) / 2) * _ONE
            return np.round(m).astype(np.int32)

        for kind, pts, size in self.shapes:
            if kind == "poly":
                cv2.fillPoly(mask, [px(pts).reshape(-1, 1, 2)], 255, cv2.LINE_AA, _SHIFT)
            elif kind == "line":
                t = max(1, int(round(size * ppm * S)))
                cv2.polylines(mask, [px(pts).reshape(-1, 1, 2)], False, 255, t, cv2.LINE_AA, _SHIFT)
            else:
                c = px(pts)[0]
                cv2.circle(mask, (int(c[0]), int(c[1])), int(round(size / 2 * ppm * S * _ONE)), 255, -1,
                           cv2.LINE_AA, _SHIFT)
        r = int(round(abs(self.stroke) * ppm * S))
        if r > 0:
            k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
            mask = cv2.dilate(mask, k) if self.stroke > 0 else cv2.erode(mask, k)
        alpha = cv2.resize(mask, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA).astype(np.float32)
        alpha = (alpha / 255.0)[..., None]
        region = cv.img[y0:y1, x0:x1].astype(np.float32)
        ink = np.array(_bgr8(self.colour), np.float32)
        cv.img[y0:y1, x0:x1] = np.round(region + (ink - region) * alpha).astype(np.uint8)


def _half_ellipse(ax: float, ay: float, y0: float, a0: float = 0, a1: float = 180, n: int = 25) -> np.ndarray:
    t = np.radians(np.linspace(a0, a1, n))
    return np.column_stack([ax * np.cos(t), y0 + ay * np.sin(t)])


def draw_icon(
    cv: _Canvas, kind: str, cx: float, cy: float, box: float, colour: str, quarter: int, variant: int = 0,
    stroke: float = 0.0,
) -> None:
    """One symbol icon in a ``box`` x ``box`` square centred at (cx, cy), turned by quarter turns:
    drawing ``variant`` (0..3) of the four kept within spec 2.3's written description, its strokes
    ``stroke`` mm heavier (or lighter) than drawn."""
    pen = _Icon(cv, cx, cy, box, colour, quarter, stroke)
    if variant % 8 >= 4:
        _variant_icon(pen, kind, variant % 4)
        pen.draw()
        return
    v = variant % 4
    if kind == "statue":  # a standing figure: head disc 3.5, body trapezoid, pedestal bar
        head_y, top, bottom, b_top, b_bot, ped = (
            (-4.9, 1.3, 2.4, -2.9, 3.4, (4.4, 4.1, 6.3)),
            (-5.2, 0.7, 1.5, -3.2, 1.6, (2.2, 2.0, 6.6)),  # slim, on a tall plinth
            (-4.3, 1.8, 3.8, -2.3, 4.6, (5.8, 5.0, 6.2)),  # a robed figure on a low, wide bar
            (-5.0, 0.9, 2.2, -3.0, 2.8, (3.4, 3.4, 5.2)),  # on a stepped pedestal
        )[v]
        pen.disc(0, head_y, 3.5)
        pen.poly([(-top, b_top), (top, b_top), (bottom, b_bot), (-bottom, b_bot)])
        pw, p0, p1 = ped
        pen.poly([(-pw, p0), (pw, p0), (pw, p1), (-pw, p1)])
        if v == 3:  # a stepped pedestal
            pen.poly([(-pw - 1.2, p1 - 0.9), (pw + 1.2, p1 - 0.9), (pw + 1.2, p1), (-pw - 1.2, p1)])
    elif kind == "fountain":  # a bowl (half ellipse), a vertical jet and two arcs falling from its top
        bowl_w, bowl_h, bowl_y, jet_w, jet_top, arc_out, arc_drop, arc_t = (
            (6.2, 4.8, 1.2, 0.7, -6.4, 3.4, 4.6, 1.0),
            (6.8, 3.6, 2.2, 0.5, -6.6, 4.6, 6.2, 0.8),
            (5.2, 5.2, 1.0, 0.9, -5.8, 3.0, 4.2, 1.3),
            (6.0, 4.4, 1.6, 0.6, -6.2, 4.2, 5.2, 0.9),
        )[v]
        pen.poly(_half_ellipse(bowl_w, bowl_h, bowl_y))
        if v == 3:  # a rim over the bowl
            r0, r1, rw = bowl_y - 0.8, bowl_y + 0.2, bowl_w + 0.6
            pen.poly([(-rw, r0), (rw, r0), (rw, r1), (-rw, r1)])
        pen.poly([(-jet_w, bowl_y + 0.2), (jet_w, bowl_y + 0.2), (jet_w, jet_top), (-jet_w, jet_top)])
        if v == 2:  # a drop on the jet
            pen.disc(0, jet_top - 0.3, 1.8)
        k = np.linspace(0, 1, 12)
        for sg in (-1, 1):
            y = jet_top + 0.8 - 0.8 * k + arc_drop * k**2
            pen.line(np.column_stack([sg * (1.2 + arc_out * k), y]), arc_t)
    elif kind == "bridge":  # a thick arch under a flat deck line
        deck_y, deck_t, deck_w, span, rise, inner_span, inner_rise, base = (
            (-5.0, 2.0, 7.0, 6.0, 8.6, 3.2, 5.4, 5.6),
            (-3.4, 1.4, 7.0, 6.4, 7.4, 4.2, 4.6, 5.4),
            (-5.2, 2.4, 6.6, 5.6, 9.0, 2.6, 5.8, 6.2),
            (-4.2, 1.8, 7.0, 6.6, 8.2, 3.8, 5.2, 5.8),
        )[v]
        pen.poly([(-deck_w, deck_y), (deck_w, deck_y), (deck_w, deck_y + deck_t), (-deck_w, deck_y + deck_t)])
        if v == 3:  # a segmental (flatter) arch on short legs
            t = np.radians(np.linspace(205, 335, 25))
            arc = np.column_stack([span * np.cos(t) / np.cos(np.radians(25)), base + rise * np.sin(t)])
            outer = np.vstack([[(-span, base)], arc, [(span, base)]])
        else:
            outer = _half_ellipse(span, rise, base, 180, 360)
        inner = _half_ellipse(inner_span, inner_rise, base, 180, 360)[::-1]
        pen.poly(np.vstack([outer, inner]))
    elif kind == "stairs":  # three steps rising left to right
        if v == 0:
            pen.poly([(-7, 6), (-7, 2), (-2.4, 2), (-2.4, -2), (2.4, -2), (2.4, -6), (7, -6), (7, 6)])
        elif v == 1:  # a flight seen from the side: the steps over a sloping underside
            pen.poly([(-7, 6), (-7, 2), (-2.4, 2), (-2.4, -2), (2.4, -2), (2.4, -6), (7, -6), (7, -1.2),
                      (-1.0, 6)])
        elif v == 2:  # narrow and steep, chamfered nosings
            c = 0.6
            pen.poly([(-5.4, 6.6), (-5.4, 2.2 + c), (-5.4 + c, 2.2), (-1.8, 2.2), (-1.8, -2.2 + c),
                      (-1.8 + c, -2.2), (1.8, -2.2), (1.8, -6.6 + c), (1.8 + c, -6.6), (5.4, -6.6),
                      (5.4, 6.6)])
        else:  # three blocks side by side, apart
            for x0, x1, y0 in ((-7, -3.0, 3.0), (-2.0, 2.0, -1.0), (3.0, 7, -5.0)):
                pen.poly([(x0, 5.6), (x0, y0), (x1, y0), (x1, 5.6)])
    pen.draw()


def _variant_icon(pen: _Icon, kind: str, v: int) -> None:
    """The variant edition's drawings (``Profile.tile.icon_style == "variant"``): other artwork that
    still shows what spec 2.3 describes (a figure on its pedestal, a bowl with a jet and falling arcs,
    an arch under a flat deck, steps rising to one side)."""
    if kind == "statue":  # a figure with its arms out or a staff, on a pedestal wider than the arms
        pen.poly([(-0.6, -6.6), (0.6, -6.6), (1.6, -5.0), (0.6, -3.4), (-0.6, -3.4), (-1.6, -5.0)])  # head
        body_w = (1.2, 1.6, 1.0, 1.4)[v]
        pen.poly([(-body_w, -3.2), (body_w, -3.2), (body_w + 0.8, 2.8), (-body_w - 0.8, 2.8)])
        if v in (0, 2):  # arms out from the shoulders
            pen.line(np.array([(-3.4, -0.6), (0, -2.6), (3.4, -0.6)]), 1.0)
        if v in (1, 3):  # a staff held at the side
            pen.line(np.array([(2.9, -5.6), (2.9, 2.8)]), 0.8)
        ped = (5.2, 5.8, 4.8, 6.2)[v]
        pen.poly([(-ped, 3.4), (ped, 3.4), (ped, 6.6), (-ped, 6.6)])
        if v >= 2:  # a moulding on the pedestal
            pen.poly([(-ped + 1.2, 2.8), (ped - 1.2, 2.8), (ped - 1.2, 3.6), (-ped + 1.2, 3.6)])
    elif kind == "fountain":  # a footed basin (a cup), a jet and arcs; some with an upper basin
        w, h, y = ((6.6, 3.2, 1.8), (6.0, 3.8, 1.4), (6.8, 3.0, 2.2), (5.8, 3.6, 1.6))[v]
        pen.poly([(-w, y), (w, y), (w * 0.55, y + h), (-w * 0.55, y + h)])  # a trapezoid basin
        pen.poly([(-1.0, y + h), (1.0, y + h), (1.0, 6.8), (-1.0, 6.8)])  # its foot
        pen.poly([(-2.6, 6.0), (2.6, 6.0), (2.6, 6.9), (-2.6, 6.9)])
        jet_top = (-6.4, -6.0, -6.6, -5.8)[v]
        pen.poly([(-0.5, y), (0.5, y), (0.5, jet_top), (-0.5, jet_top)])
        if v in (1, 3):  # a small upper basin on the jet
            pen.poly(_half_ellipse(2.2, 1.2, jet_top + 2.4))
        k = np.linspace(0, 1, 12)
        for sg in (-1, 1):
            for reach, drop in ((3.6, 5.4), (2.2, 4.0))[: 2 if v in (0, 2) else 1]:
                yy = jet_top + 0.6 + drop * k**2
                pen.line(np.column_stack([sg * (0.9 + reach * k), yy]), 0.8)
    elif kind == "bridge":  # a deck with a parapet of posts, a round arch below it open at the bottom
        deck_y = (-3.6, -4.2, -3.0, -3.8)[v]
        pen.poly([(-7, deck_y), (7, deck_y), (7, deck_y + 1.6), (-7, deck_y + 1.6)])
        if v in (0, 1):  # the parapet's posts
            for x in np.linspace(-6.2, 6.2, 5 if v == 0 else 7):
                top = deck_y - 2.0
                pen.poly([(x - 0.4, top), (x + 0.4, top), (x + 0.4, deck_y), (x - 0.4, deck_y)])
        else:  # a rail over the deck
            pen.poly([(-6.6, deck_y - 2.2), (6.6, deck_y - 2.2), (6.6, deck_y - 1.4), (-6.6, deck_y - 1.4)])
        sp, ri, ba = ((6.2, 7.4, 6.6), (6.6, 8.0, 6.8), (5.8, 7.0, 6.4), (6.4, 7.8, 6.6))[v]
        outer = [(-sp, ba), (-sp, deck_y + 1.6), (sp, deck_y + 1.6), (sp, ba)]
        inner = _half_ellipse(sp - 2.0, ri - 2.4, ba, 180, 360)[::-1]
        pen.poly(np.vstack([outer, inner]))
    elif kind == "stairs":  # steps rising to the right; four or three, outlined or solid, a rail
        n = 4 if v in (0, 2) else 3
        xs = np.linspace(-7, 7, n + 1)
        ys = np.linspace(6.4, -6.4, n + 1)
        pts = [(-7.0, 6.4)]
        for i in range(n):
            pts += [(xs[i], ys[i + 1]), (xs[i + 1], ys[i + 1])]
        pts += [(7.0, 6.4)]
        if v in (2, 3):  # outlined steps: a thick stroke along the nosings and the floor
            pen.line(np.array(pts + [(-7.0, 6.4)]), 1.6)
            pen.poly([(-7.0, 6.4), (xs[0], ys[1]), (xs[1], ys[1]), (xs[1], 6.4)])
        else:
            pen.poly(pts)
        if v in (1, 3):  # a handrail rising with the steps
            pen.line(np.array([(-6.6, ys[1] - 2.2), (6.0, ys[-1] - 0.4)]), 0.7)


def _flower(cv: _Canvas, x: float, y: float, d: float, colour: str, centre: str, turn: float) -> None:
    for k in range(5):
        a = np.radians(turn + 72 * k)
        cv.disc(x + 0.3 * d * np.cos(a), y + 0.3 * d * np.sin(a), 0.42 * d, colour)
    cv.disc(x, y, 0.3 * d, centre)


def tile_top(
    profile: Profile,
    flower: str,
    symbols: Sequence[Sequence[str | None]] | None,
    ppm: float,
    rng: np.random.Generator,
    quarter: int = 0,
    art: Artwork = REFERENCE_ART,
    key: tuple[int, ...] = (0,),
) -> np.ndarray:
    """The garden side of a terrace tile, seen from above in board orientation (rows = board y),
    printed as ``art`` says (``key`` tells this tile's wear from another's)."""
    t = profile.tile
    fc = profile.flowers[flower]
    s = t.size
    cv = _Canvas(s, s, ppm, t.garden_colour)
    half = s / 2
    # fields are drawn as mottled green first; path cross and flower band over them
    cv.rect(half - t.path_width / 2, 0, half + t.path_width / 2, s, t.path_colour)
    cv.rect(0, half - t.path_width / 2, s, half + t.path_width / 2, t.path_colour)
    b = t.band_width
    for r in ((0, 0, s, b), (0, s - b, s, s), (0, 0, b, s), (s - b, 0, s, s)):
        cv.rect(*r, fc)
    off = (t.field_size + t.path_width) / 2
    for i in range(2):
        for j in range(2):
            fx, fy = half + (j - 0.5) * 2 * off, half + (i - 0.5) * 2 * off
            sym = symbols[i][j] if symbols is not None else None
            if sym:
                cv.disc(fx, fy, t.plaque_diameter, t.plaque_colour)
                style = ICON_VARIANTS if t.icon_style == "variant" else 0  # the variant's drawings: 4..7
                draw_icon(cv, sym, fx, fy, t.icon_box, t.icon_colour, quarter, art.icon(sym) + style,
                          art.stroke_mm)
            else:
                spots = np.array([(-5.5, -4.5), (5.0, -2.5), (-0.5, 6.0)])
                spots = _rot(spots, quarter + i + j) + rng.uniform(-1.2, 1.2, (3, 2))
                centre = t.blank_flower_centre if flower != "yellow" else t.blank_flower_centre_on_yellow
                for dx, dy in spots:
                    _flower(cv, fx + dx, fy + dy, t.blank_flower_diameter, fc, centre, rng.uniform(0, 72))
    lin = cv.linear()
    green = np.all(np.abs(cv.img.astype(np.int16) - _bgr8(t.garden_colour)) < 3, axis=2)
    m = mottle(lin.shape[:2], rng, TILE_MOTTLE * art.mottle, cells=10)
    lin *= np.where(green, m, 1 + (m - 1) * 0.3)[..., None]
    return print_finish(lin, art, ppm, (1, *key))


def board_top(profile: Profile, flower: str, ppm: float, rng: np.random.Generator, mottled: bool = True
              ) -> np.ndarray:
    """The printed top of the player board (x right, y towards the player); not ``mottled``: the
    print alone (:func:`print_finish` mottles it as a photo's artwork says)."""
    b = profile.board
    cv = _Canvas(b.width, b.depth, ppm, b.colour)
    fw = b.frame_width
    cv.frame(0, 0, b.width, b.depth, fw, b.frame_colour)
    ox, oy = b.grid_origin
    n = GRID
    gap = b.pitch - b.cell_print
    cv.rect(ox - gap / 2, oy - gap / 2, ox + n * b.pitch + gap / 2, oy + n * b.pitch + gap / 2, b.gap_colour)
    for r in range(n):
        for c in range(n):
            x0, y0 = ox + c * b.pitch + gap / 2, oy + r * b.pitch + gap / 2
            cv.rect(x0, y0, x0 + b.cell_print, y0 + b.cell_print, b.cell_colour)
            cv.disc(x0 + b.cell_print / 2, y0 + b.cell_print / 2, b.hole_diameter, b.hole_colour)
    ex, ey = b.emblem_centre
    cv.disc(ex, ey, b.emblem_diameter, b.emblem_colour)
    for k in range(5):
        a = -90 + 72 * k
        d = b.emblem_diameter * 0.22
        cv.ellipse(
            ex + d * np.cos(np.radians(a)),
            ey + d * np.sin(np.radians(a)),
            b.emblem_diameter * 0.2,
            b.emblem_diameter * 0.12,
            a,
            profile.flowers[flower],
        )
    cv.disc(ex, ey, b.emblem_centre_diameter, b.emblem_centre_colour)
    x0, y0, x1, y1 = b.recess
    lw = b.recess_line
    cv.rect(x0 - lw, y0 - lw, x1 + lw, y1 + lw, b.frame_colour)
    cv.rect(x0, y0, x1, y1, b.recess_colour)
    for sx, sy in b.pillar_slots:
        cv.disc(sx, sy, b.hole_diameter, b.hole_colour)
    return cv.linear(rng, BOARD_MOTTLE if mottled else 0.0)


def card_back(profile: Profile, ppm: float, rng: np.random.Generator) -> np.ndarray:
    """The back of a playing card: coloured field with a diagonal line pattern and a pale border."""
    c = profile.card
    w, h = c.size
    cv = _Canvas(w, h, ppm, c.border_colour)
    cv.rect(c.border, c.border, w - c.border, h - c.border, c.back_colour)
    for k in range(-30, 30):
        x = k * 4.0
        cv.line([(c.border + x, c.border), (c.border + x + h, c.border + h)], 0.8, c.back_pattern_colour)
    cv.frame(0, 0, w, h, c.border, c.border_colour)
    return cv.linear(rng, 0.02)


def flat(
    hex_colour: str, w_mm: float, h_mm: float, ppm: float, rng: np.random.Generator, amount: float = 0.05
) -> np.ndarray:
    """A plain mottled surface (tile undersides lying face down)."""
    return _Canvas(w_mm, h_mm, ppm, hex_colour).linear(rng, amount)


def ink_matrix(art: Artwork) -> np.ndarray:
    """(3, 3) linear-RGB transform of the printed colours: saturation about the luminance, then the
    inks' per-channel gain."""
    sat = np.float32(art.saturation)
    m = sat * np.eye(3, dtype=np.float32) + (1 - sat) * np.outer(np.ones(3, np.float32), _LUMA)
    return (np.asarray(art.ink_gain, np.float32)[:, None] * m).astype(np.float32)


def print_finish(
    lin: np.ndarray, art: Artwork, ppm: float, key: tuple[int, ...], mottle_amount: float = 0.0,
    scuffs_per_dm2: float = 1.5,
) -> np.ndarray:
    """A linear print as this copy of the game shows it: inks shifted, cardboard mottled by
    ``mottle_amount`` (times ``art.mottle``), the green and blue plates off register, the edges worn
    lighter and the surface scuffed as much as ``art.wear`` says (``key`` picks where)."""
    if art == REFERENCE_ART and mottle_amount <= 0:
        return lin
    rng = np.random.default_rng([art.seed, *(abs(int(k)) for k in key)])
    m = ink_matrix(art)
    out = lin.copy() if np.allclose(m, np.eye(3)) else cv2.transform(lin, m)
    h, w = out.shape[:2]
    if mottle_amount > 0:
        out *= mottle((h, w), rng, mottle_amount * art.mottle)[..., None]
    dx1, dy1, dx2, dy2 = (v * ppm for v in art.misregistration_mm)
    shifts = [(c, dx, dy) for c, dx, dy in ((1, dx1, dy1), (2, dx2, dy2))
              if math.hypot(dx, dy) > MIN_SHIFT_PX]
    if shifts:
        ch = list(cv2.split(out))
        for c, dx, dy in shifts:
            ch[c] = cv2.warpAffine(ch[c], np.float32([[1, 0, dx], [0, 1, dy]]), (w, h),
                                   borderMode=cv2.BORDER_REPLICATE)
        out = cv2.merge(ch, dst=out)
    if art.wear > 0:
        _wear(out, art.wear, ppm, rng, scuffs_per_dm2)
    return out


def _wear(img: np.ndarray, wear: float, ppm: float, rng: np.random.Generator, scuffs_per_dm2: float) -> None:
    """In place: lighter, patchy worn edges (more at the corners) and light scuffs."""
    h, w = img.shape[:2]
    paper = linear(_PAPER)
    band = (0.35 + 1.1 * wear) * ppm  # px
    n = max(2, int(np.ceil(2.5 * band)))
    if 2 * n < min(h, w):
        for side in range(4):
            length = w if side % 2 == 0 else h
            d = np.arange(n, dtype=np.float32)[:, None]  # px from the edge
            along = cv2.resize(rng.random((1, max(2, int(length / ppm / 6)))).astype(np.float32), (length, 1),
                               interpolation=cv2.INTER_CUBIC)
            reach = band * (0.4 + 1.2 * along)  # patchy
            t = np.clip(1 - d / np.maximum(reach, 0.5), 0, 1) ** 1.5
            corner = np.ones((1, length), np.float32)
            k = min(length // 2, int(6 * ppm))
            ramp = np.linspace(1.8, 1.0, k, dtype=np.float32)
            corner[0, :k] = ramp
            corner[0, length - k:] = ramp[::-1]
            a = np.clip(t * corner * np.float32(0.75 * min(1.0, 0.4 + wear)), 0, 1)  # (n, length)
            if side == 0:
                sl, a2 = img[:n, :], a
            elif side == 1:
                sl, a2 = img[:, w - n:], a[::-1].T
            elif side == 2:
                sl, a2 = img[h - n:, :], a[::-1]
            else:
                sl, a2 = img[:, :n], a.T
            sl += (paper - sl) * a2[..., None]
    area_dm2 = h * w / (ppm * ppm) / 1e4
    for _ in range(int(rng.poisson(scuffs_per_dm2 * area_dm2 * wear))):
        length = rng.uniform(4.0, 35.0) * ppm
        x0, y0 = rng.uniform(0, w), rng.uniform(0, h)
        ang = rng.uniform(0, np.pi)
        bend = rng.uniform(-0.3, 0.3)
        t = np.linspace(-0.5, 0.5, 8)
        pts = np.column_stack([x0 + length * t * np.cos(ang) - bend * length * t**2 * np.sin(ang),
                               y0 + length * t * np.sin(ang) + bend * length * t**2 * np.cos(ang)])
        lo = np.floor(pts.min(axis=0) - 4).astype(int)
        hi = np.ceil(pts.max(axis=0) + 4).astype(int)
        lo, hi = np.maximum(lo, 0), np.minimum(hi, (w, h))
        if np.any(hi - lo < 2):
            continue
        mask = np.zeros((hi[1] - lo[1], hi[0] - lo[0]), np.float32)
        thick = max(1, int(round(rng.uniform(0.15, 0.7) * ppm)))
        cv2.polylines(mask, [np.round((pts - lo) * 16).astype(np.int32)], False, 1.0, thick, cv2.LINE_AA, 4)
        mask = cv2.GaussianBlur(mask, (0, 0), max(0.4, 0.25 * ppm))
        sub = img[lo[1]:hi[1], lo[0]:hi[0]]
        sub += (paper - sub) * (mask * np.float32(rng.uniform(0.15, 0.45)))[..., None]


def box_lid(w_mm: float, d_mm: float, colour: str, ppm: float, rng: np.random.Generator) -> np.ndarray:
    """The printed lid of the game box: a coloured field with a framed picture of terraced gardens
    (green terraces edged in the flowers' colours, pillars, a sky) and a title band of lettering."""
    cv = _Canvas(w_mm, d_mm, ppm, colour)
    m = 0.08 * min(w_mm, d_mm)
    x0, y0, x1, y1 = m, 0.28 * d_mm, w_mm - m, d_mm - m
    cv.rect(x0 - 2, y0 - 2, x1 + 2, y1 + 2, "#E8D9A8")
    cv.rect(x0, y0, x1, y1, "#8EC3E0")  # sky
    cv.rect(x0, y0 + 0.55 * (y1 - y0), x1, y1, "#C9A46A")  # sand
    flowers = ("#F4F1EA", "#E86A9A", "#F2C12E", "#4A6FD1")
    for k in range(int(rng.integers(6, 11))):
        tw = rng.uniform(0.12, 0.22) * (x1 - x0)
        tx = rng.uniform(x0, x1 - tw)
        ty = rng.uniform(y0 + 0.25 * (y1 - y0), y1 - 0.12 * (y1 - y0))
        cv.rect(tx, ty, tx + tw, ty + 0.35 * tw, flowers[k % 4])
        cv.rect(tx + 2, ty + 2, tx + tw - 2, ty + 0.35 * tw - 2, "#5E8C3A")
        for px in (tx + 0.2 * tw, tx + 0.8 * tw):
            foot = min(y1, ty + 0.35 * tw + rng.uniform(8, 25))
            cv.rect(px - 2.5, ty + 0.35 * tw, px + 2.5, foot, "#CDBA94")
    cv.rect(m, 0.06 * d_mm, w_mm - m, 0.2 * d_mm, "#3A2A1A")  # the title band
    x = m + 6
    while x < w_mm - m - 14:  # letters: blocks of light strokes
        lw = rng.uniform(6, 14)
        cv.rect(x, 0.09 * d_mm, x + lw, 0.17 * d_mm, "#F0E0B0")
        x += lw + rng.uniform(3, 9)
    return cv.linear(rng, 0.02)


def score_pad(w_mm: float, d_mm: float, paper: str, ppm: float, rng: np.random.Generator) -> np.ndarray:
    """A score pad's top sheet: a ruled table (rows of categories, a column per player) with a
    coloured header and hand-written numbers (scribbled strokes)."""
    cv = _Canvas(w_mm, d_mm, ppm, paper)
    ink = ("#2A3F8F", "#333333", "#7A2A2A")[int(rng.integers(3))]
    cv.rect(0, 0, w_mm, 0.12 * d_mm, "#B8864B")
    rows, cols = 10, 5
    top, left = 0.16 * d_mm, 0.32 * w_mm
    rh, cw = (d_mm - top - 6) / rows, (w_mm - left - 5) / (cols - 1)
    for r in range(rows + 1):
        cv.rect(5, top + r * rh - 0.2, w_mm - 5, top + r * rh + 0.2, "#8A8A9A")
    for c in range(cols):
        x = left + c * cw
        cv.rect(x - 0.2, top, x + 0.2, top + rows * rh, "#8A8A9A")
    for r in range(rows):
        cv.rect(8, top + r * rh + 0.35 * rh, left - 6, top + r * rh + 0.6 * rh, "#B0B0B8")  # printed labels
        for c in range(cols - 1):
            if rng.random() < 0.7:
                cx, cy = left + (c + 0.5) * cw, top + (r + 0.5) * rh
                t = np.linspace(0, 1, 9)
                pts = np.column_stack([cx - 0.3 * cw + 0.6 * cw * t + rng.normal(0, 0.4, 9),
                                       cy + 0.25 * rh * np.sin(t * rng.uniform(6, 14))
                                       + rng.normal(0, 0.3, 9)])
                cv.line(pts, 0.5, ink)
    return cv.linear(rng, 0.015)
