"""Decoration and symbol reading, measured with truth inputs: the truth camera and tiles beside each
rendered photo stand in for the structure reader, so the figures are those of this stage alone.

    .venv/bin/python tools/eval_decorations.py DIR [DIR ...] [--worst N] [--limit N]

Truth files without the tiles' placements (another renderer's) are read with every tile exactly on its
block. Prints precision and recall by kind, belvederes, the share of photos whose pieces are all right, the
symbol accuracy and the time per photo of the stage (decorations + symbols, working image).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from scoring.garden import garden_from_dict
from vision.camera import Camera
from vision.profile import REFERENCE
from vision.read.decorations import PlacedTile
from vision.read.load import PhotoError, load_photo
from vision.read.pieces import read_pieces, truth_tiles
from vision.read.pieces_eval import PieceCounts, evaluate_decorations, evaluate_symbols

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".heic")


def photos_with_truth(dirs: list[str]) -> list[tuple[Path, Path]]:
    out = []
    for d in dirs:
        for truth in sorted(Path(d).glob("*.json")):
            found = (truth.with_suffix(s) for s in PHOTO_SUFFIXES if truth.with_suffix(s).exists())
            photo = next(found, None)
            if photo is not None:
                out.append((photo, truth))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--worst", type=int, default=8, help="name this many photos with the most errors")
    ap.add_argument("--limit", type=int, default=0, help="at most this many photos")
    args = ap.parse_args(argv)
    pairs = photos_with_truth(args.dirs)
    if args.limit:
        pairs = pairs[: args.limit]
    if not pairs:
        print("error: no photos with truth files found", file=sys.stderr)
        return 2
    total = PieceCounts()
    unplaced = 0
    times = []
    worst = []
    for photo, truth_path in pairs:
        truth = json.loads(truth_path.read_text())
        try:
            ph = load_photo(photo)
        except PhotoError as e:
            print(f"{photo.name}: {e}")
            continue
        cam = Camera.from_dict(truth["camera"]).with_size(ph.image.shape[1], ph.image.shape[0])
        garden = garden_from_dict(truth["garden"])
        if "pieces" in truth:
            tiles = truth_tiles(truth, REFERENCE)
        else:  # another renderer's truth: the tiles without their hand placement (up to 1.5 mm, 3 degrees)
            tiles = [PlacedTile(t.row, t.col, t.level, flower=t.flower) for t in garden.tiles]
            unplaced += 1
        t0 = time.perf_counter()
        read = read_pieces(ph.image, cam, tiles, REFERENCE)
        times.append(time.perf_counter() - t0)
        c = evaluate_decorations(read.decorations, garden)
        c.add(evaluate_symbols(read.symbols, garden))
        total.add(c)
        errs = sum(c.fp.values()) + sum(c.fn.values())
        if errs:
            what = ", ".join(
                [f"missed {k} x{v}" for k, v in c.fn.items()] + [f"extra {k} x{v}" for k, v in c.fp.items()]
            )
            worst.append((errs, photo.name, what))
    print(
        f"{total.photos} photos, truth camera and tiles"
        + (f" ({unplaced} without the tiles' hand placement)" if unplaced else "")
    )
    print(f"{'kind':10s} {'truth':>6s} {'tp':>5s} {'fp':>4s} {'fn':>4s} {'precision':>9s} {'recall':>7s}")
    for row in total.table():
        print(
            f"{row['kind']:10s} {row['truth']:6d} {row['tp']:5d} {row['fp']:4d} {row['fn']:4d} "
            f"{row['precision']:9.2%} {row['recall']:7.2%}"
        )
    n = max(total.photos, 1)
    print(
        f"photos with every piece right: {total.photos_exact / n:.1%}; belvederes exact: "
        f"{total.belvedere_photos_exact / n:.1%}"
    )
    if total.symbols_total:
        share = total.symbols_right / total.symbols_total
        print(f"symbols: {share:.2%} of {total.symbols_total} empty fields")
        if total.symbol_confusion:
            print(
                "  confusions (truth -> read): "
                + ", ".join(f"{a}->{b} x{v}" for (a, b), v in total.symbol_confusion.most_common(8))
            )
    if times:
        times.sort()
        print(
            f"time per photo (decorations + symbols): median {times[len(times) // 2] * 1000:.0f} ms, "
            f"max {times[-1] * 1000:.0f} ms"
        )
    worst.sort(reverse=True)
    for _errs, name, what in worst[: args.worst]:
        print(f"  {name}: {what}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
