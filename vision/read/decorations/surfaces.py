"""Where the pieces may stand: the fields of the tiles read (:class:`Surfaces`) and every placement the
rules allow on them (:func:`candidates`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from scoring.garden import GRID, Cell, block_cells
from vision.profile import Profile

KINDS = ("statue", "fountain", "bridge", "stairs", "belvedere")
SLIVER_TOP = 4  #: the highest level of a tile :meth:`Surfaces.slivers` looks for (a level-5 tile is on top)


class TileLike(Protocol):
    """What the reader needs of a tile read: its block, level and hand placement (and, used when the
    object has them, its ``flower``: a coloured band a piece stands over; ``whole``: whether it was seen
    whole, :attr:`vision.read.tiles.TileFind.whole`; ``inferred``: whether it was read from a piece on
    it, not from its own print, :attr:`vision.read.tiles.TileFind.inferred`)."""

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


class Surfaces:
    """Where the fields of the tiles read are: (cell, level) -> tile, the top level of every cell, and
    each field's centre on its tile's top as the tile was placed."""

    def __init__(self, tiles: Sequence[TileLike], profile: Profile) -> None:
        self.profile = profile
        self.tiles = list(tiles)
        self.at: dict[tuple[Cell, int], int] = {}
        top = np.zeros((GRID, GRID), int)
        for i, t in enumerate(self.tiles):
            for r, c in block_cells(t.row, t.col):
                self.at.setdefault(((r, c), t.level), i)
                top[r, c] = max(top[r, c], t.level)
        self.top = top
        #: cells whose top tile read was seen whole (:attr:`vision.read.tiles.TileFind.whole`): nothing
        #: stands over them
        self.whole = {
            cell
            for t in self.tiles
            if getattr(t, "whole", False)
            for cell in block_cells(t.row, t.col)
            if top[cell] == t.level
        }
        #: fields of the tiles read from a piece standing on them (their print not seen)
        self.inferred = {
            (cell, t.level)
            for t in self.tiles
            if getattr(t, "inferred", False)
            for cell in block_cells(t.row, t.col)
        }
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
        where the rules put it beside a tile read, tells the tile. Not over a tile seen whole: its lines
        were seen where that tile would hide them."""
        return bool(self.top[cell] < level) and cell not in self.whole

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
                block = block_cells(r, c)
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


PieceKey = tuple[str, tuple[Cell, ...], tuple[int, ...]]  #: a piece's place: its kind, cells and levels


class OnFields:
    """Where a piece stands (a place it may stand, a piece found): from its kind, cells and levels,
    its lowest level and the fields it occupies."""

    kind: str
    cells: tuple[Cell, ...]
    levels: tuple[int, ...]

    @property
    def level(self) -> int:
        return min(self.levels)

    @property
    def fields(self) -> tuple[tuple[Cell, int], ...]:
        return piece_fields(self.kind, self.cells, self.levels)

    @property
    def key(self) -> PieceKey:
        """The piece's place as (kind, cells, levels): the same for a candidate and the piece found on it."""
        return (self.kind, self.cells, self.levels)


@dataclass(frozen=True)
class Candidate(OnFields):
    """A place a piece may stand, by the rules: its cells (and each one's level) and its pose."""

    kind: str
    cells: tuple[Cell, ...]
    levels: tuple[int, ...]  #: per cell; a bridge's middle cell gets the bridge's level
    origin: tuple[float, float, float]  #: the piece's local origin on the surface it stands on
    angle_deg: float  #: direction of the piece's local x axis in the board frame
    run: float = 0.0  #: stairs: length of the run
    rise: float = 0.0  #: stairs: height from the lower tile's top to the upper tile's top
    hidden: bool = False  #: one of its fields is on a tile not read (hidden under higher ones, or unread)


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
