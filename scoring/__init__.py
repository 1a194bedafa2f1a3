"""The rules of Babylon's final scoring, over the `babylon-garden/1` garden model.

    >>> from scoring import load, score_garden, check
    >>> garden = load("sample_images/05-level-3.json")
    >>> score_garden(garden).total
    22

Nothing here knows about pixels: the vision pipeline hands a :class:`Garden` to these functions.
"""

from scoring.garden import Decoration, Garden, GardenError, Tile, garden_from_dict, load, loads, save
from scoring.generate import generate_garden
from scoring.rules import Finding, check, is_legal
from scoring.score import Score, rank, score_garden
from scoring.visibility import View, view

__all__ = [
    "Decoration", "Finding", "Garden", "GardenError", "Score", "Tile", "View", "check",
    "garden_from_dict", "generate_garden", "is_legal", "load", "loads", "rank", "save",
    "score_garden", "view",
]
