"""Z-buffer rasterizer for planar faces, with one key light, ambient, cast shadows and occlusion.

Every face is drawn in its screen bounding box only. Depth: for a plane, 1/z is affine in pixel
coordinates, so each face's inverse depth over its box is ``a u + b v + c`` (no per-vertex
interpolation). Textures go through the plane's exact homography (``cv2.warpPerspective``).

Shadows on horizontal receivers (table, board top, tile tops) are baked into the receiver's
texture: each casting solid's vertices are projected along the light onto the receiver's plane,
their convex hull filled and blurred by the penumbra. Other faces (sides of tiles, pillars,
pieces) take one shadow test at their centroid against the terrace tiles above them.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.camera import Camera
from vision.render.lighting import MATTE, Lighting, Material, materials
from vision.render.looks import Gloss
from vision.render.mesh import Face, Solid
from vision.render.shading import FaceTable, TileShadows, shade_pixels

__all__ = ["Frame", "Lighting", "render"]


class Frame:
    """Colour, inverse-depth and object-id buffers for one camera."""

    def __init__(self, cam: Camera) -> None:
        self.cam = cam
        h, w = cam.height, cam.width
        self.img = np.zeros((h, w, 3), np.float32)
        self.izbuf = np.zeros((h, w), np.float32)
        self.ids = np.zeros((h, w), np.int16)
        self.sid = np.full((h, w), -1, np.int32)  #: index of the solid that owns each pixel centre
        #: index of the flat (untextured) face that owns each pixel centre, for the per-pixel light
        self.fid = np.full((h, w), -1, np.int16)
        self.fid_box = [w, h, 0, 0]  #: x0, y0, x1, y1 around every pixel a face to light per pixel owns
        self.pos = cam.position

    def draw_background(self, f: Face, tex: np.ndarray) -> None:
        """The table: the farthest surface everywhere, so no depth test and no depth written."""
        cv2.warpPerspective(
            tex,
            self.cam.plane_homography(f.tex_frame),
            (self.cam.width, self.cam.height),
            dst=self.img,
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )

    def draw(
        self,
        f: Face,
        colour: np.ndarray | None,
        tex: np.ndarray | None = None,
        inner: np.ndarray | None = None,
        solid: int = -1,
        face_id: int = -1,
    ) -> None:
        """Draw one planar face. Its edges are anti-aliased: each pixel's coverage comes from its
        signed distances to the face's edges, and the face is blended over what is already there by
        that coverage where it wins the depth test at the pixel centre. ``inner`` flags edges shared
        with a visible face of the same solid drawn later: the face reaches a little past them,
        hard, and the later face blends over it there whatever the depth (no seams, no jags).
        ``solid`` is the index of the face's solid; ``face_id`` an index of a flat face to be shaded
        per pixel afterwards (-1: none), written where the face owns the pixel centre."""
        cam = self.cam
        if f.normal @ (self.pos - f.verts[0]) <= 1e-9:
            return  # back face
        pc = cam.to_camera(f.verts)
        if np.any(pc[:, 2] <= 1.0):
            return
        uv = pc[:, :2] / pc[:, 2:3] * (cam.fx, cam.fy) + (cam.cx, cam.cy)
        x0, y0 = np.floor(uv.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(uv.max(axis=0)).astype(int) + 2
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, cam.width), min(y1, cam.height)
        if x1 <= x0 or y1 <= y0:
            return
        w, h = x1 - x0, y1 - y0
        cov = _coverage(uv - (x0, y0), w, h, inner)
        if cov is None:
            return
        # plane n.X = d in camera coords; 1/z = n.(K^-1 [u v 1]) / d
        n = cam.R @ f.normal
        d = float(n @ pc[0])
        a = n[0] / cam.fx / d
        b = n[1] / cam.fy / d
        c = (n[2] - n[0] * cam.cx / cam.fx - n[1] * cam.cy / cam.fy) / d
        # relative to the box corner: grazing faces have huge a, b that would cancel in float32
        c0 = a * x0 + b * y0 + c
        iz = (np.arange(w, dtype=np.float32) * np.float32(a))[None, :] + (
            np.arange(h, dtype=np.float32) * np.float32(b) + np.float32(c0)
        )[:, None]
        # steep (grazing) faces: pixels at their rims would extrapolate the plane far beyond the
        # face; clamp to the vertices' depth range
        izv = 1.0 / pc[:, 2]
        np.clip(iz, np.float32(izv.min()), np.float32(izv.max()), out=iz)
        zb = self.izbuf[y0:y1, x0:x1]
        m = iz > zb * np.float32(1 + 2e-5)
        if solid >= 0:
            sb = self.sid[y0:y1, x0:x1]
            m |= (cov < 1) & (sb == solid)
        m &= cov > 0
        own = m & (cov >= 0.5)
        if solid >= 0:
            np.copyto(sb, np.int32(solid), where=own)  # the face owns the pixel centre: depth and id
        np.copyto(zb, iz, where=own)
        np.copyto(self.fid[y0:y1, x0:x1], np.int16(face_id), where=own)
        if face_id >= 0:
            b = self.fid_box
            b[0], b[1], b[2], b[3] = min(b[0], x0), min(b[1], y0), max(b[2], x1), max(b[3], y1)
        if f.obj:
            np.copyto(self.ids[y0:y1, x0:x1], np.int16(f.obj), where=own)
        dst = self.img[y0:y1, x0:x1]
        full = m & (cov >= 1.0)
        part = np.nonzero(m & (cov < 1.0))
        if tex is not None:
            H = cam.plane_homography(f.tex_frame)
            T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]])
            src = cv2.warpPerspective(
                tex, T @ H, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
            )
            np.copyto(dst, src, where=full[..., None])
            sp = src[part]
        else:
            col = colour.astype(np.float32)
            np.copyto(dst, col, where=full[..., None])
            sp = col[None, :]
        al = cov[part][:, None]
        dst[part] = dst[part] * (1 - al) + sp * al


def _coverage(uv: np.ndarray, w: int, h: int, inner: np.ndarray | None) -> np.ndarray | None:
    """Pixel coverage (h, w) float32 of the convex polygon ``uv`` (pixel centres at integers):
    min over edges of (0.5 + signed distance inside), clipped to 0..1; edges flagged in ``inner``
    are pushed half a pixel out and kept hard."""
    k = len(uv)
    cen = uv.mean(axis=0)
    xs = np.arange(w, dtype=np.float32)
    ys = np.arange(h, dtype=np.float32)
    cov = None
    for i in range(k):
        p, q = uv[i], uv[(i + 1) % k]
        e = q - p
        ln = float(np.hypot(*e))
        if ln < 1e-6:
            continue
        nx, ny = -e[1] / ln, e[0] / ln
        if nx * (cen[0] - p[0]) + ny * (cen[1] - p[1]) < 0:
            nx, ny = -nx, -ny
        off = 0.5 - (nx * p[0] + ny * p[1])
        if inner is not None and inner[i]:
            # a hard step just over half a pixel outside the edge: under all of the later face's
            # soft fringe, so no background leaks through the seam (scaled up: the clip makes it
            # binary)
            off += 0.01
            dd = ((xs * np.float32(nx))[None, :] + (ys * np.float32(ny) + np.float32(off))[:, None]) * 1e6
        else:
            dd = (xs * np.float32(nx))[None, :] + (ys * np.float32(ny) + np.float32(off))[:, None]
        cov = dd if cov is None else np.minimum(cov, dd, out=cov)
    if cov is None:
        return None
    return np.clip(cov, 0.0, 1.0, out=cov)


def inner_edges(solid: Solid, cam_pos: np.ndarray) -> list[np.ndarray | None]:
    """Per face of ``solid``, flags of its edges shared with a later face of the solid that faces
    the camera (the later face blends over this one there)."""
    front = [float(f.normal @ (cam_pos - f.verts[0])) > 1e-9 for f in solid.faces]
    keys: dict[tuple, list[int]] = {}
    fk = []
    for fi, f in enumerate(solid.faces):
        r = np.round(f.verts, 3)
        ks = []
        for i in range(len(r)):
            a, b = tuple(r[i]), tuple(r[(i + 1) % len(r)])
            key = (a, b) if a <= b else (b, a)
            ks.append(key)
            keys.setdefault(key, []).append(fi)
        fk.append(ks)
    out: list[np.ndarray | None] = []
    for fi, ks in enumerate(fk):
        fl = np.array([any(front[o] for o in keys[k] if o > fi) for k in ks])
        out.append(fl if fl.any() else None)
    return out


def _hull_data(solids: list[Solid]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lo = np.array([s.hull.min(axis=0) for s in solids])
    hi = np.array([s.hull.max(axis=0) for s in solids])
    return lo, hi, np.array([s.casts for s in solids])


def _coarse_points(F: np.ndarray, size: tuple[int, int], scale: int, step_mm: float) -> np.ndarray:
    """Board points (ch, cw, 3) float32 of a coarse grid over a textured face's (sw, sh) shading grid
    (each shading texel is ``scale`` texture texels; texel (s, t) is at ``F @ (s, t, 1)``), placed so
    that ``cv2.resize`` to (sw, sh) puts each value where it was computed."""
    sw, sh = size
    mm = scale * float(np.sqrt(abs(np.linalg.det(F[:2, :2]))))
    k = max(1.0, step_mm / mm)
    cw, ch = max(2, int(np.ceil(sw / k)) + 1), max(2, int(np.ceil(sh / k)) + 1)
    xs = ((np.arange(cw) + 0.5) * sw / cw - 0.5) * scale
    ys = ((np.arange(ch) + 0.5) * sh / ch - 0.5) * scale
    return np.stack([F[r, 0] * xs[None, :] + F[r, 1] * ys[:, None] + F[r, 2] for r in range(3)],
                    axis=-1).astype(np.float32)


def plane_light(
    light: Lighting, F: np.ndarray, size: tuple[int, int], scale: int, cam_pos: np.ndarray,
    material: Material, normal: np.ndarray, glow: float = 0.0, step_mm: float = 2.0, coarse: bool = False,
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The smooth light fields over a plane textured face's (sw, sh) shading grid: the key light's
    share (falloff, angle, occluder), its specular reflection and the glossy sheen of the
    surroundings (None when matte). Computed on a grid of about ``step_mm`` and resized (unless
    ``coarse``: then as computed, for ``cv2.resize`` to (sw, sh))."""
    P = _coarse_points(F, size, scale, step_mm)
    n = np.asarray(normal, np.float32)
    D = light.direct(P, n).astype(np.float32)
    S = E = None
    if material.glossy:
        V = cam_pos.astype(np.float32) - P
        V /= np.linalg.norm(V, axis=-1, keepdims=True)
        S = light.specular(P, n, V, material.alpha, material.f0).astype(np.float32)
        E = light.sheen(np.broadcast_to(n, P.shape), V, material.f0, glow, material.alpha).astype(np.float32)
        smudge = material.smudge_at(P[..., :2])
        S *= smudge
        E *= smudge
    sw, sh = size
    if coarse:
        return D, S, E

    def up_(a: np.ndarray | None) -> np.ndarray | None:
        return None if a is None else cv2.resize(a, (sw, sh), interpolation=cv2.INTER_LINEAR)

    return up_(D), up_(S), up_(E)


def receiver_shading(
    face: Face,
    owner: int,
    solids: list[Solid],
    light: Lighting,
    bounds: tuple[np.ndarray, np.ndarray, np.ndarray],
    tiles: list[tuple[Solid, int]],
    cam_pos: np.ndarray,
    material: Material = MATTE,
    scale: int = 2,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Light over a horizontal receiver's texture grid, computed at 1/``scale`` of its resolution:
    (factor, specular) at full texture size; the texture shows ``tex * factor + specular``. The
    factor is (h, w) grey, or (h, w, 3) under mixed light; specular is (h, w) or None (matte)."""
    th, tw = face.tex.shape[:2]
    z0 = float(face.verts[0, 2])
    F = face.tex_frame  # board xy = F[:2,:2] @ (s, t) + F[:2, 2]
    inv = np.linalg.inv(F[:2, :2])
    sw, sh = max(2, tw // scale), max(2, th // scale)
    lo, hi, casts = bounds
    xy = face.verts[:, :2]
    rlo, rhi = xy.min(axis=0), xy.max(axis=0)
    reach = (hi[:, 2] - z0) * _max_shift(light, face.verts, float(hi[:, 2].max(initial=z0))) + 1
    cand = np.nonzero(
        casts
        & (hi[:, 2] > z0 + 0.05)
        & np.all(lo[:, :2] - reach[:, None] <= rhi, axis=1)
        & np.all(hi[:, :2] + reach[:, None] >= rlo, axis=1)
    )[0]
    shadow = np.zeros((sh, sw), np.float32)
    cont = np.zeros((sh, sw), np.float32)
    rads = []
    hard_px = 0.0
    for i in cand:
        if i == owner:
            continue
        p = solids[i].hull
        feet = _feet(solids[i], z0)
        for foot in feet:  # it stands on this receiver: a contact shadow around its foot
            fs = (foot - F[:2, 2]) @ inv.T / scale
            cv2.fillConvexPoly(cont, cv2.convexHull(np.round(fs * 16).astype(np.int32)), 1.0, cv2.LINE_AA, 4)
        if feet:
            rads.append(_contact_radius(p, np.vstack(feet)))
        for part in solids[i].shadow_parts:
            if part[:, 2].max() <= z0 + 0.05:
                continue
            pz = np.maximum(part[:, 2], z0)
            q = light.project(np.column_stack([part[:, :2], pz]), z0)
            st = (q - F[:2, 2]) @ inv.T / scale
            hull = cv2.convexHull(np.round(st * 16).astype(np.int32))
            cv2.fillConvexPoly(shadow, hull, 1.0, cv2.LINE_AA, 4)
        hard_px = max(hard_px, float(np.median(np.maximum(p[:, 2], z0) - z0)))
    mm_per_px = scale * float(np.sqrt(abs(np.linalg.det(F[:2, :2]))))
    if cand.size:
        pen = max(0.5, np.tan(np.radians(light.softness_deg)) * max(hard_px, 8.0) / mm_per_px)
        shadow = _blur(shadow, pen / 2.0)
    ao = np.zeros((sh, sw), np.float32)
    gap_mean = []
    for s, i in tiles:
        if i == owner:
            continue
        bot = float(s.hull[:, 2].min())
        gap = bot - z0
        if 0.1 < gap < 60:
            st = (s.hull[:, :2] - F[:2, 2]) @ inv.T / scale
            hull = cv2.convexHull(np.round(st * 16).astype(np.int32))
            cv2.fillConvexPoly(ao, hull, float(np.exp(-gap / 45.0)), cv2.LINE_AA, 4)
            gap_mean.append(gap)
    if gap_mean:
        ao = _blur(ao, max(1.0, 0.35 * np.mean(gap_mean) / mm_per_px))
    normal = face.normal
    if solids[owner].is_tile:  # tiles never lie quite flat: each one's coat leans its own way
        normal = material.tilted(normal, solids[owner].hull.mean(axis=0))
    D, S, E = plane_light(light, F, (sw, sh), scale, cam_pos, material, normal)
    lit = (1 - np.clip(shadow, 0, 1)) * (1 - 0.6 * ao)
    amb = np.float32(light.ambient / light.norm) * (1 - 0.75 * ao)
    dirf = D * lit
    if rads:
        keep = 1 - CONTACT * _blur_exact(cont, float(np.median(rads)) / mm_per_px)
        amb *= keep
        dirf *= keep
    else:
        keep = None
    if light.mixed:
        fac = amb[..., None] * light.tint + dirf[..., None]
    else:
        fac = amb + dirf
    spec = None
    if S is not None:
        spec = S * lit + E * (1 - 0.75 * ao)
        if keep is not None:
            spec *= keep
        spec = cv2.resize(spec, (tw, th), interpolation=cv2.INTER_LINEAR)
    return cv2.resize(fac.astype(np.float32), (tw, th), interpolation=cv2.INTER_LINEAR), spec


def _max_shift(light: Lighting, verts: np.ndarray, top: float) -> float:
    """An upper bound on how far (mm per mm of height) a shadow is cast sideways onto the receiver
    with corners ``verts`` by anything up to the height ``top``."""
    if light.position is None:
        L = light.direction
        return float(np.abs(L[:2] / L[2]).max())
    pos = light.position
    far = float(np.max(np.linalg.norm(verts[:, :2] - pos[:2], axis=1)))
    return far / max(float(pos[2]) - top, 1.0)


def _footprint(p: np.ndarray, z0: float) -> np.ndarray | None:
    """The xy outline (convex hull) where a solid with hull ``p`` rests on the plane ``z = z0``,
    or None when it does not touch it."""
    bot = float(p[:, 2].min())
    if abs(bot - z0) > 0.3:
        return None
    q = p[p[:, 2] < bot + 0.6, :2]
    return q if len(q) >= 2 else None


def _feet(solid: Solid, z0: float) -> list[np.ndarray]:
    """Where the convex parts of a solid rest on the plane ``z = z0`` (an arch stands on its ends)."""
    if _footprint(solid.hull, z0) is None:
        return []
    return [f for f in (_footprint(part, z0) for part in solid.shadow_parts) if f is not None]


def _contact_radius(p: np.ndarray, foot: np.ndarray) -> float:
    """Blur radius (mm) of the contact shadow around a piece's footprint: grows with its size."""
    ext = foot.max(axis=0) - foot.min(axis=0)
    h = float(p[:, 2].max() - p[:, 2].min())
    return float(np.clip(0.3 * min(h, max(float(ext.max()), 1.0)), 1.2, 5.0))


CONTACT = 0.6  #: darkening of a receiver right at a resting piece's outline (blurred step: half this)


def shade_plane_in_screen(
    frame: Frame, face: Face, solids: list[Solid], light: Lighting, max_texels: float = 2e6
) -> None:
    """Shade a horizontal receiver already drawn into ``frame.img`` (the table): cast shadows and
    contact shadows are computed per casting solid on its own isotropic grid in the plane, at about
    the image's pixel density there, blurred by the penumbra in millimetres, warped to the screen
    (bilinear, so no texel blocks whatever the receiver's texture grid) and multiplied in."""
    cam = frame.cam
    z0 = float(face.verts[0, 2])
    # board xy on the plane -> screen (homogeneous)
    Hb = cam.homography(z0)
    if light.direction[2] <= 1e-3:
        return
    amb = light.ambient / light.norm
    rlo, rhi = face.verts[:, :2].min(axis=0), face.verts[:, :2].max(axis=0)
    tan_soft = float(np.tan(np.radians(light.softness_deg)))
    feet = [(_feet(s, z0), s) for s in solids]
    covers = [
        (i, cv2.convexHull(f.astype(np.float32)))
        for i, s in enumerate(solids)
        if (f := _footprint(s.hull, z0)) is not None and len(f) >= 3
    ]
    h, w = cam.height, cam.width
    parts = []  # (screen box, darkening there)

    for (foot_parts, s), fi in zip(feet, range(len(solids)), strict=True):
        foot = np.vstack(foot_parts) if foot_parts else None
        p = s.hull
        top = float(p[:, 2].max())
        if top <= z0 + 0.05:
            continue
        pz = np.maximum(p[:, 2], z0)
        hulls = []  # the shadow of each convex part (an arch lets the light through under it)
        for part in s.shadow_parts:
            if part[:, 2].max() > z0 + 0.05:
                q = light.project(np.column_stack([part[:, :2], np.maximum(part[:, 2], z0)]), z0)
                hulls.append(cv2.convexHull(q.astype(np.float32))[:, 0, :].astype(float))
        hq = np.vstack(hulls)
        hgt = float(np.median(pz - z0))
        pen = tan_soft * max(hgt, 1.0)  # penumbra width, mm
        rad = _contact_radius(p, foot) if foot is not None else 0.0
        margin = max(1.5 * pen, 2.5 * rad) + 1.0
        pts = hq if foot is None else np.vstack([hq, foot])
        lo = np.maximum(pts.min(axis=0) - margin, rlo)
        hi = np.minimum(pts.max(axis=0) + margin, rhi)
        if np.any(hi <= lo):
            continue
        # a shadow that falls entirely on the plane under another resting solid (the board) is unseen
        corners = [(lo[0], lo[1]), (hi[0], lo[1]), (hi[0], hi[1]), (lo[0], hi[1])]
        if any(
            j != fi and all(cv2.pointPolygonTest(c, (float(x), float(y)), False) > 0 for x, y in corners)
            for j, c in covers
        ):
            continue
        # pixel density over the box: the largest px/mm at its corners
        cs = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
        sc = _to_screen(Hb, cs)
        if sc is None:
            continue
        ppm = _px_per_mm(Hb, cs)
        ext = hi - lo
        rho = float(min(max(ppm, 0.25), np.sqrt(max_texels / max(ext[0] * ext[1], 1e-6))))
        # a soft shadow needs no finer grid than its penumbra and contact shadow (bilinear warp after)
        rho = min(rho, max(1.0, 5.0 / max(pen, 1e-3), 2.0 / max(rad, 1e-3) if foot_parts else 0.0))
        gw, gh = int(np.ceil(ext[0] * rho)) + 1, int(np.ceil(ext[1] * rho)) + 1
        G = np.array([[1 / rho, 0, lo[0]], [0, 1 / rho, lo[1]], [0, 0, 1.0]])
        X0, Y0 = np.floor(sc.min(axis=0)).astype(int) - 1
        X1, Y1 = np.ceil(sc.max(axis=0)).astype(int) + 2
        X0, Y0, X1, Y1 = max(X0, 0), max(Y0, 0), min(X1, w), min(Y1, h)
        if X1 <= X0 or Y1 <= Y0:
            continue
        M = np.array([[1, 0, -X0], [0, 1, -Y0], [0, 0, 1.0]]) @ Hb @ G
        grid = np.zeros((gh, gw), np.float32)
        for hp in hulls:
            st = (hp - lo) * rho
            cv2.fillConvexPoly(grid, np.round(st * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
        grid = _blur_exact(grid, pen * rho / 2.0)
        # the share a full shadow removes there (lamp falloff, the photographer's shadow), per channel
        mid = np.array([[*(hq.mean(axis=0)), z0]])
        d = float(light.direct(mid, np.array([0.0, 0.0, 1.0]))[0])
        k = d / (amb * light.tint + d + 1e-9)
        k_lum = d / (amb + d + 1e-9)
        keep = 1.0 - np.float32(k_lum) * grid  # what the cast shadow leaves
        if foot is not None:
            grid = np.zeros((gh, gw), np.float32)
            for fp in foot_parts:
                fh = cv2.convexHull(((fp - lo) * rho * 16).astype(np.float32)).astype(np.int32)
                cv2.fillConvexPoly(grid, fh, 1.0, cv2.LINE_AA, 4)
            grid = _blur_exact(grid, rad * rho)
            keep *= 1.0 - np.float32(CONTACT) * grid
        loss = cv2.warpPerspective(1.0 - keep, M, (X1 - X0, Y1 - Y0), flags=cv2.INTER_LINEAR)
        parts.append(((X0, Y0, X1, Y1), (loss, k / max(k_lum, 1e-6))))
    # one accumulator (the darkest loss wins: a union of shadows), applied tile by tile where some
    # shadow fell; under mixed light a shadow keeps the fill's colour: each channel loses its share
    if not parts:
        return
    acc = np.zeros((h, w), np.float32)
    tile = SHADOW_TILE
    touched = np.zeros((-(-h // tile), -(-w // tile)), bool)
    for (a0, b0, a1, b1), (loss, _) in parts:
        sub = acc[b0:b1, a0:a1]
        np.maximum(sub, loss, out=sub)
        touched[b0 // tile : -(-b1 // tile), a0 // tile : -(-a1 // tile)] = True
    r = np.mean([r for _, (_, r) in parts], axis=0) if light.mixed else np.ones(3)
    for ty, tx in zip(*np.nonzero(touched), strict=True):
        win = (slice(ty * tile, (ty + 1) * tile), slice(tx * tile, (tx + 1) * tile))
        k = acc[win]
        if not k.any():
            continue
        keep = cv2.cvtColor(k, cv2.COLOR_GRAY2RGB)
        if light.mixed:
            keep = cv2.multiply(keep, (float(r[0]), float(r[1]), float(r[2]), 0.0))
        cv2.subtract((1.0, 1.0, 1.0, 0.0), keep, dst=keep)
        np.maximum(keep, 0.0, out=keep)
        region = frame.img[win]
        cv2.multiply(region, keep, dst=region)


SHADOW_TILE = 256  #: the table's shadows are multiplied in, tile by tile, where they fell


def _to_screen(Hb: np.ndarray, xy: np.ndarray) -> np.ndarray | None:
    """Plane xy -> pixel coordinates, or None when a point lies behind the camera."""
    ph = np.column_stack([xy, np.ones(len(xy))]) @ Hb.T
    if np.any(ph[:, 2] <= 1e-6):
        return None
    return ph[:, :2] / ph[:, 2:3]


def _px_per_mm(Hb: np.ndarray, xy: np.ndarray) -> float:
    """The largest image pixels per plane millimetre at the points ``xy``."""
    a = _to_screen(Hb, xy)
    bx = _to_screen(Hb, xy + (1.0, 0.0))
    by = _to_screen(Hb, xy + (0.0, 1.0))
    if a is None or bx is None or by is None:
        return 1.0
    return float(max(np.linalg.norm(bx - a, axis=1).max(), np.linalg.norm(by - a, axis=1).max()))


def _blur_exact(img: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur of ``sigma`` texels (none below a third of a texel)."""
    if sigma < 0.33:
        return img
    return cv2.GaussianBlur(img, (0, 0), sigma) if sigma < 6 else _blur(img, sigma)


def _blur(img: np.ndarray, sigma: float) -> np.ndarray:
    """A Gaussian-like blur whose cost does not grow with sigma (stack blur)."""
    k = 2 * int(round(sigma * 1.2)) + 1
    return cv2.stackBlur(img, (k, k)) if k > 1 else img


def _material(solid: Solid, face: Face, mats: dict[str, Material]) -> Material:
    """How a face reflects: its own material, water, or its solid's (inferred when unnamed: tiles and
    non-casting slabs have matte cardboard edges, other casting solids are plastic); textured faces
    are the laminated print."""
    if face.material is not None:
        return face.material
    if face.gloss > 0:
        return mats["water"]
    if face.tex is not None:
        return mats["coat"]
    if solid.material:
        return mats[solid.material]
    return mats["matte"] if (solid.is_tile or not solid.casts) else mats["plastic"]


def lit_plane_texture(face: Face, light: Lighting, cam_pos: np.ndarray, material: Material,
                      glow: float = 0.0) -> np.ndarray:
    """A horizontal face's texture under the key light's falloff, the photographer's shadow, mixed
    light and its gloss (not its cast shadows: see :func:`shade_plane_in_screen`); the texture itself
    when none of those applies (a lit upward face shows its albedo)."""
    if light.position is None and light.occluder is None and not light.mixed and not material.glossy:
        return face.tex
    th, tw = face.tex.shape[:2]
    D, S, E = plane_light(light, face.tex_frame, (tw, th), 1, cam_pos, material, face.normal, glow,
                          step_mm=4.0, coarse=True)
    amb = np.float32(light.ambient / light.norm) * light.tint.astype(np.float32)
    if light.position is None and light.occluder is None:  # the same light everywhere: one gain
        gain = float(D.flat[0]) + amb
        tex = cv2.multiply(face.tex, (float(gain[0]), float(gain[1]), float(gain[2]), 0.0))
    else:  # the light's fields, coarse, resized once with their three channels
        tex = cv2.multiply(face.tex, cv2.resize(D[..., None] + amb, (tw, th), interpolation=cv2.INTER_LINEAR))
    if S is not None:
        tex += cv2.resize(S + E, (tw, th), interpolation=cv2.INTER_LINEAR)[..., None]
    return tex


def render(
    solids: list[Solid], cam: Camera, light: Lighting, background: Solid | None = None,
    gloss: Gloss | None = None,
) -> Frame:
    """Rasterize all solids over ``background`` (the table: one textured horizontal receiver face);
    ``gloss``: the photo's glossiness of print and plastic (None: all matte)."""
    frame = Frame(cam)
    mats = materials(gloss)
    if background is not None:
        f = background.faces[0]
        frame.draw_background(f, lit_plane_texture(f, light, frame.pos, f.material or MATTE, glow=2.0))
        shade_plane_in_screen(frame, f, solids, light)
    bounds = _hull_data(solids)
    tiles = [(s, i) for i, s in enumerate(solids) if s.is_tile]
    shadows = TileShadows(light, tiles)
    # far to near (the board first), so that anti-aliased rims blend over what lies behind them
    dist = [float(np.linalg.norm(s.hull.mean(axis=0) - frame.pos)) for s in solids]
    order = sorted(range(len(solids)), key=lambda i: (solids[i].casts, -dist[i]))
    # flat faces and the non-receiving textured ones: the light at each face's centre; flat faces are
    # then lit again per pixel (shade_pixels)
    front = [(i, f) for i in order for f in solids[i].faces if f.tex is None or not f.receiver]
    front = [(i, f) for i, f in front if f.normal @ (frame.pos - f.verts[0]) > 1e-9]
    table = FaceTable.build(light, [f for _, f in front], [_material(solids[i], f, mats) for i, f in front],
                            frame.pos, shadows)
    row = {id(f): k for k, (_, f) in enumerate(front)}
    per_pixel = len(front) < np.iinfo(np.int16).max
    for i in order:
        s = solids[i]
        inner = inner_edges(s, frame.pos)
        for f, fl in zip(s.faces, inner, strict=True):
            k = row.get(id(f), -1)
            if f.tex is not None:
                if f.receiver:
                    fac, spec = receiver_shading(f, i, solids, light, bounds, tiles, frame.pos,
                                                 _material(s, f, mats))
                    tex = f.tex * (fac[..., None] if fac.ndim == 2 else fac)
                    if spec is not None:
                        tex += spec[..., None]
                elif k >= 0:
                    tex = f.tex * table.fac[k] + table.spec[k]
                else:
                    continue  # a back face
                frame.draw(f, None, tex, fl, i)
            elif k >= 0:
                frame.draw(f, f.colour * table.fac[k] + table.spec[k], None, fl, i,
                           k if per_pixel and table.per_pixel[k] else -1)
    x0, y0, x1, y1 = frame.fid_box
    if per_pixel and x1 > x0 and y1 > y0:
        x0, y0 = x0 - x0 % 2, y0 - y0 % 2  # keep the 2 x 2 blocks on even pixels
        sub = Camera(x1 - x0, y1 - y0, cam.fx, cam.fy, cam.cx - x0, cam.cy - y0, cam.R, cam.t)
        win = (slice(y0, y1), slice(x0, x1))
        shade_pixels(frame.img[win], frame.izbuf[win], frame.fid[win], frame.sid[win], sub, light, table,
                     shadows)
    return frame
