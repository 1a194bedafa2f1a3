"""The camera model: one radial distortion model (k1, k2), its inverse, an off-centre principal point,
and the camera's dict form."""

from __future__ import annotations

import cv2
import numpy as np

from vision.camera import Camera, in_image
from vision.render.conditions import make_camera


def _cameras() -> list[Camera]:
    return [
        make_camera(size, 70.0, 500.0, 18.0, 40.0, 25.0, (160.0, 140.0), k1, k2, off)
        for size in ((1600, 1200), (900, 1600))
        for k1 in (-0.08, -0.02, 0.0, 0.04)
        for k2, off in ((0.0, (0.0, 0.0)), (0.02, (0.03, -0.02)), (-0.02, (-0.03, 0.01)))
    ]


def test_undistort_inverts_project() -> None:
    pts = np.array([[x, y, z] for x in (0.0, 165.0, 330.0) for y in (0.0, 135.0, 270.0) for z in (0.0, 90.0)])
    for cam in _cameras():
        ideal = cam.project(pts, distort=False)
        assert np.abs(cam.undistort_pixels(cam.project(pts)) - ideal).max() < 1e-6


def test_undistort_pixels_agrees_with_opencv() -> None:
    """The same results as OpenCV with distCoeffs (k1, 0, 0, 0, 0), iterated to convergence (plain
    cv2.undistortPoints stops after 5 fixed-point steps: up to ~5e-3 px off in the corners)."""
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12)
    for cam in _cameras():
        xs, ys = np.meshgrid(np.linspace(0, cam.width - 1, 9), np.linspace(0, cam.height - 1, 9))
        px = np.column_stack([xs.ravel(), ys.ravel()])
        ref = cv2.undistortPoints(px.reshape(-1, 1, 2), cam.K, cam.dist, P=cam.K, criteria=crit)
        ref = ref.reshape(-1, 2)
        assert np.abs(cam.undistort_pixels(px) - ref).max() < 1e-3


def test_dict_round_trip() -> None:
    for cam in _cameras():
        back = Camera.from_dict(cam.to_dict())
        assert (back.width, back.height) == (cam.width, cam.height)
        assert np.allclose(back.K, cam.K, atol=1e-6) and abs(back.k1 - cam.k1) < 1e-6
        assert abs(back.k2 - cam.k2) < 1e-6
        assert np.allclose(back.R, cam.R, atol=1e-9) and np.allclose(back.t, cam.t, atol=1e-6)
        pts = np.array([[0.0, 0.0, 0.0], [330.0, 270.0, 45.0]])
        assert np.abs(back.project(pts) - cam.project(pts)).max() < 1e-3


def test_with_size_keeps_the_lens() -> None:
    """A camera for the image scaled (a reader working on a smaller copy) sees the same points there."""
    pts = np.array([[0.0, 0.0, 0.0], [330.0, 270.0, 45.0], [100.0, 200.0, 10.0]])
    for cam in _cameras():
        half = cam.with_size(cam.width // 2, cam.height // 2)
        assert half.k2 == cam.k2
        want = (cam.project(pts) + 0.5) * 0.5 - 0.5
        assert np.abs(half.project(pts) - want).max() < 1e-6


def test_in_image_keeps_the_pixels_of_the_image_and_no_others():
    uv = np.array([[0, 0], [9, 4], [10, 4], [9, 5], [-1, 2], [3, -1]])
    assert in_image(uv, (5, 10)).tolist() == [True, True, False, False, False, False]
    assert in_image(uv.reshape(2, 3, 2), (5, 10, 3)).shape == (2, 3)
