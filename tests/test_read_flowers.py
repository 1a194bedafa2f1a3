"""Flower colours of the bands (vision.read.flowers.classify): washed-out bands keep their flower."""

from __future__ import annotations

import numpy as np
import pytest

from vision.profile import REFERENCE
from vision.read.flowers import MAX_FADE, classify, flower_lab


def _washed(name: str, keep: float, lighter: float = 15.0) -> np.ndarray:
    """Band pixels of flower ``name`` with only ``keep`` of its chroma left, a little lighter (glare)."""
    L, a, b = flower_lab(REFERENCE)[name]
    return np.tile(np.array([[min(L + lighter, 100.0), a * keep, b * keep]], np.float32), (50, 1))


@pytest.mark.parametrize("name", ["pink", "yellow", "blue"])
@pytest.mark.parametrize("keep", [1.0, 0.6, 1.0 / MAX_FADE])
def test_a_washed_out_band_keeps_its_flower(name, keep):
    assert classify(_washed(name, keep), REFERENCE)[0] == name


@pytest.mark.parametrize("tint", [(0.0, 0.0), (3.0, 6.0), (-2.0, -6.0), (5.0, -1.0)])
def test_a_white_band_with_a_faint_tint_is_white(tint):
    px = np.tile(np.array([[88.0, *tint]], np.float32), (50, 1))
    flower, scores = classify(px, REFERENCE)
    assert flower == "white"
    assert scores["white"] == max(scores.values()) and abs(sum(scores.values()) - 1.0) < 1e-6


def test_no_pixels_no_flower():
    assert classify(np.zeros((0, 3), np.float32), REFERENCE) == ("", {})
