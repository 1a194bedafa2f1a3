"""Where every piece of a garden really goes: hand placement (spec 2.3 and 2.5) on the things that
carry it.

A tile is set on its 2 x 2 block by hand: its centre off by up to 1.5 mm, turned by up to 3 degrees,
but never through a neighbour (hand-placed tiles touch, they do not interpenetrate). A pillar or a
decoration is set on a *field*, where the tile under it actually lies (or on a board cell), off that
field's centre by up to its placement offset. Stairs run from the far edge of the lower field to the
upper tile's edge. Everything rests on what carries it, so a warped board or a bowed tile lifts what
stands on it. Pure geometry: no meshes, no textures (:mod:`vision.render.scene` builds those).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from scoring.garden import Cell, Decoration, Garden, Tile
from scoring.support import GardenIndex, Support
from vision.profile import Profile
from vision.render.conditions import random_in_disc
from vision.render.mesh import Pose, rect

PLACEMENT_STREAM = 0x91AC  #: the placement's random stream: ``default_rng([seed, PLACEMENT_STREAM])``
TOUCH_MM = 1e-3  #: neighbours pushed apart are left this far apart: touching


def jitter(rng: np.random.Generator, off: float, turn: float) -> tuple[float, float, float]:
    """Hand placement: an offset in the disc of radius ``off`` and a turn within +-``turn`` degrees."""
    dx, dy = random_in_disc(rng, off)
    return dx, dy, float(rng.uniform(-turn, turn))


def _rot2(deg: float) -> np.ndarray:
    a = math.radians(deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


# ----------------------------------------------------------------------------- warps and bows


WARP_CELLS = 2  #: a warped board is drawn as flat triangles over a grid of this many cells a side


def _pillow(profile: Profile, warp_mm: float, x: float, y: float) -> float:
    u = 2 * x / profile.board.width - 1
    v = 2 * y / profile.board.depth - 1
    return float(warp_mm * max(0.0, 1 - u * u) * max(0.0, 1 - v * v))


def board_lift(profile: Profile, warp_mm: float, x: float, y: float) -> float:
    """How far a board bowed by ``warp_mm`` lifts the point (x, y) of its top: a pillow shape (its
    edges on the table, the middle up) sampled at the nodes of a :data:`WARP_CELLS` grid and flat over
    the two triangles of each cell (the diagonals alternate), exactly as the board is drawn."""
    if not warp_mm:
        return 0.0
    n = WARP_CELLS
    W, D = profile.board.width, profile.board.depth
    fx, fy = min(max(x / W * n, 0.0), n), min(max(y / D * n, 0.0), n)
    i, j = min(int(fx), n - 1), min(int(fy), n - 1)
    a, b = fx - i, fy - j
    z00, z10, z01, z11 = (_pillow(profile, warp_mm, (i + di) * W / n, (j + dj) * D / n)
                          for di, dj in ((0, 0), (1, 0), (0, 1), (1, 1)))
    if (i + j) % 2 == 0:  # diagonal from (0, 0) to (1, 1)
        return z00 + a * (z10 - z00) + b * (z11 - z10) if a >= b else z00 + b * (z01 - z00) + a * (z11 - z01)
    if a + b <= 1:  # diagonal from (1, 0) to (0, 1)
        return z00 + a * (z10 - z00) + b * (z01 - z00)
    return z11 + (1 - a) * (z01 - z11) + (1 - b) * (z10 - z11)


BOW_STRIPS = 3  #: a bowed tile's top is drawn as this many flat strips
BOWED_SHARE = 0.6  #: the share of tiles that are bowed at all (the others lie flat)


def bow_profile(bow_mm: float, half: float, t: np.ndarray | float) -> np.ndarray:
    """Height of a tile bowed by ``bow_mm`` at local coordinate ``t`` across its bow (-half..half): a
    parabola sampled at the edges of :data:`BOW_STRIPS` equal strips, scaled so that its top is
    ``bow_mm``, and flat over each strip, exactly as the tile is drawn."""
    if not bow_mm:
        return np.zeros(np.shape(t))
    return bow_mm * np.interp(np.asarray(t, float) / half, _BOW_NODES, _BOW_HEIGHTS)


_BOW_NODES = np.linspace(-1.0, 1.0, BOW_STRIPS + 1)
_BOW_HEIGHTS = (1 - _BOW_NODES**2) / (1 - _BOW_NODES**2).max()


@dataclass(frozen=True)
class PlacedTile:
    tile: Tile
    pose: Pose  #: local origin at the centre of the top face (before the bow), z up
    turn_deg: float
    bow_mm: float = 0.0  #: the middle of the top raised over its edges
    bow_axis: int = 0  #: the local axis (0: x, 1: y) across which the top is bowed

    def corners(self, size: float) -> np.ndarray:
        """The top face's corners (4, 3): the bow leaves the edges' ends where they are."""
        return self.pose.apply(np.column_stack([rect(size, size), np.zeros(4)]))

    def local(self, xy: np.ndarray) -> np.ndarray:
        """Board xy -> the tile's local xy."""
        return (np.asarray(xy, float) - self.pose.t[:2]) @ self.pose.R[:2, :2]

    def top_z(self, xy: np.ndarray, size: float) -> float:
        """Height of the (bowed) top at board xy."""
        loc = self.local(xy)
        return float(self.pose.t[2] + bow_profile(self.bow_mm, size / 2, loc[self.bow_axis]))

    def field_centre(self, cell: Cell, profile: Profile) -> np.ndarray:
        """The centre (3,) of the field over ``cell``, on the top, where this tile put it."""
        local = np.subtract(profile.cell_centre(*cell), profile.block_centre(self.tile.row, self.tile.col))
        xy = self.pose.t[:2] + self.pose.R[:2, :2] @ local
        return np.array([*xy, self.top_z(xy, profile.tile.size)])


@dataclass(frozen=True)
class PlacedPillar:
    support: Support
    under: Tile  #: the tile it carries
    pose: Pose  #: local origin at the centre of its foot
    double: bool


@dataclass(frozen=True)
class PlacedDecoration:
    decoration: Decoration
    pose: Pose  #: stairs: at the start of the run (local x up the run); others: the piece's centre
    xy: tuple[float, float]  #: the placement point (board mm): the middle of the piece's footprint
    rotation_deg: float
    anchor: np.ndarray  #: (3,) a point halfway up the piece (the truth's centre)
    run_mm: float = 0.0  #: stairs: length of the run
    rise_mm: float = 0.0  #: stairs: from the lower tile's top to the upper tile's top


@dataclass(frozen=True)
class Placement:
    tiles: tuple[PlacedTile, ...]  #: in key order (level, row, col)
    pillars: tuple[PlacedPillar, ...]  #: grouped by the tile they carry, in the tiles' order
    decorations: tuple[PlacedDecoration, ...]  #: in the garden's order
    board_warp_mm: float = 0.0

    def tile_at(self, cell: Cell, level: int) -> PlacedTile | None:
        for t in self.tiles:
            if t.tile.level == level and t.tile.covers(cell):
                return t
        return None


# ------------------------------------------------------------------------ tiles that never overlap


def _square(centre: np.ndarray, turn_deg: float, size: float) -> np.ndarray:
    return centre + rect(size, size) @ _rot2(turn_deg).T


def _penetration(a: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray]:
    """How deep two convex polygons (N, 2) overlap, and the unit axis to push ``b`` away from ``a``
    along (separating axis theorem); depth <= 0 when they are apart or just touch."""
    best, axis = math.inf, np.zeros(2)
    for poly in (a, b):
        edges = np.roll(poly, -1, axis=0) - poly
        for e in edges[:2]:  # a rectangle has two edge directions
            n = np.array([-e[1], e[0]]) / (np.hypot(*e) + 1e-12)
            pa, pb = a @ n, b @ n
            overlap = min(pa.max(), pb.max()) - max(pa.min(), pb.min())
            if overlap <= 0:
                return 0.0, n
            if overlap < best:
                best, axis = overlap, n
    if (b.mean(axis=0) - a.mean(axis=0)) @ axis < 0:
        axis = -axis
    return best, axis


def separate_tiles(
    centres: np.ndarray, offsets: np.ndarray, turns: np.ndarray, size: float, max_offset: float,
    pairs: list[tuple[int, int]],
) -> tuple[np.ndarray, np.ndarray]:
    """Hand-placement jitter (``offsets`` (N, 2) from the block ``centres``, ``turns`` in degrees) with
    the tiles of one level pushed apart where they would pass through each other, as a hand sliding a
    tile against its neighbour does: each overlapping pair (among ``pairs``) moves apart by half the
    overlap each, offsets kept within ``max_offset``. Where that cannot part them, the jitter of the
    pair is calmed (times 0.8) and they are pushed again; with no jitter at all the tiles are apart."""
    off, turn = offsets.astype(float).copy(), turns.astype(float).copy()

    def clamp(i: int) -> None:
        r = float(np.hypot(*off[i]))
        if r > max_offset:
            off[i] *= max_offset / r

    for _calm in range(60):
        stuck: set[int] = set()
        for _push in range(40):
            stuck = set()
            for i, j in pairs:
                depth, axis = _penetration(_square(centres[i] + off[i], turn[i], size),
                                           _square(centres[j] + off[j], turn[j], size))
                if depth > 0:
                    step = (depth + TOUCH_MM) / 2
                    off[i] -= step * axis
                    off[j] += step * axis
                    clamp(i)
                    clamp(j)
                    stuck |= {i, j}
            if not stuck:
                return off, turn
        for i in stuck:
            off[i] *= 0.8
            turn[i] *= 0.8
    raise RuntimeError("tiles could not be parted")  # cannot happen: unjittered tiles are 2 mm apart


# ---------------------------------------------------------------------------------- the placement


def pillars(index: GardenIndex, tile: Tile) -> list[Support]:
    """The pillars standing under a tile: every supportable field except the one under a
    belvedere (the tile was set on 3 supports there); a statue serving as the pillar is drawn
    with the decorations, not here."""
    def under_belvedere(cell: tuple[int, int]) -> bool:
        return any(d.kind == "belvedere" for d in index.pieces_at.get((cell, tile.level), ()))

    return [s for s in index.supports(tile) if s.kind in ("single", "double") and not under_belvedere(s.cell)]


class _Surfaces:
    """Heights of what pieces stand on: the (warped) board and the tiles placed so far."""

    def __init__(self, profile: Profile, warp_mm: float) -> None:
        self.profile, self.warp = profile, warp_mm
        self.tiles: dict[tuple[Cell, int], PlacedTile] = {}

    def add(self, t: PlacedTile) -> None:
        for cell in t.tile.cells:
            self.tiles[(cell, t.tile.level)] = t

    def field(self, cell: Cell, level: int) -> np.ndarray:
        """The centre (3,) of what a piece on ``cell`` at ``level`` stands on (0: a board cell)."""
        if level == 0:
            x, y = self.profile.cell_centre(*cell)
            return np.array([x, y, board_lift(self.profile, self.warp, x, y)])
        return self.tiles[(cell, level)].field_centre(cell, self.profile)

    def z(self, xy: np.ndarray, cell: Cell, level: int) -> float:
        """Height of the surface at ``level`` under board xy (near ``cell``)."""
        if level == 0:
            return board_lift(self.profile, self.warp, float(xy[0]), float(xy[1]))
        return self.tiles[(cell, level)].top_z(xy, self.profile.tile.size)


def _place_tiles(garden: Garden, profile: Profile, rng: np.random.Generator, bow_mm: float,
                 surf: _Surfaces) -> list[PlacedTile]:
    tm = profile.tile
    index = GardenIndex(garden)
    out: list[PlacedTile] = []
    ordered = sorted(garden.tiles, key=lambda t: t.key)
    for level in sorted({t.level for t in ordered}):
        tiles = [t for t in ordered if t.level == level]
        draws = [jitter(rng, tm.placement_offset, tm.placement_turn_deg) for _ in tiles]
        bows = [(float(rng.uniform(0.0, 1.0)) * bow_mm * (rng.random() < BOWED_SHARE), int(rng.integers(2)))
                for _ in tiles]
        centres = np.array([profile.block_centre(t.row, t.col) for t in tiles], float)
        pairs = [(i, j) for i in range(len(tiles)) for j in range(i + 1, len(tiles))
                 if abs(tiles[i].row - tiles[j].row) <= 2 and abs(tiles[i].col - tiles[j].col) <= 2]
        off, turn = separate_tiles(centres, np.array([d[:2] for d in draws]).reshape(-1, 2),
                                   np.array([d[2] for d in draws]), tm.size, tm.placement_offset, pairs)
        for k, t in enumerate(tiles):
            # it rests on what carries its fields: lifted by the mean height of those surfaces
            lift = np.mean([surf.field(s.cell, s.surface)[2] - profile.tile_top_z(s.surface)
                            for s in index.supports(t)])
            x, y = centres[k] + off[k]
            pose = Pose.at(float(x), float(y), profile.tile_top_z(level) + float(lift), float(turn[k]))
            pt = PlacedTile(t, pose, float(turn[k]), *bows[k])
            out.append(pt)
        for pt in out[-len(tiles):]:
            surf.add(pt)
    return out


def _place_pillars(garden: Garden, profile: Profile, rng: np.random.Generator, tiles: list[PlacedTile],
                   surf: _Surfaces) -> list[PlacedPillar]:
    index = GardenIndex(garden)
    out = []
    for pt in tiles:
        for s in pillars(index, pt.tile):
            base = surf.field(s.cell, s.surface)
            jx, jy, _ = jitter(rng, profile.pillar.placement_offset, 0)
            xy = base[:2] + (jx, jy)
            z = surf.z(xy, s.cell, s.surface)
            pose = Pose.at(float(xy[0]), float(xy[1]), z, float(rng.uniform(0, 360)))
            out.append(PlacedPillar(s, pt.tile, pose, s.kind == "double"))
    return out


def _height(profile: Profile, kind: str) -> float:
    dm = profile.decoration
    return {"statue": dm.statue_height, "fountain": dm.fountain_basin[2], "bridge": dm.bridge_rise,
            "belvedere": dm.belvedere_height}[kind]


def _ray_polygon(poly: np.ndarray, origin: np.ndarray, direction: np.ndarray) -> tuple[float, float]:
    """Parameters (t_in, t_out) where the line origin + t direction enters and leaves a convex polygon
    (Cyrus-Beck); t_in > t_out when it misses."""
    t_in, t_out = -math.inf, math.inf
    centre = poly.mean(axis=0)
    for p, q in zip(poly, np.roll(poly, -1, axis=0), strict=True):
        e = q - p
        n = np.array([e[1], -e[0]])
        if n @ (centre - p) > 0:
            n = -n  # outward
        den = float(n @ direction)
        num = float(n @ (p - origin))
        if abs(den) < 1e-12:
            if num < 0:
                return math.inf, -math.inf
            continue
        t = num / den
        if den > 0:
            t_out = min(t_out, t)
        else:
            t_in = max(t_in, t)
    return t_in, t_out


def _place_stairs(d: Decoration, profile: Profile, rng: np.random.Generator, surf: _Surfaces
                  ) -> PlacedDecoration:
    """The run starts at the lower field's far edge and ends where the stairs first touch the upper
    tile's side; hand placement moves them sideways (up to the placement offset) and turns them."""
    dm = profile.decoration
    dx, dy, turn = jitter(rng, dm.placement_offset, dm.placement_turn_deg)
    (ca, la), (cb, lb) = d.cell_levels
    if la > lb:
        (ca, la), (cb, lb) = (cb, lb), (ca, la)
    lower, upper = surf.tiles[(ca, la)], surf.tiles[(cb, lb)]
    p_lo, p_hi = lower.field_centre(ca, profile), upper.field_centre(cb, profile)
    axis0 = (p_hi - p_lo)[:2] / np.linalg.norm((p_hi - p_lo)[:2])
    side0 = np.array([-axis0[1], axis0[0]])
    origin = p_lo[:2] + (np.array([dx, dy]) @ side0) * side0  # the along-run part: pushed to the tile
    axis = _rot2(turn) @ axis0
    side = np.array([-axis[1], axis[0]])
    upper_poly = upper.corners(profile.tile.size)[:, :2]
    half = dm.stairs_width / 2
    end = min(_ray_polygon(upper_poly, origin + s * half * side, axis)[0] for s in (-1, 1))
    f = profile.tile.field_size
    field_local = rect(f, f) + (lower.local(p_lo[:2]))
    field_poly = lower.pose.t[:2] + field_local @ lower.pose.R[:2, :2].T
    start = -_ray_polygon(field_poly, origin, -axis)[1]
    s_xy = origin + start * axis
    z0 = lower.top_z(s_xy, profile.tile.size)
    rise = float(upper.pose.t[2] - z0)
    ang = math.degrees(math.atan2(axis[1], axis[0]))
    pose = Pose.at(float(s_xy[0]), float(s_xy[1]), z0, ang)
    mid = origin + (start + end) / 2 * axis
    anchor = np.array([mid[0], mid[1], z0 + rise / 2])
    return PlacedDecoration(d, pose, (float(mid[0]), float(mid[1])), ang, anchor, float(end - start), rise)


def _place_decoration(d: Decoration, profile: Profile, rng: np.random.Generator, surf: _Surfaces
                      ) -> PlacedDecoration:
    dm = profile.decoration
    if d.kind == "stairs":
        return _place_stairs(d, profile, rng, surf)
    dx, dy, turn = jitter(rng, dm.placement_offset, dm.placement_turn_deg)
    fields = [(c, lv) for c, lv in d.cell_levels if (c, lv) in surf.tiles]  # a bridge's middle: none
    centres = np.array([surf.field(c, lv) for c, lv in fields])
    if len(centres) > 1:
        v = centres[-1] - centres[0]
        base_ang = math.degrees(math.atan2(v[1], v[0]))
    else:
        c, lv = fields[0]
        base_ang = surf.tiles[(c, lv)].turn_deg + float(rng.integers(4)) * 90
    xy = centres[:, :2].mean(axis=0) + (dx, dy)
    z = float(np.mean([surf.z(xy, c, lv) for c, lv in fields]))
    pose = Pose.at(float(xy[0]), float(xy[1]), z, base_ang + turn)
    anchor = pose.apply([0, 0, _height(profile, d.kind) / 2])
    return PlacedDecoration(d, pose, (float(xy[0]), float(xy[1])), base_ang + turn, anchor)


def place_pieces(garden: Garden, profile: Profile, seed: int, board_warp_mm: float = 0.0,
                 tile_bow_mm: float = 0.0) -> Placement:
    """Where the tiles, pillars and decorations of photo ``seed`` go. ``board_warp_mm`` and
    ``tile_bow_mm``: the photo's :class:`~vision.render.conditions.Geometry` (each tile draws its own
    bow up to ``tile_bow_mm``)."""
    rng = np.random.default_rng([seed, PLACEMENT_STREAM])
    surf = _Surfaces(profile, board_warp_mm)
    tiles = _place_tiles(garden, profile, rng, tile_bow_mm, surf)
    pils = _place_pillars(garden, profile, rng, tiles, surf)
    decos = [_place_decoration(d, profile, rng, surf) for d in garden.decorations]
    return Placement(tuple(tiles), tuple(pils), tuple(decos), board_warp_mm)
