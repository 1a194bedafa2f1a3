"""How tiles stand (spec 1.1): the surface under each field of a tile and what can carry it.

Shared by the legality checker (is every tile supportable?) and the renderer (which pillars to
draw), so both read the rules the same way.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Literal

from scoring.garden import Cell, Decoration, Garden, Tile

#: what carries one field of a tile: a single pillar (surface one level down), a double pillar
#: (two down), a statue one level down serving as a pillar, or nothing possible
SupportKind = Literal["single", "double", "statue", "none"]


@dataclass(frozen=True)
class Support:
    cell: Cell
    surface: int  #: level of the surface below the field (0: the board)
    kind: SupportKind


class GardenIndex:
    """Look-ups over one garden: which tile is at (cell, level), which pieces stand where."""

    def __init__(self, garden: Garden) -> None:
        self.garden = garden
        self.tile_at: dict[tuple[Cell, int], Tile] = {}
        self.levels_at: dict[Cell, list[int]] = defaultdict(list)
        for t in garden.tiles:
            for cell in t.cells:
                self.tile_at.setdefault((cell, t.level), t)
                self.levels_at[cell].append(t.level)
        self.pieces_at: dict[tuple[Cell, int], list[Decoration]] = defaultdict(list)
        for d in garden.decorations:
            for cell, level in d.cell_levels:
                self.pieces_at[(cell, level)].append(d)

    def surface(self, cell: Cell, below: int) -> int:
        """Level of the highest tile under ``below`` at ``cell`` (0: the board)."""
        return max((lv for lv in self.levels_at.get(cell, ()) if lv < below), default=0)

    def support(self, tile: Tile, cell: Cell) -> Support:
        """What can carry ``tile`` at ``cell``. Pillars need an empty field and a clear way up:
        any piece between the surface and the tile blocks them, except a statue on the field
        directly below, which can serve as the pillar itself."""
        k = tile.level
        s = self.surface(cell, k)
        if s < k - 2:
            return Support(cell, s, "none")
        blockers = [d for lv in range(max(s, 1), k) for d in self.pieces_at.get((cell, lv), ())]
        if not blockers:
            return Support(cell, s, "single" if s == k - 1 else "double")
        if s == k - 1 and len(blockers) == 1 and blockers[0].kind == "statue":
            return Support(cell, s, "statue")
        return Support(cell, s, "none")

    def supports(self, tile: Tile) -> tuple[Support, Support, Support, Support]:
        """One :class:`Support` per field of the tile, in the order of ``tile.cells``."""
        a, b, c, d = (self.support(tile, cell) for cell in tile.cells)
        return (a, b, c, d)
