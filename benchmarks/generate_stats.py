"""Distribution of generated gardens over 2,000 seeds: tile counts, highest level, decorations,
hidden pieces, checker findings, and the generation rate.

    python benchmarks/generate_stats.py [N]
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterable

from scoring.garden import DECORATION_KINDS, Garden
from scoring.generate import generate_garden
from scoring.rules import check
from scoring.visibility import decoration_visible, top_levels

BAR = 50


def histogram(title: str, values: Iterable[int]) -> None:
    counts = Counter(values)
    total = sum(counts.values())
    print(f"\n{title}")
    if not counts:
        return
    peak = max(counts.values())
    for v in range(min(counts), max(counts) + 1):
        n = counts.get(v, 0)
        print(f"  {v:>3} {n:>6} {100 * n / total:5.1f}% {'#' * round(BAR * n / peak)}")


def hidden_counts(gardens: list[Garden]) -> tuple[Counter[str], Counter[str]]:
    """Per kind: pieces completely hidden, and pieces partly covered but still visible."""
    hidden: Counter[str] = Counter()
    partly: Counter[str] = Counter()
    for g in gardens:
        top = top_levels(g)
        for d in g.decorations:
            if not decoration_visible(d, top):
                hidden[d.kind] += 1
            elif any(top[r][c] > lv for (r, c), lv in d.cell_levels):
                partly[d.kind] += 1
    return hidden, partly


def main(n: int = 2000) -> None:
    start = time.perf_counter()
    gardens = [generate_garden(seed) for seed in range(n)]
    rate = n / (time.perf_counter() - start)
    print(f"{n} gardens, {rate:.0f} gardens/s")
    histogram("tiles per garden", (len(g.tiles) for g in gardens))
    histogram("highest level", (g.max_level for g in gardens))
    histogram("decorations per garden (belvederes included)", (len(g.decorations) for g in gardens))
    for kind in DECORATION_KINDS:
        histogram(f"{kind} pieces per garden", (sum(d.kind == kind for d in g.decorations) for g in gardens))
    hidden, partly = hidden_counts(gardens)
    total = Counter(d.kind for g in gardens for d in g.decorations)
    print("\npieces: kind, total, completely hidden, partly covered")
    for kind in DECORATION_KINDS:
        print(f"  {kind:<10} {total[kind]:>6} {hidden[kind]:>6} {partly[kind]:>6}")
    decorations = [len(g.decorations) for g in gardens]
    print(f"\nmedian decorations {statistics.median(decorations)}, "
          f"median tiles {statistics.median(len(g.tiles) for g in gardens)}")
    three = sum(any(d.kind == "belvedere" for d in g.decorations) for g in gardens) / n
    print(f"gardens with a tile on 3 supports (a belvedere): {three:.0%}")
    findings = Counter((f.severity, f.rule) for g in gardens for f in check(g))
    print("checker findings:", dict(findings) or "none")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
