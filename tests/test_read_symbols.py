"""The symbol of a field, from its rectified crop (stage 7): blank green field or cream plaque, and the
icon on a plaque."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.profile import REFERENCE
from vision.read.symbols import CROP_MM, CROP_PPM, FieldCrop, classify_field, crop_grid

#: a staircase rising left to right, in mm about the plaque's middle (x right, y down)
STEPS_MM = [(-6, 6), (6, 6), (6, -6), (2, -6), (2, -2), (-2, -2), (-2, 2), (-6, 2)]


def _crop(disc_lead: float, ring_lead: float, icon: bool = True) -> FieldCrop:
    """A field's crop: a cream plaque (with a staircase icon in ink) whose disc shows green leading by
    ``disc_lead``, on a garden green leading by ``ring_lead``."""
    u, v = crop_grid(REFERENCE)
    r = np.hypot(u, v)
    plaque = r < REFERENCE.tile.plaque_diameter / 2
    grey = np.where(plaque, 1.0, 0.4).astype(np.float32)
    if icon:
        pts = np.array([[(x + CROP_MM) * CROP_PPM, (y + CROP_MM) * CROP_PPM] for x, y in STEPS_MM], np.int32)
        ink = np.zeros(grey.shape, np.uint8)
        cv2.fillPoly(ink, [pts], 1)
        grey[ink > 0] = 0.08
    lead = np.where(plaque, disc_lead, ring_lead).astype(np.float32)
    return FieldCrop((3, 3), 1, 0, grey, lead, 1.0)


def test_a_plaque_a_hair_green_under_a_warm_light_is_still_a_plaque() -> None:
    """A cream plaque lit warm and balanced on the board's sand can show green leading by a hair (dev
    photo 42094: 0.065): against the field's own green round it (0.35), it is no green field."""
    assert classify_field(_crop(0.065, 0.35), REFERENCE)[0] == "stairs"


@pytest.mark.parametrize("ring", [0.35, 0.12, 0.03])
def test_a_green_disc_is_a_blank_field(ring: float) -> None:
    """A field whose middle is as green as the field round it is blank (its three small flowers are no
    plaque), in a normal photo and where a sheen or a glare washes the green out nearly to grey."""
    sym, clear = classify_field(_crop(ring, ring, icon=False), REFERENCE)
    assert sym is None and clear == 1.0


def test_a_field_washed_white_is_read_by_its_ink() -> None:
    """Where green leads by nothing (a glare washes the field white), the disc's colour says nothing:
    a plaque's icon is read from its ink."""
    assert classify_field(_crop(0.005, 0.005), REFERENCE)[0] == "stairs"
