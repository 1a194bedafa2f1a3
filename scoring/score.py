"""Final scoring (spec 1.4): the eight categories, the total and the tie-break, and a ranking."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from scoring.garden import FLOWERS, SYMBOLS, Decoration, Garden
from scoring.visibility import view

#: the score pad's rows, in order (JSON keys of spec 4.2)
CATEGORIES: tuple[str, ...] = (
    "statues", "fountains", "bridges", "stairs",
    "decoration_sets", "flower_sets", "belvederes", "highest_level",
)
SET_BONUS = 4  #: points for a complete decoration set or flower set
#: the score row each decoration kind counts in
ROW_OF: dict[str, str] = {
    "statue": "statues", "fountain": "fountains", "bridge": "bridges", "stairs": "stairs",
    "belvedere": "belvederes",
}


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
    tiebreak_visible_holes: int = 64

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    @staticmethod
    def from_dict(data: dict[str, int]) -> Score:
        return Score(**{k: int(data[k]) for k in Score.__dataclass_fields__})


def decoration_points(d: Decoration) -> int:
    """What one visible piece is worth in its own row (sets aside)."""
    if d.kind == "stairs":
        return sum(d.levels or ())
    if d.kind == "belvedere":
        return 1
    assert d.level is not None
    return d.level * (1 if d.kind == "statue" else 3)


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
    rows["highest_level"] = 2 * garden.max_level
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
