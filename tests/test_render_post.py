"""Post-processing: lens distortion geometry, vignetting, exposure, reproducibility, encoding."""

from __future__ import annotations

import numpy as np
import pytest

from vision.render.conditions import Optics, Processing, render_camera, sample_conditions
from vision.render.post import finish_linear, finish_photo, white_balance_gain

#: an ideal lens and no processing: plain pixels
NEUTRAL = dict(noise_sigma=0.0, blur_sigma=0.0, motion_px=0.0, vignette=0.0, exposure_ev=0.0,
               light={"kelvin": 5000.0}, white_balance_kelvin=5000.0, optics=Optics(),
               processing=Processing())


def _dot(rc, uv: np.ndarray, sigma: float = 1.5) -> np.ndarray:
    yy, xx = np.mgrid[0 : rc.height, 0 : rc.width].astype(np.float32)
    g = np.exp(-((xx - uv[0]) ** 2 + (yy - uv[1]) ** 2) / (2 * sigma**2))
    return np.repeat((0.6 * g)[..., None], 3, axis=2)


@pytest.mark.parametrize("k1, k2, off", [(-0.08, 0.0, (0.0, 0.0)), (0.04, 0.0, (0.0, 0.0)),
                                         (-0.05, 0.02, (0.03, -0.02)), (0.04, -0.02, (-0.03, 0.03))])
def test_distortion_remap_matches_camera_project(k1: float, k2: float, off: tuple[float, float]) -> None:
    """The lens remap puts a point where Camera.project says: k1, k2 and an off-centre principal point."""
    optics = Optics(k2=k2, principal_offset=off)
    c = sample_conditions(3, size=(1200, 900), k1=k1, **{**NEUTRAL, "optics": optics})
    got = (c.camera.k2, c.camera.cx - 599.5, c.camera.cy - 449.5)
    assert got == pytest.approx((k2, off[0] * 1200, off[1] * 900))
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


# ------------------------------------------------------------------------- the phone's processing


def _finish(img_fn, size=(800, 600), **over) -> tuple[np.ndarray, object]:
    """finish_photo of a linear image made by ``img_fn(rc)`` under NEUTRAL conditions plus ``over``;
    the photo in RGB int."""
    c = sample_conditions(21, size=size, k1=0.0, **{**NEUTRAL, **over})
    rc = render_camera(c)
    return finish_photo(img_fn(rc), c)[..., ::-1].astype(int), c


def _halves(rc, dark: float = 0.03, bright: float = 0.6) -> np.ndarray:
    img = np.full((rc.height, rc.width, 3), dark, np.float32)
    img[:, rc.width // 2 :] = bright
    return img


def test_local_tone_mapping_lifts_shadows_and_holds_highlights() -> None:
    plain, _ = _finish(_halves)
    hdr, _ = _finish(_halves, processing=Processing(local_tone=0.6))
    dark, bright = (slice(200, 400), slice(60, 200)), (slice(200, 400), slice(600, 740))
    assert hdr[dark].mean() > plain[dark].mean() + 15  # the shadows lifted
    assert hdr[bright].mean() < plain[bright].mean() - 5  # the bright side held back
    assert hdr[dark].std() < 3 and hdr[bright].std() < 3  # smooth: no blotches inside each side


def test_sharpening_leaves_halos_at_edges() -> None:
    plain, c = _finish(_halves)
    sharp, _ = _finish(_halves, processing=Processing(sharpen_amount=1.0, sharpen_radius_px=2.0))
    mid = c.camera.width // 2
    row = slice(280, 320)
    lo, hi = plain[row, mid - 40 : mid - 20].mean(), plain[row, mid + 20 : mid + 40].mean()
    assert sharp[row, mid - 6 : mid].min() < lo - 8  # a dark halo before the edge
    assert sharp[row, mid : mid + 6].max() > hi + 8  # a bright one after it
    assert abs(sharp[row, mid + 40 : mid + 80].mean() - hi) < 1  # flat areas untouched


def test_denoising_smears_fine_texture_but_keeps_edges() -> None:
    def texture(rc):
        rng = np.random.default_rng(3)
        fine = rng.normal(0.0, 0.006, (rc.height, rc.width, 1)).astype(np.float32)
        return np.repeat(_halves(rc, 0.15, 0.5)[..., :1] + fine, 3, axis=2)

    plain, c = _finish(texture)
    smooth, _ = _finish(texture, processing=Processing(denoise=1.0, sharpen_radius_px=2.0))
    flat = (slice(200, 400), slice(60, 300))
    assert smooth[flat].std() < 0.7 * plain[flat].std()  # the low-contrast texture is smeared
    mid, row = c.camera.width // 2, slice(280, 320)
    step = lambda im: im[row, mid + 4 : mid + 12].mean() - im[row, mid - 12 : mid - 4].mean()  # noqa: E731
    assert step(smooth) > 0.95 * step(plain)  # the edge is not


def _dot_at(rc, uv, sigma: float = 1.2) -> np.ndarray:
    return _dot(rc, uv, sigma) + 0.02


def test_chromatic_aberration_moves_red_out_and_blue_in() -> None:
    """Lateral CA: near a corner red lands farther from the principal point than green, blue nearer;
    at the centre the three agree (and green keeps the camera's geometry)."""
    shift = 1.2
    for where, expect in (((0.06, 0.08), True), ((0.5, 0.5), False)):
        def img(rc, where=where):
            return _dot_at(rc, (rc.cx + (where[0] - 0.5) * 2400, rc.cy + (where[1] - 0.5) * 1800))

        out, c = _finish(img, (2400, 1800), optics=Optics(chromatic_aberration_px=shift))
        cam = c.camera
        s = max(cam.width, cam.height) / 4032
        yy, xx = np.mgrid[0 : out.shape[0], 0 : out.shape[1]]
        cen = []
        for ch in range(3):
            wgt = np.clip(out[..., ch] - np.median(out[..., ch]), 0, None).astype(float)
            cen.append(np.array([(wgt * xx).sum(), (wgt * yy).sum()]) / wgt.sum())
        r = [np.hypot(*(p - (cam.cx, cam.cy))) for p in cen]
        rc_ = max(np.hypot(u - cam.cx, v - cam.cy) for u in (0, cam.width - 1) for v in (0, cam.height - 1))
        if expect:
            assert r[0] - r[1] == pytest.approx(shift * s * r[1] / rc_, abs=0.08)
            assert r[1] - r[2] == pytest.approx(0.8 * shift * s * r[1] / rc_, abs=0.08)
        else:
            assert abs(r[0] - r[1]) < 0.05 and abs(r[2] - r[1]) < 0.05


def test_depth_of_field_is_sharpest_at_the_focus_distance() -> None:
    """A tilted camera: the blur is zero where the board is at the focus distance (the aim point) and
    grows away from it, within the spec's blur bound."""
    from vision.render.post import depth_of_field_sigma

    c = sample_conditions(4, size=(4032, 3024), tilt_deg=25.0, **{**NEUTRAL, "optics": Optics(dof_px=6.0)})
    cam = c.camera
    aim = cam.project(np.array([[*c.aim_mm, 0.0]]))[0]
    xs = np.array([[aim[0], 0.0, cam.width - 1.0, aim[0], aim[0]]])
    ys = np.array([[aim[1], aim[1], aim[1], 0.0, cam.height - 1.0]])
    sig = depth_of_field_sigma(c, xs, ys)[0]
    assert sig[0] < 0.01 and sig[1:].max() > 0.5
    # and in the pixels: fine stripes keep their contrast at the aim point, lose it far from it
    def stripes(rc):
        img = np.full((rc.height, rc.width, 3), 0.2, np.float32)
        img[:, ::2] = 0.5
        return img

    out = finish_photo(stripes(render_camera(c)), c)[..., 1].astype(float)
    far = np.unravel_index(np.argmax(depth_of_field_sigma(c, np.arange(0, 4032, 8)[None, :],
                                                          np.arange(0, 3024, 8)[:, None])), (378, 504))
    fy, fx = int(far[0]) * 8, int(far[1]) * 8
    contrast = lambda y, x: np.abs(np.diff(out[y - 5 : y + 5, x - 20 : x + 20], axis=1)).mean()  # noqa: E731
    fy, fx = min(max(fy, 10), 3010), min(max(fx, 30), 4000)
    assert contrast(int(aim[1]), int(aim[0])) > 2 * contrast(fy, fx)
