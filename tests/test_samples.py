"""The committed sample_images/ are consistent: every photo has a truth that loads, is legal,
scores to the score it records, and describes an image of the size it says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image, ImageOps

from scoring.garden import load
from scoring.rules import check
from scoring.score import score_garden

SAMPLES = Path(__file__).resolve().parent.parent / "sample_images"
PHOTOS = sorted(p for p in SAMPLES.iterdir() if p.suffix in (".jpg", ".heic", ".png", ".webp")
                and p.stem != "contact_sheet")


def test_there_are_enough_samples_and_the_folder_is_small():
    assert len(PHOTOS) >= 30
    assert sum(p.stat().st_size for p in SAMPLES.iterdir()) < 25 * 2**20


@pytest.mark.parametrize("photo", PHOTOS, ids=lambda p: p.stem)
def test_sample_truth_matches(photo):
    import pillow_heif

    pillow_heif.register_heif_opener()
    truth_path = photo.with_suffix(".json")
    truth = json.loads(truth_path.read_text())
    garden = load(truth_path)
    assert [f for f in check(garden) if f.severity == "error"] == []
    assert score_garden(garden).to_dict() == truth["score"]
    with Image.open(photo) as img:
        shown = ImageOps.exif_transpose(img)
        assert list(shown.size) == truth["camera"]["image_size"]
    assert photo.name in (SAMPLES / "README.md").read_text()
