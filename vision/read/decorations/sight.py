"""What the camera sees of a place: what hides a piece (:class:`Occluders`, :func:`_sight_through`),
the fields it cannot see at all (:func:`out_of_sight`), and what an empty tile would show where the
piece stands (:func:`empty_print`)."""

from __future__ import annotations

import math

import cv2
import numpy as np

from scoring.garden import Cell
from vision.camera import Camera, in_image
from vision.profile import Profile
from vision.read.decorations.parts import _to_board, piece_parts
from vision.read.decorations.surfaces import Candidate, Surfaces


class Occluders:
    """What hides a piece in the photo: the tiles above its level (their solids' outlines, filled) and
    the pieces already found above it. One mask per level, made when first needed, at a reduced scale."""

    SCALE = 0.5

    def __init__(self, cam: Camera, surf: Surfaces) -> None:
        self.cam, self.surf = cam, surf
        self.h = int(math.ceil(cam.height * self.SCALE))
        self.w = int(math.ceil(cam.width * self.SCALE))
        self.masks: dict[int, np.ndarray] = {}
        self.extra: list[tuple[int, np.ndarray]] = []  #: (z of its top as a level bound, polygon px)

    def _tile_hull(self, i: int) -> np.ndarray:
        prof = self.surf.profile
        x, y, z, turn = self.surf.pose(i)
        a = math.radians(turn)
        h = prof.tile.size / 2
        sq = np.array([[-h, -h], [h, -h], [h, h], [-h, h]]) @ np.array(
            [[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]]
        )
        sq = sq + (x, y)
        pts = np.vstack(
            [np.column_stack([sq, np.full(4, z)]), np.column_stack([sq, np.full(4, z - prof.tile.thickness)])]
        )
        return self.cam.project(pts)

    def mask(self, above: int) -> np.ndarray:
        """uint8 mask (reduced scale): 1 where a tile of a level above ``above`` hides the view."""
        if above not in self.masks:
            m = np.zeros((self.h, self.w), np.uint8)
            for i, t in enumerate(self.surf.tiles):
                if t.level > above:
                    hull = cv2.convexHull((self._tile_hull(i) * self.SCALE).astype(np.float32))
                    cv2.fillConvexPoly(m, np.round(hull).astype(np.int32), 1)
            for lv, poly in self.extra:
                if lv > above:
                    cv2.fillConvexPoly(m, np.round(poly * self.SCALE).astype(np.int32), 1)
            self.masks[above] = m
        return self.masks[above]

    def add_piece(self, level: int, pts_px: np.ndarray) -> None:
        """A piece found standing on ``level`` hides what lies below it (levels under ``level``)."""
        hull = cv2.convexHull(pts_px.astype(np.float32)).reshape(-1, 2)
        self.extra.append((level, hull))
        for k in list(self.masks):
            if k < level:
                del self.masks[k]

    def hidden(self, uv: np.ndarray, above: int) -> np.ndarray:
        m = self.mask(above)
        j = np.clip(np.round(uv[:, 0] * self.SCALE).astype(int), 0, self.w - 1)
        i = np.clip(np.round(uv[:, 1] * self.SCALE).astype(int), 0, self.h - 1)
        return m[i, j] > 0


#: a field seen from above on which a statue would show the camera less than this share of its points
#: (the reader judges no piece seen less: :data:`~vision.read.decorations.decisions.MIN_VISIBLE`) is out
#: of the photo's sight
OUT_OF_SIGHT = 0.15


def out_of_sight(cam: Camera, surf: Surfaces) -> list[tuple[Cell, int]]:
    """The fields seen from above on the tiles read that the photo does not show: a taller stack nearer
    the camera hides them, so a piece standing there, which the score counts, cannot be read. Judged by
    the points of a statue (the smallest piece) standing on each, as :class:`Occluders` hides them."""
    occ = Occluders(cam, surf)
    local = np.vstack([p.points for p in piece_parts(surf.profile, "statue")])
    out = []
    for cell, level in sorted(f for f in surf.at if surf.seen(*f)):
        c = Candidate("statue", (cell,), (level,), tuple(surf.field(cell, level)), surf.turn(cell, level))
        uv = cam.project(_to_board(c, local))
        shown = in_image(uv, (cam.height, cam.width)) & ~occ.hidden(uv, level)
        if shown.mean() < OUT_OF_SIGHT:
            out.append((cell, level))
    return out


BAND_MARGIN = 0.7  #: mm kept inside a tile's flower band
GREEN_MARGIN = 1.5  #: mm kept from the edges of the green (plaque, flowers, band, path): hand placement


def ray_plane(cam: Camera, uv: np.ndarray, z: float) -> np.ndarray:
    """Board (x, y) where the rays of pixels ``uv`` (N, 2) meet the plane at height z."""
    xu, yu = cam.undistort_normalised(uv[:, 0], uv[:, 1])
    d = np.column_stack([xu, yu, np.ones(len(xu))]) @ cam.R  # board-frame directions (R^T d)
    c = cam.position
    s = (z - c[2]) / np.where(np.abs(d[:, 2]) > 1e-9, d[:, 2], 1e-9)
    return c[:2] + s[:, None] * d[:, :2]


#: what an empty tile shows at a point, as :func:`empty_print` says it
PRINT_UNKNOWN, PRINT_GREEN = -1, -2  #: anything else: the index in ``profile.flowers`` of its band


def _print_at(surf: Surfaces, i: int, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For board points (N, 2): whether they lie on tile i's top, and what its print shows there."""
    prof = surf.profile
    t = prof.tile
    half = t.size / 2
    x, y, _, turn = surf.pose(i)
    a = math.radians(turn)
    rel = xy - (x, y)
    au = np.abs(rel[:, 0] * math.cos(a) + rel[:, 1] * math.sin(a))
    av = np.abs(-rel[:, 0] * math.sin(a) + rel[:, 1] * math.cos(a))
    on = (au <= half) & (av <= half)
    off = (t.field_size + t.path_width) / 2  # field centres from the tile's centre
    lo, hi = t.path_width / 2 + GREEN_MARGIN, half - t.band_width - GREEN_MARGIN
    green = (au >= lo) & (au <= hi) & (av >= lo) & (av <= hi)
    green &= np.hypot(au - off, av - off) >= t.plaque_diameter / 2 + GREEN_MARGIN
    out = np.full(len(xy), PRINT_UNKNOWN)
    out[green] = PRINT_GREEN
    flower = getattr(surf.tiles[i], "flower", "") or ""
    if flower and flower != "white" and flower in prof.flowers:  # a white band looks like too much else
        edge = np.maximum(au, av)
        band = (edge >= half - t.band_width + BAND_MARGIN) & (edge <= half - BAND_MARGIN)
        band &= np.minimum(au, av) <= half - t.band_width  # not the corners (hand-placed neighbours)
        out[band] = list(prof.flowers).index(flower)
    return on, out


def _field_print(
    prof: Profile, centre: np.ndarray, turn: float, xy: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_print_at` for one field of a tile not read (which corner of its tile it is, hence where
    its band and path run, is not known): whether board points lie on the field, and where they show
    its garden green for sure."""
    t = prof.tile
    a = math.radians(turn)
    rel = xy - centre[:2]
    au = np.abs(rel[:, 0] * math.cos(a) + rel[:, 1] * math.sin(a))
    av = np.abs(-rel[:, 0] * math.sin(a) + rel[:, 1] * math.cos(a))
    off = (t.field_size + t.path_width) / 2  # from the field's centre to its edges
    reach = t.size / 2 - t.band_width - GREEN_MARGIN - off  # the green on the band's side, the nearer
    on = (au <= off) & (av <= off)
    green = (au <= reach) & (av <= reach) & (np.hypot(au, av) >= t.plaque_diameter / 2 + GREEN_MARGIN)
    return on, np.where(green, PRINT_GREEN, PRINT_UNKNOWN)


def empty_print(surf: Surfaces, cam: Camera, uv: np.ndarray, z_from: np.ndarray) -> np.ndarray:
    """What the photo would show at pixels ``uv`` without the piece whose points (at heights ``z_from``)
    project there: the first tile top the line of sight meets below those points (the tiles above them
    are hidden already), as :data:`PRINT_GREEN`, a band's flower index, or :data:`PRINT_UNKNOWN`."""
    out = np.full(len(uv), PRINT_UNKNOWN)
    open_ = np.ones(len(uv), bool)
    levels = sorted({t.level for t in surf.tiles}, reverse=True)
    for lv in levels:
        z = surf.profile.tile_top_z(lv)
        m = open_ & (z_from >= z - 0.5)
        if not m.any():
            continue
        xy = ray_plane(cam, uv[m], z)
        hit_any = np.zeros(int(m.sum()), bool)
        got = np.full(int(m.sum()), PRINT_UNKNOWN)
        for i, t in enumerate(surf.tiles):
            if t.level != lv:
                continue
            on, what = _print_at(surf, i, xy)
            got[on & ~hit_any] = what[on & ~hit_any]
            hit_any |= on
        for (cell, field_level), (centre, turn) in surf.guessed.items():
            if field_level == lv and surf.unread(cell, lv):
                on, what = _field_print(surf.profile, centre, turn, xy)
                got[on & ~hit_any] = what[on & ~hit_any]
                hit_any |= on
        idx = np.where(m)[0]
        out[idx[hit_any]] = got[hit_any]
        open_[idx[hit_any]] = False
    return out


def _sight_through(
    eye: np.ndarray, pts: np.ndarray, axis: np.ndarray, radius: float, height: float
) -> np.ndarray:
    """Whether the lines of sight from ``eye`` to board points ``pts`` (N, 3) pass within ``radius`` of
    the vertical axis through ``axis`` (a point on the surface the piece stands on), below ``height``
    over it."""
    d = eye - pts
    # the part of each line of sight between the points' height and the top of the piece
    top = np.clip((axis[2] + height - pts[:, 2]) / np.where(d[:, 2] > 1e-9, d[:, 2], 1e-9), 0.0, 1.0)
    seg = d[:, :2] * top[:, None]
    rel = axis[:2] - pts[:, :2]
    t = np.clip(np.sum(rel * seg, axis=1) / np.maximum(np.sum(seg * seg, axis=1), 1e-9), 0.0, 1.0)
    near = pts[:, :2] + seg * t[:, None]
    return np.hypot(*(near - axis[:2]).T) < radius
