"""Look-related behaviours of the renderer: anti-aliased edges, cast shadows on the table."""

from __future__ import annotations

import cv2
import numpy as np

from vision.profile import REFERENCE
from vision.render import pieces
from vision.render.conditions import make_camera
from vision.render.looks import NEUTRAL
from vision.render.mesh import Face, Pose, Solid
from vision.render.raster import Frame, Lighting, render


def _cam():
    return make_camera((400, 300), 60.0, 300.0, 0.0, 0.0, 0.0, (0.0, 0.0), 0.0)


def _table(colour: float = 0.5) -> Solid:
    s = 1.0
    tex = np.full((300, 300, 3), colour, np.float32)
    z = -REFERENCE.board.thickness
    poly = np.array([[-150, -150, z], [150, -150, z], [150, 150, z], [-150, 150, z]], float)
    frame = np.array([[s, 0, -150 + 0.5 * s], [0, s, -150 + 0.5 * s], [0, 0, z]])
    face = Face(poly, tex=tex, tex_frame=frame, receiver=True, normal=np.array([0, 0, 1.0]))
    return Solid([face], poly, casts=False)


def test_edges_are_antialiased() -> None:
    cam = _cam()
    fr = Frame(cam)
    sq = np.array([[-30, -20, 0], [30, -25, 0], [35, 25, 0], [-28, 22, 0]], float)
    fr.draw(Face(sq, colour=np.ones(3, np.float32), normal=np.array([0, 0, 1.0])), np.ones(3, np.float32))
    g = fr.img[..., 1]
    inside = g == 1.0
    edge = (g > 0.05) & (g < 0.95)
    assert inside.sum() > 1000
    assert edge.sum() > 100  # the rim has intermediate values on every slanted edge
    # the ids/depth still mark whole pixels whose centres are inside
    assert np.all(fr.izbuf[inside] > 0)


def test_clutter_pillar_casts_shadow_on_table() -> None:
    cam = _cam()
    z = -REFERENCE.board.thickness
    pillar = pieces.pillar(REFERENCE, Pose.at(0.0, 0.0, z), double=True)
    el = np.radians(35.0)
    light = Lighting(np.array([np.cos(el), 0.0, np.sin(el)]), 0.3, 1.0)  # light from +x
    img = render([pillar], cam, light, background=_table()).img
    uv = cam.project(np.array([[-25.0, 0.0, z], [25.0, 0.0, z]]))
    (xa, ya), (xb, yb) = np.round(uv).astype(int)
    shadow, lit = img[ya, xa].mean(), img[yb, xb].mean()
    assert shadow < 0.7 * lit  # the shadow falls away from the light, on the -x side


def _wood_like_table(colour: float = 0.5) -> Solid:
    """A uniform table on an anisotropic texel grid: 1 mm across x, 8 mm along y (like wood grain)."""
    z = -REFERENCE.board.thickness
    tex = np.full((40, 320, 3), colour, np.float32)
    poly = np.array([[-160, -160, z], [160, -160, z], [160, 160, z], [-160, 160, z]], float)
    frame = np.array([[1.0, 0, -160 + 0.5], [0, 8.0, -160 + 4.0], [0, 0, z]])
    face = Face(poly, tex=tex, tex_frame=frame, receiver=True, normal=np.array([0, 0, 1.0]))
    return Solid([face], poly, casts=False)


def test_hard_shadow_edge_on_coarse_table_grid_is_smooth() -> None:
    """A hard, low light: the shadow's edge on a table whose texture grid is 8 mm coarse along y is a
    straight, narrow, monotonic ramp (no texel blocks, no steps)."""
    from vision.render.mesh import prism, rect

    cam = make_camera((900, 700), 60.0, 250.0, 0.0, 0.0, 0.0, (0.0, 0.0), 0.0)
    z = -REFERENCE.board.thickness
    box = prism(Pose.at(20.0, 0.0, z, 30.0), rect(24, 24), 0.0, 40.0, np.full(3, 0.8)).finish()
    el = np.radians(35.0)
    light = Lighting(np.array([np.cos(el), 0.0, np.sin(el)]), 0.2, 0.5)  # from +x: shadow towards -x
    img = render([box], cam, light, background=_wood_like_table()).img[..., 1]
    ppm = float(np.linalg.norm(cam.project(np.array([[0, 0, z], [1.0, 0, z]]))[1] - cam.project(
        np.array([[0, 0, z]]))[0]))
    ys = np.arange(0.0, 40.0, 0.05)  # from inside the shadow out across its +y side edge
    crossings = []
    for x in np.arange(-30.0, -10.0, 1.0):
        uv = cam.project(np.column_stack([np.full_like(ys, x), ys, np.full_like(ys, z)])).astype(np.float32)
        prof = cv2.remap(img, uv[:, 0].reshape(1, -1), uv[:, 1].reshape(1, -1), cv2.INTER_LINEAR)[0]
        lo, hi = prof.min(), prof.max()
        assert hi - lo > 0.2  # a real shadow
        assert np.all(np.diff(prof) > -1e-3 * (hi - lo))  # monotonic: no steps back
        t = (prof - lo) / (hi - lo)
        width_px = (ys[np.argmax(t > 0.9)] - ys[np.argmax(t > 0.1)]) * ppm
        assert width_px < 4.0, width_px  # a short ramp, not a block of several texels
        crossings.append((x, ys[np.argmax(t > 0.5)]))
    c = np.array(crossings)
    fit = np.polyfit(c[:, 0], c[:, 1], 1)
    assert np.abs(np.polyval(fit, c[:, 0]) - c[:, 1]).max() * ppm < 0.75  # a straight edge: no stairs


def test_standing_piece_has_contact_shadow_on_its_lit_side() -> None:
    cam = _cam()
    z = -REFERENCE.board.thickness
    pillar = pieces.pillar(REFERENCE, Pose.at(0.0, 0.0, z), double=False)
    el = np.radians(50.0)
    light = Lighting(np.array([np.cos(el), 0.0, np.sin(el)]), 0.3, 1.0)  # from +x: no cast shadow at +x
    img = render([pillar], cam, light, background=_table()).img
    uv = cam.project(np.array([[6.5, 0.0, z], [30.0, 0.0, z]]))
    (xa, ya), (xb, yb) = np.round(uv).astype(int)
    assert img[ya, xa].mean() < 0.9 * img[yb, xb].mean()  # darker right at the foot


def test_curved_pieces_are_closed_and_seamless():
    """Every facet of a dome has a real normal (the pole's triangles too), and between the facets no
    background shows through: a belvedere's dome seen from above is teal all over."""
    from scoring.garden import Decoration, Garden, Tile
    from vision.render.mesh import Pose, dome
    from vision.render.photo import render_photo

    solid = dome(Pose.at(0, 0, 0), 14.0, 0.0, np.array([0.1, 0.4, 0.4]))
    assert all(abs(np.linalg.norm(f.normal) - 1) < 1e-6 for f in solid.faces)
    g = Garden(board_flower="pink", tiles=(Tile(row=3, col=3, level=1, flower="blue"),),
               decorations=(Decoration(kind="belvedere", cells=((3, 3),), level=1),))
    ph = render_photo(g, 3, size=(2400, 1800), height_mm=350, hfov_deg=80, tilt_deg=0, noise_sigma=0,
                      blur_sigma=0, motion_px=0, clutter=(), vignette=0, looks=NEUTRAL)
    (d,) = ph.truth["pieces"]["decorations"]
    u, v = np.round(d["centre_px"]).astype(int)
    patch = ph.image[v - 12 : v + 13, u - 12 : u + 13].astype(int)  # inside the dome
    b, gr, r = patch[..., 0], patch[..., 1], patch[..., 2]
    assert ((gr > r + 25) & (b > r + 20)).all()  # teal
    # the ivory base showing through a seam would be a red spike among the facets' even shades
    assert r.max() - np.median(r) < 25


def test_bridge_deck_covers_its_whole_length():
    """The arched deck is drawn over its full length from above: no segment turned away from the
    camera (its field's plaque would show through) and no light seams between segments."""
    from scoring.garden import Decoration, Garden, Tile
    from vision.profile import REFERENCE
    from vision.render.photo import render_photo

    g = Garden(board_flower="pink", tiles=(Tile(row=0, col=0, level=1, flower="blue"),
                                           Tile(row=0, col=3, level=1, flower="white")),
               decorations=(Decoration(kind="bridge", cells=((1, 1), (1, 2), (1, 3)), level=1),))
    ph = render_photo(g, 2, size=(2400, 1800), height_mm=360, hfov_deg=70, tilt_deg=0, noise_sigma=0,
                      blur_sigma=0, motion_px=0, clutter=(), vignette=0, exposure_ev=0.0,
                      light={"elevation_deg": 80.0, "ambient": 0.5}, looks=NEUTRAL)
    (d,) = ph.truth["pieces"]["decorations"]
    x, y = d["pos_board_mm"][:2]
    turn = np.radians(d["rotation_deg"])
    along = np.array([np.cos(turn), np.sin(turn)])
    z = REFERENCE.tile_top_z(1) + 4.0
    pts = np.array([[x + s * along[0], y + s * along[1], z] for s in np.linspace(-36, 36, 73)])
    uv = np.round(ph.conditions.camera.project(pts)).astype(int)
    b, gr, r = ph.image[uv[:, 1], uv[:, 0]].astype(int).T
    assert ((r > gr + 40) & (r > b + 60)).all()  # terracotta all along
    assert np.abs(np.diff(r)).max() < 30  # no bright seams
