"""Photo conditions: reproducible, inside the ranges of spec section 3, whole board in frame."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.profile import REFERENCE
from vision.render import ranges as rg
from vision.render.conditions import (
    Light,
    PhotoConditions,
    board_in_frame,
    render_camera,
    sample_conditions,
    zone_top_z,
)
from vision.render.extras import footprint, gap
from vision.render.table import table_texture

SMALL = ("pillar", "decoration", "tile", "card")  #: the loose pieces (not the scenery around the board)

SEEDS = range(200)


@pytest.fixture(scope="module")
def many() -> list[PhotoConditions]:
    return [sample_conditions(s) for s in SEEDS]


def test_reproducible() -> None:
    a, b = sample_conditions(42), sample_conditions(42)
    assert json.dumps(a.to_dict()) == json.dumps(b.to_dict())
    assert json.dumps(a.to_dict()) != json.dumps(sample_conditions(43).to_dict())


def test_ranges(many: list[PhotoConditions]) -> None:
    """Every drawn parameter inside the range :mod:`vision.render.ranges` names for it (spec section 3,
    and the renderer's own ranges for the phone look)."""
    for c in many:
        cam = c.camera
        long_side, short_side = max(cam.width, cam.height), min(cam.width, cam.height)
        assert long_side in rg.LONG_SIDE_PX
        assert min(abs(long_side / short_side - 4 / 3), abs(long_side / short_side - 16 / 9)) < 0.01
        assert c.height_mm in rg.HEIGHT_MM and abs(cam.position[2] - c.height_mm) < 1e-6
        long_fov = np.degrees(2 * np.arctan(long_side / (2 * cam.fx)))
        assert long_fov in rg.HFOV_DEG and abs(long_fov - c.hfov_deg) < 1e-6
        axis = cam.R[2]  # optical axis in the board frame
        assert np.degrees(np.arccos(-axis[2])) in rg.TILT_DEG
        assert cam.k1 in rg.K1 and cam.k2 in rg.K2
        lt = c.light
        assert lt.elevation_deg in rg.LIGHT_ELEVATION_DEG and lt.azimuth_deg in rg.LIGHT_AZIMUTH_DEG
        assert 0.5 <= lt.softness_deg <= 12 and lt.ambient in rg.AMBIENT and lt.kelvin in rg.WB_KELVIN
        assert c.white_balance_kelvin in rg.WB_KELVIN and c.exposure_ev in rg.EXPOSURE_EV
        assert c.vignette in rg.VIGNETTE and c.noise_sigma in rg.NOISE_SIGMA
        assert c.blur_sigma in rg.BLUR_SIGMA_PX and c.motion_px in rg.MOTION_PX
        assert c.jpeg_quality in rg.JPEG_QUALITY
        assert c.image_format in rg.IMAGE_FORMATS
        assert c.exif_orientation in rg.EXIF_ORIENTATIONS
        o, p, g = c.optics, c.processing, c.geometry
        assert all(v in rg.PRINCIPAL_POINT_OFFSET for v in o.principal_offset)
        assert abs(cam.cx - (cam.width - 1) / 2 - o.principal_offset[0] * cam.width) < 1e-6
        assert o.chromatic_aberration_px in rg.CHROMATIC_ABERRATION_PX and o.dof_px in rg.DOF_PX
        assert p.chroma_noise in rg.CHROMA_NOISE and p.chroma_grain_px in rg.CHROMA_GRAIN_PX
        assert p.sharpen_amount in rg.SHARPEN_AMOUNT and p.sharpen_radius_px in rg.SHARPEN_RADIUS_PX
        assert p.denoise in rg.DENOISE and p.local_tone in rg.LOCAL_TONE
        assert p.jpeg_subsampling in rg.JPEG_SUBSAMPLING
        assert g.board_warp_mm in rg.BOARD_WARP_MM and g.tile_bow_mm in rg.TILE_BOW_MM
        assert g.hole_depth_mm in rg.HOLE_DEPTH_MM
        assert sum(i.kind in SMALL for i in c.clutter) <= 8
        assert board_in_frame(cam)
        json.dumps(c.to_dict())


def test_whole_board_in_frame(many: list[PhotoConditions]) -> None:
    b = REFERENCE.board
    zone = np.array([[15, 15], [255, 15], [255, 255], [15, 255]], float)
    zone = np.column_stack([zone, np.full(4, zone_top_z(REFERENCE))])
    for c in many:
        uv = c.camera.project(np.vstack([b.corners, zone]))
        assert np.all(uv >= 0) and np.all(uv[:, 0] < c.camera.width) and np.all(uv[:, 1] < c.camera.height)


def test_variety(many: list[PhotoConditions]) -> None:
    sizes = {(c.camera.width, c.camera.height) for c in many}
    ratios = {round(max(w, h) / min(w, h), 2) for w, h in sizes}
    assert ratios == {1.33, 1.78}
    assert any(w < h for w, h in sizes) and any(w > h for w, h in sizes)
    assert len(sizes) > 50
    assert {c.table.kind for c in many} >= {"wood", "cloth", "plain"}
    kinds = {i.kind for c in many for i in c.clutter}
    assert kinds >= {"pillar", "decoration", "tile", "card"}
    assert max(c.tilt_deg for c in many) > 22 and min(c.tilt_deg for c in many) < 3
    assert any(c.blur_sigma > 0 for c in many) and any(c.motion_px > 0 for c in many)


def test_clutter_placement(many: list[PhotoConditions]) -> None:
    """Loose pieces lie within 250 mm of the board, beside it (some touching its edge), clear of each
    other (tests/test_render_scenery.py checks the bigger things)."""
    w, d = REFERENCE.board.width, REFERENCE.board.depth
    board = np.array([[0, 0], [w, 0], [w, d], [0, d]], float)
    for c in many:
        small = [a for a in c.clutter if a.kind in SMALL]
        for i, a in enumerate(small):
            dx = max(-a.x_mm, 0, a.x_mm - w)
            dy = max(-a.y_mm, 0, a.y_mm - d)
            assert np.hypot(dx, dy) <= 250.0
            foot = footprint(a, REFERENCE, tight=True)
            assert gap(foot, board) > 0.0
            for b in small[i + 1 :]:
                assert gap(foot, footprint(b, REFERENCE, tight=True)) > 0.0
            if a.kind == "tile":
                assert a.symbols is not None and a.material in ("clay", "granite", "basalt")


def test_overrides() -> None:
    c = sample_conditions(7, size=(1600, 900), tilt_deg=25.0, height_mm=700.0, clutter=(),
                          light={"kelvin": 2800.0, "softness_deg": 0.5}, exposure_ev=-1.0)
    assert (c.camera.width, c.camera.height) == (1600, 900) and c.clutter == ()
    assert c.tilt_deg == 25.0 and abs(c.camera.position[2] - 700.0) < 1e-6
    assert c.light.kelvin == 2800.0 and c.light.softness_deg == 0.5 and c.exposure_ev == -1.0
    base = sample_conditions(7)
    assert c.light.azimuth_deg == base.light.azimuth_deg  # other groups unchanged
    c2 = sample_conditions(7, light=Light(40.0, 10.0, 0.5, 0.2, 2800.0), megapixels=2.0, aspect="16:9")
    assert abs(c2.camera.width * c2.camera.height - 2e6) < 2e4 and c2.light.elevation_deg == 40.0
    with pytest.raises(TypeError):
        sample_conditions(1, nonsense=3)


def test_camera_override_records_long_side_fov() -> None:
    """``PhotoConditions.hfov_deg`` is across the long side, for a portrait camera too."""
    for size in ((1600, 1200), (1200, 1600)):
        drawn = sample_conditions(5, size=size, hfov_deg=72.0)
        assert abs(drawn.camera.long_side_fov_deg - 72.0) < 1e-9
        again = sample_conditions(5, camera=drawn.camera)
        assert abs(again.hfov_deg - 72.0) < 1e-9
    assert drawn.camera.hfov_deg < 72.0 - 10  # portrait: the width spans much less


def test_render_camera_covers_distortion() -> None:
    for k1 in (-0.08, 0.0, 0.04):
        c = sample_conditions(3, k1=k1, size=(1200, 900))
        rc = render_camera(c)
        assert rc.k1 == 0 and rc.fx == c.camera.fx and rc.width >= c.camera.width
        assert rc.cx - c.camera.cx == (rc.width - c.camera.width) / 2
        corners = np.array([[0, 0], [1199, 0], [0, 899], [1199, 899]], float)
        src = c.camera.undistort_pixels(corners) + [rc.cx - c.camera.cx, rc.cy - c.camera.cy]
        assert np.all(src >= 0) and np.all(src[:, 0] <= rc.width - 1) and np.all(src[:, 1] <= rc.height - 1)


def test_table_textures() -> None:
    for c in (sample_conditions(s) for s in range(12)):
        tex = table_texture(c.table, (-100.0, -50.0, 200.0, 100.0), 1.5)
        assert tex.shape == (100, 200, 3) and tex.dtype == np.float32
        assert 0.0 <= tex.min() and tex.max() <= 1.0 and tex.std() > 0
    spec = sample_conditions(0).table
    a = table_texture(spec, (0.0, 0.0, 120.0, 60.0), 1.0)
    b = table_texture(spec, (60.0, 30.0, 180.0, 90.0), 1.0)  # overlapping extents agree
    assert np.abs(a[30:, 60:] - b[:30, :60]).max() < 1e-3


def test_new_groups_leave_the_old_draws_alone() -> None:
    """New groups of draws are appended to the seed's children: the post group is still the third child
    of the seed (SeedSequence.spawn(n) gives the same first children whatever n), so adding groups does
    not change what the older groups draw."""
    from vision.render.conditions import _sample_post

    for seed in (0, 5, 123):
        c = sample_conditions(seed)
        kid = np.random.SeedSequence(seed).spawn(5)[2]
        post = _sample_post(np.random.default_rng(kid), c.light.kelvin)
        assert post == {k: getattr(c, k) for k in post}


def test_phone_look_is_recorded_and_varies(many: list[PhotoConditions]) -> None:
    d = many[0].to_dict()
    assert set(d["optics"]) >= {"k2", "principal_offset", "chromatic_aberration_px", "dof_px"}
    assert set(d["processing"]) >= {"chroma_noise", "sharpen_amount", "denoise", "local_tone",
                                    "jpeg_subsampling"}
    assert set(d["geometry"]) == {"board_warp_mm", "tile_bow_mm", "hole_depth_mm"}
    assert d["camera"]["k2"] == round(many[0].camera.k2, 6)
    for name in ("sharpen_amount", "denoise", "local_tone", "chroma_noise"):
        vals, span = [getattr(c.processing, name) for c in many], getattr(rg, name.upper())
        assert max(vals) > span.hi - 0.2 * (span.hi - span.lo) and min(vals) < span.lo + 0.1
    assert sum(c.optics.dof_px > 0 for c in many) > 50 and sum(c.optics.dof_px == 0 for c in many) > 30


def test_camera_frames_the_actual_garden() -> None:
    """A low garden leaves room for close shots; the camera always keeps the garden's top in frame."""
    from scoring.generate import generate_garden
    from vision.render.conditions import frame_top_mm

    for seed in range(30):
        g = generate_garden(seed)
        c = sample_conditions(seed, garden=g)
        assert c.framed_top_mm == frame_top_mm(g, REFERENCE)
        top = max(t.level for t in g.tiles) * REFERENCE.level_height
        assert top <= c.framed_top_mm <= top + 20.0
        assert board_in_frame(c.camera, REFERENCE, top_mm=c.framed_top_mm)


def test_readme_shows_the_ranges_as_named() -> None:
    """The README's tables of photo ranges are the ones in vision.render.ranges, word for word."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert rg.tables() in readme
