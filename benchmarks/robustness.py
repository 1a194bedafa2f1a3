"""How the reader's accuracy holds when a photo is changed the way another camera changes it.

Run: python benchmarks/robustness.py DIR [--limit 100] [--jobs 2] [--only NAME ...] [--report FILE]
[--against FILE]. Not a test.

Every photo with its truth in DIR is read as it is and once per change below (the tone curve, the
saturation, a white balance left warm or cool, haze, blur, resolution, noise, JPEG blocks), applied to
the loaded image; each change is one another phone, its processing or its lens could make. Prints, per
change, the share of photos whose total is exact and whose visible structure is right, the difference
from the unchanged photos, and the photos it broke or mended. A change that costs much points at a
look the reader leans on; the independent photos (another renderer of the same pieces) differ from
this project's renders in such ways. ``--report FILE`` keeps every photo's result under every change
(JSON: exact, structure right, what went wrong); ``--against FILE``, such a report of another reader
(an earlier commit), adds per change its share and the photos it read right that this one does not
(lost) and the other way round (gained), on the photos both read.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
from collections.abc import Callable  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from dataclasses import replace  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.progress import Progress  # noqa: E402
from rich.table import Table  # noqa: E402

from scoring.files import atomic_write  # noqa: E402
from vision.read.evaluate import changed, evaluate_photo, photos_with_truth  # noqa: E402
from vision.read.load import load_photo  # noqa: E402
from vision.read.reading import read_photo  # noqa: E402

Change = Callable[[np.ndarray], np.ndarray]


def _table(curve: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """A lookup table (256,) of uint8 for a tone curve on 0..1."""
    return np.clip(np.round(curve(np.arange(256) / 255.0) * 255.0), 0, 255).astype(np.uint8)


def _lut(curve: Callable[[np.ndarray], np.ndarray]) -> Change:
    table = _table(curve)
    return lambda img: cv2.LUT(img, table)


def _gain(b: float, g: float, r: float) -> Change:
    """A white balance off by these gains (on linear light, gamma 2.2)."""
    tables = [_table(lambda x, k=k: np.clip(x**2.2 * k, 0, 1) ** (1 / 2.2)) for k in (b, g, r)]
    return lambda img: cv2.merge([cv2.LUT(c, t) for c, t in zip(cv2.split(img), tables, strict=True)])


def _saturation(k: float) -> Change:
    def change(img: np.ndarray) -> np.ndarray:
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.float32)
        hsv[..., 1] = np.clip(hsv[..., 1] * k, 0, 255)
        return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)

    return change


def _haze(share: float) -> Change:
    """Veiling glare: a share of the mean light added over the whole frame, contrast lost."""
    return lambda img: cv2.addWeighted(img, 1 - share, np.full_like(img, int(img.mean())), share, 0)


def _half_resolution(img: np.ndarray) -> np.ndarray:
    h, w = img.shape[:2]
    small = cv2.resize(img, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _noise(sigma: float) -> Change:
    def change(img: np.ndarray) -> np.ndarray:
        rng = np.random.default_rng(int(img[::97, ::89].sum()))
        return np.clip(img + rng.normal(0, sigma, img.shape), 0, 255).astype(np.uint8)

    return change


def _jpeg(quality: int) -> Change:
    def change(img: np.ndarray) -> np.ndarray:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
        return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else img

    return change


CHANGES: dict[str, Change] = {
    "none": lambda img: img,
    "darker tones (gamma 1.3)": _lut(lambda x: x**1.3),
    "lighter tones (gamma 0.75)": _lut(lambda x: x**0.75),
    "S-curve (contrast)": _lut(lambda x: 0.5 - 0.5 * np.cos(np.pi * x)),
    "saturation x0.7": _saturation(0.7),
    "saturation x1.35": _saturation(1.35),
    "white balance warm": _gain(0.85, 1.0, 1.12),
    "white balance cool": _gain(1.15, 1.0, 0.88),
    "white balance green": _gain(0.94, 1.08, 0.94),
    "haze 15%": _haze(0.15),
    "blur 1.5 px": lambda img: cv2.GaussianBlur(img, (0, 0), 1.5),
    "half resolution": _half_resolution,
    "noise 6": _noise(6.0),
    "JPEG quality 35": _jpeg(35),
}


def _read_changed(name: str) -> Callable[[Path], object]:
    change = CHANGES[name]

    def read(path: Path) -> object:
        photo = load_photo(path)
        return read_photo(replace(photo, image=np.ascontiguousarray(change(photo.image))))

    return read


#: one photo read under one change: whether its total is exact, its structure right, what went wrong
Result = dict[str, object]


def _one(job: tuple[str, Path]) -> tuple[str, str, Result]:
    name, path = job
    res = evaluate_photo(path, _read_changed(name))
    exact = res.board_found and res.total_read == res.total_true
    wrong = res.problems or ([res.error] if res.error else [])
    return name, path.name, {"exact": bool(exact), "structure": bool(res.structure_right), "problems": wrong}


def _read_report(path: Path) -> dict[str, dict[str, Result]]:
    try:
        changes = json.loads(path.read_text())["changes"]
    except OSError as e:
        raise SystemExit(f"{path}: cannot be read ({e.strerror})") from None
    except (ValueError, KeyError, TypeError):
        changes = None
    if not isinstance(changes, dict) or not all(
        isinstance(v, dict) and all(isinstance(r, dict) and "exact" in r for r in v.values())
        for v in changes.values()
    ):
        raise SystemExit(f"{path}: not a report of this benchmark (--report)")
    return changes


def _names(photos: list[str]) -> str:
    return " ".join(Path(p).stem[-5:] for p in sorted(photos))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--limit", type=int, default=100, help="the first N photos (by name)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--only", action="append", choices=list(CHANGES), help="these changes (and none)")
    ap.add_argument("--report", type=Path, help="keep every photo's result under every change (JSON)")
    ap.add_argument("--against", type=Path, help="compare with such a report of another reader")
    args = ap.parse_args()
    if not args.folder.is_dir():
        raise SystemExit(f"{args.folder}: not a folder")
    if args.report and not args.report.parent.is_dir():
        raise SystemExit(f"{args.report.parent}: no such folder for the report")
    before = _read_report(args.against) if args.against else None
    photos = photos_with_truth(args.folder)[: args.limit]
    if not photos:
        raise SystemExit(f"{args.folder}: no photo with its truth JSON beside it")
    names = ["none", *[n for n in CHANGES if n != "none" and (not args.only or n in args.only)]]
    jobs = [(n, p) for n in names for p in photos]
    results: dict[str, dict[str, Result]] = {n: {} for n in names}
    with Progress() as progress, ProcessPoolExecutor(args.jobs) as pool:
        task = progress.add_task("reading", total=len(jobs))
        for name, photo, result in pool.map(_one, jobs, chunksize=2):
            results[name][photo] = result
            progress.advance(task)
    if args.report:  # written whole or not at all
        doc = {"folder": str(args.folder), "changes": results}
        atomic_write(args.report, json.dumps(doc, indent=1).encode())
    table = Table(title=f"{len(photos)} photos of {args.folder}")
    columns = ["change", "total exact", "vs none", "structure right", "broke", "mended"]
    if before is not None:
        columns += [f"in {args.against.name}", "lost", "gained"]
    shares = ("total exact", "vs none", "structure right")
    for col in columns:
        table.add_column(col, justify="right" if col in shares else "left")
    base = {p: bool(r["exact"]) for p, r in results["none"].items()}
    for n in names:
        e = {p: bool(r["exact"]) for p, r in results[n].items()}
        share = 100 * sum(e.values()) / len(photos)
        mended, broke = changed(base, e)
        row = [
            n,
            f"{share:.1f}%",
            f"{share - 100 * sum(base.values()) / len(photos):+.1f}",
            f"{100 * sum(bool(r['structure']) for r in results[n].values()) / len(photos):.1f}%",
            _names(broke),
            _names(mended),
        ]
        if before is not None:
            old = {p: bool(r["exact"]) for p, r in before.get(n, {}).items() if p in e}
            gained, lost = changed(old, e)
            share_then = f"{100 * sum(old.values()) / len(old):.1f}% of {len(old)}" if old else "-"
            row += [share_then, _names(lost), _names(gained)]
        table.add_row(*row)
    Console(width=200 if before is not None else 160).print(table)


if __name__ == "__main__":
    main()
