"""What a player sees looking straight down on the garden (spec 1.4).

Visibility is decided on the cell grid, never by a photo's perspective: each cell shows its
highest tile; a piece is visible if at least one of its cells is not covered by a tile above it.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.garden import GRID, Cell, Decoration, Garden, Tile


@dataclass(frozen=True)
class View:
    """The garden seen from directly above."""

    top: tuple[tuple[int, ...], ...]  #: top[r][c]: level of the highest tile over the cell, 0 = board
    tiles: tuple[Tile, ...]  #: tiles at least partly visible
    decorations: tuple[Decoration, ...]  #: decorations at least partly visible
    holes: tuple[Cell, ...]  #: building-zone cells covered by no tile


def top_levels(garden: Garden) -> tuple[tuple[int, ...], ...]:
    """For each of the 64 cells, the level of the highest tile covering it (0 for the board)."""
    top = [[0] * GRID for _ in range(GRID)]
    for t in garden.tiles:
        for r, c in t.cells:
            if t.level > top[r][c]:
                top[r][c] = t.level
    return tuple(tuple(row) for row in top)


def tile_visible(tile: Tile, top: tuple[tuple[int, ...], ...]) -> bool:
    return any(top[r][c] <= tile.level for r, c in tile.cells)


def decoration_visible(deco: Decoration, top: tuple[tuple[int, ...], ...]) -> bool:
    """A piece is hidden only when every cell it stands on (or spans, for a bridge's middle cell)
    is covered by a tile above the level it stands at there."""
    return any(top[r][c] <= level for (r, c), level in deco.cell_levels)


def view(garden: Garden) -> View:
    top = top_levels(garden)
    return View(
        top=top,
        tiles=tuple(t for t in garden.tiles if tile_visible(t, top)),
        decorations=tuple(d for d in garden.decorations if decoration_visible(d, top)),
        holes=tuple((r, c) for r in range(GRID) for c in range(GRID) if top[r][c] == 0),
    )
