"""Compact builders for hand-made gardens in tests."""

from __future__ import annotations

import os

from scoring.garden import Decoration, Garden, Tile


def examples(n: int) -> int:
    """Hypothesis examples for a property: at most 10 while tools/mutation_score.py has mutmut run
    the tests once per mutant, so that a run over all of scoring/ fits in the time of a session."""
    return min(n, 10) if os.environ.get("BABYLON_MUTATION_RUN") else n

FLOWERS = ("white", "pink", "yellow", "blue")
KINDS = ("statue", "fountain", "bridge", "stairs", "belvedere")


def tile(row: int, col: int, level: int, flower: str = "pink", symbols=None) -> Tile:
    return Tile(row=row, col=col, level=level, flower=flower, symbols=symbols)


def deco(kind: str, cells: list[tuple[int, int]], level: int | tuple[int, int]) -> Decoration:
    if kind == "stairs":
        return Decoration(kind=kind, cells=tuple(cells), levels=tuple(level))
    return Decoration(kind=kind, cells=tuple(cells), level=level)


def garden(tiles: list[Tile], decorations: list[Decoration] = ()) -> Garden:
    return Garden(tiles=tuple(tiles), decorations=tuple(decorations))


# A legal three-level tower used by several tests:
#   level 1 at (0,0); level 2 at (0,1) (single pillars on the L1 tile, double pillars on the
#   board); level 3 at (0,0) again (same footprint two levels up is legal).
TOWER = [tile(0, 0, 1, "pink"), tile(0, 1, 2, "white"), tile(0, 0, 3, "yellow")]


# The score table of spec 1.4, restated cell by cell for the tests: an oracle written apart from
# scoring/score.py and scoring/visibility.py, so a test compares the scorer with the rulebook.
def spec_points(d: Decoration) -> int:
    """What one visible piece is worth in its own row, straight from the table."""
    if d.kind == "stairs":
        return d.levels[0] + d.levels[1]
    return {"statue": d.level, "fountain": 3 * d.level, "bridge": 3 * d.level, "belvedere": 1}[d.kind]


def spec_score(g: Garden) -> dict[str, int]:
    def top(cell) -> int:
        return max((t.level for t in g.tiles if cell in t.cells), default=0)

    shown_tiles = [t for t in g.tiles if any(top(c) == t.level for c in t.cells)]
    shown = [d for d in g.decorations if any(top(c) <= lv for c, lv in d.cell_levels)]
    count = {k: sum(d.kind == k for d in shown) for k in KINDS}
    rows = {
        "statues": sum(spec_points(d) for d in shown if d.kind == "statue"),
        "fountains": sum(spec_points(d) for d in shown if d.kind == "fountain"),
        "bridges": sum(spec_points(d) for d in shown if d.kind == "bridge"),
        "stairs": sum(spec_points(d) for d in shown if d.kind == "stairs"),
        "decoration_sets": 4 * min(count["statue"], count["fountain"], count["bridge"], count["stairs"]),
        "flower_sets": 4 * min(sum(t.flower == f for t in shown_tiles) for f in FLOWERS),
        "belvederes": count["belvedere"],
        "highest_level": 2 * max((t.level for t in g.tiles), default=0),
    }
    holes = sum(top((r, c)) == 0 for r in range(8) for c in range(8))
    return {**rows, "total": sum(rows.values()), "tiebreak_visible_holes": holes}
