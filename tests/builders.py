"""Compact builders for hand-made gardens in tests."""

from __future__ import annotations

from scoring.garden import Decoration, Garden, Tile


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
