"""Batches of synthetic photos: legal gardens from the generator, rendered, truth beside each.

Photo ``k`` of a batch is fully determined by ``k``: the garden is ``generate_garden(k)`` and the
photo conditions are drawn from seed ``k``, so any single photo can be made again on its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scoring.generate import generate_garden
from vision.render.encode import SUFFIXES, photo_format
from vision.render.photo import render_photo, save_photo

#: Seed ranges. Development and tuning use DEV_SEEDS; sample_images/ is searched in SAMPLE_SEEDS;
#: HELD_OUT_SEEDS are for reporting accuracy only: nothing is ever tuned on them.
DEV_SEEDS = range(0, 100_000)
SAMPLE_SEEDS = range(100_000, 200_000)
HELD_OUT_SEEDS = range(900_000, 1_000_000)


def synth_stem(out_dir: Path, seed: int) -> Path:
    """The photo's path without its suffix; the truth is this with ``.json``."""
    return out_dir / f"synth_{seed:08d}"


def synth_photo(seed: int, out_dir: Path, fmt: str | None = None, **overrides: Any) -> Path:
    """Render photo ``seed`` into ``out_dir`` as ``fmt`` (jpeg, heic, png, webp; None: the format
    drawn with the photo's conditions). Returns the image path (truth: same stem, .json)."""
    photo = render_photo(generate_garden(seed), seed, **overrides)
    fmt = photo_format(fmt or photo.conditions.image_format)
    return save_photo(photo, synth_stem(out_dir, seed).with_suffix(SUFFIXES[fmt]))


def _existing_image(stem: Path) -> Path | None:
    """The photo already written at ``stem`` (any of the formats' suffixes), if any."""
    for suffix in dict.fromkeys(SUFFIXES.values()):
        if stem.with_suffix(suffix).exists():
            return stem.with_suffix(suffix)
    return None


def synth_batch(
    first_seed: int, n: int, out_dir: Path, fmt: str | None = None, overwrite: bool = False,
    **overrides: Any,
) -> Iterator[tuple[int, Path, bool]]:
    """Yield (seed, image path, rendered?) for seeds first_seed .. first_seed + n - 1. A photo whose
    truth exists already is skipped unless ``overwrite`` (the truth is written last): an
    interrupted batch resumes where it stopped. A skipped photo's image path is the one beside its
    truth, whatever its format (a truth with no photo beside it is rendered again)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for seed in range(first_seed, first_seed + n):
        stem = synth_stem(out_dir, seed)
        image = _existing_image(stem) if stem.with_suffix(".json").exists() else None
        if not overwrite and image is not None:
            yield seed, image, False
            continue
        yield seed, synth_photo(seed, out_dir, fmt, **overrides), True
