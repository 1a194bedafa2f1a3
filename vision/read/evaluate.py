"""Accuracy of the reader against ground truth (``babylon eval DIR``).

A photo's truth is the JSON beside it (``garden``: babylon-garden/1; ``camera`` with the board's
corner pixels, when a renderer wrote it). Only what the score can depend on is compared: the tiles
seen from above (a tile with at least one visible cell), their level and flower, the top tile of
every cell, the highest level, and the score itself.
"""

from __future__ import annotations

import json
import resource
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scoring.facts import DECORATION_KINDS
from scoring.garden import Garden, garden_from_dict
from scoring.score import CATEGORIES, score_garden
from scoring.visibility import top_levels
from vision.read.pieces_eval import evaluate_decorations

#: a focal length read within this share of the truth's puts the level planes within a pixel or two
FOCAL_CLOSE = 0.03
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif")


@dataclass
class PhotoResult:
    name: str
    board_found: bool
    error: str = ""
    corner_error_px: float | None = None  #: largest board-corner distance from the truth, full-size pixels
    focal_error: float | None = None  #: the focal length read over the truth's, less 1
    tiles_true: int = 0  #: visible tiles in the truth
    tiles_read: int = 0
    tiles_matched: int = 0  #: same 2 x 2 block
    levels_right: int = 0  #: of the matched
    flowers_right: int = 0  #: of the matched
    highest_right: bool = False
    structure_right: bool = False  #: every cell's top tile: block, level and flower
    total_true: int = 0
    total_read: int | None = None
    categories_right: bool = False
    pieces: dict[str, dict[str, int]] = field(default_factory=dict)  #: kind -> {tp, fp, fn}
    seconds: float = 0.0
    peak_mb: float = 0.0  #: the process's peak resident memory after this photo
    problems: list[str] = field(default_factory=list)
    warnings: int = 0  #: how many warnings the reading gave (doubts, pieces out of sight, tiles inferred)


def visible_tiles(garden: Garden) -> dict[tuple[int, int, int], str]:
    """(row, col, level) -> flower of every tile with a cell seen from above."""
    top = top_levels(garden)
    return {
        (t.row, t.col, t.level): t.flower
        for t in garden.tiles
        if any(top[r][c] == t.level for r, c in t.cells)
    }


def top_tiles(garden: Garden) -> dict[tuple[int, int], tuple[int, int, int, str]]:
    """Each covered cell -> the (row, col, level, flower) of the tile seen there."""
    top = top_levels(garden)
    out = {}
    for t in garden.tiles:
        for r, c in t.cells:
            if top[r][c] == t.level:
                out[(r, c)] = (t.row, t.col, t.level, t.flower)
    return out


def compare(name: str, read: Garden, truth: Garden) -> PhotoResult:
    """What of ``truth`` the reading ``read`` got right."""
    res = PhotoResult(name, True)
    want = visible_tiles(truth)
    got = visible_tiles(read)
    res.tiles_true, res.tiles_read = len(want), len(got)
    want_by_block = {(r, c): (lv, fl) for (r, c, lv), fl in want.items()}
    got_by_block = {(r, c): (lv, fl) for (r, c, lv), fl in got.items()}
    for block, (lv, fl) in got_by_block.items():
        if block in want_by_block:
            res.tiles_matched += 1
            tl, tf = want_by_block[block]
            res.levels_right += lv == tl
            res.flowers_right += fl == tf
            if lv != tl:
                res.problems.append(f"tile {block}: level {lv}, truth {tl}")
            if fl != tf:
                res.problems.append(f"tile {block}: {fl}, truth {tf}")
        else:
            res.problems.append(f"tile {block} (level {lv}) not in the truth")
    for block, (lv, _) in want_by_block.items():
        if block not in got_by_block:
            res.problems.append(f"missed tile {block} (level {lv})")
    res.highest_right = read.max_level == truth.max_level
    res.structure_right = top_tiles(read) == top_tiles(truth)
    counts = evaluate_decorations(read.decorations, truth)
    res.pieces = {k: {"tp": counts.tp[k], "fp": counts.fp[k], "fn": counts.fn[k]} for k in DECORATION_KINDS}
    for k, c in res.pieces.items():
        if c["fp"] or c["fn"]:
            res.problems.append(f"{k}: {c['fp']} read wrongly, {c['fn']} missed")
    s_read, s_true = score_garden(read), score_garden(truth)
    res.total_true, res.total_read = s_true.total, s_read.total
    res.categories_right = all(getattr(s_read, k) == getattr(s_true, k) for k in CATEGORIES)
    return res


def truth_of(photo: Path) -> dict[str, Any] | None:
    side = photo.with_suffix(".json")
    if not side.exists():
        return None
    try:
        return json.loads(side.read_text())
    except (OSError, ValueError):
        return None


def photos_with_truth(folder: Path) -> list[Path]:
    return sorted(
        p for p in folder.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES and truth_of(p) is not None
    )


def peak_rss_mb() -> float:
    """The process's peak resident memory so far (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def evaluate_photo(photo: Path, read_fn: Any) -> PhotoResult:
    """Read one photo (``read_fn(path) -> Reading``) and compare it with the truth beside it."""
    from vision.read.load import PhotoError

    truth = truth_of(photo) or {}
    tgarden = garden_from_dict(truth["garden"])
    t0 = time.perf_counter()
    try:
        reading = read_fn(photo)
    except PhotoError as e:
        res = PhotoResult(photo.name, False, error=str(e))
        res.seconds, res.peak_mb = time.perf_counter() - t0, peak_rss_mb()
        res.problems.append("board not found")
        return res
    seconds = time.perf_counter() - t0
    res = compare(photo.name, reading.garden, tgarden)
    res.seconds, res.peak_mb, res.warnings = seconds, peak_rss_mb(), len(reading.warnings)
    corners = truth.get("camera", {}).get("board_corners_px")
    if corners:
        want = np.array([corners[k] for k in ("top_left", "top_right", "bottom_right", "bottom_left")])
        res.corner_error_px = float(np.max(np.linalg.norm(reading.board_corners_px - want, axis=1)))
    if "K" in truth.get("camera", {}):
        res.focal_error = reading.camera.fx / float(truth["camera"]["K"][0][0]) - 1
    return res


def iter_evaluate(folder: Path, read_fn: Any) -> Iterator[PhotoResult]:
    for p in photos_with_truth(folder):
        yield evaluate_photo(p, read_fn)


def summarize(results: list[PhotoResult]) -> dict[str, Any]:
    """The figures of ``babylon eval``."""
    n = len(results)
    found = [r for r in results if r.board_found]
    tp = sum(r.tiles_matched for r in found)
    n_read = sum(r.tiles_read for r in found)
    n_true = sum(r.tiles_true for r in results)

    def share(a: float, b: float) -> float | None:
        return round(a / b, 4) if b else None

    secs = [r.seconds for r in results]
    pieces: dict[str, Any] = {}
    for k in DECORATION_KINDS:
        hit = sum(r.pieces.get(k, {}).get("tp", 0) for r in found)
        wrong = sum(r.pieces.get(k, {}).get("fp", 0) for r in found)
        missed = sum(r.pieces.get(k, {}).get("fn", 0) for r in results)
        pieces[f"{k}_precision"] = share(hit, hit + wrong)
        pieces[f"{k}_recall"] = share(hit, hit + missed)
    belvedere_exact = sum(
        not r.pieces.get("belvedere", {}).get("fp", 0) and not r.pieces.get("belvedere", {}).get("fn", 0)
        for r in found
    )
    # how far a reading that warns of nothing can be trusted, against one that warns
    quiet = [r for r in found if not r.warnings]
    warned = [r for r in found if r.warnings]
    return {
        "photos": n,
        "board_found": share(len(found), n),
        "tile_precision": share(tp, n_read),
        "tile_recall": share(tp, n_true),
        "level_accuracy": share(sum(r.levels_right for r in found), tp),
        "flower_accuracy": share(sum(r.flowers_right for r in found), tp),
        "focal_within_3pct": share(sum(abs(r.focal_error or 0) <= FOCAL_CLOSE for r in found), len(found)),
        "highest_level_accuracy": share(sum(r.highest_right for r in found), n),
        "structure_right": share(sum(r.structure_right for r in found), n),
        "total_exact": share(sum(r.total_read == r.total_true for r in found), n),
        "categories_exact": share(sum(r.categories_right for r in found), n),
        "total_mean_abs_error": round(
            float(np.mean([abs((r.total_read or 0) - r.total_true) for r in found])), 3
        )
        if found
        else None,
        **pieces,
        "belvedere_accuracy": share(belvedere_exact, n),
        "read_without_warnings": share(len(quiet), n),
        "total_exact_without_warnings": share(sum(r.total_read == r.total_true for r in quiet), len(quiet)),
        "total_exact_with_warnings": share(sum(r.total_read == r.total_true for r in warned), len(warned)),
        "seconds_median": round(float(np.median(secs)), 3) if secs else None,
        "peak_mb_max": round(max((r.peak_mb for r in results), default=0.0), 1),
    }


def worst(results: list[PhotoResult], n: int = 10) -> list[PhotoResult]:
    """The photos with the most problems, board not found first."""
    return sorted(results, key=lambda r: (r.board_found, -len(r.problems)))[:n]


def to_json(results: list[PhotoResult]) -> list[dict[str, Any]]:
    return [asdict(r) for r in results]


def exact_by_photo(photos: list[dict[str, Any]]) -> dict[str, bool]:
    """Photo name -> whether its total was read exactly, from a report's photos (:func:`to_json`).
    Raises ValueError for anything else."""
    try:
        return {
            str(p["name"]): bool(p["board_found"] and p["total_read"] == p["total_true"]) for p in photos
        }
    except (KeyError, TypeError) as e:
        raise ValueError(f"not the photos of a report ({e.__class__.__name__})") from None


def changed(before: dict[str, bool], after: dict[str, bool]) -> tuple[list[str], list[str]]:
    """Of the photos in both (name -> read right), those ``after`` reads right and ``before`` did not
    (gained), and the other way round (lost), by name."""
    both = sorted(set(before) & set(after))
    return [p for p in both if after[p] and not before[p]], [p for p in both if before[p] and not after[p]]
