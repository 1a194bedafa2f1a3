"""The wider range of looks (issue 6): artwork variation, gloss, lamp and mixed light, the
photographer's shadow, per-pixel light on side faces. Each look is drawn from the seed, recorded in
the truth and changes the pixels the way it should."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.camera import Camera
from vision.profile import REFERENCE
from vision.render import looks as lr
from vision.render import pieces
from vision.render.conditions import PRINTS, Light, TableSpec, make_camera, render_camera, sample_conditions
from vision.render.lighting import Lighting, Material
from vision.render.looks import ICON_VARIANTS, NEUTRAL, Artwork, Gloss, Looks, Occluder
from vision.render.mesh import Face, Pose, Solid
from vision.render.raster import _hull_data, receiver_shading, render
from vision.render.table import PRINTED, table_material, table_texture
from vision.render.textures import _Canvas, draw_icon, linear, print_finish

KINDS = ("statue", "fountain", "bridge", "stairs")
PPM = 20.0


def _icon_mask(kind: str, variant: int, stroke: float) -> np.ndarray:
    """The ink of one icon drawn on a plaque-coloured 20 x 20 mm canvas, centred."""
    cv = _Canvas(20.0, 20.0, PPM, REFERENCE.tile.plaque_colour)
    draw_icon(cv, kind, 10.0, 10.0, REFERENCE.tile.icon_box, REFERENCE.tile.icon_colour, 0, variant, stroke)
    return cv.img.mean(axis=2) < 128


@pytest.mark.parametrize("kind", KINDS)
def test_icon_variants_differ_and_stay_in_their_box(kind: str) -> None:
    masks = [_icon_mask(kind, v, 0.0) for v in range(ICON_VARIANTS)]
    for i in range(len(masks)):
        for j in range(i + 1, len(masks)):
            inter = np.count_nonzero(masks[i] & masks[j])
            union = np.count_nonzero(masks[i] | masks[j])
            assert inter / union < 0.9, (kind, i, j)  # visibly another drawing
    box = REFERENCE.tile.icon_box
    for v in range(ICON_VARIANTS):
        for stroke in (-0.25, 0.0, 0.45):
            ys, xs = np.nonzero(_icon_mask(kind, v, stroke))
            assert xs.size > 0.08 * (box * PPM) ** 2  # a solid silhouette, not a ghost
            lo = (10.0 - box / 2) * PPM - 1  # 1 px of anti-aliasing
            hi = (10.0 + box / 2) * PPM + 1
            assert xs.min() >= lo and xs.max() <= hi and ys.min() >= lo and ys.max() <= hi, (kind, v, stroke)


def test_stroke_weight_changes_the_ink() -> None:
    for kind in KINDS:
        light, normal, bold = (np.count_nonzero(_icon_mask(kind, 0, s)) for s in (-0.25, 0.0, 0.45))
        assert light < 0.93 * normal and bold > 1.07 * normal, kind


def _disc_print(size_mm: float = 20.0) -> np.ndarray:
    cv = _Canvas(size_mm, size_mm, PPM, "#E3CFA5")
    cv.disc(size_mm / 2, size_mm / 2, 8.0, "#2B1D12")
    return cv.linear()


def _dark_centroid(channel: np.ndarray) -> np.ndarray:
    w = np.clip(channel.max() - channel, 0, None)
    ys, xs = np.mgrid[: channel.shape[0], : channel.shape[1]]
    return np.array([(w * xs).sum(), (w * ys).sum()]) / w.sum()


def test_misregistration_offsets_the_colour_plates() -> None:
    lin = _disc_print()
    art = Artwork(misregistration_mm=(0.2, -0.1, -0.15, 0.05), seed=3)
    out = print_finish(lin, art, PPM, (0,))
    r, g, b = (_dark_centroid(out[..., c]) for c in range(3))
    np.testing.assert_allclose((g - r) / PPM, (0.2, -0.1), atol=0.02)
    np.testing.assert_allclose((b - r) / PPM, (-0.15, 0.05), atol=0.02)


def test_ink_shift_saturation_and_mottle() -> None:
    lin = _disc_print()
    plain = print_finish(lin, Artwork(seed=1), PPM, (0,), mottle_amount=0.04)
    strong = print_finish(lin, Artwork(mottle=2.5, seed=1), PPM, (0,), mottle_amount=0.04)
    sand = (slice(5, 60), slice(5, 60))  # a corner of plain print
    assert strong[sand][..., 1].std() > 1.8 * plain[sand][..., 1].std()
    grey = print_finish(lin, Artwork(saturation=0.0), PPM, (0,))
    assert np.ptp(grey[sand].mean(axis=(0, 1))) < 1e-3  # no saturation: a grey print
    warm = print_finish(lin, Artwork(ink_gain=(1.08, 1.0, 0.92)), PPM, (0,))
    ratio = warm[sand].mean(axis=(0, 1)) / lin[sand].mean(axis=(0, 1))
    np.testing.assert_allclose(ratio, (1.08, 1.0, 0.92), rtol=1e-3)


def test_wear_lightens_the_edges_and_scuffs() -> None:
    cv = _Canvas(58.0, 58.0, 8.0, REFERENCE.tile.garden_colour)
    lin = cv.linear()
    worn = print_finish(lin, Artwork(wear=1.0, seed=5), 8.0, (0,), scuffs_per_dm2=30.0)
    edge = (worn[:3].mean() + worn[-3:].mean()) / 2
    assert edge > 1.3 * lin[:3].mean()  # the cardboard shows at the worn edge
    inner = worn[40:-40, 40:-40]
    assert (inner > lin[40:-40, 40:-40] + 0.02).any()  # scuffs inside
    assert np.allclose(print_finish(lin, Artwork(wear=0.0, seed=5), 8.0, (0,)), lin)


def test_looks_are_drawn_from_the_seed_and_recorded() -> None:
    many = [sample_conditions(s) for s in range(60)]
    looks = [c.looks for c in many]
    assert sum(lk.lamp_distance_mm > 0 for lk in looks) > 15
    assert sum(lk.fill_kelvin > 0 for lk in looks) > 15
    assert sum(lk.occluder is not None for lk in looks) > 5
    assert len({lk.artwork.statue for lk in looks}) == ICON_VARIANTS
    rough = [lk.gloss.coat_roughness for lk in looks]
    assert min(rough) < 0.06 and max(rough) > 0.3
    for c, lk in zip(many, looks, strict=True):  # every look within its named range
        assert lk.fill_kelvin == 0 or (lk.fill_kelvin in lr.FILL_KELVIN
                                       and abs(lk.fill_kelvin - c.light.kelvin) >= 1000 - 1e-6)
        assert lk.lamp_distance_mm == 0 or lk.lamp_distance_mm in lr.LAMP_DISTANCE_MM
        assert c.light.softness_deg in lr.KEY_SOFTNESS_DEG
        g, a = lk.gloss, lk.artwork
        assert g.coat_roughness in lr.COAT_ROUGHNESS and 0.3 * lr.COAT_F0.lo <= g.coat_f0 <= lr.COAT_F0.hi
        assert g.plastic_roughness in lr.PLASTIC_ROUGHNESS and g.plastic_f0 in lr.PLASTIC_F0
        assert g.tile_tilt_deg in lr.TILE_TILT_DEG and g.smudge in lr.SMUDGE
        assert a.stroke_mm in lr.STROKE_MM and a.saturation in lr.SATURATION and a.mottle in lr.MOTTLE
        assert all(x in lr.INK_GAIN for x in a.ink_gain) and a.wear in lr.WEAR
        assert np.hypot(*a.misregistration_mm[:2]) in lr.MISREGISTRATION_MM
    c = many[7]
    d = json.loads(json.dumps(c.to_dict()))
    assert d["looks"]["artwork"]["statue"] == c.looks.artwork.statue
    assert d["looks"]["gloss"]["coat_f0"] == pytest.approx(c.looks.gloss.coat_f0)
    again = sample_conditions(7)
    assert again.looks == c.looks
    # overriding a part of the looks leaves the rest as drawn
    o = sample_conditions(7, looks={"gloss": {"coat_f0": 0.0}})
    assert o.looks.gloss.coat_f0 == 0.0 and o.looks.artwork == c.looks.artwork
    assert o.camera.to_dict() == c.camera.to_dict()


# ------------------------------------------------------------------------------------ the light


def _lighting(el: float, az: float, **kw) -> Lighting:
    return Lighting.from_light(Light(elevation_deg=el, azimuth_deg=az, softness_deg=1.0, ambient=0.3,
                                     kelvin=5000.0), Looks(**kw), np.array([165.0, 135.0, 0.0]))


def test_lamp_falls_off_across_the_board() -> None:
    near = np.array([[20.0, 20.0, 0.0]])  # the corner towards the lamp (azimuth 225: -x, -y)
    far = np.array([[310.0, 250.0, 0.0]])
    up = np.array([0.0, 0.0, 1.0])
    lamp = _lighting(45.0, 225.0, lamp_distance_mm=550.0)
    window = _lighting(45.0, 225.0)
    assert lamp.direct(far, up)[0] < 0.5 * lamp.direct(near, up)[0]
    assert window.direct(far, up)[0] == pytest.approx(window.direct(near, up)[0])
    centre = np.array([[165.0, 135.0, 0.0]])
    assert lamp.direct(centre, up)[0] == pytest.approx(window.direct(centre, up)[0], rel=1e-6)
    # diverging shadows: a pillar top casts further from the lamp the farther it stands
    tops = np.array([[60.0, 135.0, 20.0], [270.0, 135.0, 20.0]])
    drop = np.linalg.norm(lamp.project(tops, 0.0) - tops[:, :2], axis=1)
    assert drop[1] > 1.3 * drop[0]


def test_mixed_light_tints_the_shadows() -> None:
    warm_key = Light(elevation_deg=50.0, azimuth_deg=0.0, softness_deg=1.0, ambient=0.3, kelvin=3000.0)
    mixed = Lighting.from_light(warm_key, Looks(fill_kelvin=6500.0))
    assert mixed.mixed and mixed.tint[2] > 1.15 * mixed.tint[0]  # the fill is bluer than the key
    assert not Lighting.from_light(warm_key).mixed


def test_occluder_shades_the_board_softly() -> None:
    occ = Occluder("person", 165.0, 135.0, 700.0, 120.0, 200.0, 0.0, 2.0, 30.0)
    lt = _lighting(89.0, 0.0, occluder=occ)
    xs = np.linspace(0.0, 330.0, 331)
    P = np.column_stack([xs, np.full_like(xs, 135.0), np.zeros_like(xs)])
    o = np.asarray(lt.occlusion(P))
    assert o[165] < 0.01 and o[0] > 0.99 and o[330] > 0.99  # dark under it, lit beyond
    mid = o[(xs > 165 + 100) & (xs < 165 + 160)]
    assert ((mid > 0.05) & (mid < 0.95)).any() and np.all(np.diff(o[165:]) >= -1e-9)  # a soft edge


def test_specular_highlight_in_the_mirror_direction_only() -> None:
    p = np.array([[100.0, 100.0, 0.0]])
    cam = np.array([100.0, 300.0, 500.0])
    v = (cam - p[0]) / np.linalg.norm(cam - p[0])
    mirror = np.array([-v[0], -v[1], v[2]])
    el = np.degrees(np.arcsin(mirror[2]))
    az = np.degrees(np.arctan2(mirror[1], mirror[0]))
    up = np.array([0.0, 0.0, 1.0])
    glare = _lighting(el, az).specular(p, up, v[None], 0.05, 0.04)[0]
    away = _lighting(el, az + 180.0).specular(p, up, v[None], 0.05, 0.04)[0]
    assert glare > 1.0 > 20 * away  # brighter than a white print, where the mirror image of the lamp is


# ----------------------------------------------------------------------------- rendered looks


def _uniform_table(z: float, half: float = 200.0, colour: float = 0.5) -> Solid:
    tex = np.full((int(2 * half), int(2 * half), 3), colour, np.float32)
    poly = np.array([[-half, -half, z], [half, -half, z], [half, half, z], [-half, half, z]], float)
    frame = np.array([[1.0, 0, -half + 0.5], [0, 1.0, -half + 0.5], [0, 0, z]])
    face = Face(poly, tex=tex, tex_frame=frame, receiver=True, normal=np.array([0, 0, 1.0]))
    return Solid([face], poly, casts=False)


def test_bridge_shadow_lets_the_light_through_under_the_arch() -> None:
    """Light across the bridge, low: the ground under the arch's middle on the light's side is lit
    (the shadow is the deck's true shape), a point beyond the deck on the far side is in shadow."""
    ground = _uniform_table(0.0)
    bridge = pieces.bridge(REFERENCE, Pose.at(0.0, 0.0, 0.0))
    solids = [ground, *bridge]
    lt = Lighting.from_light(Light(elevation_deg=35.0, azimuth_deg=90.0, softness_deg=0.5, ambient=0.3))
    f = ground.faces[0]

    def shade_at(x: float, y: float) -> float:
        fac, _ = receiver_shading(f, 0, solids, lt, _hull_data(solids), [], np.array([0, 0, 500.0]))
        return float(fac[int(y + 199.5), int(x + 199.5)])

    lit, dark = shade_at(60.0, 60.0), shade_at(0.0, -14.0)
    assert dark < 0.6 * lit
    assert shade_at(0.0, 4.0) > 0.9 * lit  # under the arch, where the light passes below the deck
    for s in bridge:
        s.parts = None  # the whole hull casts: the arch fills in
    assert shade_at(0.0, 4.0) < 0.6 * lit


def test_side_faces_are_lit_per_pixel() -> None:
    """A pillar under the edge of a tile, the light low from +x: the tile's shadow line crosses the
    pillar's lit side, dark above it, lit below (one light per face would paint the face one shade)."""
    pillar = pieces.pillar(REFERENCE, Pose.at(0.0, 0.0, 0.0), double=False)
    tile = pieces.tile(REFERENCE, Pose.at(-19.0, 0.0, 22.5), np.full((58, 58, 3), 0.4, np.float32), "clay",
                       "white")
    cam = Camera.look_at(np.array([150.0, 0.0, 60.0]), np.array([0.0, 0.0, 10.0]), np.array([0, 0, 1.0]),
                         800, 600, 30.0)
    lt = Lighting.from_light(Light(elevation_deg=45.0, azimuth_deg=0.0, softness_deg=0.5, ambient=0.3))
    img = render([pillar, tile], cam, lt, background=_uniform_table(0.0)).img[..., 1]
    (ul, vl), (us, vs) = np.round(cam.project(np.array([[5.0, 0.0, 5.0], [5.0, 0.0, 17.0]]))).astype(int)
    assert img[vl, ul] > 1.5 * img[vs, us]


def _linear_render(garden_tiles: tuple = (), **overrides) -> tuple:
    from scoring.garden import Garden
    from vision.render.photo import render_photo

    g = Garden(board_flower="pink", tiles=garden_tiles)
    fixed = dict(size=(800, 600), tilt_deg=0.0, height_mm=520.0, hfov_deg=70.0, roll_deg=0.0,
                 aim_mm=(165.0, 135.0), k1=0.0, clutter=(), exposure_ev=0.0, vignette=0.0, noise_sigma=0.0,
                 blur_sigma=0.0, motion_px=0.0, table={"kind": "plain", "colour_a": "#2A2A2C",
                                                       "colour_b": "#2A2A2C"})
    ph = render_photo(g, 4, keep_linear=True, **(fixed | overrides))
    return ph, render_camera(ph.conditions)


def _board_mean(ph, rcam, x: float, y: float, r: float = 6.0) -> float:
    u, v = np.round(rcam.project(np.array([[x, y, 0.0]]))[0]).astype(int)
    rr = max(2, int(r * rcam.fx / 520.0))
    return float(ph.linear[v - rr : v + rr, u - rr : u + rr].mean())


def test_a_lamp_darkens_the_far_corner_of_the_board() -> None:
    light = {"elevation_deg": 45.0, "azimuth_deg": 225.0, "ambient": 0.3}  # towards the top-left corner
    near, far = (9.0, 9.0), (321.0, 261.0)
    lamp, rcam = _linear_render(light=light, looks=Looks(lamp_distance_mm=500.0))
    window, rcam2 = _linear_render(light=light, looks=NEUTRAL)
    assert _board_mean(lamp, rcam, *far) < 0.6 * _board_mean(lamp, rcam, *near)
    assert _board_mean(window, rcam2, *far) == pytest.approx(_board_mean(window, rcam2, *near), rel=0.1)


def test_the_photographers_shadow_falls_on_the_board() -> None:
    light = {"elevation_deg": 80.0, "azimuth_deg": 30.0, "ambient": 0.3, "softness_deg": 1.0}
    lt = Light(**light)
    L = lt.direction
    target = np.array([60.0, 60.0])
    xy = target + L[:2] / L[2] * 900.0  # its shadow falls around the top-left of the board
    occ = Occluder("person", float(xy[0]), float(xy[1]), 900.0, 120.0, 150.0, 0.0, 2.0, 10.0)
    shaded, rcam = _linear_render(light=light, looks=Looks(occluder=occ))
    plain, _ = _linear_render(light=light, looks=NEUTRAL)
    a, b = (9.0, 9.0), (321.0, 261.0)
    assert _board_mean(shaded, rcam, *a) < 0.5 * _board_mean(plain, rcam, *a)
    assert _board_mean(shaded, rcam, *b) == pytest.approx(_board_mean(plain, rcam, *b), rel=0.02)


def test_glare_on_a_tile_top_in_the_mirror_direction() -> None:
    """The key light in the mirror direction of a tile's centre as the camera sees it: a glossy coat
    washes the tile out there; a matte one does not; the light turned away leaves no glare."""
    from scoring.garden import Tile

    tile = (Tile(row=3, col=5, level=1, flower="blue", symbols=((None, None), (None, None))),)
    cam_xy, p = np.array([165.0, 135.0]), np.array([195.0, 135.0, 22.5])  # a tile 30 mm off the axis
    v = np.array([*(cam_xy - p[:2]), 520.0 - p[2]])
    v /= np.linalg.norm(v)
    el = float(np.degrees(np.arcsin(v[2])))
    az = float(np.degrees(np.arctan2(-v[1], -v[0])))
    glossy = Looks(gloss=Gloss(coat_roughness=0.08, coat_f0=0.04))
    light = {"elevation_deg": el, "azimuth_deg": az, "ambient": 0.3, "softness_deg": 1.0}
    shine, rcam = _linear_render(tile, light=light, looks=glossy)
    matte, _ = _linear_render(tile, light=light, looks=NEUTRAL)
    turned = light | {"azimuth_deg": az + 180.0, "elevation_deg": 50.0}
    away, _ = _linear_render(tile, light=turned, looks=glossy)
    away_matte, _ = _linear_render(tile, light=turned, looks=NEUTRAL)

    def at(ph) -> float:
        u, v = np.round(rcam.project(p[None])[0]).astype(int)
        return float(ph.linear[v, u].mean())

    assert at(shine) > at(matte) + 0.5
    assert at(away) < at(away_matte) + 0.05


# ---------------------------------------------------------------------------------- backgrounds


def _luma(tex: np.ndarray) -> np.ndarray:
    return tex @ np.array([0.2126, 0.7152, 0.0722], np.float32)


@pytest.mark.parametrize("kind", PRINTED)
def test_printed_tablecloths_are_high_contrast(kind: str) -> None:
    spec = TableSpec(kind, PRINTS[0], PRINTS[1], 11, 25.0, colours=(PRINTS[0], PRINTS[1], PRINTS[3]),
                     motif_mm=30.0)
    tex = table_texture(spec, (0.0, 0.0, 300.0, 300.0), 0.5)
    y = _luma(tex)
    lo, hi = np.percentile(y, [5, 95])
    assert hi > 4 * lo  # white against navy: far beyond a wood grain's or a plain cloth's contrast
    # every colour of the print shows (quantised to the nearest palette colour)
    pal = np.array([linear(c) for c in spec.colours])
    near = np.argmin(((tex.reshape(-1, 1, 3) - pal[None]) ** 2).sum(-1), axis=1)
    counts = np.bincount(near, minlength=len(pal)) / near.size
    assert counts.min() > 0.02


def test_tables_drawn_include_prints_and_glossy_tops() -> None:
    tables = [sample_conditions(s).table for s in range(150)]
    kinds = {t.kind for t in tables}
    assert set(PRINTED) <= kinds and {"wood", "cloth", "plain"} <= kinds
    glossy = [t for t in tables if t.gloss > 0]
    assert glossy and all(t.kind in ("wood", "plain") for t in glossy)
    assert all(table_material(t).glossy == (t.gloss > 0) for t in tables)


def test_a_glossy_table_shows_the_lamps_glare() -> None:
    cam = make_camera((600, 450), 70.0, 500.0, 0.0, 0.0, 0.0, (0.0, 0.0), 0.0)
    p = np.array([[120.0, 0.0, 0.0]])  # a table point off the optical axis
    v = cam.position - p[0]
    v /= np.linalg.norm(v)
    light = Light(elevation_deg=float(np.degrees(np.arcsin(v[2]))),
                  azimuth_deg=float(np.degrees(np.arctan2(-v[1], -v[0]))), softness_deg=2.0, ambient=0.3)
    lt = Lighting.from_light(light)
    (u, vv), = np.round(cam.project(p)).astype(int)

    def table_at(material: Material) -> float:
        t = _uniform_table(0.0, 400.0, 0.3)
        t.faces[0].material = material
        return float(render([], cam, lt, background=t).img[vv, u].mean())

    assert table_at(Material(0.05, 0.04)) > table_at(Material()) + 0.5
