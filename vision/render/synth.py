"""Batches of synthetic photos: legal gardens from the generator, rendered, truth beside each.

Photo ``k`` of a batch is fully determined by ``k``: the garden is ``generate_garden(k)`` and the
photo conditions are drawn from seed ``k``, so any single photo can be made again on its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scoring.generate import generate_garden
from vision.render.photo import render_photo, save_photo

#: Seed ranges. Development and tuning use DEV_SEEDS; sample_images/ is searched in SAMPLE_SEEDS;
#: HELD_OUT_SEEDS are for reporting accuracy only: nothing is ever tuned on them.
DEV_SEEDS = range(0, 100_000)
SAMPLE_SEEDS = range(100_000, 200_000)
HELD_OUT_SEEDS = range(900_000, 1_000_000)


def synth_path(out_dir: Path, seed: int, fmt: str = "jpg") -> Path:
    return out_dir / f"synth_{seed:08d}.{fmt}"


def synth_photo(seed: int, out_dir: Path, fmt: str = "jpg", **overrides: Any) -> Path:
    """Render photo ``seed`` into ``out_dir``; returns the image path (truth: same stem, .json)."""
    path = synth_path(out_dir, seed, fmt)
    save_photo(render_photo(generate_garden(seed), seed, **overrides), path)
    return path


def synth_batch(
    first_seed: int, n: int, out_dir: Path, fmt: str = "jpg", overwrite: bool = False, **overrides: Any
) -> Iterator[tuple[int, Path, bool]]:
    """Yield (seed, image path, rendered?) for seeds first_seed .. first_seed + n - 1. A photo whose
    image and truth both exist already is skipped unless ``overwrite``: an interrupted batch
    resumes where it stopped."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for seed in range(first_seed, first_seed + n):
        path = synth_path(out_dir, seed, fmt)
        if not overwrite and path.exists() and path.with_suffix(".json").exists():
            yield seed, path, False
            continue
        yield seed, synth_photo(seed, out_dir, fmt, **overrides), True
