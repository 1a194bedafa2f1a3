"""Stage 6: the decorations standing on the garden (statues, fountains, bridges, stairs, belvederes).

The tiles are known (their cells, levels and hand placement), and so is the camera, so every place a
piece may stand is known in 3-D before a pixel is looked at. The rules (spec 1.3) list the
candidates: a statue or a belvedere on any field seen from above; a fountain on two adjacent fields of
two tiles of one level; a bridge straight over a gap between two tiles of one level; stairs between
adjacent fields of tiles one level apart. A fountain, bridge or stairs seen on a field of a tile read
may also stand, with its other field, on a tile hidden under higher ones (none read there, a higher
tile over the cell); such a candidate must look surer to be taken (stairs whose foot stands there, the
higher tile hiding the field round it, by their treads' stone alone). A fountain or stairs may also stand
with one field on a tile in sight from above but not read (the tile reader misses a low tile whose one
field in sight holds the piece): taken only surer still, where that field shows garden green round the
piece, and never over a piece read lower on that cell; it implies the tile
(:func:`vision.read.tiles.implied_by_pieces`). Each candidate is then tested
with the piece's own 3-D shape from the profile: points *inside* the solid (the axis of a statue,
the water of a fountain's basin, the middle of a bridge's deck, the treads of the stairs, the dome
of a belvedere) project onto pixels that show that solid, whatever the camera, unless something
nearer hides them. Tiles on higher
levels hide what stands below them, and pieces already found hide what lies under them; those pixels
are left out.

Colours are compared after white balance on the board's own sand, in linear light and by
chromaticity (a shadow scales all three channels alike, so it moves the brightness and not the
chromaticity): bronze is a saturated warm brown where the sand, the pillars and the printed path are
paler, the dome teal where the garden is yellow-green, the water cyan-blue, the bridge terracotta,
the stairs a neutral grey where the cream plaques are warm. References are the profile's colours, so
a calibrated profile reads another edition.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import product
from typing import Protocol

import cv2
import numpy as np

from scoring.garden import GRID, Cell, Decoration
from vision.camera import Camera
from vision.profile import DecorationModel, Profile, chroma, rgb, srgb_to_linear
from vision.read import piece_model

KINDS = ("statue", "fountain", "bridge", "stairs", "belvedere")
SLIVER_TOP = 4  #: the highest level of a tile :meth:`Surfaces.slivers` looks for (a level-5 tile is on top)


class TileLike(Protocol):
    """What the reader needs of a tile read: its block, level and hand placement (and, used when the
    object has it, its ``flower``: a coloured band a piece stands over)."""

    row: int
    col: int
    level: int
    placement: tuple[float, ...]  #: dx, dy (mm) of its centre from the block's centre, turn (degrees)


@dataclass(frozen=True)
class PlacedTile:
    """A tile with its placement, the minimum :class:`TileLike` (e.g. built from a truth file)."""

    row: int
    col: int
    level: int
    placement: tuple[float, ...] = (0.0, 0.0, 0.0)
    flower: str = ""  #: when known, its band tells a piece standing over it


# ------------------------------------------------------------------------------------------ geometry


class Surfaces:
    """Where the fields of the tiles read are: (cell, level) -> tile, the top level of every cell, and
    each field's centre on its tile's top as the tile was placed."""

    def __init__(self, tiles: Sequence[TileLike], profile: Profile) -> None:
        self.profile = profile
        self.tiles = list(tiles)
        self.at: dict[tuple[Cell, int], int] = {}
        top = np.zeros((GRID, GRID), int)
        for i, t in enumerate(self.tiles):
            for r in (t.row, t.row + 1):
                for c in (t.col, t.col + 1):
                    self.at.setdefault(((r, c), t.level), i)
                    top[r, c] = max(top[r, c], t.level)
        self.top = top
        #: fields of tiles hidden under higher ones that a piece seen may stand on: centre, turn
        self.guessed: dict[tuple[Cell, int], tuple[np.ndarray, float]] = {}
        #: fields of :meth:`slivers`: centre, turn
        self.sliver_fields: dict[tuple[Cell, int], tuple[np.ndarray, float]] = {}

    def pose(self, i: int) -> tuple[float, float, float, float]:
        """Tile i's top centre (x, y, z) and turn (degrees)."""
        t = self.tiles[i]
        bx, by = self.profile.block_centre(t.row, t.col)
        p = tuple(t.placement) + (0.0,) * (3 - len(t.placement))
        return bx + p[0], by + p[1], self.profile.tile_top_z(t.level), p[2]

    def field(self, cell: Cell, level: int) -> np.ndarray:
        """The centre (x, y, z) of the field over ``cell`` on the tile of ``level``."""
        for known in (self.guessed, self.sliver_fields):
            if (cell, level) in known:
                return known[(cell, level)][0]
        return self._on_tile(self.at[(cell, level)], cell)

    def _on_tile(self, i: int, cell: Cell) -> np.ndarray:
        """The centre of the field over ``cell`` in the frame of tile i as placed (on its top)."""
        t = self.tiles[i]
        x, y, z, turn = self.pose(i)
        local = np.subtract(self.profile.cell_centre(*cell), self.profile.block_centre(t.row, t.col))
        a = math.radians(turn)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return np.array([*(np.array([x, y]) + rot @ local), z])

    def turn(self, cell: Cell, level: int) -> float:
        for known in (self.guessed, self.sliver_fields):
            if (cell, level) in known:
                return known[(cell, level)][1]
        return self.pose(self.at[(cell, level)])[3]

    def has(self, cell: Cell, level: int) -> bool:
        return (cell, level) in self.at

    def seen(self, cell: Cell, level: int) -> bool:
        """No tile above ``level`` covers ``cell`` (it is seen from directly above)."""
        return bool(self.top[cell] <= level)

    def under(self, cell: Cell, level: int) -> bool:
        """A tile of ``level`` may stand over ``cell`` unread: none was read there, and a higher tile
        covers the cell, hiding what is below it."""
        return not self.has(cell, level) and bool(self.top[cell] > level)

    def unread(self, cell: Cell, level: int) -> bool:
        """A tile of ``level`` may stand over ``cell`` unread though in sight from above: nothing at that
        level or higher was read there. The tile reader misses a low tile whose only field in sight
        holds a piece (the piece hides the lines and the green it is read by); the piece, seen standing
        where the rules put it beside a tile read, tells the tile."""
        return bool(self.top[cell] < level)

    def slivers(self) -> list[tuple[Cell, int]]:
        """Fields of tiles not read that a statue may stand on, in sight from above on a cell read as
        bare board: on a block where no tile of that level was read, whose other cells each lie under a
        higher tile read or show the board too (a tile read there would be hidden by this one), one of
        them under a higher tile unless on level 1. Such a tile shows too little of its lines to be
        read (its one field in sight, or a few, the rest under higher tiles), and a statue on it hides
        much of the green it would be proposed by; the statue, seen standing there, tells the tile.
        Each field's centre is taken where the cell is on that level's plane (remembered apart from
        :attr:`guessed`, whose print other pieces are judged against, so that :meth:`field` and
        :meth:`turn` know it)."""
        out: set[tuple[Cell, int]] = set()
        for r in range(GRID - 1):
            for c in range(GRID - 1):
                block = [(r + dr, c + dc) for dr in (0, 1) for dc in (0, 1)]
                for cell in block:
                    if self.top[cell]:
                        continue
                    others = [int(self.top[x]) for x in block if x != cell]
                    for level in range(1, SLIVER_TOP + 1):
                        if (
                            all(t > level or t == 0 for t in others)
                            and (level == 1 or max(others) > level)
                            and not any(self.has(x, level) for x in block)
                        ):
                            out.add((cell, level))
        for cell, level in out:
            x, y = self.profile.cell_centre(*cell)
            self.sliver_fields[(cell, level)] = (np.array([x, y, self.profile.tile_top_z(level)]), 0.0)
        return sorted(out)

    def beside(self, cell: Cell, level: int, other: Cell, other_level: int) -> np.ndarray:
        """The centre of the field over ``other`` on a tile of ``other_level`` hidden under higher ones,
        taken to lie as the tile read under (``cell``, ``level``) would continue; remembered, so that
        :meth:`field` and :meth:`turn` know it."""
        i = self.at[(cell, level)]
        q = self._on_tile(i, other)
        q[2] = self.profile.tile_top_z(other_level)
        self.guessed[(other, other_level)] = (q, self.pose(i)[3])
        return q


@dataclass(frozen=True)
class Candidate:
    """A place a piece may stand, by the rules: its cells (and each one's level) and its pose."""

    kind: str
    cells: tuple[Cell, ...]
    levels: tuple[int, ...]  #: per cell; a bridge's middle cell gets the bridge's level
    origin: tuple[float, float, float]  #: the piece's local origin on the surface it stands on
    angle_deg: float  #: direction of the piece's local x axis in the board frame
    run: float = 0.0  #: stairs: length of the run
    rise: float = 0.0  #: stairs: height from the lower tile's top to the upper tile's top
    hidden: bool = False  #: one of its fields is on a tile not read (hidden under higher ones, or unread)

    @property
    def level(self) -> int:
        return min(self.levels)

    @property
    def fields(self) -> tuple[tuple[Cell, int], ...]:
        return piece_fields(self.kind, self.cells, self.levels)


def piece_fields(kind: str, cells: Sequence[Cell], levels: Sequence[int]) -> tuple[tuple[Cell, int], ...]:
    """The fields (cell, level) a piece occupies (a bridge's middle cell is a gap, not a field)."""
    if kind == "bridge":
        return ((cells[0], levels[0]), (cells[2], levels[2]))
    return tuple(zip(cells, levels, strict=True))


def _adjacent(cell: Cell) -> Iterable[tuple[Cell, tuple[int, int]]]:
    r, c = cell
    for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
        if 0 <= r + dr < GRID and 0 <= c + dc < GRID:
            yield (r + dr, c + dc), (dr, dc)


def _angle(a: np.ndarray, b: np.ndarray) -> float:
    return math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))


def candidates(surf: Surfaces) -> list[Candidate]:
    """Every placement the rules of spec 1.3 allow on the tiles read, seen (at least one of its cells)
    from above."""
    prof = surf.profile
    out: list[Candidate] = []
    fields = sorted(surf.at)
    half_field = prof.tile.field_size / 2
    for cell, level in fields:
        p = surf.field(cell, level)
        if surf.seen(cell, level):
            for kind in ("statue", "belvedere"):
                out.append(Candidate(kind, (cell,), (level,), tuple(p), surf.turn(cell, level)))
        ti = surf.at[(cell, level)]
        for nb, (dr, dc) in _adjacent(cell):
            forward = (dr, dc) in ((0, 1), (1, 0))
            if surf.seen(cell, level):
                out += _on_hidden(surf, cell, level, (dr, dc), p, half_field)
            # fountain: two fields of two tiles of one level (each pair once)
            if forward and surf.has(nb, level) and surf.at[(nb, level)] != ti:
                if surf.seen(cell, level) or surf.seen(nb, level):
                    q = surf.field(nb, level)
                    out.append(
                        Candidate("fountain", (cell, nb), (level, level), tuple((p + q) / 2), _angle(p, q))
                    )
            # bridge: ends on two tiles of one level, no tile of that level over the middle cell
            far = (cell[0] + 2 * dr, cell[1] + 2 * dc)
            if (
                forward
                and 0 <= far[0] < GRID
                and 0 <= far[1] < GRID
                and surf.has(far, level)
                and not surf.has(nb, level)
                and surf.at[(far, level)] != ti
            ):
                if surf.seen(cell, level) or surf.seen(far, level) or surf.top[nb] <= level:
                    q = surf.field(far, level)
                    out.append(
                        Candidate(
                            "bridge", (cell, nb, far), (level, level, level), tuple((p + q) / 2), _angle(p, q)
                        )
                    )
            # stairs: from this (lower) field up to the adjacent field of a tile one level up, whose
            # own tile is not over this field (the stairs rise to the upper tile's top)
            if surf.has(nb, level + 1) and not surf.has(cell, level + 1):
                if surf.seen(cell, level) or surf.seen(nb, level + 1):
                    q = surf.field(nb, level + 1)
                    out.append(_stairs(surf, (cell, nb), level, p, q, half_field, surf.at[(nb, level + 1)]))
            # stairs up to this field from a tile one level down, in sight but not read (Surfaces.unread),
            # or hidden under a higher tile (Surfaces.under) but for the stairs, rising from under it
            if (
                level > 1
                and surf.seen(cell, level)
                and (surf.unread(nb, level - 1) or surf.under(nb, level - 1) and not surf.has(nb, level))
            ):
                low = surf.beside(cell, level, nb, level - 1)
                stairs = _stairs(surf, (nb, cell), level - 1, low, p, half_field, ti)
                out.append(replace(stairs, hidden=True))
    for cell, level in surf.slivers():
        out.append(Candidate("statue", (cell,), (level,), tuple(surf.field(cell, level)), 0.0))
    return out


def _stairs(
    surf: Surfaces,
    cells: tuple[Cell, Cell],
    level: int,
    p: np.ndarray,
    q: np.ndarray,
    half_field: float,
    upper: int | None,
) -> Candidate:
    """Stairs from the lower field's centre ``p`` towards the upper one's ``q``: the run starts at the
    lower field's far edge and ends at the near edge of tile ``upper`` (None: a tile hidden under
    higher ones, whose edge is taken where the two cells meet)."""
    ang = _angle(p, q)
    axis = np.array([math.cos(math.radians(ang)), math.sin(math.radians(ang))])
    start = p[:2] - half_field * axis
    if upper is None:
        run = 2 * half_field
    else:
        run = float(
            np.clip(_upper_edge(surf, upper, start, axis), 2 * half_field - 2.0, 2 * half_field + 6.0)
        )
    return Candidate(
        "stairs",
        cells,
        (level, level + 1),
        (float(start[0]), float(start[1]), float(p[2])),
        ang,
        run,
        float(q[2] - p[2]),
        hidden=upper is None,
    )


def _on_hidden(
    surf: Surfaces, cell: Cell, level: int, step: tuple[int, int], p: np.ndarray, half_field: float
) -> list[Candidate]:
    """Fountains, bridges and stairs from a field seen from above, in direction ``step``, onto a field
    of a tile hidden under higher ones (:meth:`Surfaces.under`): the piece scores by what is seen. A
    fountain's other field and a bridge's far end may also be on a tile in sight but not read
    (:meth:`Surfaces.unread`)."""
    out = []
    nb = (cell[0] + step[0], cell[1] + step[1])
    far = (cell[0] + 2 * step[0], cell[1] + 2 * step[1])
    if surf.under(nb, level) or surf.unread(nb, level):
        q = surf.beside(cell, level, nb, level)
        pair = tuple(sorted((cell, nb)))
        out.append(Candidate("fountain", pair, (level, level), tuple((p + q) / 2), _angle(p, q), hidden=True))
    if (
        0 <= far[0] < GRID
        and 0 <= far[1] < GRID
        and not surf.has(nb, level)
        and (surf.under(far, level) or surf.unread(far, level))
    ):
        q = surf.beside(cell, level, far, level)
        line = tuple(sorted((cell, nb, far)))
        out.append(Candidate("bridge", line, (level,) * 3, tuple((p + q) / 2), _angle(p, q), hidden=True))
    if surf.under(nb, level + 1) and not surf.has(cell, level + 1):
        out.append(
            _stairs(surf, (cell, nb), level, p, surf.beside(cell, level, nb, level + 1), half_field, None)
        )
    return out


def _upper_edge(surf: Surfaces, i: int, start: np.ndarray, axis: np.ndarray) -> float:
    """Distance from ``start`` along ``axis`` to the near edge of tile i (its outline, turned)."""
    x, y, _, turn = surf.pose(i)
    a = math.radians(turn)
    u = np.array([math.cos(a), math.sin(a)])
    v = np.array([-math.sin(a), math.cos(a)])
    half = surf.profile.tile.size / 2
    best = math.inf
    rel = start - (x, y)
    for n in (u, v):
        den = float(axis @ n)
        if abs(den) < 0.3:
            continue
        for side in (-half, half):
            t = (side - float(rel @ n)) / den
            if t > 0:
                best = min(best, t)
    return best if math.isfinite(best) else 2 * surf.profile.tile.field_size


# --------------------------------------------------------------------------------- the pieces' points


@dataclass(frozen=True)
class Part:
    """Points inside (or on) one part of a piece, in its local frame (mm), and the colour they show."""

    colour: str  #: a key of :data:`GROUPS`
    points: np.ndarray  #: (N, 3)
    weight: float = 1.0
    #: how the part counts: "mean" parts are pooled (by weight) into the piece's colour share; the score
    #: is at most the share of any "min" part (a fountain's water at both ends and in the middle);
    #: a "cover" part is judged only where the empty tile would show its garden green (away from its
    #: plaque, band and path), where a piece must hide the green whatever the photo's colours, and caps
    #: the score likewise; a "gate" part rejects the piece unless ``gate`` of its points are hits
    role: str = "mean"
    gate: float = 0.0
    #: leave out points whose line of sight passes through the piece itself: (radius, height) of a
    #: cylinder round its axis (a point on the tile beside a belvedere, seen past its dome)
    own_body: tuple[float, float] | None = None


def _disc(r: float, step: float) -> np.ndarray:
    g = np.arange(-r, r + 1e-9, step)
    x, y = np.meshgrid(g, g)
    m = x * x + y * y <= r * r + 1e-9
    return np.column_stack([x[m], y[m]])


def _ellipse_grid(a: float, b: float, step: float) -> np.ndarray:
    gx, gy = np.arange(-a, a + 1e-9, step), np.arange(-b, b + 1e-9, step)
    x, y = np.meshgrid(gx, gy)
    m = (x / a) ** 2 + (y / b) ** 2 <= 1.0
    return np.column_stack([x[m], y[m]])


def bridge_top(profile: Profile, x: np.ndarray) -> np.ndarray:
    """Height of the bridge deck's top at local x (spec 2.5: 2 thick at the ends, 12 over the middle)."""
    return _bridge_top(profile.decoration, x)


def _bridge_top(d: DecorationModel, x: np.ndarray) -> np.ndarray:
    half = d.bridge_deck[0] / 2
    return (
        d.bridge_end_thickness
        + (d.bridge_rise - d.bridge_end_thickness) * np.cos(np.clip(x / half, -1, 1) * np.pi / 2) ** 0.7
    )


def piece_parts(profile: Profile, kind: str, run: float = 0.0, rise: float = 0.0) -> tuple[Part, ...]:
    """The parts of a piece as points that show it from any camera (inside convex parts, kept a hand
    placement's offset away from their outline)."""
    return _parts(profile.decoration, kind, round(run, 1), round(rise, 1))


@lru_cache(maxsize=256)
def _parts(d: DecorationModel, kind: str, run: float, rise: float) -> tuple[Part, ...]:
    if kind == "statue":
        bd, bh = d.statue_base
        axis = np.column_stack([np.zeros(8), np.zeros(8), np.linspace(bh, d.statue_height - 1.5, 8)])
        inner = _disc(bd / 2 - 2.5, 1.2)
        base = np.column_stack([inner, np.full(len(inner), bh * 0.6)])
        middle = _disc(bd / 2 - 1.0, 0.6)
        clear = np.column_stack([middle, np.full(len(middle), bh * 0.6)])
        return (
            Part("bronze", np.vstack([axis, base])),
            Part("clear", clear, role="gate", gate=1 - STATUE_CREAM_MAX),
        )
    if kind == "belvedere":
        r = d.belvedere_dome / 2
        z_dome = d.belvedere_height - r
        dome = _disc(r - 2.5, 1.0)
        dome_pts = np.column_stack([dome, np.full(len(dome), z_dome + r * 0.5)])
        h = d.belvedere_base / 2 - 1.2
        corners = np.array([[sx * h, sy * h] for sx in (-1, 1) for sy in (-1, 1)])
        roof = np.column_stack([corners, np.full(4, z_dome - d.belvedere_roof / 2)])
        slab = np.column_stack([corners, np.full(4, d.belvedere_slab / 2)])
        # round the base, the tile: a fountain's water, cyan like the dome, would reach there
        ring = np.column_stack([_ring(10.0, 11.0, 20), np.zeros(60)])
        return (
            Part("teal", dome_pts, 1.0),
            Part("ivory", np.vstack([roof, slab]), 0.3),
            Part("nocyan", ring, role="gate", gate=BELVEDERE_RING, own_body=(r + 1.5, d.belvedere_height)),
        )
    if kind == "fountain":
        L, W, H = d.fountain_basin
        ins = d.fountain_inset
        a, b = (L - 2 * ins) / 2 - 2.0, (W - 2 * ins) / 2 - 2.0
        water = _ellipse_grid(a, b, 1.5)
        water = water[np.hypot(water[:, 0], water[:, 1]) > d.fountain_spout[0] / 2 + 1.5]
        t = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        rim = np.column_stack([(L / 2 - ins / 2) * np.cos(t), (W / 2 - ins / 2) * np.sin(t), np.full(24, H)])
        # the water at both ends and in the middle: a belvedere's dome (cyan too) covers one end only
        w3 = np.column_stack([water, np.full(len(water), H)])
        third = a / 3
        return (
            Part("water", w3[water[:, 0] < -third], 1.0, role="min"),
            Part("water", w3[np.abs(water[:, 0]) <= third], 1.0, role="min"),
            Part("water", w3[water[:, 0] > third], 1.0, role="min"),
            Part("rim", rim, 0.3),
        )
    if kind == "bridge":
        L, W = d.bridge_deck
        x = np.linspace(-L / 2 + 3.0, L / 2 - 3.0, 19)
        y = np.array([-W / 2 + d.bridge_rail_width + 2.0, 0.0, W / 2 - d.bridge_rail_width - 2.0])
        X, Y = np.meshgrid(x, y)
        Z = _bridge_top(d, X) - 0.5
        return (Part("terracotta", np.column_stack([X.ravel(), Y.ravel(), Z.ravel()])),)
    if kind == "stairs":
        # the treads' colour, and where the empty field would show green, that something hides it
        n = d.stairs_steps
        step = run / n
        treads = [
            ((i + 0.5) * step, y, rise * (i + 1) / n - 1.0)
            for i in range(n)
            for y in (-d.stairs_width / 2 + 2.5, 0.0, d.stairs_width / 2 - 2.5)
        ]
        inside = []
        for x in np.arange(1.0, run - 0.9, 0.7):
            top = rise * (min(math.floor(x / step), n - 1) + 1) / n
            for y in np.linspace(-d.stairs_width / 2 + 1.5, d.stairs_width / 2 - 1.5, 9):
                inside += [(x, y, max(0.5, top - 1.0)), (x, y, max(0.5, top / 2))]
        return (Part("stone", np.array(treads), 1.0), Part("stone", np.array(inside), 1.0, role="cover"))
    raise ValueError(f"unknown decoration kind {kind!r}")


def _to_board(c: Candidate, pts: np.ndarray, shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """Local points of the piece (shifted by ``shift`` in its own frame) -> board points."""
    return _to_board_shifted(c, pts, [shift])


def _to_board_shifted(c: Candidate, pts: np.ndarray, shifts: Sequence[tuple[float, float]]) -> np.ndarray:
    """:func:`_to_board` of the same points at each of ``shifts``: (shifts * N, 3), shift after shift."""
    a = math.radians(c.angle_deg)
    ca, sa = math.cos(a), math.sin(a)
    sh = np.asarray(shifts, float).reshape(-1, 2)
    px, py = pts[None, :, 0] + sh[:, :1], pts[None, :, 1] + sh[:, 1:]
    out = np.empty((len(sh), len(pts), 3))
    out[..., 0] = c.origin[0] + ca * px - sa * py
    out[..., 1] = c.origin[1] + sa * px + ca * py
    out[..., 2] = c.origin[2] + pts[None, :, 2]
    return out.reshape(-1, 3)


# ---------------------------------------------------------------------------------------- colours


def palette(profile: Profile) -> dict[str, np.ndarray]:
    """Linear-light colours (B, G, R) of the pieces and of what they stand on, by name."""
    d, t = profile.decoration, profile.tile
    hexes = {
        "bronze": d.statue_colour,
        "teal": d.belvedere_dome_colour,
        "ivory": d.belvedere_post_colour,
        "water": d.fountain_water_colour,
        "rim": d.fountain_rim_colour,
        "terracotta": d.bridge_colour,
        "grey": d.stairs_colour,
        "green": t.garden_colour,
        "plaque": t.plaque_colour,
        "ink": t.icon_colour,
        "path": t.path_colour,
        "sand": profile.board.colour,
        "pillar": profile.pillar.colour,
        "edge": t.edge_colour,
        "hole": profile.board.hole_colour,
        "gap": profile.board.gap_colour,
        "cell": profile.board.cell_colour,
    }
    hexes.update({f"flower-{k}": v for k, v in profile.flowers.items()})
    return {k: srgb_to_linear(rgb(v))[::-1].astype(np.float32) for k, v in hexes.items()}


#: the part colours a piece is tested for; every other palette entry is what might show instead
PIECE_COLOURS = ("bronze", "teal", "ivory", "water", "rim", "terracotta", "grey")
LUM_RANGE = (-2.8, 0.8)  #: log2 of a surface's brightness over its lit reference: shadow .. glare
LUM_WEIGHT = 0.04  #: chromaticity distance per stop of brightness outside that range
MAX_CHROMA_DIST = 0.2  #: a pixel farther than this from every colour is nothing known
NEUTRAL = np.full(3, 1 / 3, np.float32)  #: the chromaticity of white and grey
#: a glossy piece's colour washed towards white by a highlight keeps its hue: a pixel at least this far
#: from neutral towards the colour (as a share of the colour's own distance), within a cone of this
#: half-width (perpendicular over along), still shows it (the fountain's water, white where it mirrors
#: the light, is cyan-white on its way there)
WASH_MIN = 0.2
WASH_MAX = 1.2  #: ... and no more saturated than this share past it
WASH_CONE = 0.35
#: ... and at least this share of the colour's lit brightness (a highlight adds light; in a washed-out
#: photo the water pales a quarter of the way to white at 0.9 of it: on 420 development photos, 1
#: fountain more read at 0.85 than at 1.0, none wrongly)
WASH_BRIGHT = 0.85
#: a pixel this far towards the colour shows it at any brightness its own colour allows (a washed-out
#: photo pales the water without a highlight; a shadow's blue tint on a white never gets this far)
WASH_DEEP = 0.35
#: where the water mirrors a lamp it is all but white: a trace of its hue (at least GLARE_LEAN along the
#: line from neutral to the colour, at most GLARE_PERP off it, in chromaticity) and far brighter than
#: the lit colour (GLARE_BRIGHT times: the rim's white, as bright, leans warm, away from the water).
#: Such glare over one end of a basin kept 3 fountains of 420 development photos from being read
#: (each end must show water); counted as water, they were, and none wrongly
GLARE_LEAN = 0.01
GLARE_PERP = 0.05
GLARE_BRIGHT = 1.6


class Classifier:
    """Each pixel -> the nearest palette colour by chromaticity, brightness breaking ties between colours
    of one chromaticity (the icon's ink and bronze, grey stairs and white rims); brightness is then
    judged against the light falling on the tile (:func:`local_light`)."""

    def __init__(self, profile: Profile) -> None:
        pal = palette(profile)
        self.names = list(pal)
        refs = np.array([pal[k] for k in self.names])
        self.chroma = chroma(refs)
        self.logy = np.log2(refs.sum(axis=1))
        self.index = {k: i for i, k in enumerate(self.names)}

    def classify(self, lin: np.ndarray) -> np.ndarray:
        """Palette index per pixel (N,), -1 for a pixel like none of them."""
        if not len(lin):
            return np.zeros(0, int)
        # (the sums over three channels written out: numpy's reductions over a short last axis are slow)
        s = np.maximum(lin[:, 0] + lin[:, 1] + lin[:, 2], 1e-4)
        c = lin / s[:, None]
        ly = np.log2(s)
        d0, d1, d2 = (c[:, i : i + 1] - self.chroma[None, :, i] for i in range(3))
        dc = np.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
        rel = ly[:, None] - self.logy[None]
        out = np.maximum(LUM_RANGE[0] - rel, 0) + np.maximum(rel - LUM_RANGE[1], 0)
        cost = dc + LUM_WEIGHT * out
        k = np.argmin(cost, axis=1)
        k[dc[np.arange(len(k)), k] > MAX_CHROMA_DIST] = -1
        return k

    def glare(self, lin: np.ndarray, name: str) -> np.ndarray:
        """Pixels (N,) all but white with a trace of colour ``name`` (a glossy surface of that colour
        mirroring a light): within :data:`GLARE_PERP` of the line from neutral to the colour's
        chromaticity, at least :data:`GLARE_LEAN` along it. (Their brightness is judged by the caller.)
        None in an edition with another colour there (a white as cool as the glare: a variant's rim)."""
        if self._near_white(np.delete(self.chroma, self.index[name], axis=0), name).any():
            return np.zeros(len(lin), bool)
        return self._near_white(chroma(lin), name)

    def _near_white(self, chromas: np.ndarray, name: str) -> np.ndarray:
        along, perp = self._from_white(chromas, name)
        return (along >= GLARE_LEAN) & (perp <= GLARE_PERP)

    def washed(self, lin: np.ndarray, name: str, least: float = WASH_MIN) -> np.ndarray:
        """Pixels (N,) that show colour ``name`` washed out towards white (a gloss highlight, glare): their
        chromaticity lies between neutral and the colour's, in the colour's own direction, at least
        ``least`` of the way (:data:`WASH_MIN` unless told) and not past :data:`WASH_MAX`."""
        along, perp = self._from_white(chroma(lin), name)
        t = along / float(np.linalg.norm(self.chroma[self.index[name]] - NEUTRAL))
        return (t >= least) & (t <= WASH_MAX) & (perp <= WASH_CONE * along)

    def _from_white(self, chromas: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
        """How far chromaticities (N, 3) lie from neutral along the line to colour ``name``'s, and off it."""
        d = self.chroma[self.index[name]] - NEUTRAL
        d = d / float(np.linalg.norm(d))
        off = chromas - NEUTRAL
        along = off @ d
        return along, np.linalg.norm(off - along[:, None] * d[None], axis=1)

GREEN_DOMINANCE = 0.06  #: garden green: its green chromaticity exceeds red's and blue's by this much
#: ... or, in a washed-out photo (low saturation, haze), by this share of the lead the photo's own
#: garden green shows (:meth:`Scorer.photo_lead`), not less than GREEN_FLOOR: there the green leads by
#: 0.03-0.07 only, and every field would look covered
GREEN_SHARE = 0.35
GREEN_FLOOR = 0.02
OWN_GREEN = 0.03  #: a ring round a field whose lead is less than this shows no garden green at all


def green_lead(lin: np.ndarray) -> np.ndarray:
    """How far green leads red and blue in the chromaticity of linear BGR colours (..., 3)."""
    c = chroma(lin)
    return c[..., 1] - np.maximum(c[..., 0], c[..., 2])


def is_green(lin: np.ndarray, lead: float = GREEN_DOMINANCE) -> np.ndarray:
    """Garden-green pixels (..., 3 linear BGR): green clearly the strongest channel, which no other print
    of the game shows and which survives white balance and saturation (chromaticity keeps its order)."""
    return green_lead(lin) > lead


_LUT = srgb_to_linear(np.arange(256) / 255.0)


class ColourSampler:
    """Linear-light, board-white-balanced colours of the photo at projected points."""

    def __init__(self, image: np.ndarray, cam: Camera, gain_srgb: np.ndarray) -> None:
        self.image = image
        self.cam = cam
        # a per-channel gain on sRGB values is (nearly) a gain of its 2.4th power on linear light
        self.gain = np.asarray(gain_srgb, np.float32) ** 2.4
        self.h, self.w = image.shape[:2]

    def pixels(self, pts: np.ndarray) -> np.ndarray:
        """Board points (N, 3) -> pixel coordinates (N, 2) in the working image."""
        return self.cam.project(pts)

    def sample(self, uv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Linear colours (N, 3) at pixels ``uv`` (nearest pixel) and which of them are in the image."""
        j = np.round(uv[:, 0]).astype(int)
        i = np.round(uv[:, 1]).astype(int)
        ok = (i >= 0) & (j >= 0) & (i < self.h) & (j < self.w)
        px = self.image[np.clip(i, 0, self.h - 1), np.clip(j, 0, self.w - 1)]
        return _LUT[px] * self.gain, ok


# --------------------------------------------------------------------------------------- occlusion


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


# ----------------------------------------------------------------------------------- the evidence


@dataclass
class Evidence:
    """How the photo agrees with one candidate."""

    candidate: Candidate
    score: float  #: 0..1, the weighted share of the piece's visible points that show its colours
    visible: float  #: the share of its points not hidden by nearer things
    parts: dict[str, float] = field(default_factory=dict)  #: share per part colour
    shift: tuple[float, float] = (0.0, 0.0)
    outline_px: np.ndarray | None = None
    glimpsed: bool = False  #: seen by too little to judge by colour, the network read it (:func:`_glimpsed`)


#: which palette colours count as each part's colour: the neutrals (grey stairs, white rims, ivory
#: posts, white flowers) share one chromaticity, bronze and terracotta nearly so; brightness and the
#: piece's shape tell them apart. A glossy statue, lit from the side, shows its bronze desaturated
#: towards the pale print's tan (path, cell): those count as bronze too; the plaque's cream round it
#: and the gate part keep an empty plaque from passing for a statue
GROUPS: dict[str, tuple[str, ...]] = {
    "bronze": ("bronze", "terracotta", "sand", "gap", "edge", "pillar", "path", "cell"),
    "clear": (),  #: judged by the plaque's cream and the green (:meth:`Scorer.evidence`)
    "terracotta": ("terracotta", "bronze"),
    "teal": ("teal", "water"),  # teal and water swap places under some lights: shapes tell them apart
    "water": ("water", "flower-blue", "teal"),
    "nocyan": (),  #: judged in :meth:`Scorer.evidence`
    "grey": ("grey", "flower-white", "rim", "ivory"),
    "stone": ("grey", "flower-white", "rim", "ivory", "plaque", "pillar", "path", "cell"),
    "rim": ("grey", "flower-white", "rim", "ivory", "plaque"),
    "ivory": ("grey", "flower-white", "rim", "ivory", "plaque"),
}
#: the palette colour whose brightness a group is judged against
REF_OF = {"stone": "grey", "clear": "plaque", "nocyan": "plaque"}
#: brightness of a part's pixels over its colour's lit brightness on that tile (:func:`local_light`):
#: the icon's ink is far darker than a bronze statue in the same light, white far brighter than grey
REL_LUM: dict[str, tuple[float, float]] = {
    "bronze": (0.16, 3.0),
    "clear": (0.0, math.inf),
    "nocyan": (0.0, math.inf),
    "terracotta": (0.15, 3.0),
    "teal": (0.12, 4.0),
    "water": (0.15, 4.0),
    "grey": (0.15, 1.9),
    "stone": (0.1, 2.0),  #: brighter than twice lit grey, it is glare on a pale print, not stone
    "rim": (0.1, 4.0),
    "ivory": (0.1, 4.0),
}


def _ring(r0: float, r1: float, n: int = 24) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.vstack([np.column_stack([r * np.cos(t), r * np.sin(t)]) for r in (r0, (r0 + r1) / 2, r1)])


PLAQUE_RING = _ring(8.4, 9.6)  #: on a plaque, outside a statue's base (6 mm and its hand placement)
MIN_PLAQUE = 12  #: fewer non-green pixels on that ring than this: a blank field
#: a statue's bronze is taken for icon ink when the brighter quarter of it lies below this share of the
#: geometric mean of the two colours' brightness over the plaque's, as this photo shows them
#: (:meth:`Scorer.measure_ink`): 0.064 of the plaque's in the reference edition in a clear photo, more
#: in a hazy one, whose veil lifts the ink. The brighter quarter, not the middle: a statue's shaded side
#: and the shadow round its base are as dark as ink, while its lit side is not, and an icon's ink is
#: dark all over. On 420 reference development photos read with their true tiles, the 31 statues and
#: icons whose middle fell under the line at 0.58 (the rule before): the 15 icons' brighter quarter
#: measured at most 1.01 times it, the statues' 1.64 and more (but 2 in a dim photo, 1.02-1.03);
#: 0.75 = 0.58 x 1.3 lies between, and no statue read before falls under it
INK_MARGIN = 0.75
#: the part of a piece on a plaque that ink may mimic, the margin below the line between the two, the
#: percentile of the part's brightness compared with it, and whether only its points that show its
#: colour count (a statue's: an icon drawn with thin strokes leaves the cream between them in sight,
#: which is no brighter bronze; the ink of the strokes has the bronze's hue). On variant photos read
#: with a calibrated profile, a belvedere's dome (lit from above) measured 0.22-0.31 of its plaque's
#: brightness, the dark blue icons 0.05-0.07, and the line lies at 0.12; no dome of the 200 development
#: photos (140 reference, 60 variant) fell under it
INKY_PART = {"statue": ("bronze", INK_MARGIN, 75, True), "belvedere": ("teal", 1.0, 50, False)}
ICON_DISC = _disc(4.5, 0.8)  #: round a plaque's centre: the middle of its icon (a 14 mm box)
INK_SHARE = 10  #: a plaque's ink: this percentile of the brightness of its icon's middle
INK_FIELDS = 6  #: the photo's ink is measured on this many plaques at least (else the profile's holds)
CREAM_SHARE = 0.6  #: a pixel as bright as this share of its plaque's cream, and of its chromaticity ...
CREAM_CHROMA = 0.04  #: ... within this, shows the plaque
BELVEDERE_RING = 0.85  #: share of the tile round a belvedere's base that must not look like water
STATUE_CREAM_MAX = 0.07  #: a statue's base leaves at most this share of the middle of its field cream
STAIRS_CLEAR = 0.75  #: share of the middle of stairs' lower field that must show neither cream nor green
GREEN_RING = _ring(11.0, 12.6)  #: around a field's centre: its garden green, beyond a plaque and a piece
MIN_GREEN = 6  #: fewer green pixels round a field than this: its light is not measured
#: the plaque's cream, over its print's brightness, is this share of the light its field's green ring
#: measures in a typical photo (the median over 200 development photos: 0.78). A haze or a flat phone
#: look brightens the green more than the near-white cream (0.3-0.5 in the most washed-out photos),
#: and the light measured on the green then leaves a statue's bronze too dark for bronze: a statue's
#: light is no more than its plaque's cream tells (on 420 development photos read with their true
#: tiles, 3 statues more found, 1 more read wrongly; applied to every piece, bridges and stairs lost)
PLAQUE_LIGHT = 0.775
#: stairs whose fields' green rings measure less light than this share of the photo's typical field
#: (:meth:`Scorer.typical_light`) are judged in that typical light: they rise out of the shade into the
#: light, and their grey, judged in the shade's light, is as bright as a plaque's cream. On 420
#: development photos read through the whole reader, the 2 stairs missed so had rings at 0.25 and 0.4
#: of the typical light; lifting every stairs' light to the typical made 3 wrong stairs more, with
#: rings at 0.51-0.9 of it
SHADE = 0.5
BAND_MARGIN = 0.7  #: mm kept inside a tile's flower band
GREEN_MARGIN = 1.5  #: mm kept from the edges of the green (plaque, flowers, band, path): hand placement
MIN_PART = 5  #: a "min" part with fewer visible points than this is not judged
MIN_COVER = 6  #: fewer points where the empty tile shows green than this: a cover part is not judged
UNJUDGED_COVER = (
    0.0  #: a piece whose cover part cannot be judged is not read (stairs always cross some green)
)


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


def _shifts(c: Candidate, shifts: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The hand-placement shifts tried for a candidate: stairs only sideways (their run is fixed
    between the lower field's far edge and the upper tile); the diagonal ones only for statues, whose
    gate needs their base found closely."""
    if c.kind == "stairs":
        return [(0.0, y) for x, y in shifts if x == 0.0]
    if c.kind != "statue":
        return [(x, y) for x, y in shifts if x == 0.0 or y == 0.0]
    return list(shifts)


class Scorer:
    """Tests candidates against one photo, many at once (one projection and one colour lookup for all
    their points)."""

    def __init__(
        self, image: np.ndarray, cam: Camera, surf: Surfaces, profile: Profile, gain_srgb: np.ndarray
    ) -> None:
        self.sampler = ColourSampler(image, cam, gain_srgb)
        self.classifier = Classifier(profile)
        self.occ = Occluders(cam, surf)
        self.surf, self.profile = surf, profile
        names = self.classifier.names
        self.group_of = {k: np.array([n in v for n in names] + [False]) for k, v in GROUPS.items()}
        self._light: dict[tuple[Cell, int], float] = {}
        self._lead: dict[tuple[Cell, int], float] = {}
        self._classes = np.full(image.shape[0] * image.shape[1], -2, np.int8)  #: -2: not classified yet
        self._cream: dict[tuple[Cell, int], tuple[float, np.ndarray]] = {}
        self._cream_ref: tuple[float, np.ndarray] | None = None
        self._typical: float | None = None
        #: the plaque's brightness in the profile (what a plaque's cream is measured against)
        self._plaque_y = float(np.exp2(self.classifier.logy[self.classifier.index["plaque"]]))
        self.ink: float | None = None  #: the icons' ink over their plaques' cream (:meth:`measure_ink`)
        #: palette class (and -1, none) -> the print code of :func:`empty_print` it shows
        self.print_of_class = np.full(len(names) + 1, PRINT_UNKNOWN)
        for fi, f in enumerate(profile.flowers):
            self.print_of_class[self.classifier.index[f"flower-{f}"]] = fi
        #: the fields seen from above (of the tiles read, not covered by a higher one)
        self.fields_seen = sorted(f for f in surf.at if surf.seen(*f))
        self.lead = self.photo_lead()

    def photo_lead(self) -> float:
        """How far green must lead red and blue for a pixel to show garden green in this photo (see
        :data:`GREEN_SHARE`): measured round every field seen from above."""
        if not self.fields_seen:
            return GREEN_DOMINANCE
        lin, ok = self._ring_colours(self.fields_seen, GREEN_RING)
        if ok.sum() < MIN_GREEN:
            return GREEN_DOMINANCE
        own = float(np.percentile(green_lead(lin[ok]), 75))
        return float(np.clip(GREEN_SHARE * own, GREEN_FLOOR, GREEN_DOMINANCE))

    def classes(self, uv: np.ndarray, lin: np.ndarray) -> np.ndarray:
        """:meth:`Classifier.classify` of the pixels at ``uv`` (whose colours are ``lin``), each pixel
        classified once per photo (the pieces' points and their shifts fall on the same pixels)."""
        s = self.sampler
        j = np.clip(np.round(uv[:, 0]).astype(int), 0, s.w - 1)
        i = np.clip(np.round(uv[:, 1]).astype(int), 0, s.h - 1)
        idx = i * s.w + j
        have = self._classes[idx]
        new = have == -2
        if new.any():
            todo, first = np.unique(idx[new], return_index=True)
            self._classes[todo] = self.classifier.classify(lin[new][first])
            have = self._classes[idx]
        return have.astype(int)

    def _ring_colours(
        self, fields: Sequence[tuple[Cell, int]], ring: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The linear colours on ``ring`` (mm, round each field's centre) of every field, field after
        field, and which of them are in sight (in the photo, not hidden by tiles above the field)."""
        n = len(ring)
        pts = np.vstack(
            [
                np.column_stack([ring + p[:2], np.full(n, p[2])])
                for p in (self.surf.field(c, lv) for c, lv in fields)
            ]
        )
        levels = np.repeat([lv for _, lv in fields], n)
        uv = self.sampler.pixels(pts)
        lin, ok = self.sampler.sample(uv)
        for lv in np.unique(levels):
            m = levels == lv
            ok[m] &= ~self.occ.hidden(uv[m], int(lv))
        return lin, ok

    def green_seen(self, field: tuple[Cell, int]) -> int:
        """How many points of the ring round a field, in sight, show garden green."""
        lin, ok = self._ring_colours([field], GREEN_RING)
        return int((is_green(lin, self.leads([field])[0]) & ok).sum())

    def lights(self, fields: Sequence[tuple[Cell, int]]) -> np.ndarray:
        """The light on each field: the brightness of its garden green over the green's lit reference
        (the 70th percentile over a ring round the field, so a piece's own shadow does not count);
        1.0 where too little green shows."""
        todo = sorted({f for f in fields if f not in self._light})
        if todo:
            n = len(GREEN_RING)
            lin, ok = self._ring_colours(todo, GREEN_RING)
            g = self.classifier.index["green"]
            lead = green_lead(lin)
            y = lin.sum(axis=1) / np.exp2(self.classifier.logy[g])
            for i, f in enumerate(todo):
                sl = slice(i * n, (i + 1) * n)
                seen = lead[sl][ok[sl]]
                own = float(np.percentile(seen, 75)) if len(seen) >= MIN_GREEN else 0.0
                # no green round the field at all (a bare cell, pieces): the photo's lead holds
                mine = min(max(GREEN_SHARE * own, GREEN_FLOOR), self.lead)
                self._lead[f] = self.lead if own < OWN_GREEN else mine
                yi = y[sl][ok[sl] & (lead[sl] > self._lead[f])]
                self._light[f] = float(np.percentile(yi, 70)) if len(yi) >= MIN_GREEN else 1.0
        return np.array([self._light[f] for f in fields])

    def _piece_light(self, c: Candidate) -> float:
        """The light on a candidate's fields (:meth:`lights`, measured first); stairs', no less than the
        photo's typical field's where their fields lie in a deep shade (:data:`SHADE`); a statue's, no
        more than its plaque's cream tells (:data:`PLAQUE_LIGHT`)."""
        light = float(np.mean([self._light[f] for f in c.fields]))
        if c.kind == "stairs" and light < SHADE * self.typical_light():
            light = self.typical_light()
        if c.kind == "statue":
            cream = self._cream[c.fields[0]][0]
            if math.isfinite(cream):
                light = min(light, cream / self._plaque_y / PLAQUE_LIGHT)
        return light

    def leads(self, fields: Sequence[tuple[Cell, int]]) -> np.ndarray:
        """How far green must lead for a pixel to show each field's garden green: :data:`GREEN_SHARE` of
        the lead round the field (a haze or a highlight washes out part of a photo), no more than the
        photo's (:meth:`photo_lead`)."""
        self.lights(fields)
        return np.array([self._lead[f] for f in fields])

    def cream_levels(self, fields: Sequence[tuple[Cell, int]]) -> list[tuple[float, np.ndarray]]:
        """The brightness and chromaticity of each field's plaque (its cream, on a ring round the middle
        that a statue leaves free); infinite brightness on a blank field (no plaque: green there)."""
        todo = sorted({f for f in fields if f not in self._cream})
        if todo:
            n = len(PLAQUE_RING)
            lin, ok = self._ring_colours(todo, PLAQUE_RING)
            ok &= ~(green_lead(lin) > np.repeat(self.leads(todo), n))
            y = lin.sum(axis=1)
            ch = chroma(lin)
            for i, f in enumerate(todo):
                sl = slice(i * n, (i + 1) * n)
                yi = y[sl][ok[sl]]
                if len(yi) >= MIN_PLAQUE:
                    self._cream[f] = (float(np.percentile(yi, 85)), np.median(ch[sl][ok[sl]], axis=0))
                else:
                    self._cream[f] = (math.inf, np.zeros(3))
        return [self._cream[f] for f in fields]

    def typical_light(self) -> float:
        """The median light over the fields seen from above (:meth:`lights`)."""
        if self._typical is None:
            self._typical = float(np.median(self.lights(self.fields_seen))) if self.fields_seen else 1.0
        return self._typical

    def cream_reference(self) -> tuple[float, np.ndarray]:
        """The plaques' cream in this photo: brightness over the light on its field, and chromaticity
        (medians over every field of the tiles read whose plaque shows)."""
        if self._cream_ref is None:
            levels = self.cream_levels(self.fields_seen)
            lights = self.lights(self.fields_seen)
            ok = [i for i, (y, _) in enumerate(levels) if math.isfinite(y)]
            if ok:
                ratio = float(np.median([levels[i][0] / lights[i] for i in ok]))
                tint = np.median(np.array([levels[i][1] for i in ok]), axis=0)
            else:
                pal = palette(self.profile)
                ratio, tint = float(pal["plaque"].sum()), chroma(pal["plaque"])
            self._cream_ref = (ratio, tint)
        return self._cream_ref

    def measure_ink(self, exclude: Collection[tuple[Cell, int]] = ()) -> float | None:
        """The icons' ink in this photo, as a share of their plaques' cream: the lower quartile, over
        the plaques in sight (but those in ``exclude``: fields that may hold a statue, whose bronze
        would pass for pale ink), of the darkest tenth of each icon's middle. A hazy photo's veil of
        light lifts it above the printed ink's share; None with too few plaques to tell."""
        fields = [f for f in self.fields_seen if f not in exclude]
        if not fields:
            return None
        creams = self.cream_levels(fields)
        lin, ok = self._ring_colours(fields, ICON_DISC)
        y = lin.sum(axis=1)
        n = len(ICON_DISC)
        shares = [
            float(np.percentile(y[i * n : (i + 1) * n][ok[i * n : (i + 1) * n]], INK_SHARE)) / cream
            for i, (cream, _) in enumerate(creams)
            if math.isfinite(cream) and ok[i * n : (i + 1) * n].sum() >= n // 2
        ]
        self.ink = float(np.percentile(shares, 25)) if len(shares) >= INK_FIELDS else None
        return self.ink

    def _inky(
        self,
        cands: Sequence[Candidate],
        owners: list[int],
        seg_parts: list[Part],
        bounds: np.ndarray,
        lin: np.ndarray,
        ok: np.ndarray,
        hit: np.ndarray,
    ) -> np.ndarray:
        """Per segment: whether it is the main part of a piece that stands on a plaque (a statue's bronze,
        a belvedere's dome) whose pixels are as dark, against the field's plaque, as the icon's ink
        rather than the piece (a bold icon drawing on an empty plaque covers its middle; an edition may
        print its icons in nearly the dome's hue). The line between the two is the geometric mean of
        their brightness over the plaque's, lowered by the piece's margin, and a percentile of the part's
        brightness (of its points in sight, or of those that show its colour, ``hit``) is held against it
        (:data:`INKY_PART`). A hazy photo adds a veil of light to every colour: the ink measured in the
        photo (:attr:`ink`) tells how much, and the piece's colour is lifted by as much."""
        out = np.zeros(len(owners), bool)
        logy, ix = self.classifier.logy, self.classifier.index
        if "ink" not in ix:
            return out
        plaque = logy[ix["plaque"]]
        printed = 2.0 ** (logy[ix["ink"]] - plaque)
        ink = min(max(self.ink or 0.0, printed), 0.9)
        veil = (ink - printed) / (1.0 - ink)  #: (ink + veil) / (1 + veil) = the ink measured
        line = {
            kind: margin * math.sqrt(ink * (2.0 ** (logy[ix[colour]] - plaque) + veil) / (1.0 + veil))
            for kind, (colour, margin, _, _) in INKY_PART.items()
        }
        y = lin.sum(axis=1)
        for si, ci in enumerate(owners):
            c = cands[ci]
            if c.kind not in INKY_PART or seg_parts[si].colour != INKY_PART[c.kind][0]:
                continue
            cream = self._cream[c.fields[0]][0]
            a, b = bounds[si], bounds[si + 1]
            _, _, percentile, of_colour = INKY_PART[c.kind]
            seen = y[a:b][ok[a:b] & hit[a:b]] if of_colour else y[a:b][ok[a:b]]
            if math.isfinite(cream) and len(seen) >= MIN_PART:
                out[si] = float(np.percentile(seen, percentile)) < line[c.kind] * cream
        return out

    def foot_hidden(self, c: Candidate) -> bool:
        """Whether ``c`` is stairs whose foot stands on a tile hidden under a higher one."""
        return c.kind == "stairs" and c.hidden and self.surf.under(*c.fields[0])

    def evidence(
        self, cands: Sequence[Candidate], shifts: Sequence[tuple[float, float]] = ((0.0, 0.0),)
    ) -> list[Evidence]:
        """For each candidate, the share of its visible points that show its colours at the best of
        ``shifts`` (mm; the pieces are placed by hand); hidden points (by tiles above the candidate's
        level and the pieces found so far) are left out."""
        if not cands:
            return []
        pts, seg_parts, owners, shift_of, sizes = [], [], [], [], []
        seg = 0
        for ci, c in enumerate(cands):
            parts = piece_parts(self.profile, c.kind, c.run, c.rise)
            tried = _shifts(c, shifts)
            pts.append(_to_board_shifted(c, np.vstack([part.points for part in parts]), tried))
            for sh in tried:
                for part in parts:
                    seg_parts.append(part)
                    owners.append(ci)
                    shift_of.append(sh)
                    sizes.append(len(part.points))
                    seg += 1
        sizes = np.array(sizes)
        seg_id = np.repeat(np.arange(seg), sizes)
        bounds = np.concatenate([[0], np.cumsum(sizes)])  #: segment si's points: bounds[si]:bounds[si + 1]
        allp = np.vstack(pts)
        uv = self.sampler.pixels(allp)
        lin, ok = self.sampler.sample(uv)
        levels = np.array([cands[o].level for o in owners])[seg_id]
        for lv in np.unique(levels):
            m = levels == lv
            ok[m] &= ~self.occ.hidden(uv[m], int(lv))
        k = self.classes(uv, lin)
        self.lights(sorted({f for c in cands for f in c.fields}))  # all at once, then cached
        self.cream_levels(sorted({c.fields[0] for c in cands if c.kind in INKY_PART}))
        light = np.array([self._piece_light(c) for c in cands])
        colours = sorted({p.colour for p in seg_parts})
        hit = np.zeros(len(allp), bool)
        seg_colour = np.array([p.colour for p in seg_parts])[seg_id]
        y = lin.sum(axis=1) / light[np.array(owners)][seg_id]
        role = np.array([p.role for p in seg_parts])[seg_id]
        cover_seg = role == "cover"
        expect = np.full(len(allp), PRINT_UNKNOWN)
        if cover_seg.any():
            expect[cover_seg] = empty_print(self.surf, self.sampler.cam, uv[cover_seg], allp[cover_seg, 2])
            ok[cover_seg] &= expect[cover_seg] != PRINT_UNKNOWN
        body = np.array([p.own_body is not None for p in seg_parts])[seg_id]
        if body.any():
            for si in np.unique(seg_id[body]):
                m = slice(bounds[si], bounds[si + 1])
                c = cands[owners[si]]
                radius, height = seg_parts[si].own_body
                axis = _to_board(c, np.zeros((1, 3)), shift_of[si])[0]
                ok[m] &= ~_sight_through(self.sampler.cam.position, allp[m], axis, radius, height)
        lead = np.array([min(self._lead[f] for f in c.fields) for c in cands])  # (lights measured them)
        green = green_lead(lin) > lead[np.array(owners)][seg_id]
        for col in colours:
            m = seg_colour == col
            ref = np.exp2(self.classifier.logy[self.classifier.index[REF_OF.get(col, col)]])
            lo, hi = REL_LUM[col]
            rel = y[m] / ref
            hit[m] = self.group_of[col][k[m]] & (rel >= lo) & (rel <= hi)
            if col == "water":  # a highlight washes it out and brightens it: a pale, dim blue is a shadow
                hit[m] |= self.classifier.washed(lin[m], "water") & (rel >= WASH_BRIGHT)
                hit[m] |= self.classifier.washed(lin[m], "water", WASH_DEEP) & (rel >= lo)
                hit[m] |= self.classifier.glare(lin[m], "water") & (rel >= GLARE_BRIGHT)  # a lamp mirrored
        # the treads of stairs whose foot stands under a higher tile, judged without their cover part,
        # are grey or white stone only (under a tile the board's print and the pillars show, in shade)
        under = np.array([self.foot_hidden(c) for c in cands])[np.array(owners)][seg_id] & (role == "mean")
        hit[under] &= self.group_of["rim"][k[under]]
        # a cover point is a hit where the photo does not show the print the empty tile would
        shown = np.where(green, PRINT_GREEN, self.print_of_class[k])
        hit[cover_seg] = (shown != expect)[cover_seg]
        cyan = seg_colour == "nocyan"
        if cyan.any():
            hit[cyan] = ~(self.group_of["water"][k[cyan]] | self.classifier.washed(lin[cyan], "water"))
        clear = seg_colour == "clear"
        if clear.any():
            level = np.full(len(allp), math.inf)
            tint = np.zeros((len(allp), 3))
            for si in np.unique(seg_id[clear]):
                m = slice(bounds[si], bounds[si + 1])
                c = cands[owners[si]]
                if c.kind == "stairs":  # its own field's plaque is under it: the photo's plaques tell
                    share, tint[m] = self.cream_reference()
                    level[m] = share * self.lights(c.fields[:1])[0]
                else:
                    level[m], tint[m] = self._cream[c.fields[0]]
            lc = lin[clear]
            creamy = (lc.sum(axis=1) >= CREAM_SHARE * level[clear]) & (
                np.linalg.norm(chroma(lc) - tint[clear], axis=1) < CREAM_CHROMA
            )
            hit[clear] = ~(creamy | green[clear])
        n_vis = np.bincount(seg_id, weights=ok, minlength=seg)
        n_hit = np.bincount(seg_id, weights=ok & hit, minlength=seg)
        inky = self._inky(cands, owners, seg_parts, bounds, lin, ok, hit)
        out = []
        j = 0
        for c in cands:
            n_parts = len(piece_parts(self.profile, c.kind, c.run, c.rise))
            best: Evidence | None = None
            for sh in _shifts(c, shifts):
                num = den = tot = 0.0
                shares: dict[str, float] = {}
                gates: list[bool] = []
                caps: list[float] = []
                for i in range(n_parts):
                    part = seg_parts[j]
                    share = float(n_hit[j] / n_vis[j]) if n_vis[j] else 0.0
                    shares[f"{part.colour}{i}"] = share
                    if part.role == "cover":  # not judged where too little green shows
                        caps.append(share if n_vis[j] >= MIN_COVER else -1.0)
                    elif part.role == "gate":
                        gates.append(share >= part.gate)
                    else:
                        if part.role == "min" and n_vis[j] >= MIN_PART:
                            caps.append(share)
                        num += part.weight * n_hit[j]
                        den += part.weight * n_vis[j]
                        tot += part.weight * sizes[j]
                    j += 1
                score = num / den if den else 0.0
                if caps and min(caps) >= 0:
                    score = min(score, *caps)
                elif caps and not self.foot_hidden(c):
                    # a cover part not judged: the colours alone count, less; but where the foot of
                    # stairs stands under a higher tile, that tile hides what the cover part tests, and
                    # the treads alone tell (in stone's own colours, and surer: ON_HIDDEN_MIN)
                    score *= UNJUDGED_COVER
                if not all(gates) or inky[j - n_parts : j].any():
                    score = 0.0
                ev = Evidence(c, float(score), float(den / tot) if tot else 0.0, shares, sh)
                if best is None or ev.score > best.score:
                    best = ev
            assert best is not None
            out.append(best)
        return out


# ------------------------------------------------------------------------------------- the reading


@dataclass(frozen=True)
class DecorationFind:
    """A piece found on the garden."""

    kind: str
    cells: tuple[Cell, ...]
    levels: tuple[int, ...]  #: the level at each cell (a bridge's middle cell: the bridge's level)
    score: float  #: 0..1, the share of its visible points that show its colours
    visible: float  #: 0..1, the share of its points the photo shows
    centre_px: tuple[float, float]  #: in the working image
    #: (N, 2) working-image points whose convex hull holds the piece in the photo (:func:`piece_hull`)
    outline_px: np.ndarray | None = field(default=None, compare=False, repr=False)

    @property
    def level(self) -> int:
        return min(self.levels)

    @property
    def fields(self) -> tuple[tuple[Cell, int], ...]:
        return piece_fields(self.kind, self.cells, self.levels)

    @property
    def confidence(self) -> float:
        """0..1: how far the evidence is above the acceptance threshold."""
        t = THRESHOLDS[self.kind]
        return float(np.clip(0.5 + (self.score - t) / (2 * (1 - t)), 0.0, 1.0) * min(1.0, 2 * self.visible))

    def to_decoration(self) -> Decoration:
        """The piece in the ``babylon-garden/1`` model (stairs listed lower field first)."""
        if self.kind == "stairs":
            return Decoration(kind="stairs", cells=self.cells, levels=(self.levels[0], self.levels[1]))
        return Decoration(kind=self.kind, cells=self.cells, level=self.level)


THRESHOLDS: dict[str, float] = {
    "statue": 0.5,
    "fountain": 0.5,
    "bridge": 0.5,
    "stairs": 0.5,
    #: the dome is one solid colour over its whole disc from any camera, and nothing else on a field is
    #: that big and that colour: a print of its colour (an edition's dark blue icons under a blue
    #: dome) covers part of the disc only. On development photos the domes scored 0.87 and more, the
    #: icons and bands taken for one 0.52-0.79
    "belvedere": 0.8,
}
#: a piece seen by the half that stands on a tile read must look surely itself there: it implies a tile
#: hidden under higher ones for its other half (the wrong ones scored 0.5-0.62, the right ones 0.89-1)
ON_HIDDEN_MIN = 0.85
#: ... but a fountain or a bridge with a hidden field under a belvedere read above it needs only its
#: kind's threshold when the photo shows this share of it: the belvedere's corner stands on no pillar,
#: and a piece on the field below is what keeps one off it (spec 1.1). On 400 development photos, such
#: pieces in sight on 0.6 or more and scored 0.5-0.85: 2 fountains (0.55, 0.64; a belvedere was read on
#: their seen half instead) and 2 bridges (0.71, 0.79), all right; seen less, a dozen wrong ones
#: (0.41-1), and the wrong ones in sight scored 0.36 at most. Not stairs: wrong ones so placed scored up
#: to 0.93 in full view
BELOW_BELVEDERE_SEEN = {"fountain": 0.6, "bridge": 0.6}
#: (the smaller piece, the share in sight, the score): a bridge or a fountain the photo shows less of
#: than this (the rest behind higher tiles), or that scores under this, is not read over a field where
#: that smaller piece, seen well, looks surely itself. The bronze and terracotta of a statue's body
#: explain a bridge's glimpse (on development photos, 3 of the 4 bridges read so seen were a statue's
#: body; the right ones were seen by half their points and more, one by 16%); a dome's teal explains a
#: fountain's water (2 fountains seen by 35% and 41% of their points took a belvedere's field, the dome
#: seen whole; one seen by 51%, scored 0.51, with its water washed out). A bridge seen well but scored
#: barely over its threshold is a statue's body and the terracotta of a tile's band beside it (on the
#: 200 development photos of seeds 41000-41199, the 5 bridges scored 0.50-0.53 over a statue that looked
#: surely itself were all wrong, the statues right; the one right bridge over such a "statue" scored 1.0)
GLIMPSE = {"bridge": ("statue", 0.4, 0.6), "fountain": ("belvedere", 0.5, 0.6)}
#: a piece's score and the share of it in sight for it to look surely itself
SURE = {"statue": (0.9, 0.5), "belvedere": (0.95, 0.8), "stairs": (0.97, 0.9)}
#: a statue scored under this leaves the fields of stairs that look surely themselves: its test
#: (something hides the plaque's middle, and brownish pixels above it) is met by the treads of stairs and
#: the edge of the tile they climb to (on development photos read with their true tiles, 2 statues scored
#: 0.69 and 0.75 took a field of such stairs; a right one, 0.88, stood where stairs scored 1.0 wrongly)
STATUE_UNDER_STAIRS = 0.8
#: stairs climbing to a field read as another symbol lose this much of their score: more than a sure
#: look leaves over the threshold, so in effect they are not read. A round marker allows such stairs,
#: rarely (3% of the generator's pieces), while grey stone is what so much else looks like (glare on a
#: plaque, a pillar, a shaded path): on 120 development photos read with their true tiles, 8 of the 10
#: stairs read wrongly climbed to another symbol's field, and none of the 108 right ones did
SYMBOL_MISMATCH = 0.55
#: stairs climbing to a field that shows the stairs' symbol are judged before those that score up to this
#: much more: two ways up from one lower field often both look like stairs (the treads seen from above),
#: and the field they climb to, which they leave free, shows their symbol. On development photos read
#: with their true tiles, 3 of the 4 stairs read the wrong way from their lower field climbed to a field
#: whose symbol was not read, the right way (scored 0.98-1) to a clear stairs symbol
STAIRS_SIGN = 0.05
#: stairs with a field on a tile hidden under a higher one, climbing to a field that shows their symbol,
#: need only this score, not ON_HIDDEN_MIN: the free field they climb to says which way stairs stand
#: there (dev 42012: stairs up to a level-3 field whose stairs icon reads clearly scored 0.75, their foot
#: on a level-2 tile hidden but for the stairs' own field)
HIDDEN_SIGNED = 0.7
#: a piece standing with one field on a tile not read, in sight from above (:meth:`Surfaces.unread`),
#: implies that tile: the ring round that field must show its garden green on this many points (of 72)
#: at least (on the development photos, the right pieces showed 3-26; the wrong ones, mostly stairs
#: taken on a bare board cell, 0-2, and wrong stairs over a lower tile's green up to 27) ...
UNREAD_GREEN = 3
#: ... and stairs look surer than on a tile hidden (the wrong ones over green scored 0.87-0.93, the
#: right ones 0.93-1)
UNREAD_MIN = {"stairs": 0.95}
MIN_VISIBLE = 0.15  #: a piece the photo shows less of than this is not judged ...
#: ... but stairs or a fountain with a field under a belvedere read above it, that look surely themselves
#: (this or more) on what little the photo shows: a piece on that field is what kept a pillar off it
#: (spec 1.1), and the tile's overhang hides all but a glimpse of the piece (nor does a glimpse of such
#: a fountain give way to a belvedere seen on its other field, :data:`GLIMPSE`). On development photos
#: read with their true tiles, stairs seen by less than 15% and scored 0.97 or more: 4 right and none
#: wrong under a belvedere, 1 right and 1 wrong elsewhere. Read through the whole reader, the 420 gained
#: 2 photos by stairs, then 3 by fountains (a fountain read wrongly more on a tile read wrongly: 1 lost)
UNDER_BELVEDERE = {"stairs": 0.97, "fountain": 0.97}
#: a piece scored under this on its (lower) field, whose icon reads as one of these symbols clearly
#: (:data:`ICON_CLEAR`), is that icon: a piece standing on the field would hide most of it.
#: A statue: the bridge's wide dark arch hides the plaque's middle as a statue's base does, in the
#: bronze's hue (on development photos read with their true tiles, the 4 statues so read that scored
#: 0.56-0.59 were the icon, the 5 right ones scored 0.88-1). Stairs: the grey treads seen from above
#: read as the fountain's or a statue's icon, more rarely a bridge's, but the stairs look surely
#: themselves (420 development photos: of the stairs scored under 0.7 and read, the 4 on a clear icon
#: were all wrong; the right ones on a clear icon scored 1.0 but one, 0.9)
ICON_DOUBT = {"statue": (0.75, ("bridge",)), "stairs": (0.7, ("statue", "fountain", "bridge"))}
ICON_CLEAR = 0.9
#: the order in which kinds claim their fields: a piece that spans more explains what a smaller one
#: standing on one of its fields would see (a bridge's end looks like a terracotta statue); stairs,
#: grey like so much else, come last
PRIORITY = ("bridge", "fountain", "belvedere", "statue", "stairs")
SHIFTS_MM = (
    (0.0, 0.0),
    (1.5, 0.0),
    (-1.5, 0.0),
    (0.0, 1.5),
    (0.0, -1.5),
    (1.0, 1.0),
    (1.0, -1.0),
    (-1.0, 1.0),
    (-1.0, -1.0),
)


def piece_hull(profile: Profile, c: Candidate) -> np.ndarray:
    """Points whose convex hull holds the piece, local frame (for what it hides of the pieces below it).
    As tight as a convex hull can be: a piece behind the lower steps of stairs, or past a statue's
    slim body, is in sight over them."""
    d = profile.decoration
    if c.kind == "stairs":  # the steps' outline: the first step's front edge, the top step's
        step = c.run / d.stairs_steps
        profile_xz = [
            (0.0, 0.0),
            (0.0, c.rise / d.stairs_steps),
            (c.run - step, c.rise),
            (c.run, c.rise),
            (c.run, 0.0),
        ]
        return np.array([[x, y, z] for x, z in profile_xz for y in (-d.stairs_width / 2, d.stairs_width / 2)])
    if c.kind == "statue":  # the base disc's box, and the body narrowing to the head
        r_base, h_base = d.statue_base[0] / 2, d.statue_base[1]
        r_top = max(d.statue_body[1], d.statue_head) / 2
        rings = [(r_base, 0.0), (r_base, h_base), (r_top, d.statue_height)]
        return np.array([[sx * r, sy * r, z] for r, z in rings for sx in (-1, 1) for sy in (-1, 1)])
    if c.kind == "belvedere":
        hx = hy = d.belvedere_base / 2
        h = d.belvedere_height
    elif c.kind == "fountain":
        hx, hy = d.fountain_basin[0] / 2, d.fountain_basin[1] / 2
        h = d.fountain_basin[2] + d.fountain_spout[1]
    else:
        hx, hy = d.bridge_deck[0] / 2, d.bridge_deck[1] / 2
        h = d.bridge_rise + d.bridge_rail_lift
    return np.array([[x, y, z] for x in (-hx, hx) for y in (-hy, hy) for z in (0.0, h)])


#: the plaques' cream, balanced on the board's sand, this far (chromaticity) from its own colour: the
#: board's print does not show the light the pieces stand in (a sheen pales it, or it has a cast of its
#: own), and the plaques balance the pieces instead. On 320 development photos the cream lay 0.03 from
#: its colour (median); balanced on the plaques, the 15 photos beyond 0.08 gave 7 more stairs right (of
#: 23 missed) and 2 more wrong, 2 fewer statues wrong (of 9), with their true tiles
TINT_MAX = 0.08
TINT_FIELDS = 6  #: ... measured on this many plaques at least (a few are too easily a piece's colours)


def cream_gain(scorer: Scorer, profile: Profile) -> np.ndarray | None:
    """A further gain (sRGB, B G R) on the board's white balance that gives the plaques their cream's
    own chromaticity, where that balance leaves them farther from it than :data:`TINT_MAX` (else
    None). It keeps the cream's brightness. (The flower bands' :func:`vision.read.views.print_gain`
    corrects a small tint, within a quarter, on plaque pixels near the cream's hue; this one a balance
    that is far off, on the plaques in sight whatever their hue.)"""
    if sum(math.isfinite(y) for y, _ in scorer.cream_levels(scorer.fields_seen)) < TINT_FIELDS:
        return None
    _, tint = scorer.cream_reference()
    own = chroma(palette(profile)["plaque"])
    if np.linalg.norm(tint - own) <= TINT_MAX:
        return None
    return (own / np.maximum(tint, 1e-3)).astype(np.float32) ** (1 / 2.4)


def _sure(evs: Sequence[Evidence]) -> dict[str, set[tuple[Cell, int]]]:
    """The fields of the pieces in ``evs`` that look surely themselves (:data:`SURE`), by kind."""
    return {
        kind: {
            f
            for e in evs
            if e.candidate.kind == kind and e.score >= SURE[kind][0] and e.visible >= SURE[kind][1]
            for f in e.candidate.fields
        }
        for kind in SURE
    }


#: the piece networks' second opinion (:mod:`vision.read.piece_model`) on statues, stairs and fountains
#: seen by this share of their points and more, on tiles read: a piece whose colours fail its test
#: (under its threshold) is read when its shape looks the piece's this surely, and then scores that
#: probability ...
LOOKS_VISIBLE, LOOKS_SURE = 0.5, 0.9
#: ... and one whose colours pass, but score under the second figure, is not read when its shape looks
#: the piece's this little (the first figure; the score drops to it).
#: Statues: on the 420 development photos read through the whole reader (each set with the network
#: trained on the other), it raised 13 statues, all true (dark or glossy bronze, colour scores 0-0.47),
#: and dropped 303 candidates whose colours passed: 299 not statues (a bridge's arch, a piece's
#: terracotta, bronze-like icons: most given way to another piece anyway), 4 statues (a steep view, a
#: statue at a tile's edge; 0.0002-0.017).
#: Stairs: grey stone that looks surely like stairs (:data:`SURE`) is not doubted: on the development
#: photos read with their true tiles (each set with the network trained on the others), of the stairs
#: scored 0.97 or more, 3 of 382 true ones and 5 of 13 wrong ones scored 0.02 or less. Of those scored
#: 0.5-0.97, the 22 true ones all scored over 0.002, and 78 of the 118 wrong ones 0.002 or less.
#: Fountains: water mirroring the lamp is white, or pale past the washed-out colour's reach, yet the
#: basin's oval is plain. On the development photos read with their true tiles (each set with the
#: network trained on the other), of the fountains seen by half their points or more, 8 true ones
#: failed their colours and 7 of them scored 0.9 or more (and 1 of 2,173 other places); the 4 wrong
#: ones scored 0.5-0.9 by colour all scored 0.002 or less, no true one (of 505) under 0.02.
LOOKS_NOT = {"statue": (0.02, math.inf), "stairs": (0.002, SURE["stairs"][0]), "fountain": (0.02, 0.9)}
#: a statue on the field of a tile not read (:meth:`Surfaces.slivers`) is read where its network is this
#: sure of it, on the level it is surest of, and where the ring round the field shows garden green on
#: this many points (of 72) at least: the tile's one field in sight shows its own green round the
#: statue. On development photos (the 200 of seeds 41000-41199 and 40 rendered with such a statue,
#: `Surfaces.slivers`'s test) the right ones scored 0.78-1.0 with 12-44 points of green; the network
#: scored a printed icon by a bare cell at the board's edge 0.96, 6 points of green round it, and one
#: statue a level too high 0.89 against 0.87 on its own level
SLIVER_LOOKS, SLIVER_GREEN = 0.5, 10
#: a statue the photo shows less of than :data:`MIN_VISIBLE` (a taller stack beside it hides the rest in
#: the photo's perspective) is read where those few points score this or more and the network is this
#: sure of it. On the development photos of seeds 41000-41199, 4 statues so seen scored 0.9 or more: the
#: 3 right ones 0.80-0.98 by the network, the wrong one 0.000
GLIMPSED_STATUE = (0.9, 0.5)


def piece_patch(
    image_bgr: np.ndarray,
    cam: Camera,
    profile: Profile,
    c: Candidate,
    shift: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """The patch the piece network of ``c``'s kind looks at (:mod:`vision.read.piece_model`); stairs'
    and a fountain's moved by ``shift`` (along, across, mm: their training's jittered copies)."""
    if c.kind == "statue":
        return piece_model.statue_patch(image_bgr, cam, profile, *c.fields[0])
    if c.kind == "fountain":
        return piece_model.fountain_patch(image_bgr, cam, profile, c.origin, c.angle_deg, shift)
    return piece_model.stairs_patch(image_bgr, cam, c.origin, c.angle_deg, c.run, c.rise, shift)


def _looks(
    kind: str,
    evidence: Sequence[Evidence],
    image_bgr: np.ndarray,
    cam: Camera,
    profile: Profile,
    gain: np.ndarray,
) -> np.ndarray | None:
    """How surely ``kind``'s network (:mod:`vision.read.piece_model`) sees that piece at each of
    ``evidence``'s candidates (0..1); None when the profile's piece is not the one it learned."""
    model = piece_model.model_for(kind, profile)
    if model is None:
        return None
    return model.on_patches([piece_patch(image_bgr, cam, profile, e.candidate) for e in evidence], gain)


def _second_opinion(
    evidence: list[Evidence], image_bgr: np.ndarray, cam: Camera, profile: Profile, gain: np.ndarray
) -> None:
    """Rescore (in place) the statues, stairs and fountains seen well by their networks (when the
    profile's piece is the one it learned): those failing their colour test whose shape is surely the
    piece's, those passing it whose shape surely is not (see :data:`LOOKS_SURE`)."""
    for kind in piece_model.KINDS:
        seen = [
            e
            for e in evidence
            if e.candidate.kind == kind and e.visible >= LOOKS_VISIBLE and not e.candidate.hidden
        ]
        p = _looks(kind, seen, image_bgr, cam, profile, gain)
        if p is None:
            continue
        not_p, below = LOOKS_NOT[kind]
        for e, pi in zip(seen, p, strict=True):
            passed = e.score >= THRESHOLDS[kind]
            if (not passed and pi >= LOOKS_SURE) or (passed and pi <= not_p and e.score < below):
                e.score = float(pi)


def _glimpsed(
    evidence: list[Evidence], image_bgr: np.ndarray, cam: Camera, profile: Profile, gain: np.ndarray
) -> None:
    """Mark (in place) the statues the photo shows less of than :data:`MIN_VISIBLE` whose few points show
    their colours surely and whose network sees a statue (:data:`GLIMPSED_STATUE`)."""
    few = [
        e
        for e in evidence
        if e.candidate.kind == "statue"
        and not e.candidate.hidden
        and 0 < e.visible < MIN_VISIBLE
        and e.score >= GLIMPSED_STATUE[0]
    ]
    p = _looks("statue", few, image_bgr, cam, profile, gain)
    if p is None:
        return
    for e, pi in zip(few, p, strict=True):
        e.glimpsed = bool(pi >= GLIMPSED_STATUE[1])


def _sliver_statues(
    sliver: Sequence[Evidence], scorer: Scorer, image_bgr: np.ndarray, gain: np.ndarray
) -> list[Candidate]:
    """Of the statues on fields of :meth:`Surfaces.slivers`, those to judge: on each cell, the level
    where the statue network is surest of a statue, if sure enough and the field shows its green
    (:data:`SLIVER_LOOKS`). The colours alone cannot tell: a statue judged a level too high or too low
    still shows its bronze where it is looked for, and a bare board cell's print or a piece on a tile
    beside it passes for one; the network's patch, cut on the plane the statue would stand on, is its
    own only on the right level. None without the network (another edition's statue)."""
    seen = [
        e
        for e in sliver
        if e.score >= THRESHOLDS["statue"]
        and e.visible >= LOOKS_VISIBLE
        and scorer.green_seen(e.candidate.fields[0]) >= SLIVER_GREEN
    ]
    p = _looks("statue", seen, image_bgr, scorer.sampler.cam, scorer.profile, gain)
    if p is None:
        return []
    best: dict[Cell, tuple[float, Candidate]] = {}
    for e, pi in zip(seen, p, strict=True):
        cell = e.candidate.cells[0]
        if pi >= SLIVER_LOOKS and pi > best.get(cell, (0.0, None))[0]:
            best[cell] = (float(pi), e.candidate)
    return [c for _, c in best.values()]


def read_decorations(
    image_bgr: np.ndarray,
    cam: Camera,
    tiles: Sequence[TileLike],
    profile: Profile,
    gain_srgb: np.ndarray | None = None,
    field_symbols: dict[tuple[Cell, int], tuple[str | None, float]] | None = None,
) -> list[DecorationFind]:
    """Every decoration standing on the tiles read (see the module's docstring). ``cam`` is the camera
    of ``image_bgr``'s pixels; ``gain_srgb`` the board white balance (computed when not given);
    ``field_symbols`` the symbols read on the fields, with how clearly (0..1;
    :func:`vision.read.symbols.read_fields`), when known: stairs are put on fields of their symbol (spec
    1.3), and the field they climb to, which they leave free, shows it."""
    if gain_srgb is None:
        from vision.read.views import board_gain

        gain_srgb = board_gain(image_bgr, cam, profile)
    gain = np.asarray(gain_srgb, np.float32)
    surf = Surfaces(tiles, profile)
    scorer = Scorer(image_bgr, cam, surf, profile, gain_srgb)
    cream = cream_gain(scorer, profile)
    if cream is not None:
        scorer = Scorer(image_bgr, cam, surf, profile, gain * cream)
    cands = candidates(surf)

    def on_sliver(c: Candidate) -> bool:
        """A statue on a field of :meth:`Surfaces.slivers` (judged by :func:`_sliver_statues`)."""
        return c.kind == "statue" and c.fields[0] in surf.sliver_fields

    # the photo's ink, on the plaques where no statue may stand (its bronze would pass for pale ink;
    # each statue judged where it would stand unmoved: a hand's shift changes the ink by a hair)
    unmoved = scorer.evidence([c for c in cands if c.kind == "statue" and not on_sliver(c)])
    scorer.measure_ink({e.candidate.fields[0] for e in unmoved if e.score >= THRESHOLDS["statue"]})
    sliver = [c for c in cands if on_sliver(c)]
    keep = _sliver_statues(
        scorer.evidence(sliver, SHIFTS_MM), scorer, image_bgr, gain
    )
    cands = [c for c in cands if not on_sliver(c) or c in keep]
    found: list[DecorationFind] = []
    taken: set[tuple[Cell, int]] = set()
    belvedere_tiles: set[int] = set()

    def take(ev: Evidence) -> None:
        c = ev.candidate
        taken.update(c.fields)
        hull = piece_hull(profile, c)
        outline = cam.project(_to_board(c, hull, ev.shift))
        scorer.occ.add_piece(c.level, outline)
        # the piece's mark: the middle of its box (the hull's points lean to where they are many)
        box = np.array(list(product(*zip(hull.min(axis=0), hull.max(axis=0), strict=True))))
        centre = cam.project(_to_board(c, box, ev.shift)).mean(axis=0)
        found.append(
            DecorationFind(
                c.kind,
                c.cells,
                c.levels,
                round(ev.score, 4),
                round(ev.visible, 4),
                (float(centre[0]), float(centre[1])),
                outline,
            )
        )

    def stairs_sure(field: tuple[Cell, int], sure: dict[str, set[tuple[Cell, int]]]) -> bool:
        """Whether stairs on ``field`` look surely themselves (see :data:`SURE`): those on its level
        judged already, those climbing to it from a level below judged now."""
        if field in sure["stairs"]:
            return True
        below = [c for c in cands if c.kind == "stairs" and c.fields[1] == field]
        return field in _sure(scorer.evidence(below, SHIFTS_MM))["stairs"]

    def climbs_to_sign(c: Candidate) -> bool:
        """Whether ``c`` is stairs climbing to a field read as showing their symbol."""
        if c.kind != "stairs" or not field_symbols:
            return False
        return field_symbols.get((c.cells[-1], c.levels[-1]), (None, 0.0))[0] == "stairs"

    def signed(e: Evidence) -> float:
        """:data:`STAIRS_SIGN` for stairs climbing to a field read as showing their symbol, else 0."""
        return STAIRS_SIGN if climbs_to_sign(e.candidate) else 0.0

    def below_belvedere(c: Candidate) -> bool:
        """Whether a belvedere was read on a tile above one of ``c``'s fields."""
        return any(
            f.kind == "belvedere" and f.cells[0] == cell and f.levels[0] > level
            for cell, level in c.fields
            for f in found
        )

    def under_belvedere(ev: Evidence) -> bool:
        """Whether ``ev``'s piece may be seen by a glimpse: a belvedere was read on a tile above one of
        its fields, and it looks surely itself (:data:`UNDER_BELVEDERE`)."""
        c = ev.candidate
        return c.kind in UNDER_BELVEDERE and ev.score >= UNDER_BELVEDERE[c.kind] and below_belvedere(c)

    def sure_enough_half_hidden(ev: Evidence) -> bool:
        """Whether ``ev``'s piece, with a field on a tile not read, looks enough itself to imply that
        tile: surely (:data:`ON_HIDDEN_MIN`); or a fountain or bridge well in sight under a belvedere
        read above it (:data:`BELOW_BELVEDERE_SEEN`); or stairs up to their symbol
        (:data:`HIDDEN_SIGNED`)."""
        c = ev.candidate
        if ev.score >= ON_HIDDEN_MIN:
            return True
        if c.kind in BELOW_BELVEDERE_SEEN and ev.visible >= BELOW_BELVEDERE_SEEN[c.kind]:
            return below_belvedere(c)
        return c.kind == "stairs" and ev.score >= HIDDEN_SIGNED and climbs_to_sign(c)

    #: the pieces found that imply a tile not read, with the cells of those tiles
    implying: dict[int, list[tuple[Cell, int]]] = {}
    for level in sorted({c.level for c in cands}, reverse=True):
        at_level = scorer.evidence([c for c in cands if c.level == level], SHIFTS_MM)
        # the networks judge first: stairs climbing to a field of another symbol are not raised by them
        _second_opinion(at_level, image_bgr, cam, profile, gain)
        _glimpsed(at_level, image_bgr, cam, profile, gain)
        if field_symbols:
            for e in at_level:
                if e.candidate.kind != "stairs":
                    continue
                up = (e.candidate.cells[1], e.candidate.levels[1])
                if up in field_symbols and field_symbols[up][0] != "stairs":
                    e.score = max(0.0, e.score - SYMBOL_MISMATCH)
        sure = _sure(at_level)
        for kind in PRIORITY:
            evs = [e for e in at_level if e.candidate.kind == kind]
            evs.sort(key=lambda e: -e.score - signed(e))
            if kind in GLIMPSE:
                small, glimpse, least = GLIMPSE[kind]
                evs = [
                    e
                    for e in evs
                    if e.visible >= glimpse and e.score >= least
                    or not sure[small] & set(e.candidate.fields)
                    or under_belvedere(e)
                ]
            for ev in evs:
                c = ev.candidate
                if ev.score < THRESHOLDS[kind]:
                    continue
                if c.hidden and not sure_enough_half_hidden(ev):
                    continue
                if set(c.fields) & taken:
                    continue
                if ev.visible < MIN_VISIBLE and not (ev.visible > 0 and under_belvedere(ev) or ev.glimpsed):
                    continue
                if kind == "statue" and ev.score < STATUE_UNDER_STAIRS and stairs_sure(c.fields[0], sure):
                    continue
                if kind in ICON_DOUBT and ev.score < ICON_DOUBT[kind][0] and field_symbols:
                    sym, clear = field_symbols.get(c.fields[0], (None, 0.0))
                    if sym in ICON_DOUBT[kind][1] and clear >= ICON_CLEAR:
                        continue
                unread = [f for f in c.fields if surf.unread(*f)]
                if unread:
                    if ev.score < UNREAD_MIN.get(kind, ON_HIDDEN_MIN) or any(
                        scorer.green_seen(f) < UNREAD_GREEN for f in unread
                    ):
                        continue
                    implying[len(found)] = unread
                if kind == "belvedere":
                    ti = surf.at[c.fields[0]]
                    if ti in belvedere_tiles:
                        continue
                    belvedere_tiles.add(ti)
                take(ev)
    # the tile a piece implies would hide every piece read lower on its cell: such a piece is wrong
    return [
        f
        for i, f in enumerate(found)
        if not any(
            cell == c and lv < level
            for cell, level in implying.get(i, ())
            for g in found
            for c, lv in zip(g.cells, g.levels, strict=True)
        )
    ]
