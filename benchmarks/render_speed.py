"""Median seconds per 12 MP (4032 x 3024) photo: conditions, 3-D render, post-processing, truth.

Run: python benchmarks/render_speed.py [repeats]. Not a test.
"""

from __future__ import annotations

import statistics
import sys
import time

from scoring.garden import Decoration, Garden, Tile
from vision.render.photo import render_photo


def gardens() -> list[Garden]:
    t = Tile
    small = Garden(tiles=(t(row=3, col=3, level=1, flower="white"),))
    mid = Garden(
        board_flower="pink",
        tiles=(t(row=0, col=0, level=1, flower="blue"), t(row=2, col=2, level=1, flower="white"),
               t(row=2, col=4, level=1, flower="pink"), t(row=1, col=3, level=2, flower="yellow"),
               t(row=5, col=5, level=1, flower="yellow")),
        decorations=(Decoration(kind="belvedere", cells=((0, 0),), level=1),
                     Decoration(kind="fountain", cells=((3, 2), (3, 3)), level=1)),
    )
    cells = [(r, c) for r in (0, 2, 4, 6) for c in (0, 2, 4, 6)]
    flowers = ["white", "pink", "yellow", "blue"] * 4
    big = Garden(tiles=tuple(t(row=r, col=c, level=1 + (r + c) % 3, flower=f)
                             for (r, c), f in zip(cells, flowers, strict=True)))
    return [small, mid, big]


def main(repeats: int = 3) -> None:
    rows = []
    for gi, g in enumerate(gardens()):
        for k in range(repeats):
            t0 = time.perf_counter()
            ph = render_photo(g, 100 + 10 * gi + k, size=(4032, 3024))
            rows.append((time.perf_counter() - t0, ph.timings))
    med = statistics.median(r[0] for r in rows)
    parts = {key: statistics.median(r[1][key] for r in rows) for key in rows[0][1]}
    print(f"12 MP photos: {len(rows)}; median {med:.2f} s per photo")
    print("  median by stage: " + ", ".join(f"{k} {v:.2f} s" for k, v in parts.items()))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
