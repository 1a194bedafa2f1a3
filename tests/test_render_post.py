"""Post-processing: lens distortion geometry, vignetting, exposure, reproducibility, encoding."""

from __future__ import annotations

import numpy as np
import pytest

from vision.render.conditions import render_camera, sample_conditions
from vision.render.post import finish_linear, finish_photo, white_balance_gain

NEUTRAL = dict(noise_sigma=0.0, blur_sigma=0.0, motion_px=0.0, vignette=0.0, exposure_ev=0.0,
               light={"kelvin": 5000.0}, white_balance_kelvin=5000.0)


def _dot(rc, uv: np.ndarray, sigma: float = 1.5) -> np.ndarray:
    yy, xx = np.mgrid[0 : rc.height, 0 : rc.width].astype(np.float32)
    g = np.exp(-((xx - uv[0]) ** 2 + (yy - uv[1]) ** 2) / (2 * sigma**2))
    return np.repeat((0.6 * g)[..., None], 3, axis=2)


@pytest.mark.parametrize("k1", [-0.08, 0.04])
def test_distortion_remap_matches_camera_project(k1: float) -> None:
    c = sample_conditions(3, size=(1200, 900), k1=k1, **NEUTRAL)
    rc = render_camera(c)
    for p in ([0.0, 0.0, 0.0], [330.0, 270.0, 0.0], [15.0, 255.0, 112.5]):
        p3 = np.array([p])
        out = finish_photo(_dot(rc, rc.project(p3)[0]), c)[..., 1].astype(np.float64)
        yy, xx = np.mgrid[0 : out.shape[0], 0 : out.shape[1]]
        seen = np.array([(out * xx).sum(), (out * yy).sum()]) / out.sum()
        want = c.camera.project(p3)[0]
        assert np.hypot(*(seen - want)) < 1.0
        assert np.hypot(*(want - c.camera.project(p3, distort=False)[0])) > 1.0  # distortion matters


def test_vignetting_darkens_corners() -> None:
    c = sample_conditions(5, size=(800, 600), k1=0.0, **{**NEUTRAL, "vignette": 0.3})
    rc = render_camera(c)
    lin = finish_linear(np.full((rc.height, rc.width, 3), 0.18, np.float32), c)
    cx, cy = int(round(c.camera.cx)), int(round(c.camera.cy))
    assert lin[cy, cx].mean() == pytest.approx(0.18, rel=1e-3)
    for y, x in ((0, 0), (0, 799), (599, 0), (599, 799)):
        assert lin[y, x].mean() == pytest.approx(0.18 * 0.7, rel=1e-3)
    photo = finish_photo(np.full((rc.height, rc.width, 3), 0.18, np.float32), c)
    assert photo[0, 0].mean() < photo[cy, cx].mean() - 10


def test_exposure_doubles_linear() -> None:
    img = np.random.default_rng(0).random((1, 1, 3), dtype=np.float32)
    lins = []
    for ev in (0.0, 1.0):
        c = sample_conditions(9, size=(640, 480), **{**NEUTRAL, "exposure_ev": ev})
        rc = render_camera(c)
        lins.append(finish_linear(np.tile(img, (rc.height, rc.width, 1)) * 0.3, c))
    np.testing.assert_allclose(lins[1], 2.0 * lins[0], rtol=1e-5)


def test_white_balance_cast() -> None:
    np.testing.assert_allclose(white_balance_gain(4000.0, 4000.0), 1.0, atol=1e-6)
    warm = white_balance_gain(2800.0, 5500.0)
    assert warm[0] > warm[1] > warm[2]
    cool = white_balance_gain(6500.0, 4000.0)
    assert cool[2] > cool[0]


def test_tone_curve_gentle_highlights() -> None:
    c = sample_conditions(9, size=(320, 240), **NEUTRAL)
    rc = render_camera(c)
    levels = np.array([0.0, 0.18, 0.7, 1.0, 2.0], np.float32)
    cols = levels[np.minimum(np.arange(rc.width) * 5 // rc.width, 4)]
    img = np.ascontiguousarray(np.broadcast_to(cols[None, :, None], (rc.height, rc.width, 3)))
    row = finish_photo(img, c)[c.camera.height // 2, :, 1].astype(int)
    vals = [row[int(x)] for x in (np.arange(5) + 0.5) * c.camera.width / 5]
    assert vals[0] == 0 and 115 <= vals[1] <= 120  # 0.18 linear = sRGB 118
    assert vals[2] < vals[3] < vals[4] <= 255  # no hard clip at 1.0


def test_same_seed_same_pixels() -> None:
    c = sample_conditions(11, size=(640, 360), noise_sigma=4.0)
    rc = render_camera(c)
    img = np.random.default_rng(1).random((rc.height, rc.width, 3), dtype=np.float32)
    a, b = finish_photo(img, c), finish_photo(img, c)
    assert a.shape == (360, 640, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    other = finish_photo(img, sample_conditions(12, camera=c.camera, noise_sigma=4.0))
    assert not np.array_equal(a, other)
