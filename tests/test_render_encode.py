"""Photos written as phones write them: formats, quality, EXIF orientation."""

from __future__ import annotations

import io

import cv2
import numpy as np
import pytest
from PIL import Image, ImageOps

from vision.render.encode import encode_photo, photo_format


def _decode(data: bytes) -> np.ndarray:
    """Decode as a viewer does: honour the EXIF orientation."""
    import pillow_heif

    pillow_heif.register_heif_opener()
    img = ImageOps.exif_transpose(Image.open(io.BytesIO(data)))
    return cv2.cvtColor(np.asarray(img.convert("RGB")), cv2.COLOR_RGB2BGR)


def _chart() -> np.ndarray:
    """An asymmetric chart: a turned or mirrored copy is easy to tell apart."""
    img = np.full((120, 200, 3), 200, np.uint8)
    img[10:40, 10:90] = (0, 0, 255)  # red block top-left
    img[80:110, 150:190] = (255, 0, 0)  # blue block bottom-right
    return img


@pytest.mark.parametrize("fmt", ["jpeg", ".jpg", "photo.png", "webp", "x.heic"])
def test_round_trip_every_format(fmt):
    img = _chart()
    back = _decode(encode_photo(img, fmt, 90))
    assert back.shape == img.shape
    assert np.abs(back.astype(int) - img).mean() < 6
    if photo_format(fmt) == "png":
        assert np.array_equal(back, img)


@pytest.mark.parametrize("fmt", ["jpeg", "heic"])
@pytest.mark.parametrize("orientation", [3, 6, 8])
def test_exif_orientation_stores_turned_pixels_that_display_upright(fmt, orientation):
    img = _chart()
    data = encode_photo(img, fmt, 92, orientation)
    stored = Image.open(io.BytesIO(data)) if fmt == "jpeg" else None
    if stored is not None:
        assert stored.getexif()[0x0112] == orientation
        turned = orientation in (6, 8)
        assert stored.size == ((120, 200) if turned else (200, 120))
    back = _decode(data)
    assert back.shape == img.shape
    assert np.abs(back.astype(int) - img).mean() < 6


def test_quality_changes_size_and_bad_formats_are_refused():
    img = np.random.default_rng(0).integers(0, 256, (120, 160, 3), dtype=np.uint8)
    assert len(encode_photo(img, "jpeg", 70)) < len(encode_photo(img, "jpeg", 95))
    with pytest.raises(ValueError, match="unsupported"):
        encode_photo(img, "tiff")
    with pytest.raises(ValueError, match="orientation"):
        encode_photo(img, "jpeg", 90, 5)


def _colour_stripes() -> np.ndarray:
    """Red and blue stripes one pixel wide: only full-resolution chroma keeps them apart."""
    img = np.zeros((64, 96, 3), np.uint8)
    img[:, 0::2] = (0, 0, 255)
    img[:, 1::2] = (255, 0, 0)
    return img


@pytest.mark.parametrize("fmt", ["jpeg", "heic"])
def test_chroma_subsampling_as_drawn(fmt):
    """4:4:4 keeps one-pixel colour detail, 4:2:0 (half-resolution chroma) smears it; the JPEG says so in
    its header (luma sampled 2 x 2 against chroma)."""
    img = _colour_stripes()
    err = {}
    for sub in ("4:4:4", "4:2:0"):
        data = encode_photo(img, fmt, 95, subsampling=sub)
        err[sub] = np.abs(_decode(data).astype(int) - img).mean()
        if fmt == "jpeg":
            y_sampling = Image.open(io.BytesIO(data)).layer[0][1:3]
            assert y_sampling == ((1, 1) if sub == "4:4:4" else (2, 2))
    assert err["4:4:4"] < 20 < err["4:2:0"], err
    with pytest.raises(ValueError, match="subsampling"):
        encode_photo(img, fmt, 90, subsampling="4:1:1")


def test_subsampling_is_drawn_per_photo_and_written(tmp_path):
    from scoring.garden import Garden, Tile
    from vision.render.conditions import sample_conditions
    from vision.render.photo import render_photo, save_photo

    assert {sample_conditions(s).processing.jpeg_subsampling for s in range(40)} == {"4:4:4", "4:2:0"}
    g = Garden(board_flower="pink", tiles=(Tile(row=3, col=3, level=1, flower="blue"),))
    for sub, sampling in (("4:2:0", (2, 2)), ("4:4:4", (1, 1))):
        ph = render_photo(g, 1, size=(640, 480), jpeg_quality=80, processing={"jpeg_subsampling": sub})
        path = save_photo(ph, tmp_path / f"p{sub[-1]}.jpg")
        assert Image.open(path).layer[0][1:3] == sampling
