"""The things around the board (issue 6, backgrounds): other players' boards, the game box, a score
pad, hands; loose pieces pushed against the board's edge. The photographed board must stay the one
wholly in frame, and nothing may hide it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scoring.garden import Garden, Tile
from vision.profile import REFERENCE
from vision.render.conditions import PhotoConditions, sample_conditions
from vision.render.extras import FRAME_SHARE_MAX, OTHER_BOARD_GAP_MM, _board, footprint, gap

SEEDS = range(250)
BIG = ("board", "box", "pad", "hand")


@pytest.fixture(scope="module")
def many() -> list[PhotoConditions]:
    return [sample_conditions(s) for s in SEEDS]


def _share_in_frame(c: PhotoConditions, poly: np.ndarray) -> float:
    cam = c.camera
    uv = cam.project(np.column_stack([poly, np.full(len(poly), -REFERENCE.board.thickness)]), distort=False)
    hull = cv2.convexHull(uv.astype(np.float32))[:, 0, :]
    frame = np.array([[0, 0], [cam.width, 0], [cam.width, cam.height], [0, cam.height]], np.float32)
    inter, _ = cv2.intersectConvexConvex(hull, frame)
    return float(inter) / float(cv2.contourArea(hull))


def test_every_kind_of_scenery_is_drawn(many: list[PhotoConditions]) -> None:
    kinds = [i.kind for c in many for i in c.clutter]
    for k in BIG:
        assert kinds.count(k) >= 8, k
    assert any(len(i.tiles) >= 3 for c in many for i in c.clutter if i.kind == "board")


def test_other_boards_are_never_wholly_in_frame(many: list[PhotoConditions]) -> None:
    board = _board(REFERENCE)
    n = 0
    for c in many:
        for item in c.clutter:
            if item.kind != "board":
                continue
            n += 1
            poly = footprint(item, REFERENCE)
            assert 0.0 < _share_in_frame(c, poly) <= FRAME_SHARE_MAX + 1e-6
            assert gap(poly, board) >= OTHER_BOARD_GAP_MM[0] - 1.0
            # at least one of its corners is outside the photo
            uv = c.camera.project(np.column_stack([poly, np.zeros(4)]))
            w, h = c.camera.width, c.camera.height
            inside = (uv[:, 0] >= 0) & (uv[:, 0] < w) & (uv[:, 1] >= 0) & (uv[:, 1] < h)
            assert not inside.all()
    assert n >= 20


def test_nothing_overlaps_and_the_big_things_never_hide_the_board(many: list[PhotoConditions]) -> None:
    board = _board(REFERENCE)
    touching = 0
    for c in many:
        polys = [footprint(i, REFERENCE, tight=True) for i in c.clutter]
        for a in range(len(polys)):
            for b in range(a + 1, len(polys)):
                assert gap(polys[a], polys[b]) > 0.0
        for item in c.clutter:
            tight = footprint(item, REFERENCE, tight=True)
            assert gap(tight, board) > 0.0  # beside the board, never on it
            if item.kind not in BIG and gap(tight, board) < 2.0:
                touching += 1
            if item.kind == "box":
                h = item.size_mm[2]
                pts = np.vstack([np.column_stack([tight, np.full(4, z)]) for z in (-4.0, -4.0 + h)])
                hull = cv2.convexHull(c.camera.project(pts, distort=False).astype(np.float32))[:, 0, :]
                bp = c.camera.project(np.column_stack([board, np.zeros(4)]), distort=False).astype(np.float32)
                inter, _ = cv2.intersectConvexConvex(hull, bp)
                assert inter < 1.0
            if item.kind == "hand":  # fingertips at the edge, never over a corner
                tip = np.array([item.x_mm, item.y_mm])
                assert gap(tip[None].repeat(3, 0) + [[0, 0], [0.01, 0], [0, 0.01]], board) <= 20.5
                assert np.linalg.norm(board - tip, axis=1).min() > 45.0
    assert touching >= 10  # loose pieces pushed against the board's edge


def test_a_photo_with_another_board_and_hands_renders_its_own_board_truly() -> None:
    """Scenery around the board changes nothing about the photographed board: the truth's corners
    are where the camera puts them, and the garden's tile is found in the id buffer."""
    seed = next(s for s in SEEDS if {"board", "hand"} <= {i.kind for i in sample_conditions(
        s, size=(800, 600)).clutter})
    from vision.render.photo import render_photo

    g = Garden(board_flower="pink", tiles=(Tile(row=3, col=3, level=1, flower="blue"),))
    ph = render_photo(g, seed, size=(800, 600), keep_linear=True)
    assert {"board", "hand"} <= {i["kind"] for i in ph.truth["photo"]["clutter"]}
    cam = ph.conditions.camera
    want = cam.project(REFERENCE.board.corners)
    got = np.array(list(ph.truth["camera"]["board_corners_px"].values()))
    assert np.allclose(got, want, atol=1.0)
    (t,) = ph.truth["pieces"]["tiles"]
    assert t["visible_fraction"] > 0.95
