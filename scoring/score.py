"""Final scoring (spec 1.4): the eight categories, the total and the tie-break, and a ranking.

The points themselves are the table in :mod:`scoring.facts`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from scoring.facts import (
    BELVEDERE_POINTS,
    CATEGORIES,
    FLOWERS,
    GRID,
    HIGHEST_LEVEL_POINTS,
    POINTS_PER_LEVEL,
    ROW_OF,
    SET_BONUS,
    SYMBOLS,
)
from scoring.garden import Decoration, Garden
from scoring.visibility import view

__all__ = ["CATEGORIES", "ROW_OF", "Score", "Standing", "decoration_points", "rank", "score_garden"]


@dataclass(frozen=True)
class Score:
    statues: int = 0
    fountains: int = 0
    bridges: int = 0
    stairs: int = 0
    decoration_sets: int = 0
    flower_sets: int = 0
    belvederes: int = 0
    highest_level: int = 0
    total: int = 0
    tiebreak_visible_holes: int = GRID * GRID

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


def decoration_points(d: Decoration) -> int:
    """What one visible piece is worth in its own row (sets aside)."""
    if d.levels is not None:
        return sum(d.levels)
    if d.kind == "belvedere":
        return BELVEDERE_POINTS
    assert d.level is not None
    return d.level * POINTS_PER_LEVEL[d.kind]


def score_garden(garden: Garden) -> Score:
    """Score a garden exactly as the rulebook's final scoring: only what is at least partly visible
    from directly above counts."""
    seen = view(garden)
    rows: dict[str, int] = dict.fromkeys(CATEGORIES, 0)
    counts: Counter[str] = Counter()
    for d in seen.decorations:
        counts[d.kind] += 1
        rows[ROW_OF[d.kind]] += decoration_points(d)
    rows["decoration_sets"] = SET_BONUS * min(counts[k] for k in SYMBOLS)
    flowers = Counter(t.flower for t in seen.tiles)
    rows["flower_sets"] = SET_BONUS * min(flowers[f] for f in FLOWERS)
    rows["highest_level"] = HIGHEST_LEVEL_POINTS * garden.max_level
    return Score(**rows, total=sum(rows.values()), tiebreak_visible_holes=len(seen.holes))


@dataclass(frozen=True)
class Standing:
    place: int  #: 1 = winner; tied players share a place
    name: str
    score: Score


def rank(players: Sequence[tuple[str, Score]]) -> list[Standing]:
    """Order players by total, then by fewer visible holes; a remaining tie shares the place
    (1, 1, 3, ...)."""
    key = lambda s: (-s.total, s.tiebreak_visible_holes)  # noqa: E731
    ordered = sorted(players, key=lambda p: key(p[1]))
    out: list[Standing] = []
    for i, (name, s) in enumerate(ordered):
        place = out[-1].place if out and key(out[-1].score) == key(s) else i + 1
        out.append(Standing(place, name, s))
    return out
