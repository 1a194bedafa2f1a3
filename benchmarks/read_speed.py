"""Median seconds to read and score one 12 MP (4032 x 3024) JPEG photo on ONE core.

Run: python benchmarks/read_speed.py [--photos 6] [--cache DIR]. Not a test.

The photos are rendered once (renderer seeds 300000.., outside the held-out range) into the cache
folder and reused. Threads are pinned to one (OpenCV, BLAS), as a server worker per core would run.
Prints the median of the whole read (decode to score card), of the reader's stages, of part 1
(board, camera, tiles, flowers and levels: everything before the decorations) and the peak RSS.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402

from scoring.generate import generate_garden  # noqa: E402
from scoring.score import score_garden  # noqa: E402
from vision.read.reading import read_photo  # noqa: E402
from vision.render.photo import render_photo  # noqa: E402

FIRST_SEED = 300000
PART_2 = ("pieces", "rules", "assemble")  #: the stages after part 1 (decorations, symbols, rules check)


def _render(seed: int, path: Path) -> None:
    ph = render_photo(generate_garden(seed), seed, size=(4032, 3024))
    cv2.imwrite(str(path), ph.image, [cv2.IMWRITE_JPEG_QUALITY, 92])


def photos(n: int, cache: Path) -> list[Path]:
    """The benchmark's photos, rendered in a child process so that the reader's peak RSS is its own."""
    cache.mkdir(parents=True, exist_ok=True)
    paths = {seed: cache / f"read_speed_{seed}.jpg" for seed in range(FIRST_SEED, FIRST_SEED + n)}
    missing = [(s, p) for s, p in paths.items() if not p.exists()]
    if missing:
        with ProcessPoolExecutor(1) as pool:
            list(pool.map(_render, *zip(*missing, strict=True)))
    return list(paths.values())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=int, default=6)
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "babylon-read-speed")
    a = ap.parse_args()
    cv2.setNumThreads(1)
    paths = photos(a.photos, a.cache)
    read_photo(paths[0])  # warm-up: imports, tables built once
    totals, part1, stages = [], [], []
    for p in paths:
        t0 = time.perf_counter()
        reading = read_photo(p)
        score_garden(reading.garden)
        totals.append(time.perf_counter() - t0)
        stages.append(reading.timings)
        part1.append(sum(v for k, v in reading.timings.items() if k not in (*PART_2, "total")))
    keys = [k for k in stages[0] if k != "total"]
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"12 MP photos: {len(paths)}, one core")
    med = statistics.median(totals)
    print(f"  read and score: median {med:.2f} s (min {min(totals):.2f}, max {max(totals):.2f})")
    print(f"  part 1 (board, camera, tiles, flowers, levels): median {statistics.median(part1):.2f} s")
    by_stage = {k: statistics.median(s.get(k, 0.0) for s in stages) for k in keys}
    print("  median by stage: " + ", ".join(f"{k} {v:.2f} s" for k, v in by_stage.items()))
    print(f"  peak RSS {rss:.0f} MB")


if __name__ == "__main__":
    main()
