"""Benchmark: gardens scored per second, over gardens from the legal-garden generator.

    python benchmarks/score_speed.py [N] [--repeats R]

Generation is not timed; scoring (visibility + the eight rows) and the legality check are timed
separately, each R times over the same N gardens, and the median is printed.
"""

from __future__ import annotations

import argparse
import statistics
import time

from scoring.generate import generate_garden
from scoring.rules import check
from scoring.score import score_garden


def _rate(fn, gardens, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for g in gardens:
            fn(g)
        times.append(time.perf_counter() - t0)
    return len(gardens) / statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("n", nargs="?", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    t0 = time.perf_counter()
    gardens = [generate_garden(seed) for seed in range(args.n)]
    gen_rate = args.n / (time.perf_counter() - t0)
    tiles = statistics.mean(len(g.tiles) for g in gardens)
    decos = statistics.mean(len(g.decorations) for g in gardens)
    print(f"{args.n} generated gardens (mean {tiles:.1f} tiles, {decos:.1f} decorations), "
          f"generated at {gen_rate:,.0f}/s")
    print(f"score_garden: {_rate(score_garden, gardens, args.repeats):,.0f} gardens/s "
          f"(median of {args.repeats})")
    print(f"check:        {_rate(check, gardens, args.repeats):,.0f} gardens/s "
          f"(median of {args.repeats})")


if __name__ == "__main__":
    main()
