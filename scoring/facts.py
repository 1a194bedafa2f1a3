"""The game's facts, in one place: what the box holds and what each piece scores (spec 1 and 2.3).

The garden model, the scorer, the legality checker, the generator and the score card's labels all
read these tables, so a fact of the game is stated once.
"""

from __future__ import annotations

from typing import Literal, get_args

GRID = 8  #: the building zone is GRID x GRID cells

Flower = Literal["white", "pink", "yellow", "blue"]
Symbol = Literal["statue", "fountain", "bridge", "stairs"]
DecorationKind = Literal["statue", "fountain", "bridge", "stairs", "belvedere"]
FLOWERS: tuple[str, ...] = get_args(Flower)
SYMBOLS: tuple[str, ...] = get_args(Symbol)  #: the symbols printed on tile fields
DECORATION_KINDS: tuple[str, ...] = get_args(DecorationKind)  #: the symbols' pieces and the belvedere

#: how many cells each decoration piece stands on
CELLS_PER_KIND: dict[str, int] = {"statue": 1, "fountain": 2, "bridge": 3, "stairs": 2, "belvedere": 1}

# --- the box: terrace tiles (spec 2.3) -----------------------------------------------------------

#: symbol fields per tile, by material
MATERIAL_SYMBOLS: dict[str, int] = {"clay": 2, "granite": 3, "basalt": 4}
TILES_PER_MATERIAL = 4  #: tiles of each flower in each material
#: symbol fields a start tile may show; each board comes with the start tile of its own flower
START_TILE_SYMBOLS: tuple[int, ...] = (1, 2)


#: tiles of one flower by number of symbol fields, the start tile aside
MATERIAL_SUPPLY: dict[int, int] = {n: TILES_PER_MATERIAL for n in MATERIAL_SYMBOLS.values()}
#: tiles of one flower: the three materials and the start tile
TILES_PER_FLOWER = sum(MATERIAL_SUPPLY.values()) + 1

# --- the score pad (spec 1.4) --------------------------------------------------------------------

#: the score pad's rows, in order (JSON keys of spec 4.2)
CATEGORIES: tuple[str, ...] = (
    "statues", "fountains", "bridges", "stairs",
    "decoration_sets", "flower_sets", "belvederes", "highest_level",
)
#: the score row each decoration kind counts in
ROW_OF: dict[str, str] = {
    "statue": "statues", "fountain": "fountains", "bridge": "bridges", "stairs": "stairs",
    "belvedere": "belvederes",
}
#: points for a visible piece per level of the tile it stands on (stairs score the sum of their two
#: levels, a belvedere its flat points whatever its level)
POINTS_PER_LEVEL: dict[str, int] = {"statue": 1, "fountain": 3, "bridge": 3}
BELVEDERE_POINTS = 1
SET_BONUS = 4  #: points for a complete decoration set or flower set
HIGHEST_LEVEL_POINTS = 2  #: points per level of the highest tile

#: each row of the score pad with how it counts, as printed on a score card
ROW_LABELS: dict[str, str] = {
    "statues": f"Statues ({POINTS_PER_LEVEL['statue']} x level)",
    "fountains": f"Fountains ({POINTS_PER_LEVEL['fountain']} x level)",
    "bridges": f"Bridges ({POINTS_PER_LEVEL['bridge']} x level)",
    "stairs": "Stairs (sum of levels)",
    "decoration_sets": f"Decoration sets ({SET_BONUS} each)",
    "flower_sets": f"Flower sets ({SET_BONUS} each)",
    "belvederes": f"Belvederes ({BELVEDERE_POINTS} each)",
    "highest_level": f"Highest level ({HIGHEST_LEVEL_POINTS} x level)",
}
