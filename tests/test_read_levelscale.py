"""The focal length that puts the tiles on whole levels (vision.read.levelscale), on exact geometry:
tile edge points projected by a known camera, then searched from a wrong focal length."""

from __future__ import annotations

import numpy as np
import pytest

from vision.camera import Camera
from vision.profile import REFERENCE
from vision.read import levelscale, pose, tilefit

SIZE = (2000, 1500)


def _true_camera(tilt_deg: float = 3.0) -> Camera:
    target = np.array([135.0, 135.0, 0.0])
    a = np.radians(tilt_deg)
    eye = target + 520.0 * np.array([np.sin(a), 0.0, np.cos(a)])
    return Camera.look_at(eye, target, np.array([0.0, -1.0, 0.0]), SIZE[0], SIZE[1], 70.0)


def _observations(cam: Camera, tiles: list[tuple[int, int, int]]) -> list[tuple]:
    """Every edge point of each tile, exactly where ``cam`` shows it (tiles on their blocks)."""
    edges = tilefit.tile_edges(REFERENCE)
    local = np.array([e.point for e in edges], float)
    nrm_local = np.array([e.normal for e in edges], float)
    out = []
    for row, col, level in tiles:
        bx, by = REFERENCE.block_centre(row, col)
        z = REFERENCE.tile_top_z(level)
        pts = np.column_stack([local[:, 0] + bx, local[:, 1] + by, np.full(len(local), z)])
        uv = cam.project(pts)
        ahead = cam.project(pts + np.column_stack([nrm_local, np.zeros(len(local))]))
        nrm = (ahead - uv) / np.linalg.norm(ahead - uv, axis=1, keepdims=True)
        out.append((row, col, level, (0.0, 0.0, 0.0), local, uv, nrm))
    return out


@pytest.mark.parametrize("wrong", [0.8, 1.25])
def test_a_wrong_focal_length_is_found_from_tiles_on_two_levels(wrong):
    truth = _true_camera()
    H = truth.homography(0.0)
    c = (truth.cx, truth.cy)
    start = pose.camera_from_intrinsics(H, truth.fx * wrong, c, 0.0, SIZE)
    obs = _observations(truth, [(0, 0, 1), (2, 4, 1), (4, 0, 2), (4, 4, 3), (6, 6, 1)])
    found, check = levelscale.search_focal(H, start, 0.0, obs, REFERENCE, SIZE, start.fx)
    assert check is not None and found is not start
    assert found.fx == pytest.approx(truth.fx, rel=0.02)
    assert check.cost < 0.05 < check.current_cost


def test_the_right_focal_length_is_kept():
    truth = _true_camera()
    H = truth.homography(0.0)
    obs = _observations(truth, [(0, 0, 1), (2, 4, 2), (4, 0, 1)])
    found, check = levelscale.search_focal(H, truth, 0.0, obs, REFERENCE, SIZE, truth.fx)
    assert found is truth
    assert check is not None and check.current_cost < 0.05


def test_one_tile_is_too_little_to_decide():
    truth = _true_camera()
    H = truth.homography(0.0)
    start = pose.camera_from_intrinsics(H, truth.fx * 1.2, (truth.cx, truth.cy), 0.0, SIZE)
    found, check = levelscale.search_focal(
        H, start, 0.0, _observations(truth, [(2, 2, 2)]), REFERENCE, SIZE, start.fx
    )
    assert found is start and check is None


def test_plane_range_holds_the_focal_length_of_a_tilted_view():
    truth = _true_camera(tilt_deg=20.0)
    lo, hi = pose.plane_range(truth.homography(0.0), (truth.cx + 30, truth.cy - 20), SIZE)
    assert lo < truth.fx < hi
    assert hi / lo < 1.4  # a tilted view narrows the field of view's range (1.57)
