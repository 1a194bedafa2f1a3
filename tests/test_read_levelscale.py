"""The focal length that puts the tiles on whole levels (vision.read.levelscale), on exact geometry:
tile edge points projected by a known camera, then searched from a wrong focal length."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.camera import Camera
from vision.profile import REFERENCE
from vision.read import levelscale, pose, tilefit
from vision.read.pipeline import (
    CLEAN_FIT,
    FOCAL_EDGES,
    FOCAL_NEAR,
    FOCAL_STEP,
    FOCAL_TIE_EDGES,
    SOFT_END,
    centre_better,
    focal_better,
    focal_tries,
    support,
)
from vision.read.tiles import TileFind

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


def test_candidate_cameras_fitted_in_one_batch_cost_what_each_costs_alone():
    """tile_costs fits the tiles on all candidate cameras at once: each camera's costs are exactly
    those it gives alone, and only the true camera puts the tiles on whole levels."""
    truth = _true_camera()
    H = truth.homography(0.0)
    obs = _observations(truth, [(0, 0, 1), (2, 4, 2), (4, 0, 3)])
    cams = [
        pose.camera_from_intrinsics(H, truth.fx * f, (truth.cx, truth.cy), 0.0, SIZE)
        for f in (0.8, 1.0, 1.25)
    ]
    scales = [float(c.position[2] / truth.position[2]) for c in cams]
    together = levelscale.tile_costs(cams, REFERENCE, obs, scales)
    alone = [levelscale.tile_costs([c], REFERENCE, obs, [s])[0] for c, s in zip(cams, scales, strict=True)]
    assert together == alone
    assert max(together[1]) < 0.05 < min(sum(together[0]), sum(together[2]))


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


def test_plane_range_of_a_view_from_straight_above_is_the_field_of_views():
    """Seen from straight above, the focal lengths the plane gives (one per principal point tried)
    scatter past the phone's lenses with a pixel of noise on the board's corners: they must not narrow
    the range to a sliver that misses the camera's (each of 80 noisy views keeps it in range)."""
    import cv2

    rng = np.random.default_rng(7)
    board = np.array([[0, 0, 0], [300, 0, 0], [300, 300, 0], [0, 300, 0]], float)
    for _ in range(40):
        for tilt in (1.0, 2.0):
            a = np.radians(tilt)
            target = np.array([135.0, 135.0, 0.0])
            eye = target + 520.0 * np.array([np.sin(a), 0.0, np.cos(a)])
            cam = Camera.look_at(eye, target, np.array([0.0, -1.0, 0.0]), SIZE[0], SIZE[1], 74.0)
            uv = cam.project(board, distort=False) + rng.normal(0, 1.0, (4, 2))
            H = cv2.getPerspectiveTransform(board[:, :2].astype(np.float32), uv.astype(np.float32))
            lo, hi = pose.plane_range(H, (cam.cx, cam.cy), SIZE)
            assert lo <= cam.fx <= hi


def test_the_tiles_refine_a_wrong_focal_length_and_principal_point():
    """refine_with_tiles: every tile's placement free, the camera's columns by differences and the
    placements' in closed form; on exact edge points it lands on the true camera."""
    truth = _true_camera(tilt_deg=8.0)
    H = truth.homography(0.0)
    start = pose.camera_from_intrinsics(H, truth.fx * 1.06, (truth.cx + 15, truth.cy - 10), 0.0, SIZE)
    obs = _observations(truth, [(0, 0, 1), (2, 4, 2), (4, 0, 1), (4, 4, 3), (6, 2, 1)])
    focal = pose.FocalEstimate(start.fx, start.fx / 1.5, start.fx * 1.5, None, 8.0)
    found = pose.refine_with_tiles(H, start, 0.0, obs, REFERENCE, SIZE, focal)
    assert found.fx == pytest.approx(truth.fx, rel=2e-3)
    assert (found.cx, found.cy) == pytest.approx((truth.cx, truth.cy), abs=2.0)  # from 15 and 10 off


def test_many_tiles_fit_at_once_as_one_by_one():
    """fit_undistorted_many: tiles with different numbers of points, padded together, each stops on
    its own; every pose is the one the tile fitted alone gets."""
    truth = _true_camera()
    obs = _observations(truth, [(0, 0, 1), (2, 4, 2), (4, 4, 3)])
    starts = np.array([[REFERENCE.tile_top_z(k) + 2.0, 0.5, -0.4, 0.02] for _, _, k, *_ in obs])
    cut = [len(o[4]) for o in obs[:1]] + [12, 20]  # a different number of points per tile
    parts = [(o[4][:n], o[5][:n], o[6][:n]) for o, n in zip(obs, cut, strict=True)]
    blocks = [(o[0], o[1]) for o in obs]
    poses, res, _ = tilefit.fit_undistorted_many(
        truth, REFERENCE, blocks, starts, *map(list, zip(*parts, strict=True))
    )
    for i, (b, (local, uvu, nrm)) in enumerate(zip(blocks, parts, strict=True)):
        alone, r, _ = tilefit.fit_undistorted(truth, REFERENCE, *b, starts[i], local, uvu, nrm)
        assert poses[i] == pytest.approx(alone, abs=1e-9)
        assert len(res[i]) == len(local) and res[i] == pytest.approx(r, abs=1e-9)
        assert abs(poses[i][0] - REFERENCE.tile_top_z(obs[i][2])) < 0.05  # the true height


def _tiles(*fits: tuple[int, float]) -> list[TileFind]:
    """Tiles read side by side with the given (edge points, fit cost)."""
    return [TileFind(0, 2 * i, 1, cost, {1: cost}, n, (0.0, 0.0, 0.0)) for i, (n, cost) in enumerate(fits)]


def test_another_focal_length_is_taken_for_cleaner_tiles_or_for_many_more_edges():
    """Tiles that fit cleanly decide (cost under 0.5, 16 edges or more); where none does on either
    focal length, only many more edge points on the tiles read do (not a few more: lengths as wrong
    fit nearly as many)."""
    first = _tiles((29, 0.8), (24, 0.7), (28, 1.2))  # 81 edges, none clean
    assert focal_better(_tiles((20, 0.3)), first)  # one clean tile beats none
    assert not focal_better(first, _tiles((20, 0.3)))
    assert not focal_better(_tiles((20, 0.3), (30, 0.9)), _tiles((22, 0.3)))  # fewer clean edges
    # none clean on either: a few more edges are not enough, FOCAL_EDGES times as many are
    assert not focal_better(_tiles((29, 0.8), (24, 0.7), (28, 1.2), (10, 1.0)), first)
    assert focal_better(_tiles((32, 1.1), (32, 1.1), (32, 1.5), (26, 1.5)), _tiles((10, 0.7)))
    assert focal_better(_tiles((int(81 * FOCAL_EDGES) + 1, 1.0)), first)
    assert not focal_better(_tiles((int(81 * FOCAL_EDGES) - 1, 1.0)), first)


def test_tiles_fitting_nearly_cleanly_outweigh_one_tile_fitting_just_under_the_line():
    """Variant development 730090 (a barrel lens): on the plane's focal length 6 tiles fit at 0.53-0.67
    on 173 edge points, none under 0.5; on one 9% longer, one tile at 0.49 on 20 and two more nearly
    cleanly. A tile's edges count less the worse it fits, up to SOFT_END, not all or nothing at
    CLEAN_FIT: the first length is kept."""
    first = _tiles((32, 0.54), (30, 0.58), (31, 0.53), (32, 0.66), (28, 0.67), (20, 0.6))
    longer = _tiles((32, 0.54), (30, 0.62), (20, 0.49), (17, 1.02), (15, 0.93))
    assert support(first)[0] == 0 and support(longer)[0] == 1
    assert not focal_better(longer, first) and focal_better(first, longer)
    # clean tiles count in full, those fitting at SOFT_END or worse not at all
    assert support(_tiles((20, 0.3), (20, SOFT_END), (15, 0.3)))[1] == pytest.approx(20.0)
    assert support(_tiles((20, (CLEAN_FIT + SOFT_END) / 2)))[1] == pytest.approx(10.0)


def test_as_many_clean_edges_on_another_focal_length_take_it_with_more_edges_in_all():
    """51052: the same 2 tiles fit cleanly on both lengths (64 edge points), and on the right one 3 more
    tiles are read on 1.44 times the edges in all (the plane's middle reads 3 tiles): a tie of the clean
    tiles is broken by all the tiles' edges, FOCAL_TIE_EDGES times as many, fewer than where none is
    clean."""
    middle = _tiles((32, 0.3), (32, 0.4), (25, 0.9))  # 89 edges, 64 on clean tiles
    right = _tiles((32, 0.3), (32, 0.4), (20, 0.9), (16, 1.0), (14, 1.2), (14, 1.3))  # 128
    assert FOCAL_TIE_EDGES < 128 / 89 < FOCAL_EDGES
    assert focal_better(right, middle) and not focal_better(middle, right)
    assert not focal_better(_tiles((32, 0.3), (32, 0.4), (40, 0.9)), middle)  # 104: a few more only
    assert not focal_better(middle, middle)


def test_the_focal_lengths_tried_cover_the_planes_range_a_few_percent_apart():
    """Where hardly a tile fits, lengths across the plane's range are tried, at most FOCAL_STEP apart
    (or 8 of them), so that one lies within half a step of any length in it: 51052's truth, 1,257 px,
    4% off the middle of its range (1,208-1,417 px), where the ends tried before were 8% in."""
    narrow = focal_tries(pose.FocalEstimate(1308.0, 1207.9, 1416.6, None, 10.0))
    near = min(narrow, key=lambda f: abs(math.log(f / 1257.2)))
    assert abs(math.log(near / 1257.2)) < math.log(FOCAL_STEP) / 2
    assert abs(math.log(near / 1308.0)) >= FOCAL_NEAR  # not left out as the middle's own
    steps = np.diff(np.log(narrow))
    assert np.all(steps <= math.log(FOCAL_STEP) + 1e-9) and np.allclose(steps, steps[0])
    wide = focal_tries(pose.FocalEstimate(1300.0, 800.0, 2000.0, None, 10.0))
    assert len(wide) == 8 and wide[0] == pytest.approx(800 * 1.04) and wide[-1] == pytest.approx(2000 / 1.04)


def test_another_principal_point_is_taken_only_when_its_tiles_fit_better_and_nearly_as_many_edges():
    """A fifth more of the tiles fitting cleanly, at most one tile fewer, and nearly as many edges in
    all (CENTRE_EDGES)."""
    first = _tiles((27, 0.53), (31, 0.96), (19, 0.87), (23, 0.97), (18, 0.84), (4, 0.01))  # 122 edges
    # one tile clean of five, but 103 edges: not taken (41169)
    assert not centre_better(_tiles((27, 0.46), (32, 0.76), (20, 0.87), (19, 0.96), (5, 0.03)), first)
    assert centre_better(_tiles((27, 0.46), (32, 0.76), (20, 0.87), (38, 0.96), (5, 0.03)), first)
    assert centre_better(_tiles((27, 0.46), (32, 0.76), (20, 0.87), (26, 0.96), (5, 0.03)), first)  # 110
    assert not centre_better(_tiles((60, 0.3), (62, 0.4)), first)  # four tiles fewer
    assert not centre_better(first, first)


def test_where_no_tile_fits_cleanly_on_either_principal_point_many_more_edges_take_the_searched_one():
    """55003: the principal point 3% off the middle and a barrel lens; on the middle 3 tiles are read on
    72 edge points, none cleanly, and on the point searched 5 on 129, none cleanly either. With no clean
    share to compare, as many tiles or more on FOCAL_EDGES times the edges decide, as between focal
    lengths."""
    first = _tiles((30, 0.8), (24, 0.9), (18, 1.1))  # 72 edges, none clean
    searched = _tiles((32, 0.7), (30, 0.9), (25, 0.8), (22, 1.2), (20, 1.0))  # 129
    assert centre_better(searched, first) and not centre_better(first, searched)
    assert not centre_better(_tiles((32, 0.7), (30, 0.9), (25, 0.8), (13, 1.2)), first)  # 100: a few more
    assert not centre_better(_tiles((60, 0.7), (60, 0.9)), first)  # one tile fewer
