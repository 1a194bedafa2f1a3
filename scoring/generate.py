"""A seeded generator of legal final gardens, built step by step the way a game builds them.

Each step places one terrace tile on 3 or 4 supports (single pillars, double pillars or a statue
standing in for a pillar), then possibly a few decorations on top-most empty fields. Because every
step follows the rules of spec 1.1-1.3, every garden it returns is legal; pieces covered later by
higher tiles (a belvedere under an unsupported corner, a statue used as a pillar) stay in the
garden, as they do on the table.

Lines marked ``# pragma: no mutate`` are the draws of the distribution (probabilities, weights,
ranges of a player's habits, retries): any value there still builds legal gardens, which the tests
check, so the mutation score leaves them out.

The generator is conservative where the physical pieces would clash: a field holding any piece, or
spanned by a bridge deck, never takes a pillar, and stairs block a tile one level above their top
over both of their cells.

Symbols are decided lazily: a tile knows how many symbol fields it has (clay 2, granite 3,
basalt 4, the start tile 1 or 2) and a field's symbol is fixed when a decoration is placed on it;
the rest are drawn at the end. The result looks the same as drawing them up front, but far more
decorations find a matching field, as they do when players pick tiles for their symbols.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from scoring.facts import FLOWERS, GRID, MATERIAL_SYMBOLS, START_TILE_SYMBOLS, SYMBOLS, TILES_PER_MATERIAL
from scoring.garden import MAX_LEVEL, Decoration, Garden, Tile
from scoring.rules import in_line, statue_groups
from scoring.support import SupportKind, field_support

__all__ = ["MATERIAL_SYMBOLS", "MAX_DECORATIONS", "MAX_TILES", "generate_garden"]

MAX_TILES = 16  #: a player's garden holds at most 16 tiles (spec 3)
MAX_DECORATIONS = 25  #: belvederes included
MISMATCH_RATE = 0.03  #: decorations put on a non-matching field (a round marker allows it)
VOLUNTARY_BELVEDERE = 0.08  #: chance a fully supportable tile is still set on 3 pillars
START_TILE_FIRST = 0.85  #: otherwise the garden has no start tile
DECORATION_WEIGHTS: tuple[float, ...] = (3.0, 2.5, 2.5, 2.5)  #: statue, fountain, bridge, stairs (SYMBOLS)

_N = GRID * GRID


#: orthogonally adjacent cell pairs and straight 3-cell lines, as flat cell indices (r * GRID + c)
_PAIRS = tuple(
    (i, j) for r in range(GRID) for c in range(GRID) for i in (r * GRID + c,)
    for j, ok in ((i + 1, c + 1 < GRID), (i + GRID, r + 1 < GRID)) if ok
)
_LINES = tuple(
    (i, i + step, i + 2 * step) for r in range(GRID) for c in range(GRID) for i in (r * GRID + c,)
    for step, ok in ((1, c + 2 < GRID), (GRID, r + 2 < GRID)) if ok
)
_POSITIONS = tuple((r, c) for r in range(GRID - 1) for c in range(GRID - 1))
_EVEN_POSITIONS = tuple((r, c) for r, c in _POSITIONS if r % 2 == 0 and c % 2 == 0)


def _block(r: int, c: int) -> tuple[int, int, int, int]:
    i = r * GRID + c
    return (i, i + 1, i + GRID, i + GRID + 1)


def _cell(i: int) -> tuple[int, int]:
    return (i // GRID, i % GRID)


def _statues_each_in_line(cells: list[int]) -> bool:
    """The spec's final-state check: with 2 or more statues, each shares a row or column with
    another, i.e. no statue is a group of its own."""
    return len(cells) < 2 or all(len(g) > 1 for g in statue_groups([_cell(i) for i in cells]))


@dataclass
class _Tile:
    row: int
    col: int
    level: int
    flower: str
    n_symbols: int
    #: per field, row-major: None = not decided yet, "" = blank, else the symbol
    fields: list[str | None] = field(default_factory=lambda: [None, None, None, None])

    def pos(self, i: int) -> int:
        return (i // GRID - self.row) * 2 + (i % GRID - self.col)

    def free_slots(self) -> int:
        return self.n_symbols - sum(1 for f in self.fields if f)

    def accepts(self, i: int, kind: str) -> bool:
        f = self.fields[self.pos(i)]
        return f == kind or (f is None and self.free_slots() > 0)


@dataclass
class _Piece:
    kind: str
    cells: tuple[int, ...]
    levels: tuple[int, ...]  #: one per cell
    pillar: bool = False  #: a statue serving as a pillar

    @property
    def height(self) -> int:
        """The level a piece reaches: nothing new may be built at this level over its cells."""
        return max(self.levels)


@dataclass
class _Candidate:
    row: int
    col: int
    classes: tuple[SupportKind, SupportKind, SupportKind, SupportKind]  #: per field, as in support.py


class _Builder:
    """The garden in the making, with per-cell look-ups kept up to date step by step."""

    def __init__(self, rng: random.Random, max_level: int, board_flower: str, tidy: bool = False) -> None:
        self.rng = rng
        self.tidy = tidy  #: level-1 tiles only on the even grid, so that 16 of them always fit
        self.max_level = max_level
        self.board_flower = board_flower
        self.tiles: list[_Tile] = []
        self.pieces: list[_Piece] = []
        self.top = [0] * _N  #: level of the highest tile per cell (0 = board)
        self.top_tile = [-1] * _N
        self.live = [-1] * _N  #: the piece on the top field of the cell (or a deck over it), or -1
        self.footprints: set[tuple[int, int, int]] = set()
        self.max_built = 0
        self.deck = [(m, f) for m in MATERIAL_SYMBOLS for f in FLOWERS for _ in range(TILES_PER_MATERIAL)]
        self.start_tile_pending = rng.random() < START_TILE_FIRST  # pragma: no mutate

    # --- tiles -----------------------------------------------------------------------------------

    def evaluate(self, r: int, c: int, k: int) -> _Candidate | None:
        """How a tile at level k over (r, c) would stand, or None if it cannot be placed there."""
        if (k - 1, r, c) in self.footprints:
            return None
        classes: list[SupportKind] = []
        for i in _block(r, c):
            if k <= self.top[i]:
                return None
            p = self.live[i]
            if p < 0:
                classes.append(field_support(k, self.top[i], ()))
            elif k <= self.pieces[p].height:
                return None
            else:
                classes.append(field_support(k, self.top[i], (self.pieces[p].kind,)))
        if classes.count("none") > 1:
            return None
        if "none" in classes and len(self.pieces) >= MAX_DECORATIONS:
            return None
        return _Candidate(r, c, (classes[0], classes[1], classes[2], classes[3]))

    def statue_pillars_ok(self, cand: _Candidate) -> bool:
        """Statues under the tile become pillars; the statues left must still obey the line rule."""
        cells = _block(cand.row, cand.col)
        under = {self.live[i] for i, cl in zip(cells, cand.classes, strict=True) if cl == "statue"}
        if not under:
            return True
        return _statues_each_in_line([self.pieces[p].cells[0] for p in self.statues() if p not in under])

    def statues(self) -> list[int]:
        return [j for j, p in enumerate(self.pieces) if p.kind == "statue" and not p.pillar]

    def level_order(self, climb: float, spread: float) -> list[int]:
        """Levels to try for the next tile, the preferred one first."""
        top = min(self.max_built + 1, self.max_level)
        levels = list(range(1, top + 1))
        eager = climb * (0.6 if self.max_built >= 3 else 1.0)  # pragma: no mutate - thin air up there
        if top > self.max_built and self.max_built > 0 and self.rng.random() < eager:
            first = top
        else:
            built = levels[: self.max_built] or [1]
            weights = [spread ** (k - 1) for k in built]  # pragma: no mutate
            first = self.rng.choices(built, weights)[0]
        rest = [k for k in levels if k != first]
        self.rng.shuffle(rest)
        return [first, *rest]

    def place_next_tile(self, climb: float, spread: float) -> bool:
        for k in self.level_order(climb, spread):
            positions = _EVEN_POSITIONS if self.tidy and k == 1 else _POSITIONS
            cands = [c for r, col in positions if (c := self.evaluate(r, col, k)) is not None]
            while cands:
                weights = [self._position_weight(c, k) for c in cands]
                cand = self.rng.choices(cands, weights)[0]
                if self.statue_pillars_ok(cand):
                    self._place(cand, k)
                    return True
                cands.remove(cand)
        return False

    def _position_weight(self, cand: _Candidate, k: int) -> float:
        """Players build compact gardens and prefer 4 supports (a belvedere now and then)."""
        cells = _block(cand.row, cand.col)
        if k == 1:
            near = any(self.top[j] for j in self._border(cand.row, cand.col))
            return 4.0 if near else (0.5 if self.tiles else 1.0)  # pragma: no mutate
        weight = 4.0 if "none" not in cand.classes else 0.6  # pragma: no mutate
        return weight + sum(1 for i in cells if self.top[i] == k - 1)

    @staticmethod
    def _border(r: int, c: int) -> list[int]:
        out = []
        for rr, cc in ((r - 1, c), (r - 1, c + 1), (r + 2, c), (r + 2, c + 1),
                       (r, c - 1), (r + 1, c - 1), (r, c + 2), (r + 1, c + 2)):
            if 0 <= rr < GRID and 0 <= cc < GRID:
                out.append(rr * GRID + cc)
        return out

    def _draw_tile(self, r: int, c: int, k: int) -> _Tile:
        if self.start_tile_pending:
            self.start_tile_pending = False
            return _Tile(r, c, k, self.board_flower, self.rng.choice(START_TILE_SYMBOLS))
        material, flower = self.deck.pop(self.rng.randrange(len(self.deck)))
        return _Tile(r, c, k, flower, MATERIAL_SYMBOLS[material])

    def _unsupported_field(self, cells: tuple[int, ...], classes: tuple[int, ...]) -> int | None:
        """The field left without a pillar: forced, or now and then by choice to gain a belvedere
        (never a statue's field: a statue under the tile touches it and is its pillar)."""
        forced = [i for i, cl in zip(cells, classes, strict=True) if cl == "none"]
        if forced:
            return forced[0]
        if len(self.pieces) >= MAX_DECORATIONS or self.rng.random() >= VOLUNTARY_BELVEDERE:
            return None
        free = [i for i, cl in zip(cells, classes, strict=True) if cl in ("single", "double")]
        return self.rng.choice(free) if free else None

    def _place(self, cand: _Candidate, k: int) -> None:
        cells = _block(cand.row, cand.col)
        classes = cand.classes
        unsupported = self._unsupported_field(cells, classes)
        t = len(self.tiles)
        self.tiles.append(self._draw_tile(cand.row, cand.col, k))
        for i, cl in zip(cells, classes, strict=True):
            p = self.live[i]
            if p >= 0 and cl == "statue":
                self.pieces[p].pillar = True
            self.live[i] = -1
            self.top[i] = k
            self.top_tile[i] = t
        self.footprints.add((k, cand.row, cand.col))
        self.max_built = max(self.max_built, k)
        if unsupported is not None:
            self._add_piece(_Piece("belvedere", (unsupported,), (k,)))

    # --- decorations -----------------------------------------------------------------------------

    def _field_free(self, i: int) -> bool:
        return self.top[i] >= 1 and self.live[i] < 0

    def _accepts(self, i: int, kind: str, mismatch: bool) -> bool:
        return mismatch or self.tiles[self.top_tile[i]].accepts(i, kind)

    def candidates(self, kind: str, mismatch: bool) -> list[tuple[int, ...]]:
        """Every place a piece of ``kind`` may go now (cells; for stairs lower level first)."""
        top, free, ok = self.top, self._field_free, self._accepts
        if kind == "statue":
            cells = [i for i in range(_N) if free(i) and ok(i, kind, mismatch)]
            return [(i,) for i in cells if self._statue_fits(i)]
        if kind == "fountain":
            return [
                (i, j) for i, j in _PAIRS
                if free(i) and free(j) and top[i] == top[j] and self.top_tile[i] != self.top_tile[j]
                and ok(i, kind, mismatch) and ok(j, kind, mismatch)
            ]
        if kind == "bridge":
            return [
                (i, m, j) for i, m, j in _LINES
                if free(i) and free(j) and top[i] == top[j] and top[m] < top[i] and self.live[m] < 0
                and ok(i, kind, mismatch) and ok(j, kind, mismatch)
            ]
        return [
            (i, j) if top[i] < top[j] else (j, i) for i, j in _PAIRS
            if free(i) and free(j) and abs(top[i] - top[j]) == 1
            and ok(i, kind, mismatch) and ok(j, kind, mismatch)
        ]

    def _statue_fits(self, i: int) -> bool:
        """The placement rule (in line with an earlier statue, pillars included), and the statues
        still standing keep the final-state check."""
        earlier = [_cell(p.cells[0]) for p in self.pieces if p.kind == "statue"]
        if earlier and not any(in_line(_cell(i), s) for s in earlier):
            return False
        return _statues_each_in_line([self.pieces[p].cells[0] for p in self.statues()] + [i])

    def try_decoration(self) -> bool:
        if len(self.pieces) >= MAX_DECORATIONS:
            return False
        kind = self.rng.choices(SYMBOLS, DECORATION_WEIGHTS)[0]
        mismatch = self.rng.random() < MISMATCH_RATE  # pragma: no mutate
        places = self.candidates(kind, mismatch)
        if not places:
            return False
        cells = self.rng.choice(places)
        fields = [i for i in cells if self.top_tile[i] >= 0 and not (kind == "bridge" and i == cells[1])]
        self._assign_symbols(fields, kind, mismatch)
        levels = tuple(self.top[i] for i in cells) if kind != "bridge" else (self.top[cells[0]],) * 3
        self._add_piece(_Piece(kind, cells, levels))
        return True

    def _assign_symbols(self, cells: list[int], kind: str, mismatch: bool) -> None:
        for n, i in enumerate(cells):
            tile = self.tiles[self.top_tile[i]]
            p = tile.pos(i)
            if mismatch and n == 0:
                self._mismatch_field(tile, p, kind)
            elif tile.fields[p] is None and tile.free_slots() > 0:
                tile.fields[p] = kind

    def _mismatch_field(self, tile: _Tile, p: int, kind: str) -> None:
        if tile.fields[p] is not None:
            return  # already blank or another symbol (or, rarely, the right one)
        undecided = tile.fields.count(None)
        slots = tile.free_slots()
        if slots > 0 and (undecided == slots or self.rng.random() < 0.5):  # pragma: no mutate
            tile.fields[p] = self.rng.choice([s for s in SYMBOLS if s != kind])
        else:
            tile.fields[p] = ""

    def _add_piece(self, piece: _Piece) -> None:
        self.pieces.append(piece)
        for i in piece.cells:
            self.live[i] = len(self.pieces) - 1

    # --- the result ------------------------------------------------------------------------------

    def garden(self) -> Garden:
        tiles = tuple(self._final_tile(t) for t in self.tiles)
        decorations = tuple(_decoration(p) for p in self.pieces)
        return Garden(board_flower=self.board_flower, tiles=tiles, decorations=decorations)

    def _final_tile(self, t: _Tile) -> Tile:
        fields = list(t.fields)
        undecided = [p for p, f in enumerate(fields) if f is None]
        for p in self.rng.sample(undecided, t.free_slots()):
            fields[p] = self.rng.choice(SYMBOLS)
        grid = [f or None for f in fields]
        symbols = ((grid[0], grid[1]), (grid[2], grid[3]))
        return Tile(row=t.row, col=t.col, level=t.level, flower=t.flower, symbols=symbols)  # type: ignore[arg-type]


def _decoration(p: _Piece) -> Decoration:
    cells = tuple(_cell(i) for i in p.cells)
    if p.kind == "stairs":
        return Decoration(kind="stairs", cells=cells, levels=(p.levels[0], p.levels[1]))
    return Decoration(kind=p.kind, cells=cells, level=p.levels[0])  # type: ignore[arg-type]


def _make_rng(seed: int | np.integer | np.random.Generator) -> random.Random:
    """Python's own generator is far faster per draw; a string seed keeps -n and n apart."""
    if isinstance(seed, np.random.Generator):
        return random.Random(int(seed.integers(0, 2**63)))  # pragma: no mutate
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int or a numpy Generator, got {type(seed).__name__}")
    return random.Random(f"babylon-garden/{int(seed)}")  # pragma: no mutate


def _draw_tile_count(rng: random.Random) -> int:
    """Most finished gardens hold 8-14 tiles; a few games end early or fill the zone."""
    if rng.random() < 0.12:  # pragma: no mutate
        return rng.randint(1, MAX_TILES)  # pragma: no mutate
    return min(MAX_TILES, max(1, round(rng.gauss(11.0, 2.2))))  # pragma: no mutate


def generate_garden(
    seed: int | np.integer | np.random.Generator,
    *,
    n_tiles: int | None = None,
    max_level: int = 5,
    board_flower: str | None = None,
) -> Garden:
    """A legal final garden, the same for the same seed (or the same state of a Generator).

    ``n_tiles`` fixes the number of tiles (0..16), otherwise it follows real end games;
    ``max_level`` caps the levels; ``board_flower`` defaults to a random one.
    """
    if n_tiles is not None and not 0 <= n_tiles <= MAX_TILES:
        raise ValueError(f"n_tiles must be in 0..{MAX_TILES}, got {n_tiles}")
    if not 1 <= max_level <= MAX_LEVEL:
        raise ValueError(f"max_level must be in 1..{MAX_LEVEL}, got {max_level}")
    if board_flower is not None and board_flower not in FLOWERS:
        raise ValueError(f"board_flower must be one of {', '.join(FLOWERS)}, got {board_flower!r}")
    rng = _make_rng(seed)
    flower = board_flower or rng.choice(FLOWERS)
    target = n_tiles if n_tiles is not None else _draw_tile_count(rng)
    for attempt in range(20):  # pragma: no mutate
        builder = _build(rng, target, max_level, flower, tidy=attempt >= 3)  # pragma: no mutate
        if n_tiles is None or len(builder.tiles) == n_tiles:
            return builder.garden()
    raise ValueError(f"could not build {n_tiles} tiles with levels up to {max_level}")


def _build(rng: random.Random, target: int, max_level: int, flower: str, *, tidy: bool) -> _Builder:
    """One game: tiles until ``target`` (or until nothing fits), decorations between them."""
    builder = _Builder(rng, max_level, flower, tidy)
    climb = rng.uniform(0.15, 0.4)  # pragma: no mutate - how eagerly this player builds upwards
    spread = rng.uniform(0.4, 1.0)  # pragma: no mutate - how much they keep building on the upper levels
    rate = rng.uniform(0.15, 1.8)  # pragma: no mutate - decoration attempts per turn
    for _ in range(target):
        if not builder.place_next_tile(climb, spread):
            break
        attempts = int(rate) + (rng.random() < rate % 1)  # pragma: no mutate
        for _ in range(attempts):
            builder.try_decoration()
    return builder
