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

from dataclasses import dataclass

import cv2
import numpy as np

from vision.camera import Camera
from vision.render.mesh import Face, Solid


@dataclass(frozen=True)
class Lighting:
    direction: np.ndarray  #: unit vector towards the light (board frame)
    ambient: float  #: 0..1 share of ambient light
    softness_deg: float  #: penumbra angle

    @property
    def norm(self) -> float:
        """Brightness of a lit, upward face: divide by it so such a face shows its albedo."""
        return self.ambient + (1 - self.ambient) * float(self.direction[2])

    def shade(self, n: np.ndarray, lit: float, ao: float = 1.0) -> float:
        return (
            self.ambient * ao + (1 - self.ambient) * max(0.0, float(n @ self.direction)) * lit
        ) / self.norm


class Frame:
    """Colour, inverse-depth and object-id buffers for one camera."""

    def __init__(self, cam: Camera, background: np.ndarray | None = None) -> None:
        self.cam = cam
        h, w = cam.height, cam.width
        self.img = background if background is not None else np.zeros((h, w, 3), np.float32)
        self.izbuf = np.zeros((h, w), np.float32)
        self.ids = np.zeros((h, w), np.int16)
        self.sid = np.full((h, w), -1, np.int32)  #: index of the solid that owns each pixel centre
        self.KR = cam.K @ cam.R
        self.Kt = cam.K @ cam.t
        self.pos = cam.position

    def draw_background(self, f: Face, tex: np.ndarray) -> None:
        """The table: the farthest surface everywhere, so no depth test and no depth written."""
        H = self.KR @ f.tex_frame
        H[:, 2] += self.Kt
        cv2.warpPerspective(
            tex,
            H,
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
    ) -> None:
        """Draw one planar face. Its edges are anti-aliased: each pixel's coverage comes from its
        signed distances to the face's edges, and the face is blended over what is already there by
        that coverage where it wins the depth test at the pixel centre. ``inner`` flags edges shared
        with a visible face of the same solid drawn later: the face reaches a little past them,
        hard, and the later face blends over it there whatever the depth (no seams, no jags).
        ``solid`` is the index of the face's solid."""
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
        if f.obj:
            np.copyto(self.ids[y0:y1, x0:x1], np.int16(f.obj), where=own)
        dst = self.img[y0:y1, x0:x1]
        full = m & (cov >= 1.0)
        part = np.nonzero(m & (cov < 1.0))
        if tex is not None:
            H = self.KR @ f.tex_frame
            H[:, 2] += self.Kt
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
            # a hard step at a quarter pixel outside the edge (scaled up: the clip makes it binary)
            off -= 0.25
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


def receiver_shading(
    face: Face, owner: int, solids: list[Solid], light: Lighting, bounds, tiles, scale: int = 2
) -> np.ndarray:
    """Shading factor (shadow + occlusion under tiles) over a horizontal receiver's texture grid, at
    1/``scale`` of its resolution; returns an (h, w) float32 map at full texture size."""
    th, tw = face.tex.shape[:2]
    z0 = float(face.verts[0, 2])
    F = face.tex_frame  # board xy = F[:2,:2] @ (s, t) + F[:2, 2]
    inv = np.linalg.inv(F[:2, :2])
    sw, sh = max(2, tw // scale), max(2, th // scale)
    L = light.direction
    shift = L[:2] / L[2]
    lo, hi, casts = bounds
    xy = face.verts[:, :2]
    rlo, rhi = xy.min(axis=0), xy.max(axis=0)
    reach = (hi[:, 2] - z0) * np.abs(shift).max() + 1
    cand = np.nonzero(
        casts
        & (hi[:, 2] > z0 + 0.05)
        & np.all(lo[:, :2] - reach[:, None] <= rhi, axis=1)
        & np.all(hi[:, :2] + reach[:, None] >= rlo, axis=1)
    )[0]
    shadow = np.zeros((sh, sw), np.float32)
    hard_px = 0.0
    for i in cand:
        if i == owner:
            continue
        p = solids[i].hull
        pz = np.maximum(p[:, 2], z0)
        q = p[:, :2] - (pz - z0)[:, None] * shift
        st = (q - F[:2, 2]) @ inv.T / scale
        hull = cv2.convexHull(np.round(st * 16).astype(np.int32))
        cv2.fillConvexPoly(shadow, hull, 1.0, cv2.LINE_AA, 4)
        hard_px = max(hard_px, float(np.median(pz - z0)))
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
    ndl = max(0.0, float(L[2]))
    fac = (
        light.ambient * (1 - 0.75 * ao)
        + (1 - light.ambient) * ndl * (1 - np.clip(shadow, 0, 1)) * (1 - 0.6 * ao)
    ) / light.norm
    return cv2.resize(fac.astype(np.float32), (tw, th), interpolation=cv2.INTER_LINEAR)


def _blur(img: np.ndarray, sigma: float) -> np.ndarray:
    """A Gaussian-like blur whose cost does not grow with sigma (stack blur)."""
    k = 2 * int(round(sigma * 1.2)) + 1
    return cv2.stackBlur(img, (k, k)) if k > 1 else img


def point_light_tests(
    points: np.ndarray, light: Lighting, tiles, owners: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(lit, ambient occlusion) for points (N, 3): lit = 0 when a terrace tile above blocks the key
    light; ao < 1 when a tile hangs over the point."""
    n = len(points)
    lit = np.ones(n)
    ao = np.ones(n)
    L = light.direction
    own = np.full(n, -1) if owners is None else owners
    for s, idx in tiles:
        top = s.hull[:, 2].max()
        c = s.hull[:, :2].mean(axis=0)
        e1 = s.hull[1, :2] - s.hull[0, :2]
        e1 /= np.linalg.norm(e1)
        e2 = np.array([-e1[1], e1[0]])
        half = np.abs((s.hull[:, :2] - c) @ e1).max()
        above = (top > points[:, 2] + 0.5) & (own != idx)
        t = (top - points[:, 2]) / L[2]
        q = points[:, :2] + t[:, None] * L[:2] - c
        inside = (np.abs(q @ e1) <= half) & (np.abs(q @ e2) <= half)
        lit[above & inside] = 0.0
        q2 = points[:, :2] - c
        under = above & (np.abs(q2 @ e1) <= half + 2) & (np.abs(q2 @ e2) <= half + 2)
        gap = top - points[:, 2]
        ao = np.where(under, np.minimum(ao, 1 - 0.55 * np.exp(-gap / 60.0)), ao)
    return lit, ao


def render(solids: list[Solid], cam: Camera, light: Lighting, background: Solid | None = None) -> Frame:
    """Rasterize all solids over ``background`` (the table: one textured horizontal receiver face)."""
    frame = Frame(cam)
    if background is not None:
        f = background.faces[0]
        fac = receiver_shading(f, -1, solids, light, _hull_data(solids), [], scale=2)
        frame.draw_background(f, f.tex * fac[..., None])
    bounds = _hull_data(solids)
    tiles = [(s, i) for i, s in enumerate(solids) if s.is_tile]
    # far to near (the board first), so that anti-aliased rims blend over what lies behind them
    dist = [float(np.linalg.norm(s.hull.mean(axis=0) - frame.pos)) for s in solids]
    order = sorted(range(len(solids)), key=lambda i: (solids[i].casts, -dist[i]))
    flat = [(i, f) for i in order for f in solids[i].faces if f.tex is None]
    flat_shade = {}
    if flat:
        cents = np.array([f.verts.mean(axis=0) for _, f in flat])
        lit, ao = point_light_tests(cents, light, tiles, np.array([i for i, _ in flat]))
        for (_, f), li, a in zip(flat, lit, ao, strict=True):
            c = f.colour * light.shade(f.normal, li, a)
            if f.gloss:
                c = c + f.gloss * 0.15 * max(0.0, float(f.normal @ light.direction)) ** 8
            flat_shade[id(f)] = c
    for i in order:
        s = solids[i]
        inner = inner_edges(s, frame.pos)
        for f, fl in zip(s.faces, inner, strict=True):
            if f.tex is not None:
                tex = f.tex
                if f.receiver:
                    fac = receiver_shading(f, i, solids, light, bounds, tiles)
                    tex = tex * fac[..., None]
                else:
                    lit, ao = point_light_tests(f.verts.mean(axis=0)[None], light, tiles, np.array([i]))
                    tex = tex * np.float32(light.shade(f.normal, lit[0], ao[0]))
                frame.draw(f, None, tex, fl, i)
            else:
                frame.draw(f, flat_shade[id(f)], None, fl, i)
    return frame
