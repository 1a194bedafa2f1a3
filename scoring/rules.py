"""The legality checker: every rule of spec 1.1-1.3 that a final garden can reveal.

Each broken rule is one :class:`Finding` with a stable rule id, the cells involved and a message
a player understands. Errors are gardens that cannot be built; warnings are allowed by the game
(a round marker lets a player put a decoration on a non-matching symbol). The vision pipeline
uses these findings to catch its own misreadings, so they must be precise: no finding on a
legal garden, one finding per distinct problem.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any, Literal

from scoring.facts import MATERIAL_SUPPLY, START_TILE_SYMBOLS, TILES_PER_FLOWER
from scoring.garden import Cell, Decoration, Garden, Tile
from scoring.support import GardenIndex

Severity = Literal["error", "warning"]

#: rule id -> what it says (the README's table of rules lists the same)
RULES: dict[str, str] = {
    "tile-overlap": "two tiles on the same level share a cell",
    "level-gap": "a tile on level k >= 2 needs some tile on level k-1",
    "full-overlap": "tiles on consecutive levels never cover each other completely",
    "unsupported": "a tile needs at least 3 of its 4 fields supported",
    "missing-belvedere": "a tile on 3 supports carries a belvedere on its unsupported field",
    "extra-belvedere": "a tile rests on at least 3 supports, so it carries at most one belvedere",
    "off-tile": "a decoration stands on fields of tiles of its stated level",
    "fountain-geometry": "a fountain covers 2 orthogonally adjacent fields on 2 different tiles",
    "bridge-geometry": (
        "a bridge spans 3 cells in a line, its ends on 2 tiles, no tile at its level in the middle"
    ),
    "stairs-geometry": "stairs join 2 orthogonally adjacent fields on tiles one level apart",
    "statue-line": "each statue after the first stands in line (row or column) with an earlier one",
    "stairs-blocked": "stairs rise to the upper tile's top: no tile one level up covers their lower field",
    "tile-supply": (
        f"the game has {TILES_PER_FLOWER} tiles of each flower: {MATERIAL_SUPPLY[2]} each of 2, 3 and 4 "
        "symbols, and a start tile of 1 or 2 symbols that only the board of its flower gets"
    ),
    "field-occupied": "two pieces never stand on one field",
    "symbol-mismatch": "a decoration stands on fields carrying its symbol (a round marker allows others)",
}


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: Severity
    cells: tuple[Cell, ...]
    message: str

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["cells"] = [list(c) for c in self.cells]
        return d


def _error(rule: str, cells: Any, message: str) -> Finding:
    return Finding(rule, "error", tuple(sorted(set(map(tuple, cells)))), message)


# --- the rules -----------------------------------------------------------------------------------


def _tile_findings(ix: GardenIndex) -> Iterator[Finding]:
    tiles = ix.garden.tiles
    levels = {t.level for t in tiles}
    for a, b in combinations(tiles, 2):
        shared = set(a.cells) & set(b.cells)
        if a.level == b.level and shared:
            yield _error("tile-overlap", shared, f"{a} and {b} overlap on level {a.level}")
        elif abs(a.level - b.level) == 1 and (a.row, a.col) == (b.row, b.col):
            lo, hi = sorted((a, b), key=lambda t: t.level)
            yield _error("full-overlap", a.cells, f"{hi} covers {lo} completely, one level apart")
    for t in tiles:
        if t.level >= 2 and t.level - 1 not in levels:
            yield _error("level-gap", t.cells, f"{t} has no tile on level {t.level - 1} to build on")
        unsupported = [s.cell for s in ix.supports(t) if s.kind == "none"]
        belvederes = [
            d for cell in t.cells for d in ix.pieces_at.get((cell, t.level), ()) if d.kind == "belvedere"
        ]
        if len(unsupported) > 1:
            yield _error(
                "unsupported", unsupported,
                f"{t} can stand on pillars at only {4 - len(unsupported)} of its 4 fields",
            )
        elif unsupported and not any(unsupported[0] in d.cells for d in belvederes):
            yield _error(
                "missing-belvedere", unsupported,
                f"{t} rests on 3 supports; its unsupported field {unsupported[0]} needs a belvedere",
            )
        if len(belvederes) > 1:
            yield _error(
                "extra-belvedere", [c for d in belvederes for c in d.cells],
                f"{t} carries {len(belvederes)} belvederes; a tile has at most one unsupported field",
            )


def _adjacent(a: Cell, b: Cell) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def _fields(d: Decoration) -> tuple[tuple[Cell, int], ...]:
    """The tile fields a piece stands on: all its cells, but a bridge only on its two ends."""
    if d.kind == "bridge":
        return _bridge_ends(d) or ()
    return d.cell_levels


def _placement_findings(ix: GardenIndex, d: Decoration) -> Iterator[Finding]:
    for cell, level in _fields(d):
        if (cell, level) not in ix.tile_at:
            yield _error("off-tile", [cell], f"{d}: no tile on level {level} at {cell}")


def _bridge_ends(d: Decoration) -> tuple[tuple[Cell, int], tuple[Cell, int]] | None:
    """The two end fields of a bridge whose 3 cells are a straight line, else None."""
    (first, level), (middle, _), (last, _) = sorted(d.cell_levels)
    if first[0] == middle[0] == last[0] and last[1] - first[1] == 2:
        return ((first, level), (last, level))
    if first[1] == middle[1] == last[1] and last[0] - first[0] == 2:
        return ((first, level), (last, level))
    return None


def _geometry_findings(ix: GardenIndex, d: Decoration) -> Iterator[Finding]:
    if d.kind == "fountain":
        (a, la), (b, lb) = d.cell_levels
        ta, tb = ix.tile_at.get((a, la)), ix.tile_at.get((b, lb))
        if not _adjacent(a, b):
            yield _error("fountain-geometry", d.cells, f"{d}: its two fields are not side by side")
        elif ta is not None and ta is tb:
            yield _error("fountain-geometry", d.cells, f"{d}: both fields are on the same tile")
    elif d.kind == "stairs":
        (a, la), (b, lb) = d.cell_levels
        if not _adjacent(a, b):
            yield _error("stairs-geometry", d.cells, f"{d}: its two fields are not side by side")
        elif abs(la - lb) != 1:
            yield _error("stairs-geometry", d.cells, f"{d}: the levels it joins must differ by exactly 1")
    elif d.kind == "bridge":
        ends = _bridge_ends(d)
        if ends is None:
            yield _error("bridge-geometry", d.cells, f"{d}: its 3 cells are not a straight line")
            return
        middle = sorted(d.cells)[1]
        if (middle, d.level) in ix.tile_at:
            yield _error(
                "bridge-geometry", [middle],
                f"{d}: the middle cell {middle} holds a tile on level {d.level}; a bridge spans a gap",
            )


def _symbol_findings(ix: GardenIndex, d: Decoration) -> Iterator[Finding]:
    if d.kind == "belvedere":
        return
    for cell, level in _fields(d):
        tile = ix.tile_at.get((cell, level))
        if tile is None or tile.symbols is None:
            continue
        symbol = tile.symbol_at(cell)
        if symbol != d.kind:
            shown = f"a {symbol} symbol" if symbol else "a blank field"
            yield Finding(
                "symbol-mismatch", "warning", (cell,),
                f"{d}: the field at {cell} shows {shown} (allowed only with a round marker)",
            )


def _field_findings(ix: GardenIndex) -> Iterator[Finding]:
    for (cell, level), pieces in sorted(ix.pieces_at.items()):
        if len(pieces) > 1:
            names = " and ".join(str(p) for p in pieces)
            yield _error("field-occupied", [cell], f"{names} share the field {cell} on level {level}")


def in_line(a: Cell, b: Cell) -> bool:
    """Two statues are in line when they share a row or a column (any distance, any level)."""
    return a[0] == b[0] or a[1] == b[1]


def statue_groups(cells: Sequence[Cell]) -> list[list[Cell]]:
    """The statues' cells in groups linked by shared rows and columns. Statues placed one by one,
    each in line with an earlier one, always form a single group, in any order of placement."""
    groups: list[list[Cell]] = []
    for cell in cells:
        linked = [g for g in groups if any(in_line(cell, o) for o in g)]
        groups = [g for g in groups if g not in linked] + [[cell, *(c for g in linked for c in g)]]
    return groups


def _statue_findings(ix: GardenIndex) -> Iterator[Finding]:
    """Each statue after the first was placed in line with an earlier one, so the statues form one
    group. Statues now serving as pillars count: they were statues when later ones were lined up
    with them. Every group but the largest is a finding."""
    groups = statue_groups([d.cells[0] for d in ix.garden.decorations if d.kind == "statue"])
    main = max(groups, key=len, default=None)
    for g in groups:
        if g is not main:
            where = ", ".join(map(str, sorted(g)))
            yield _error(
                "statue-line", g,
                f"statue(s) at {where} share no row or column with the other statues",
            )


def _stairs_findings(ix: GardenIndex) -> Iterator[Finding]:
    for d in ix.garden.decorations:
        if d.levels is None:  # only stairs join two levels
            continue
        (low_cell, low), (_, high) = sorted(d.cell_levels, key=lambda cl: cl[1])
        above = ix.tile_at.get((low_cell, low + 1))
        if above is not None and high == low + 1:
            yield _error(
                "stairs-blocked", [low_cell],
                f"{d}: {above} rests where the stairs rise to level {low + 1}",
            )


def _symbol_count(t: Tile) -> int | None:
    return None if t.symbols is None else sum(s is not None for row in t.symbols for s in row)


def _supply_findings(ix: GardenIndex) -> Iterator[Finding]:
    """The box holds 4 tiles of each flower in each material (2, 3 or 4 symbols), and each board
    comes with the start tile of its flower (1 or 2 symbols). Where the board's flower is unknown,
    one flower at most may have its start tile in the garden."""
    board = ix.garden.board_flower
    by_flower: dict[str, list[Tile]] = defaultdict(list)
    for t in ix.garden.tiles:
        by_flower[t.flower].append(t)
    claimants: list[tuple[str, list[Tile]]] = []
    for flower, tiles in sorted(by_flower.items()):
        own = board is None or flower == board  # may this flower's start tile be here?
        most = TILES_PER_FLOWER if own else TILES_PER_FLOWER - 1
        if len(tiles) > most:
            yield _error(
                "tile-supply", _cells(tiles), f"{len(tiles)} {flower} tiles; {_has(flower, board, most)}"
            )
            continue
        by_count: dict[int, list[Tile]] = defaultdict(list)
        for t in tiles:
            if (n := _symbol_count(t)) is not None:
                by_count[n].append(t)
        starters: list[Tile] = []
        for n, same in sorted(by_count.items()):
            cap = MATERIAL_SUPPLY.get(n, 0) + (own and n in START_TILE_SYMBOLS)
            if len(same) > cap:
                yield _error(
                    "tile-supply", _cells(same),
                    f"{len(same)} {flower} tiles with {n} symbol(s); {_has(flower, board, cap)}",
                )
            elif len(same) > MATERIAL_SUPPLY.get(n, 0):
                starters += same
        counts = sorted({_symbol_count(t) for t in starters})
        if len(counts) > 1:
            yield _error(
                "tile-supply", _cells(starters),
                f"{flower} tiles with {' and '.join(map(str, counts))} symbols both need the {flower} "
                f"start tile; there is one",
            )
        elif starters or len(tiles) == TILES_PER_FLOWER:
            claimants.append((flower, starters or tiles))
    if len(claimants) > 1:
        names = " and ".join(f for f, _ in claimants)
        yield _error(
            "tile-supply", _cells([t for _, ts in claimants for t in ts]),
            f"{names} tiles each need their flower's start tile; a garden has one, its board's",
        )


def _cells(tiles: list[Tile]) -> list[Cell]:
    return [c for t in tiles for c in t.cells]


def _has(flower: str, board: str | None, most: int) -> str:
    """What the box offers one player, in words."""
    if board is not None and flower != board:
        return f"the game has {most} besides the {flower} start tile, and this is a {board} board"
    return f"the game has {most}"


def check(garden: Garden) -> list[Finding]:
    """All findings for a garden, errors first, each rule's findings in board order."""
    ix = GardenIndex(garden)
    found: list[Finding] = [
        *_tile_findings(ix), *_field_findings(ix), *_statue_findings(ix), *_stairs_findings(ix),
        *_supply_findings(ix),
    ]
    for d in garden.decorations:
        found += [*_placement_findings(ix, d), *_geometry_findings(ix, d), *_symbol_findings(ix, d)]
    return sorted(found, key=lambda f: (f.severity != "error", f.rule, f.cells))


def is_legal(garden: Garden) -> bool:
    return not any(f.severity == "error" for f in check(garden))
