"""Solids for the game's pieces in local coordinates (z = 0 on the surface a piece stands on)."""

from __future__ import annotations

import dataclasses

import numpy as np

from vision.profile import Profile
from vision.render.mesh import Face, Pose, Solid, circle, dome, ellipse, loft, newell_normal, prism, rect
from vision.render.textures import linear


def underside_hex(profile: Profile, material: str, flower: str) -> str:
    return profile.flowers[flower] if material == "start" else profile.tile.underside[material]


def tile(
    profile: Profile,
    pose: Pose,
    top_tex: np.ndarray,
    material: str,
    flower: str,
    obj_top: int = 0,
    obj: int = 0,
    receiver: bool = True,
    bow: tuple[float, int] = (0.0, 0),
) -> Solid:
    """A terrace tile; ``pose`` puts the local origin at the centre of the top face (z = 0 there),
    whichever side that is (``top_tex``: the garden side, or the underside of a tile lying face
    down). ``receiver``: cast shadows and occlusion are baked into the top's texture (tiles in the
    garden); False shades it with one test at its centre, like other faces (loose tiles). ``bow``:
    (mm, local axis 0/1): the top's middle raised by that much over its edges, across that axis, as
    :data:`vision.render.placement.BOW_STRIPS` flat strips (the corners and the edges along the axis'
    ends stay at z = 0)."""
    t = profile.tile
    s, th = t.size, t.thickness
    sq = rect(s, s)
    under = linear(underside_hex(profile, material, flower))
    edge = linear(t.edge_colour)
    bow_mm, axis = bow
    if bow_mm < MIN_BOW_MM:
        solid = prism(pose, sq, -th, 0.0, edge, obj=obj)
        ppm_s = top_tex.shape[1] / s
        u, v = pose.R @ np.array([1 / ppm_s, 0, 0]), pose.R @ np.array([0, 1 / ppm_s, 0])
        corner = pose.apply(np.array([-s / 2, -s / 2, 0.0]))
        o = corner + 0.5 * u + 0.5 * v
        top = Face(pose.apply(np.column_stack([sq, np.zeros(4)])), tex=top_tex,
                   tex_frame=np.column_stack([u, v, o]), obj=obj_top, receiver=receiver)
        bottom = Face(pose.apply(np.column_stack([sq[::-1], np.full(4, -th)])), colour=under, obj=obj)
        solid.faces += [top, bottom]
        solid.is_tile = True
        return solid.finish()
    return _bowed_tile(profile, pose, top_tex, edge, under, obj_top, obj, receiver, bow_mm, axis)


MIN_BOW_MM = 0.02  #: a flatter tile is drawn flat


def _bowed_tile(profile: Profile, pose: Pose, tex: np.ndarray, edge: np.ndarray, under: np.ndarray,
                obj_top: int, obj: int, receiver: bool, bow_mm: float, axis: int) -> Solid:
    from vision.render.placement import BOW_STRIPS, bow_profile

    s, th = profile.tile.size, profile.tile.thickness
    n_tex = tex.shape[1 - axis]  # texels across the bow: columns (local x) or rows (local y)
    ppm = tex.shape[1] / s
    ks = [round(n_tex * i / BOW_STRIPS) for i in range(BOW_STRIPS + 1)]
    a = [-s / 2 + k / ppm for k in ks]  # strip edges, local coordinate across the bow
    z = bow_profile(bow_mm, s / 2, np.array(a))
    z[0] = z[-1] = 0.0

    def local(p_across: float, p_along: float, zz: float) -> np.ndarray:
        return np.array([p_across, p_along, zz]) if axis == 0 else np.array([p_along, p_across, zz])

    faces: list[Face] = []
    for i in range(BOW_STRIPS):
        k0, k1 = ks[i], ks[i + 1]
        sub = np.ascontiguousarray(tex[:, k0:k1] if axis == 0 else tex[k0:k1, :])
        slope = (z[i + 1] - z[i]) / (a[i + 1] - a[i])
        quad = [local(a[i], -s / 2, z[i]), local(a[i + 1], -s / 2, z[i + 1]),
                local(a[i + 1], s / 2, z[i + 1]), local(a[i], s / 2, z[i])]
        if axis == 1:
            quad = [quad[0], quad[3], quad[2], quad[1]]  # counter-clockwise seen from above
        step_across = local(1 / ppm, 0.0, slope / ppm)
        step_along = local(0.0, 1 / ppm, 0.0)
        u, v = (step_across, step_along) if axis == 0 else (step_along, step_across)
        o = local(a[i], -s / 2, z[i]) + 0.5 * u + 0.5 * v
        faces.append(Face(pose.apply(np.array(quad)), tex=sub,
                          tex_frame=np.column_stack([pose.R @ u, pose.R @ v, pose.apply(o)]),
                          obj=obj_top, receiver=receiver, normal=pose.R @ _up_normal(u, v)))
    # sides: the two across the bow follow its profile, the other two are plain rectangles
    for side in (-1, 1):
        top_edge = [local(a[i], side * s / 2, z[i]) for i in range(BOW_STRIPS + 1)]
        bottom = [local(a[-1], side * s / 2, -th), local(a[0], side * s / 2, -th)]
        faces.append(Face(pose.apply(np.array(top_edge + bottom)), colour=edge, obj=obj))
        end = [local(side * s / 2, -s / 2, 0.0), local(side * s / 2, s / 2, 0.0),
               local(side * s / 2, s / 2, -th), local(side * s / 2, -s / 2, -th)]
        faces.append(Face(pose.apply(np.array(end)), colour=edge, obj=obj))
    sq = rect(s, s)
    faces.append(Face(pose.apply(np.column_stack([sq[::-1], np.full(4, -th)])), colour=under, obj=obj))
    ridge = [local(a[i], side * s / 2, z[i]) for i in range(1, BOW_STRIPS) for side in (-1, 1)]
    hull = pose.apply(np.vstack([np.column_stack([sq, np.full(4, -th)]), np.column_stack([sq, np.zeros(4)]),
                                 np.array(ridge)]))
    solid = Solid(faces, hull)
    solid.is_tile = True
    return solid.finish()


def _up_normal(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    n = np.cross(u, v)
    n /= np.linalg.norm(n)
    return n if n[2] > 0 else -n


def warp_board_top(board: Solid, profile: Profile, warp_mm: float) -> None:
    """Bow the board's printed top (its textured face) into a pillow ``warp_mm`` high in the middle
    (:func:`vision.render.placement.board_lift`; the edges and corners stay at z = 0): a grid of
    texture blocks, each drawn as two flat triangles, the same triangles ``board_lift`` lifts pieces by."""
    from vision.render.placement import WARP_CELLS, board_lift

    cells = WARP_CELLS
    k = next(i for i, f in enumerate(board.faces) if f.tex is not None and f.normal[2] > 0.9)
    top = board.faces[k]
    F = top.tex_frame
    h, w = top.tex.shape[:2]
    cs = [round(w * i / cells) for i in range(cells + 1)]
    rs = [round(h * i / cells) for i in range(cells + 1)]

    def node(c: int, r: int) -> np.ndarray:
        x, y, z = F @ np.array([c - 0.5, r - 0.5, 1.0])
        return np.array([x, y, z + board_lift(profile, warp_mm, x, y)])

    faces = []
    for j in range(cells):
        for i in range(cells):
            c0, c1, r0, r1 = cs[i], cs[i + 1], rs[j], rs[j + 1]
            sub = np.ascontiguousarray(top.tex[r0:r1, c0:c1])
            corners = {(0, 0): node(c0, r0), (1, 0): node(c1, r0), (1, 1): node(c1, r1), (0, 1): node(c0, r1)}
            st = {(0, 0): (-0.5, -0.5), (1, 0): (c1 - c0 - 0.5, -0.5), (1, 1): (c1 - c0 - 0.5, r1 - r0 - 0.5),
                  (0, 1): (-0.5, r1 - r0 - 0.5)}
            tris = (((0, 0), (1, 0), (1, 1)), ((0, 0), (1, 1), (0, 1))) if (i + j) % 2 == 0 else \
                (((0, 0), (1, 0), (0, 1)), ((1, 0), (1, 1), (0, 1)))
            for tri in tris:
                P = np.column_stack([corners[c] for c in tri])
                T = np.array([[*st[c], 1.0] for c in tri]).T
                M = P @ np.linalg.inv(T)
                faces.append(dataclasses.replace(top, verts=P.T.copy(), tex=sub, tex_frame=M,
                                                 normal=_up_normal(M[:, 0], M[:, 1])))
    board.faces[k : k + 1] = faces
    board.hull = np.vstack([board.hull, *(f.verts for f in faces)])


def pillar(profile: Profile, pose: Pose, double: bool, obj: int = 0, n: int = 28) -> Solid:
    p = profile.pillar
    h = p.double_height if double else p.single_height
    bands = [(p.groove[0], p.groove[1], linear(p.groove_colour))] if double else None
    return prism(
        pose,
        circle(p.diameter, n),
        0.0,
        h,
        linear(p.colour),
        linear(p.cap_colour),
        linear(p.cap_colour),
        obj=obj,
        bands=bands,
    )


def statue(profile: Profile, pose: Pose, obj: int = 0) -> list[Solid]:
    d = profile.decoration
    c = linear(d.statue_colour)
    bd, bh = d.statue_base
    w0, w1 = d.statue_body
    top = d.statue_height - d.statue_head * 0.9
    return [
        prism(pose, circle(bd, 24), 0.0, bh, c * 0.9, c, obj=obj),
        loft(pose, [(circle(w0, 20), bh), (circle(w1, 20), top)], c, c, obj=obj),
        dome(
            Pose(pose.R, pose.apply([0, 0, d.statue_height - d.statue_head / 2])),
            d.statue_head,
            0.0,
            c,
            n=18,
            stacks=6,
            full=True,
            obj=obj,
        ),
    ]


def fountain(profile: Profile, pose: Pose, obj: int = 0) -> list[Solid]:
    """Local x along the two fields."""
    d = profile.decoration
    L, W, H = d.fountain_basin
    rim = linear(d.fountain_rim_colour)
    basin = prism(pose, ellipse(L, W), 0.0, H, rim, rim, obj=obj)
    ins = d.fountain_inset
    water = Face(
        pose.apply(np.column_stack([ellipse(L - 2 * ins, W - 2 * ins), np.full(28, H + 0.05)])),
        colour=linear(d.fountain_water_colour),
        obj=obj,
        gloss=0.6,
    )
    basin.faces.append(water)
    basin.finish()
    sd, sh = d.fountain_spout
    spout = prism(pose, circle(sd, 12), H, H + sh, rim * 0.95, linear(d.fountain_water_colour), obj=obj)
    return [basin, spout]


def bridge(profile: Profile, pose: Pose, obj: int = 0, segments: int = 8) -> list[Solid]:
    """Local x along the three fields; an arched deck, thicker in the middle, with raised rails."""
    d = profile.decoration
    L, W = d.bridge_deck
    deck, rail = linear(d.bridge_colour), linear(d.bridge_rail_colour)
    rw, lift = d.bridge_rail_width, d.bridge_rail_lift
    xs = np.linspace(-L / 2, L / 2, segments + 1)

    def top_z(x):
        return (
            d.bridge_end_thickness
            + (d.bridge_rise - d.bridge_end_thickness)
            * np.cos(np.clip(x / (L / 2), -1, 1) * np.pi / 2) ** 0.7
        )

    def under_z(x):
        return np.maximum(0.0, top_z(x) - d.bridge_end_thickness - 1.5)

    faces: list[Face] = []

    def add(quad: list[list[float]], colour: np.ndarray, towards: tuple[float, float, float]) -> None:
        """A face whose normal points towards ``towards`` (local frame): the deck is arched and
        open-sided, so "away from the centre" would get some of its faces wrong."""
        f = Face(pose.apply(quad), colour=colour, obj=obj)
        n = newell_normal(f.verts)
        f.normal = n if n @ (pose.R @ np.asarray(towards, float)) >= 0 else -n
        faces.append(f)

    for x0, x1 in zip(xs[:-1], xs[1:], strict=False):
        t0, t1, u0, u1 = top_z(x0), top_z(x1), under_z(x0), under_z(x1)
        for y0, y1, up, col in (
            (-W / 2, -W / 2 + rw, lift, rail),
            (-W / 2 + rw, W / 2 - rw, 0.0, deck),
            (W / 2 - rw, W / 2, lift, rail),
        ):
            add([[x0, y0, t0 + up], [x1, y0, t1 + up], [x1, y1, t1 + up], [x0, y1, t0 + up]],
                col, (0, 0, 1))
        for y in (-W / 2, W / 2):  # outer sides of the rails, down to the underside
            add([[x0, y, u0], [x1, y, u1], [x1, y, t1 + lift], [x0, y, t0 + lift]], rail, (0, y, 0))
        for y in (-W / 2 + rw, W / 2 - rw):  # inner sides of the rails, facing the deck's middle
            add([[x0, y, t0], [x1, y, t1], [x1, y, t1 + lift], [x0, y, t0 + lift]], rail, (0, -y, 0))
        add([[x0, -W / 2, u0], [x1, -W / 2, u1], [x1, W / 2, u1], [x0, W / 2, u0]], deck * 0.7, (0, 0, -1))
    # one solid: the seams between the deck's segments are inner edges, drawn without gaps; each
    # segment is a convex piece of its shadow, so the light passes under the arch
    per = len(faces) // segments
    parts = [np.vstack([f.verts for f in faces[k * per : (k + 1) * per]]) for k in range(segments)]
    solids = [Solid(faces, np.vstack([f.verts for f in faces]), parts=parts)]
    for end in (-1, 1):
        x = end * L / 2
        solids.append(prism(pose, rect(0.01, W, x, 0), 0.0, d.bridge_end_thickness + lift, rail, obj=obj))
    return solids


def stairs(profile: Profile, pose: Pose, rise: float, run: float, obj: int = 0) -> list[Solid]:
    """Local x from the lower field (x = 0 at the start of the run) towards the upper tile."""
    d = profile.decoration
    c = linear(d.stairs_colour)
    n = d.stairs_steps
    step = run / n
    out = []
    for i in range(n):
        poly = rect(step, d.stairs_width, (i + 0.5) * step, 0)
        out.append(prism(pose, poly, 0.0, rise * (i + 1) / n, c * 0.85, c, obj=obj))
    return out


def belvedere(profile: Profile, pose: Pose, obj: int = 0) -> list[Solid]:
    d = profile.decoration
    post, teal = linear(d.belvedere_post_colour), linear(d.belvedere_dome_colour)
    b = d.belvedere_base
    r = d.belvedere_dome / 2
    z_dome = d.belvedere_height - r
    slab, pw, inset, roof = d.belvedere_slab, d.belvedere_post, d.belvedere_post_inset, d.belvedere_roof
    out = [prism(pose, rect(b, b), 0.0, slab, post * 0.9, post, obj=obj)]
    for sx in (-1, 1):
        for sy in (-1, 1):
            out.append(
                prism(
                    pose,
                    rect(pw, pw, sx * (b / 2 - inset), sy * (b / 2 - inset)),
                    slab,
                    z_dome - roof,
                    post,
                    post,
                    obj=obj,
                )
            )
    out.append(prism(pose, rect(b, b), z_dome - roof, z_dome, post, post, post, obj=obj))
    out.append(dome(Pose(pose.R, pose.apply([0, 0, z_dome])), d.belvedere_dome, 0.0, teal, obj=obj))
    return out


def card(profile: Profile, pose: Pose, tex: np.ndarray) -> Solid:
    c = profile.card
    w, h = c.size
    sq = rect(w, h)
    ppm = tex.shape[1] / w
    u, v = pose.R @ np.array([1 / ppm, 0, 0]), pose.R @ np.array([0, 1 / ppm, 0])
    o = pose.apply(np.array([-w / 2, -h / 2, c.thickness])) + 0.5 * (u + v)
    s = prism(pose, sq, 0.0, c.thickness, linear(c.border_colour))
    s.faces.append(
        Face(
            pose.apply(np.column_stack([sq, np.full(4, c.thickness)])),
            tex=tex,
            tex_frame=np.column_stack([u, v, o]),
            receiver=False,
        )
    )
    return s.finish()
