"""The renderer's geometry and ground truth: what the truth says is where the camera model puts it,
and the image really shows it there."""

from __future__ import annotations

import dataclasses
import json

import cv2
import numpy as np
import pytest

from scoring.garden import Decoration, Garden, Tile
from vision.profile import REFERENCE
from vision.render.conditions import render_camera
from vision.render.mesh import rot_z
from vision.render.photo import render_photo, save_photo

SIZE = (800, 600)
DARK_TABLE = {"kind": "plain", "colour_a": "#2A2A2C", "colour_b": "#2A2A2C"}
FIXED = dict(
    size=SIZE,
    tilt_deg=0.0,
    height_mm=520.0,
    hfov_deg=70.0,
    roll_deg=0.0,
    aim_mm=(165.0, 135.0),
    k1=0.0,
    clutter=(),
    table=DARK_TABLE,
    exposure_ev=0.0,
    vignette=0.0,
    noise_sigma=0.0,
    blur_sigma=0.0,
    motion_px=0.0,
    light={"elevation_deg": 80.0, "ambient": 0.5},
)

BLANK = ((None, None), (None, None))


def _garden(*tiles: Tile, decorations: tuple[Decoration, ...] = ()) -> Garden:
    return Garden(board_flower="pink", tiles=tiles, decorations=decorations)


@pytest.fixture(scope="module")
def simple():
    g = _garden(Tile(row=3, col=3, level=1, flower="blue", symbols=BLANK))
    return g, render_photo(g, 11, keep_linear=True, **FIXED)


def test_board_corners_match_camera_and_image(simple):
    g, ph = simple
    cam = ph.conditions.camera
    want = cam.project(REFERENCE.board.corners)
    got = ph.truth["camera"]["board_corners_px"]
    for name, w in zip(("top_left", "top_right", "bottom_right", "bottom_left"), want, strict=True):
        assert np.allclose(got[name], w, atol=1.0)
    # a plain spot of the board print near the bottom-right corner vs. the table outside it
    u, v = np.round(cam.project(np.array([[290.0, 258.0, 0.0]]))[0]).astype(int)
    board_px = ph.image[v - 1 : v + 2, u - 1 : u + 2].reshape(-1, 3).mean(axis=0)
    tu, tv = np.round(cam.project(np.array([[360.0, 258.0, -4.0]]))[0]).astype(int)
    table_px = ph.image[tv - 1 : tv + 2, tu - 1 : tu + 2].reshape(-1, 3).mean(axis=0)
    assert board_px.mean() > table_px.mean() + 60
    b, gr, r = board_px
    assert r > b  # sandstone is warm


def _expected_corners(t: dict) -> np.ndarray:
    s = REFERENCE.tile.size / 2
    local = np.array([[-s, -s, 0], [s, -s, 0], [s, s, 0], [-s, s, 0]])
    c = np.array([*t["centre_board_mm"], REFERENCE.tile_top_z(t["level"])])
    return local @ rot_z(t["rotation_deg"]).T + c


def test_tile_corners_and_green_field(simple):
    g, ph = simple
    cam = ph.conditions.camera
    (t,) = ph.truth["pieces"]["tiles"]
    assert abs(t["centre_board_mm"][0] - REFERENCE.block_centre(3, 3)[0]) <= REFERENCE.tile.placement_offset
    assert abs(t["rotation_deg"]) <= REFERENCE.tile.placement_turn_deg
    assert np.allclose(t["corners_px"], cam.project(_expected_corners(t)), atol=1.0)
    assert t["visible_fraction"] > 0.97
    # a field's corner area (between plaque/flowers and band) is garden green
    p = _expected_corners(t)[0] + rot_z(t["rotation_deg"]) @ np.array([24.0, 4.5, 0.0])
    u, v = np.round(cam.project(p[None])[0]).astype(int)
    b, gr, r = ph.image[v - 1 : v + 2, u - 1 : u + 2].reshape(-1, 3).mean(axis=0)
    assert gr > r + 15 and gr > b + 15


def _top_pixels(ph) -> int:
    rc = render_camera(ph.conditions)
    return int(np.count_nonzero(ph.ids[: rc.height, : rc.width] == 1))


def _poly_area(px: list) -> float:
    x, y = np.asarray(px).T
    return 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))


def test_higher_tile_looks_bigger():
    low = render_photo(
        _garden(Tile(row=3, col=3, level=1, flower="white", symbols=BLANK)), 5, keep_linear=True, **FIXED
    )
    high = render_photo(
        _garden(Tile(row=3, col=3, level=3, flower="white", symbols=BLANK)), 5, keep_linear=True, **FIXED
    )
    a_low = _poly_area(low.truth["pieces"]["tiles"][0]["corners_px"])
    a_high = _poly_area(high.truth["pieces"]["tiles"][0]["corners_px"])
    assert a_high > a_low * 1.2
    m_low, m_high = _top_pixels(low), _top_pixels(high)
    assert m_high > m_low * 1.2
    assert abs(m_low - a_low) / a_low < 0.05


def test_pillars_under_tile_are_in_truth():
    ph = render_photo(_garden(Tile(row=3, col=3, level=2, flower="white", symbols=BLANK)), 5, **FIXED)
    pillars = ph.truth["pieces"]["pillars"]
    assert len(pillars) == 4 and all(p["double"] for p in pillars)


def test_pillar_truth_anchor_is_halfway_up():
    """A pillar's centre_px is the projection of its axis' midpoint, single or double."""
    from vision.render.scene import build_scene

    for level, height in ((1, REFERENCE.pillar.single_height), (2, REFERENCE.pillar.double_height)):
        g = _garden(Tile(row=3, col=3, level=level, flower="white", symbols=BLANK))
        scene = build_scene(g, REFERENCE, 5, 1.0)
        obs = [o for o in scene.objects if o.kind == "pillar"]
        assert len(obs) == 4
        for o in obs:
            base = o.info["level"] * REFERENCE.level_height
            assert abs(o.anchor3d[2] - (base + height / 2)) < 1e-9


def _changed_pixels(a, b, deco: dict, r: int = 8) -> int:
    """Pixels around the piece that differ between two photos (with and without the piece)."""
    u, v = np.round(deco["centre_px"]).astype(int)
    pa, pb = (x.image[v - r : v + r + 1, u - r : u + r + 1].astype(int) for x in (a, b))
    return int(np.count_nonzero(np.abs(pa - pb).max(axis=2) > 25))


def _bronze_pixels(ph, deco: dict, r: int = 8) -> int:
    u, v = np.round(deco["centre_px"]).astype(int)
    patch = ph.image[v - r : v + r + 1, u - r : u + r + 1].astype(int)
    b, g, r_ = patch[..., 0], patch[..., 1], patch[..., 2]
    return int(np.count_nonzero((r_ > g + 12) & (g > b + 20) & (b > 0.35 * r_)))


def test_covered_statue_is_hidden():
    statue = Decoration(kind="statue", cells=((3, 3),), level=1)
    base = Tile(row=3, col=3, level=1, flower="white", symbols=(("statue", None), (None, None)))
    cover = Tile(row=2, col=2, level=2, flower="blue", symbols=BLANK)
    shown = render_photo(_garden(base, decorations=(statue,)), 8, **FIXED)
    (d,) = shown.truth["pieces"]["decorations"]
    assert d["visible_in_photo"]
    assert _changed_pixels(shown, render_photo(_garden(base), 8, **FIXED), d) > 40
    assert _bronze_pixels(shown, d) > 5
    hidden = render_photo(_garden(base, cover, decorations=(statue,)), 8, **FIXED)
    (d2,) = hidden.truth["pieces"]["decorations"]
    assert not d2["visible_in_photo"]
    assert _changed_pixels(hidden, render_photo(_garden(base, cover), 8, **FIXED), d2) == 0


def test_same_seed_same_image_and_atomic_save(tmp_path, simple):
    g, ph = simple
    again = render_photo(g, 11, **FIXED)
    assert np.array_equal(ph.image, again.image)
    out = save_photo(again, tmp_path / "photo.jpg")
    truth = json.loads((tmp_path / "photo.json").read_text())
    assert out.exists() and truth["seed"] == 11 and truth["garden"]["tiles"][0]["row"] == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["photo.jpg", "photo.json"]


def test_random_conditions_render_with_clutter():
    g = _garden(Tile(row=0, col=0, level=1, flower="pink"), Tile(row=1, col=1, level=2, flower="yellow"))
    ph = render_photo(g, 3, size=SIZE)
    assert ph.image.shape == (SIZE[1], SIZE[0], 3)
    assert ph.truth["score"] is not None and "total" in ph.truth["score"]
    assert len(ph.truth["pieces"]["tiles"]) == 2


def test_board_texture_cache_tells_profiles_apart():
    """A calibrated profile keeps the reference's name: its board must not come from the cache."""
    from vision.render.photo import _board_texture

    dark = dataclasses.replace(REFERENCE, board=dataclasses.replace(REFERENCE.board, colour="#202020"))
    a, b = _board_texture(REFERENCE, "pink", 1.0), _board_texture(dark, "pink", 1.0)
    assert dark.name == REFERENCE.name and b.mean() < a.mean()
    assert _board_texture(REFERENCE, "pink", 1.0) is a


def test_synth_batch_skips_with_the_image_path(tmp_path):
    from vision.render.synth import synth_batch

    first = list(synth_batch(3, 1, tmp_path, "png", size=SIZE))
    again = list(synth_batch(3, 1, tmp_path, "png", size=SIZE))
    assert first[0][2] and not again[0][2]
    assert again[0][1] == first[0][1] and again[0][1].suffix == ".png"


# ------------------------------------------------------------------- warped board, bowed tiles, holes


def _hole_centre(image: np.ndarray, uv: np.ndarray, r: int = 45) -> np.ndarray:
    """Centre of the ellipse fitted to the rim of the dark hole around pixel ``uv`` (the rim: the
    level halfway between the hole and the print around it, to a sixteenth of a pixel)."""
    u, v = np.round(uv).astype(int)
    patch = image[v - r : v + r + 1, u - r : u + r + 1].astype(np.float32).mean(axis=2)
    level = (np.percentile(patch, 10) + np.percentile(patch, 90)) / 2
    big = cv2.resize(patch, None, fx=16, fy=16, interpolation=cv2.INTER_LINEAR)
    contours, _ = cv2.findContours((big < level).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    (cx, cy), _, _ = cv2.fitEllipse(max(contours, key=cv2.contourArea))
    return np.array([u - r + (cx + 0.5) / 16 - 0.5, v - r + (cy + 0.5) / 16 - 0.5])


def test_warped_board_lifts_its_print_and_what_stands_on_it():
    """A board bowed 1.5 mm: the print in the middle moves in the photo as a point 1.5 mm up does, the
    tiles and pillars on it are lifted with it, and the truth (board corners at z = 0, tile corners from
    the lifted poses) still matches the pixels within a pixel."""
    from vision.render.placement import board_lift, place_pieces

    g = _garden(Tile(row=0, col=0, level=1, flower="white", symbols=BLANK),
                Tile(row=2, col=3, level=1, flower="blue", symbols=BLANK))
    flat_ = dict(FIXED, size=(2400, 1800), tilt_deg=25.0, tilt_azimuth_deg=0.0, height_mm=360.0,
                 optics=PLAIN_OPTICS, processing={"sharpen_amount": 0.0, "denoise": 0.0, "local_tone": 0.0},
                 geometry={"board_warp_mm": 0.0, "tile_bow_mm": 0.0, "hole_depth_mm": 0.0})
    warped = dict(flat_, geometry={"board_warp_mm": 1.5, "tile_bow_mm": 0.0, "hole_depth_mm": 0.0})
    a, b = render_photo(g, 4, **flat_), render_photo(g, 4, keep_linear=True, **warped)
    cam = b.conditions.camera
    for cell in ((4, 4), (5, 3), (6, 6)):
        x, y = REFERENCE.cell_centre(*cell)
        lift = board_lift(REFERENCE, 1.5, x, y)
        assert lift > 0.5
        p0, p1 = cam.project(np.array([[x, y, 0.0], [x, y, lift]]))
        moved = _hole_centre(b.image, p1) - _hole_centre(a.image, p0)
        assert np.hypot(*(moved - (p1 - p0))) < 0.4, (cell, moved, p1 - p0)
        assert np.hypot(*(p1 - p0)) > 1.0  # the warp shows
    pl = place_pieces(g, REFERENCE, 4, board_warp_mm=1.5)
    t = pl.tiles[1]
    assert t.pose.t[2] - REFERENCE.tile_top_z(1) == pytest.approx(
        np.mean([board_lift(REFERENCE, 1.5, *REFERENCE.cell_centre(*c)) for c in t.tile.cells]), abs=1e-9)
    for p in pl.pillars:
        assert p.pose.t[2] == pytest.approx(board_lift(REFERENCE, 1.5, *p.pose.t[:2]))
    for name, want in zip(("top_left", "top_right", "bottom_right", "bottom_left"),
                          cam.project(REFERENCE.board.corners), strict=True):
        assert np.allclose(b.truth["camera"]["board_corners_px"][name], want, atol=1.0)
    tt = b.truth["pieces"]["tiles"][1]
    assert tt["top_z_mm"] > REFERENCE.tile_top_z(1) + 0.5
    _tile_mask_matches_truth(b, tt, area=False)


def _tile_mask_matches_truth(ph, t: dict, area: bool = True) -> None:
    """The tile top's pixels (the id buffer of the undistorted render) fill the polygon of the truth's
    corners (the photo's pixels, undistorted and moved to the render's frame) to within a pixel.
    ``area``: also compare the areas (only from straight above: the tile's sides share its id)."""
    rc = render_camera(ph.conditions)
    cam = ph.conditions.camera
    corners = cam.undistort_pixels(np.asarray(t["corners_px"], float)) + (rc.cx - cam.cx, rc.cy - cam.cy)
    centre = corners.mean(axis=0)
    ids = [int(i) for i in np.unique(ph.ids) if i > 0]
    means = {i: np.argwhere(ph.ids == i).mean(axis=0)[::-1] for i in ids}
    obj = min(ids, key=lambda i: np.hypot(*(means[i] - centre)))
    hull = cv2.convexHull(cv2.findNonZero((ph.ids == obj).astype(np.uint8))).astype(np.float32)
    for u, v in corners:  # the hull of the covered pixels' centres lies up to ~0.7 px inside the outline
        assert abs(cv2.pointPolygonTest(hull, (float(u), float(v)), True)) < 1.0 + 0.5
    if area:
        want = cv2.contourArea(corners.astype(np.float32))
        assert abs(np.count_nonzero(ph.ids == obj) - want) < 0.02 * want


PLAIN_OPTICS = {"k2": 0.0, "principal_offset": (0.0, 0.0), "chromatic_aberration_px": 0.0, "dof_px": 0.0}


def test_bowed_tile_keeps_its_corners_and_bulges():
    from vision.render import pieces
    from vision.render.mesh import Pose
    from vision.render.placement import BOW_STRIPS

    tex = np.zeros((116, 116, 3), np.float32)
    pose = Pose.at(100.0, 80.0, 22.5, 2.0)
    for axis in (0, 1):
        solid = pieces.tile(REFERENCE, pose, tex, "clay", "blue", obj_top=5, obj=5, bow=(0.6, axis))
        tops = [f for f in solid.faces if f.tex is not None]
        assert len(tops) == BOW_STRIPS
        verts = np.vstack([f.verts for f in tops])
        assert verts[:, 2].max() == pytest.approx(22.5 + 0.6, abs=0.02)
        assert verts[:, 2].min() == pytest.approx(22.5)
        corners = pose.apply(np.column_stack([[-29, 29, 29, -29], [-29, -29, 29, 29], np.zeros(4)]))
        for c in corners:  # every corner of the tile is a vertex of the top at its unbowed height
            assert np.min(np.linalg.norm(verts - c, axis=1)) < 1e-9
        area = sum(cv2.contourArea(f.verts[:, :2].astype(np.float64).astype(np.float32)) for f in tops)
        assert area == pytest.approx(58.0 * 58.0, rel=1e-5)  # the strips cover the tile, no gap
        for f in tops:  # each strip's texture frame puts its texels on the strip's own plane
            n = np.cross(f.verts[1] - f.verts[0], f.verts[2] - f.verts[0])
            o = f.tex_frame[:, 2]
            assert abs(n @ (o - f.verts[0])) < 1e-6 * np.linalg.norm(n)
    from vision.render.placement import place_pieces

    g = _garden(Tile(row=3, col=3, level=1, flower="blue", symbols=BLANK))
    seed = next(s for s in range(11, 60) if place_pieces(g, REFERENCE, s, 1.0, 0.6).tiles[0].bow_mm > 0.3)
    bowed = {**FIXED, "geometry": {"tile_bow_mm": 0.6, "board_warp_mm": 1.0}, "k1": -0.05}
    ph = render_photo(g, seed, keep_linear=True, **bowed)
    (t,) = ph.truth["pieces"]["tiles"]
    assert t["bow_mm"] > 0.3
    _tile_mask_matches_truth(ph, t)


def test_holes_are_recesses_seen_from_the_camera():
    """A hole with depth shows its far wall (lighter than its dark floor) on the side away from the
    camera, as wide as depth x the view's slope; with no depth the print is unchanged."""
    from vision.render.holes import hole_centres, recessed
    from vision.render.textures import board_top

    ppm = 6.0
    tex = board_top(REFERENCE, "pink", ppm, np.random.default_rng(0), mottled=False)
    cam = np.array([165.0 + 400.0, 135.0, 400.0])  # far off to +x: we look into the holes towards -x
    light = np.array([0.0, 0.0, 1.0])
    assert recessed(tex, REFERENCE, 0.0, cam, light, 0.4) is tex
    out = recessed(tex, REFERENCE, 2.0, cam, light, 0.4)
    cx, cy = REFERENCE.cell_centre(3, 3)
    row = out[int(cy * ppm), :, 1]
    cols = np.arange(out.shape[1])
    x = (cols + 0.5) / ppm - cx
    inside = np.abs(x) < REFERENCE.board.hole_diameter / 2 - 0.3
    floor = np.median(row[inside & (x > 0)])
    wall = inside & (row > 1.5 * floor)
    slope = (cam[0] - cx) / cam[2]
    assert np.all(x[wall] < 0)  # the far side from the camera
    assert wall.sum() / ppm == pytest.approx(2.0 * slope, abs=0.4)
    rows, cols = np.nonzero(np.any(out != tex, axis=2))  # what changed lies in the holes only
    xy = np.column_stack([(cols + 0.5) / ppm, (rows + 0.5) / ppm])
    centres = hole_centres(REFERENCE)
    nearest = np.min(np.hypot(xy[:, None, 0] - centres[:, 0], xy[:, None, 1] - centres[:, 1]), axis=1)
    assert len(rows) > 70 * 200 and nearest.max() < REFERENCE.board.hole_diameter / 2 + 0.2
