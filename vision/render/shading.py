"""Light on the faces that carry no baked-in shading (the sides of tiles and the board, pillars,
decorations, loose pieces): once per face at its centre, then again per pixel where the face owns
the pixel, with the normal interpolated across curved surfaces, the key light's direction, falloff
and the photographer's shadow at that very point, and the terrace tiles' shadows and occlusion
looked up in two maps of the board plane (so a shadow line crosses a pillar where it really does).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.camera import Camera
from vision.render.lighting import Lighting, Material
from vision.render.mesh import Face, Solid

TEXEL_MM = 0.5  #: resolution of the tile shadow and occlusion maps


class TileShadows:
    """Where the terrace tiles shade points beneath them. A tile is a slab: a point below its
    underside is in its shadow when the ray towards the key light, carried on down to the board
    plane, lands in the slab's projection there (exact for parallel and for lamp light); it is
    occluded (ambient) when it lies under the tile's footprint. Two maps of the board plane hold,
    per texel, the highest underside that shades / covers it."""

    def __init__(self, light: Lighting, tiles: list[tuple[Solid, int]]) -> None:
        self.light = light
        self.empty = not tiles
        if self.empty:
            return
        slabs = sorted(((float(s.hull[:, 2].min()), s.hull) for s, _ in tiles), key=lambda t: t[0])
        shadows = [light.project(h, 0.0) for _, h in slabs]
        pts = np.vstack(shadows + [h[:, :2] for _, h in slabs])
        pen = float(np.tan(np.radians(light.softness_deg))) * 12.0  # penumbra at a typical gap, mm
        margin = 4.0 + 2 * pen
        self.lo = pts.min(axis=0) - margin
        size = np.ceil((pts.max(axis=0) + margin - self.lo) / TEXEL_MM).astype(int) + 1
        w, h = int(size[0]), int(size[1])
        under_shadow = np.zeros((h, w), np.float32)
        cover = np.zeros((h, w), np.float32)
        under_foot = np.zeros((h, w), np.float32)
        for (bottom, hull), sh in zip(slabs, shadows, strict=True):
            for grid, xy, val in ((under_shadow, sh, bottom), (cover, sh, 1.0),
                                  (under_foot, hull[:, :2], bottom)):
                poly = cv2.convexHull(np.round((xy - self.lo) / TEXEL_MM * 16).astype(np.int32))
                cv2.fillConvexPoly(grid, poly, float(val), cv2.LINE_8, 4)  # ascending: the highest wins
        k = 2 * int(np.ceil(pen / TEXEL_MM)) + 1
        self.shadow_bottom = cv2.dilate(under_shadow, np.ones((k, k), np.uint8))
        self.cover = cv2.GaussianBlur(cover, (0, 0), max(0.5, pen / 2 / TEXEL_MM))
        k2 = 2 * int(np.ceil(2.0 / TEXEL_MM)) + 1  # within 2 mm of a footprint counts as under it
        self.foot_bottom = cv2.dilate(under_foot, np.ones((k2, k2), np.uint8))

    def _at(self, grid: np.ndarray, xy: np.ndarray, nearest: bool) -> np.ndarray:
        n = len(xy)
        rows = -(-n // 4096)  # cv2.remap takes maps under 32767 wide
        m = np.zeros((rows * 4096, 2), np.float32)
        m[:n] = (xy - self.lo) / TEXEL_MM
        m = m.reshape(rows, 4096, 2)
        flags = cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR
        out = cv2.remap(grid, m, None, flags, borderMode=cv2.BORDER_CONSTANT, borderValue=0.0)
        return out.ravel()[:n]

    def lit_ao(self, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lit 0..1, ambient occlusion 0..1) at points (n, 3)."""
        n = len(P)
        if self.empty or n == 0:
            return np.ones(n, np.float32), np.ones(n, np.float32)
        g = self.light.project(P, 0.0)
        below = self._at(self.shadow_bottom, g, True) > P[:, 2] + 0.05
        lit = 1.0 - np.where(below, np.clip(self._at(self.cover, g, False), 0.0, 1.0), 0.0)
        top = self._at(self.foot_bottom, P[:, :2], True)
        gap = top - P[:, 2]
        ao = np.where(gap > 0.05, 1.0 - 0.55 * np.exp(-np.maximum(gap, 0.0) / 60.0), 1.0)
        return lit.astype(np.float32), ao.astype(np.float32)


def light_at(
    light: Lighting, P: np.ndarray, N: np.ndarray, cam_pos: np.ndarray, mat_ids: np.ndarray,
    palette: list[Material], shadows: TileShadows,
) -> tuple[np.ndarray, np.ndarray]:
    """Light at points (n, 3) with unit normals ``N`` on faces made of ``palette[mat_ids]``:
    (factor (n, 3) on the albedo, specular (n,) added)."""
    lit, ao = shadows.lit_ao(P)
    fac = (light.bounce(N) * ao)[:, None] * light.tint[None, :] + (light.direct(P, N) * lit)[:, None]
    spec = np.zeros(len(P))
    glossy = [j for j, m in enumerate(palette) if m.glossy]
    if glossy:
        V = cam_pos - P
        V /= np.linalg.norm(V, axis=1, keepdims=True)
        for j in glossy:
            m = palette[j]
            k = np.nonzero(mat_ids == j)[0]
            if k.size:
                spec[k] = (light.specular(P[k], N[k], V[k], m.alpha, m.f0) * lit[k]
                           + light.sheen(N[k], V[k], m.f0, alpha=m.alpha) * ao[k])
    return fac.astype(np.float32), spec.astype(np.float32)


@dataclass
class FaceTable:
    """The faces drawn with the light at their centre, by the index written into :attr:`Frame.fid`;
    those whose light varies across them (curved, or partly shadowed, under a lamp, glossy) are lit
    again per pixel."""

    faces: list[Face]
    mat_ids: np.ndarray  #: (F,) index into ``palette``
    palette: list[Material]
    fac: np.ndarray  #: (F, 3) the light each face was drawn with
    spec: np.ndarray  #: (F,)
    per_pixel: np.ndarray  #: (F,) bool

    @staticmethod
    def build(light: Lighting, faces: list[Face], mats: list[Material], cam_pos: np.ndarray,
              shadows: TileShadows) -> FaceTable:
        palette = list(dict.fromkeys(mats))
        ids = np.array([palette.index(m) for m in mats], np.int64)
        P = np.array([f.verts.mean(axis=0) for f in faces]).reshape(-1, 3)
        N = np.array([_centre_normal(f) for f in faces]).reshape(-1, 3)
        fac, spec = light_at(light, P, N, cam_pos, ids, palette, shadows)
        per_pixel = np.zeros(len(faces), bool)
        if faces:  # the light at every face's corners: where it differs from the centre's, per pixel
            counts = np.array([len(f.verts) for f in faces])
            VP = np.vstack([f.verts for f in faces])
            VN = np.vstack([f.vnormals if f.vnormals is not None
                            else np.repeat(f.normal[None], len(f.verts), 0) for f in faces])
            owner = np.repeat(np.arange(len(faces)), counts)
            fv, sv = light_at(light, VP, VN, cam_pos, ids[owner], palette, shadows)
            dev = np.abs(fv - fac[owner]).max(axis=1) / np.maximum(fac[owner].max(axis=1), 0.05)
            dev = np.maximum(dev, np.abs(sv - spec[owner]) * 3.0)
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
            per_pixel = np.maximum.reduceat(dev, starts) > 0.03
        return FaceTable(faces, ids, palette, fac, spec, per_pixel)


def _centre_normal(f: Face) -> np.ndarray:
    if f.vnormals is None:
        return f.normal
    n = f.vnormals.mean(axis=0)
    return n / max(float(np.linalg.norm(n)), 1e-12)


class _Smooth:
    """Per face of a table, the affine functions of a point on the face's plane that give its
    barycentric weights in the triangles (v0, v1, v2) and (v0, v2, v3), and which triangle holds
    it: the vertex normals of curved faces interpolated at any point for a few multiply-adds."""

    def __init__(self, faces: list[Face], use: np.ndarray) -> None:
        F = len(faces)
        self.smooth = np.array([f.vnormals is not None for f in faces]) & use
        self.G = np.zeros((F, 5, 3))  # side test, then (wa, wb) of triangle 1, (wa, wb) of triangle 2
        self.H = np.zeros((F, 5))
        self.N = np.zeros((F, 4, 3))
        idx = np.nonzero(self.smooth)[0]
        if idx.size == 0:
            return
        pick = [(0, 1, 2, 3) if len(faces[i].verts) >= 4 else (0, 1, 2, 2) for i in idx]
        V = np.array([faces[i].verts[list(k)] for i, k in zip(idx, pick, strict=True)])
        VN = np.array([faces[i].vnormals[list(k)] for i, k in zip(idx, pick, strict=True)])
        n = np.array([faces[i].normal for i in idx])
        self.N[idx] = VN

        def affine(x: np.ndarray, base: np.ndarray, area: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            # ((x cross (p - base)) . n) / area = g . p + h
            area = np.where(np.abs(area) > 1e-12, area, 1e12)
            g = np.cross(n, x) / area[:, None]
            return g, -np.einsum("ij,ij->i", np.cross(x, base), n) / area

        def dot_n(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            return np.einsum("ij,ij->i", np.cross(a, b), n)

        v0, v1, v2, v3 = V[:, 0], V[:, 1], V[:, 2], V[:, 3]
        d = v2 - v0
        self.G[idx, 0], self.H[idx, 0] = affine(d, v0, dot_n(d, v1 - v0))
        for t, (a, b, c) in enumerate(((v0, v1, v2), (v0, v2, v3))):
            area = dot_n(b - a, c - a)
            self.G[idx, 1 + 2 * t], self.H[idx, 1 + 2 * t] = affine(c - b, b, area)
            self.G[idx, 2 + 2 * t], self.H[idx, 2 + 2 * t] = affine(a - c, c, area)
        self.G, self.H = self.G.astype(np.float32), self.H.astype(np.float32)
        self.N = self.N.astype(np.float32)

    def normals(self, P: np.ndarray, fid: np.ndarray, normals: np.ndarray) -> None:
        """Interpolated normals at points ``P`` of faces ``fid``, into ``normals`` in place."""
        sel = np.nonzero(self.smooth[fid])[0]
        if sel.size == 0:
            return
        ids, p = fid[sel], P[sel].astype(np.float32)
        w = np.einsum("nkj,nj->nk", self.G[ids], p) + self.H[ids]  # (n, 5)
        second = w[:, 0] < 0  # across the diagonal from v1
        wa = np.where(second, w[:, 3], w[:, 1])
        wb = np.where(second, w[:, 4], w[:, 2])
        wa, wb = np.clip(wa, -0.5, 1.5), np.clip(wb, -0.5, 1.5)
        wc = 1.0 - wa - wb
        Nf = self.N[ids]
        nb = np.where(second[:, None], Nf[:, 2], Nf[:, 1])
        nc = np.where(second[:, None], Nf[:, 3], Nf[:, 2])
        n = wa[:, None] * Nf[:, 0] + wb[:, None] * nb + wc[:, None] * nc
        n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-12)
        normals[sel] = n


def _points(cam: Camera, u: np.ndarray, v: np.ndarray, iz: np.ndarray) -> np.ndarray:
    """Board points (n, 3) seen at pixel positions (u, v) with inverse depths ``iz``."""
    z = 1.0 / iz.astype(np.float32)
    pc = np.empty((len(u), 3), np.float32)
    pc[:, 0] = (u.astype(np.float32) - np.float32(cam.cx)) * np.float32(1 / cam.fx) * z
    pc[:, 1] = (v.astype(np.float32) - np.float32(cam.cy)) * np.float32(1 / cam.fy) * z
    pc[:, 2] = z
    pc -= cam.t.astype(np.float32)
    return pc @ cam.R.astype(np.float32)  # R^T (pc - t)


def shade_pixels(img: np.ndarray, izbuf: np.ndarray, fidbuf: np.ndarray, sidbuf: np.ndarray, cam: Camera,
                 light: Lighting, table: FaceTable, shadows: TileShadows) -> None:
    """Relight, in place, the pixels whose centre a face of ``table`` lit per pixel owns: the light of
    the pixel's own point (and interpolated normal) replaces the light of the face's centre it was
    drawn with (multiplied by the ratio, the specular swapped), so anti-aliased rims follow too.
    Where a 2 x 2 block of pixels lies on one solid of one material, the light is computed once at
    the block's centre (the normals are continuous across a curved solid's facets) and each pixel
    takes its own face's ratio; elsewhere, per pixel. ``sidbuf``: the solid owning each pixel."""
    if not table.faces or not table.per_pixel.any():
        return
    h2, w2 = fidbuf.shape[0] // 2, fidbuf.shape[1] // 2
    f4 = fidbuf[: 2 * h2, : 2 * w2].reshape(h2, 2, w2, 2)
    s4 = sidbuf[: 2 * h2, : 2 * w2].reshape(h2, 2, w2, 2)
    tl, stl = f4[:, 0, :, 0], s4[:, 0, :, 0]
    lit = [f4[:, i, :, j] >= 0 for i in (0, 1) for j in (0, 1)]
    anyb = lit[0] | lit[1] | lit[2] | lit[3]
    uniform = lit[0] & lit[1] & lit[2] & lit[3]
    uniform &= (s4[:, 0, :, 1] == stl) & (s4[:, 1, :, 0] == stl) & (s4[:, 1, :, 1] == stl)
    by, bx = np.nonzero(uniform)
    # a block on two materials of one solid (a fountain's water and rim) is lit per pixel
    mats = table.mat_ids[f4[by, :, bx].astype(np.int64)]
    split = (mats != mats[:, :1, :1]).any(axis=(1, 2))
    if split.any():
        uniform[by[split], bx[split]] = False
        by, bx = by[~split], bx[~split]
    cy, cx = np.nonzero(anyb & ~uniform)  # the other blocks: per pixel, where a face to light owns it
    k, i, j = np.nonzero(f4[cy, :, cx] >= 0)
    py, px = 2 * cy[k] + i, 2 * cx[k] + j
    iz4 = izbuf[: 2 * h2, : 2 * w2].reshape(h2, 2, w2, 2)
    u = np.concatenate([2 * bx + 0.5, px.astype(np.float64)])
    v = np.concatenate([2 * by + 0.5, py.astype(np.float64)])
    iz = np.concatenate([iz4[by, :, bx, :].reshape(-1, 4).mean(axis=1), izbuf[py, px]])
    fid = np.concatenate([tl[by, bx], fidbuf[py, px]]).astype(np.int64)
    P = _points(cam, u, v, iz)
    normals = np.array([f.normal for f in table.faces])[fid]
    _Smooth(table.faces, table.per_pixel).normals(P, fid, normals)
    P, normals = P.astype(np.float32), normals.astype(np.float32)
    fac, spec = light_at(light, P, normals, cam.position, table.mat_ids[fid], table.palette, shadows)
    nb = len(by)
    own = f4[by, :, bx].astype(np.int64)  # (nb, 2, 2): each pixel's own face
    ratio4 = np.clip(fac[:nb, None, None, :] / np.maximum(table.fac[own], 1e-4), 0.0, 20.0)
    img4 = img[: 2 * h2, : 2 * w2].reshape(h2, 2, w2, 2, 3)
    blocks = img4[by, :, bx] * ratio4 + (spec[:nb, None, None] - table.spec[own])[..., None]
    img4[by, :, bx] = np.maximum(blocks, 0.0)
    ratio = np.clip(fac[nb:] / np.maximum(table.fac[fid[nb:]], 1e-4), 0.0, 20.0)
    img[py, px] = np.maximum(img[py, px] * ratio + (spec[nb:] - table.spec[fid[nb:]])[:, None], 0.0)
