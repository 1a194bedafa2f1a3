"""How well decorations and symbols were read, against a truth garden (for ``babylon eval`` and
``tools/eval_decorations.py``).

Only what scores is judged: a truth piece counts when it is at least partly visible from directly
above (spec 1.4); a piece read that matches a truth piece hidden under higher tiles is neither right
nor wrong. A piece matches when its kind, cells and levels are those of the truth (stairs in either
order). Symbols are judged on the fields read as empty.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from scoring.facts import DECORATION_KINDS
from scoring.garden import Decoration, Garden
from scoring.visibility import decoration_visible, top_levels

__all__ = ["PieceCounts", "evaluate_decorations", "evaluate_symbols"]


def _key(d: Decoration) -> tuple[str, frozenset[tuple[tuple[int, int], int]]]:
    return d.kind, frozenset(d.cell_levels)


@dataclass
class PieceCounts:
    """True positives, false positives and misses by kind, summed over photos."""

    tp: Counter[str] = field(default_factory=Counter)
    fp: Counter[str] = field(default_factory=Counter)
    fn: Counter[str] = field(default_factory=Counter)
    photos: int = 0
    photos_exact: int = 0  #: photos whose every visible piece was read and nothing else
    belvedere_photos_exact: int = 0  #: photos whose visible belvederes were read exactly
    symbols_right: int = 0
    symbols_total: int = 0
    symbol_confusion: Counter[tuple[str, str]] = field(default_factory=Counter)  #: (truth, read) when wrong

    def add(self, other: PieceCounts) -> None:
        self.tp.update(other.tp)
        self.fp.update(other.fp)
        self.fn.update(other.fn)
        self.photos += other.photos
        self.photos_exact += other.photos_exact
        self.belvedere_photos_exact += other.belvedere_photos_exact
        self.symbols_right += other.symbols_right
        self.symbols_total += other.symbols_total
        self.symbol_confusion.update(other.symbol_confusion)

    def precision(self, kind: str) -> float:
        n = self.tp[kind] + self.fp[kind]
        return self.tp[kind] / n if n else 1.0

    def recall(self, kind: str) -> float:
        n = self.tp[kind] + self.fn[kind]
        return self.tp[kind] / n if n else 1.0

    def table(self) -> list[dict[str, float | int | str]]:
        """One row per kind: truth count, tp, fp, fn, precision, recall."""
        return [
            {
                "kind": k,
                "truth": self.tp[k] + self.fn[k],
                "tp": self.tp[k],
                "fp": self.fp[k],
                "fn": self.fn[k],
                "precision": self.precision(k),
                "recall": self.recall(k),
            }
            for k in DECORATION_KINDS
        ]


def evaluate_decorations(pred: Iterable[Decoration], truth: Garden) -> PieceCounts:
    """Counts for one photo: ``pred`` the pieces read, ``truth`` the photo's true garden."""
    top = top_levels(truth)
    truth_keys = {_key(d): d for d in truth.decorations}
    visible = {k for k, d in truth_keys.items() if decoration_visible(d, top)}
    counts = PieceCounts(photos=1)
    matched = set()
    for d in pred:
        k = _key(d)
        if k in visible and k not in matched:
            counts.tp[d.kind] += 1
            matched.add(k)
        elif k not in truth_keys:
            counts.fp[d.kind] += 1
    for k in visible - matched:
        counts.fn[k[0]] += 1
    counts.photos_exact = int(not counts.fp and not counts.fn)
    counts.belvedere_photos_exact = int(not counts.fp["belvedere"] and not counts.fn["belvedere"])
    return counts


def evaluate_symbols(
    pred: Mapping[tuple[int, int, int], tuple[tuple[str | None, ...], ...]], truth: Garden
) -> PieceCounts:
    """Symbol accuracy for one photo: ``pred`` maps (row, col, level) of a tile to its 2 x 2 symbols
    grid, with ``"?"`` where a field was not read (covered, or a piece stands on it); every other
    field is compared with the truth tile's symbol."""
    counts = PieceCounts()
    by_key = {(t.row, t.col, t.level): t for t in truth.tiles}
    for key, grid in pred.items():
        t = by_key.get(key)
        if t is None or t.symbols is None:
            continue
        for i in range(2):
            for j in range(2):
                got = grid[i][j]
                if got == "?":
                    continue
                want = t.symbols[i][j]
                counts.symbols_total += 1
                if got == want:
                    counts.symbols_right += 1
                else:
                    counts.symbol_confusion[(str(want), str(got))] += 1
    return counts
