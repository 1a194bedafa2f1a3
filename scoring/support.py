"""How tiles stand (spec 1.1): the surface under each field of a tile and what can carry it.

Shared by the legality checker (is every tile supportable?), the generator (where can the next tile
go?) and the renderer (which pillars to draw), so all three read the rules the same way.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
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


def field_support(level: int, surface: int, blockers: Sequence[str]) -> SupportKind:
    """What can carry one field of a tile on ``level`` over a surface at ``surface`` (< level), given
    the kinds of the pieces standing on the field between the two (a bridge deck spans its middle
    cell). A pillar needs an empty field and a clear way up: a single pillar the surface one level
    down, a double pillar two; a statue on the field directly below serves as the pillar itself."""
    if not blockers:
        return "single" if surface == level - 1 else "double" if surface == level - 2 else "none"
    if surface == level - 1 and len(blockers) == 1 and blockers[0] == "statue":
        return "statue"
    return "none"


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
        """What can carry ``tile`` at ``cell``: :func:`field_support` over the surface below it and
        the pieces standing between that surface and the tile."""
        k = tile.level
        s = self.surface(cell, k)
        blockers = [d.kind for lv in range(s, k) for d in self.pieces_at.get((cell, lv), ())]
        return Support(cell, s, field_support(k, s, blockers))

    def supports(self, tile: Tile) -> tuple[Support, Support, Support, Support]:
        """One :class:`Support` per field of the tile, in the order of ``tile.cells``."""
        a, b, c, d = (self.support(tile, cell) for cell in tile.cells)
        return (a, b, c, d)
