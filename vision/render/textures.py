"""Printed artwork as linear-RGB float32 textures: the board print, tile garden sides, icons, cards.

Art is drawn in 8-bit sRGB with anti-aliased OpenCV primitives (so the spec's hex colours are
used as they are) and converted to linear light at the end, where the low-contrast mottling of
the cardboard is multiplied in. ``ppm`` is texture pixels per millimetre.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from scoring.garden import GRID
from vision.profile import Profile, rgb, srgb_to_linear

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


def draw_icon(cv: _Canvas, kind: str, cx: float, cy: float, box: float, colour: str, quarter: int) -> None:
    """One symbol icon in a ``box`` x ``box`` square centred at (cx, cy), turned by quarter turns."""
    s = box / 14.0

    def poly(p):
        cv.poly(_rot(np.asarray(p) * s, quarter) + (cx, cy), colour)

    def line(p, t):
        cv.line(_rot(np.asarray(p) * s, quarter) + (cx, cy), t * s, colour)

    def disc(x, y, d):
        q = _rot([(x * s, y * s)], quarter)[0]
        cv.disc(cx + q[0], cy + q[1], d * s, colour)

    if kind == "statue":  # a standing figure: head, trapezoid body, pedestal bar
        disc(0, -4.9, 3.5)
        poly([(-1.3, -2.9), (1.3, -2.9), (2.4, 3.4), (-2.4, 3.4)])
        poly([(-4.4, 4.1), (4.4, 4.1), (4.4, 6.3), (-4.4, 6.3)])
    elif kind == "fountain":  # a bowl, a vertical jet and two arcs falling from its top
        t = np.radians(np.linspace(0, 180, 25))
        poly(np.column_stack([6.2 * np.cos(t), 1.2 + 4.8 * np.sin(t)]))
        poly([(-0.7, 1.4), (0.7, 1.4), (0.7, -6.4), (-0.7, -6.4)])
        k = np.linspace(0, 1, 12)
        for sg in (-1, 1):
            line(np.column_stack([sg * (1.2 + 3.4 * k), -5.6 - 0.8 * k + 4.6 * k**2]), 1.0)
    elif kind == "bridge":  # a thick arch under a flat deck line
        poly([(-7, -5.0), (7, -5.0), (7, -3.0), (-7, -3.0)])
        t = np.radians(np.linspace(180, 360, 25))
        outer = np.column_stack([6.0 * np.cos(t), 5.6 + 8.6 * np.sin(t)])
        inner = np.column_stack([3.2 * np.cos(t[::-1]), 5.6 + 5.4 * np.sin(t[::-1])])
        poly(np.vstack([outer, inner]))
    elif kind == "stairs":  # three steps rising left to right
        poly([(-7, 6), (-7, 2), (-2.4, 2), (-2.4, -2), (2.4, -2), (2.4, -6), (7, -6), (7, 6)])


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
) -> np.ndarray:
    """The garden side of a terrace tile, seen from above in board orientation (rows = board y)."""
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
                draw_icon(cv, sym, fx, fy, t.icon_box, t.icon_colour, quarter)
            else:
                spots = np.array([(-5.5, -4.5), (5.0, -2.5), (-0.5, 6.0)])
                spots = _rot(spots, quarter + i + j) + rng.uniform(-1.2, 1.2, (3, 2))
                centre = t.blank_flower_centre if flower != "yellow" else t.blank_flower_centre_on_yellow
                for dx, dy in spots:
                    _flower(cv, fx + dx, fy + dy, t.blank_flower_diameter, fc, centre, rng.uniform(0, 72))
    lin = cv.linear()
    green = np.all(np.abs(cv.img.astype(np.int16) - _bgr8(t.garden_colour)) < 3, axis=2)
    m = mottle(lin.shape[:2], rng, 0.07, cells=10)
    lin *= np.where(green, m, 1 + (m - 1) * 0.3)[..., None]
    return lin


def board_top(profile: Profile, flower: str, ppm: float, rng: np.random.Generator) -> np.ndarray:
    """The printed top of the player board (x right, y towards the player)."""
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
    return cv.linear(rng, 0.035)


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
