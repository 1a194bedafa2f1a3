"""Look-related behaviours of the renderer: anti-aliased edges, cast shadows on the table."""

from __future__ import annotations

import numpy as np

from vision.profile import REFERENCE
from vision.render import pieces
from vision.render.conditions import make_camera
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
