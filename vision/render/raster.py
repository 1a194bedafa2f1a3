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
from vision.render.conditions import Light
from vision.render.mesh import Face, Solid


@dataclass(frozen=True)
class Lighting:
    direction: np.ndarray  #: unit vector towards the light (board frame)
    ambient: float  #: 0..1 share of ambient light
    softness_deg: float  #: penumbra angle

    @staticmethod
    def from_light(light: Light) -> Lighting:
        """The rasterizer's lighting for a photo's :class:`~vision.render.conditions.Light`."""
        return Lighting(np.asarray(light.direction, float), float(light.ambient), float(light.softness_deg))

    @property
    def norm(self) -> float:
        """Brightness of a lit, upward face: divide by it so such a face shows its albedo."""
        return self.ambient + (1 - self.ambient) * float(self.direction[2])

    def shade(self, n: np.ndarray, lit: float, ao: float = 1.0) -> float:
        """Ambient is a little directional (fill bounced from the lit side): faces turned towards
        the light get more of it than those turned away, so curved pieces keep their shape in the
        shade; an upward face gets exactly ``ambient``."""
        L = self.direction
        fill = 1.0 + 0.45 * (float(n @ L) - float(L[2]))
        return (
            self.ambient * ao * fill + (1 - self.ambient) * max(0.0, float(n @ L)) * lit
        ) / self.norm


class Frame:
    """Colour, inverse-depth and object-id buffers for one camera."""

    def __init__(self, cam: Camera) -> None:
        self.cam = cam
        h, w = cam.height, cam.width
        self.img = np.zeros((h, w, 3), np.float32)
        self.izbuf = np.zeros((h, w), np.float32)
        self.ids = np.zeros((h, w), np.int16)
        self.sid = np.full((h, w), -1, np.int32)  #: index of the solid that owns each pixel centre
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


def receiver_shading(
    face: Face,
    owner: int,
    solids: list[Solid],
    light: Lighting,
    bounds: tuple[np.ndarray, np.ndarray, np.ndarray],
    tiles: list[tuple[Solid, int]],
    scale: int = 2,
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
    cont = np.zeros((sh, sw), np.float32)
    rads = []
    hard_px = 0.0
    for i in cand:
        if i == owner:
            continue
        p = solids[i].hull
        foot = _footprint(p, z0)
        if foot is not None:  # it stands on this receiver: a contact shadow around its foot
            fs = (foot - F[:2, 2]) @ inv.T / scale
            cv2.fillConvexPoly(cont, cv2.convexHull(np.round(fs * 16).astype(np.int32)), 1.0, cv2.LINE_AA, 4)
            rads.append(_contact_radius(p, foot))
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
    if rads:
        fac *= 1 - CONTACT * _blur_exact(cont, float(np.median(rads)) / mm_per_px)
    return cv2.resize(fac.astype(np.float32), (tw, th), interpolation=cv2.INTER_LINEAR)


def _footprint(p: np.ndarray, z0: float) -> np.ndarray | None:
    """The xy outline (convex hull) where a solid with hull ``p`` rests on the plane ``z = z0``,
    or None when it does not touch it."""
    bot = float(p[:, 2].min())
    if abs(bot - z0) > 0.3:
        return None
    q = p[p[:, 2] < bot + 0.6, :2]
    return q if len(q) >= 2 else None


def _contact_radius(p: np.ndarray, foot: np.ndarray) -> float:
    """Blur radius (mm) of the contact shadow around a piece's footprint: grows with its size."""
    ext = foot.max(axis=0) - foot.min(axis=0)
    h = float(p[:, 2].max() - p[:, 2].min())
    return float(np.clip(0.3 * min(h, max(float(ext.max()), 1.0)), 1.2, 5.0))


CONTACT = 0.6  #: darkening of a receiver right at a resting piece's outline (blurred step: half this)


def shade_plane_in_screen(
    frame: Frame, face: Face, solids: list[Solid], light: Lighting, max_texels: float = 4e6
) -> None:
    """Shade a horizontal receiver already drawn into ``frame.img`` (the table): cast shadows and
    contact shadows are computed per casting solid on its own isotropic grid in the plane, at about
    the image's pixel density there, blurred by the penumbra in millimetres, warped to the screen
    (bilinear, so no texel blocks whatever the receiver's texture grid) and multiplied in."""
    cam = frame.cam
    z0 = float(face.verts[0, 2])
    # board xy on the plane -> screen (homogeneous)
    Hb = cam.homography(z0)
    L = light.direction
    if L[2] <= 1e-3:
        return
    shift = L[:2] / L[2]
    ndl = float(L[2])
    direct = (1 - light.ambient) * ndl / light.norm  # the share a full shadow removes
    rlo, rhi = face.verts[:, :2].min(axis=0), face.verts[:, :2].max(axis=0)
    tan_soft = float(np.tan(np.radians(light.softness_deg)))
    feet = [(_footprint(s.hull, z0), s) for s in solids]
    covers = [
        (i, cv2.convexHull(f.astype(np.float32)))
        for i, (f, _) in enumerate(feet)
        if f is not None and len(f) >= 3
    ]
    h, w = cam.height, cam.width
    parts = []  # (screen box, darkening there)

    for (foot, s), fi in zip(feet, range(len(solids)), strict=True):
        p = s.hull
        top = float(p[:, 2].max())
        if top <= z0 + 0.05:
            continue
        pz = np.maximum(p[:, 2], z0)
        q = p[:, :2] - (pz - z0)[:, None] * shift
        hq = cv2.convexHull(q.astype(np.float32))[:, 0, :].astype(float)
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
        gw, gh = int(np.ceil(ext[0] * rho)) + 1, int(np.ceil(ext[1] * rho)) + 1
        G = np.array([[1 / rho, 0, lo[0]], [0, 1 / rho, lo[1]], [0, 0, 1.0]])
        X0, Y0 = np.floor(sc.min(axis=0)).astype(int) - 1
        X1, Y1 = np.ceil(sc.max(axis=0)).astype(int) + 2
        X0, Y0, X1, Y1 = max(X0, 0), max(Y0, 0), min(X1, w), min(Y1, h)
        if X1 <= X0 or Y1 <= Y0:
            continue
        M = np.array([[1, 0, -X0], [0, 1, -Y0], [0, 0, 1.0]]) @ Hb @ G
        grid = np.zeros((gh, gw), np.float32)
        st = (hq - lo) * rho
        cv2.fillConvexPoly(grid, np.round(st * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
        grid = _blur_exact(grid, pen * rho / 2.0)
        keep = 1.0 - np.float32(direct) * grid  # what the cast shadow leaves
        if foot is not None:
            grid = np.zeros((gh, gw), np.float32)
            fh = cv2.convexHull(((foot - lo) * rho * 16).astype(np.float32)).astype(np.int32)
            cv2.fillConvexPoly(grid, fh, 1.0, cv2.LINE_AA, 4)
            grid = _blur_exact(grid, rad * rho)
            keep *= 1.0 - np.float32(CONTACT) * grid
        loss = cv2.warpPerspective(1.0 - keep, M, (X1 - X0, Y1 - Y0), flags=cv2.INTER_LINEAR)
        parts.append(((X0, Y0, X1, Y1), loss))
    # overlapping boxes share one accumulator (the darkest loss wins: a union of shadows)
    for (x0, y0, x1, y1), members in _clusters(parts):
        acc = np.zeros((y1 - y0, x1 - x0), np.float32)
        for (a0, b0, a1, b1), loss in members:
            sub = acc[b0 - y0 : b1 - y0, a0 - x0 : a1 - x0]
            np.maximum(sub, loss, out=sub)
        frame.img[y0:y1, x0:x1] *= (1.0 - acc)[..., None]


def _clusters(parts: list) -> list:
    """Group (box, value) parts whose boxes overlap, transitively: [(union box, parts)]."""
    groups = [(list(box), [(box, val)]) for box, val in parts]
    changed = True
    while changed:
        changed = False
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                a, b = groups[i][0], groups[j][0]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    box = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]
                    groups[i] = (box, groups[i][1] + groups[j][1])
                    del groups[j]
                    changed = True
                    break
            if changed:
                break
    return [(tuple(g[0]), g[1]) for g in groups]


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


def point_light_tests(
    points: np.ndarray, light: Lighting, tiles: list[tuple[Solid, int]], owners: np.ndarray | None = None
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
        frame.draw_background(f, f.tex)
        shade_plane_in_screen(frame, f, solids, light)
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
