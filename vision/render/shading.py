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
                           + light.sheen(N[k], V[k], m.f0) * ao[k])
    return fac.astype(np.float32), spec.astype(np.float32)


@dataclass
class FaceTable:
    """The faces shaded per pixel, by the index written into :attr:`Frame.fid`, and the light each
    was drawn with (at its centre)."""

    faces: list[Face]
    mat_ids: np.ndarray  #: (F,) index into ``palette``
    palette: list[Material]
    fac: np.ndarray  #: (F, 3)
    spec: np.ndarray  #: (F,)

    @staticmethod
    def build(light: Lighting, faces: list[Face], mats: list[Material], cam_pos: np.ndarray,
              shadows: TileShadows) -> FaceTable:
        palette = list(dict.fromkeys(mats))
        ids = np.array([palette.index(m) for m in mats], np.int64)
        P = np.array([f.verts.mean(axis=0) for f in faces]).reshape(-1, 3)
        N = np.array([_centre_normal(f) for f in faces]).reshape(-1, 3)
        fac, spec = light_at(light, P, N, cam_pos, ids, palette, shadows)
        return FaceTable(faces, ids, palette, fac, spec)


def _centre_normal(f: Face) -> np.ndarray:
    if f.vnormals is None:
        return f.normal
    n = f.vnormals.mean(axis=0)
    return n / max(float(np.linalg.norm(n)), 1e-12)


def _pixel_points(cam: Camera, izbuf: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Board points (n, 3) seen at the flat pixel indices ``idx``, from the inverse depths."""
    v, u = np.divmod(idx, izbuf.shape[1])
    z = 1.0 / izbuf.ravel()[idx].astype(np.float64)
    pc = np.column_stack([(u - cam.cx) / cam.fx * z, (v - cam.cy) / cam.fy * z, z])
    return (pc - cam.t) @ cam.R  # R^T (pc - t)


def _smooth_normals(P: np.ndarray, fid: np.ndarray, table: FaceTable, normals: np.ndarray) -> None:
    """Interpolate the vertex normals of curved faces at their pixels (barycentric in the triangle
    (v0, v1, v2) or (v0, v2, v3) that holds the point), into ``normals`` in place."""
    smooth = np.array([f.vnormals is not None for f in table.faces])
    sel = np.nonzero(smooth[fid])[0]
    if sel.size == 0:
        return
    V4 = np.zeros((len(table.faces), 4, 3))
    N4 = np.zeros((len(table.faces), 4, 3))
    for i, f in enumerate(table.faces):
        if f.vnormals is not None:
            k = len(f.verts)
            V4[i, :k], N4[i, :k] = f.verts[:4], f.vnormals[:4]
            if k == 3:
                V4[i, 3], N4[i, 3] = f.verts[2], f.vnormals[2]
    ids = fid[sel]
    p = P[sel]
    v, nv = V4[ids], N4[ids]
    fn = np.array([f.normal for f in table.faces])[ids]

    def cross_n(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.einsum("ij,ij->i", np.cross(a, b), fn)

    d = v[:, 2] - v[:, 0]
    second = cross_n(d, p - v[:, 0]) * cross_n(d, v[:, 1] - v[:, 0]) < 0  # across the diagonal from v1
    a = v[:, 0]
    b = np.where(second[:, None], v[:, 2], v[:, 1])
    c = np.where(second[:, None], v[:, 3], v[:, 2])
    na = nv[:, 0]
    nb = np.where(second[:, None], nv[:, 2], nv[:, 1])
    nc = np.where(second[:, None], nv[:, 3], nv[:, 2])
    area = cross_n(b - a, c - a)
    ok = np.abs(area) > 1e-12
    area = np.where(ok, area, 1.0)
    wa = np.clip(cross_n(c - b, p - b) / area, -0.5, 1.5)
    wb = np.clip(cross_n(a - c, p - c) / area, -0.5, 1.5)
    wc = 1.0 - wa - wb
    n = wa[:, None] * na + wb[:, None] * nb + wc[:, None] * nc
    n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-12)
    normals[sel[ok]] = n[ok]


def shade_pixels(img: np.ndarray, izbuf: np.ndarray, fidbuf: np.ndarray, cam: Camera, light: Lighting,
                 table: FaceTable, shadows: TileShadows) -> None:
    """Relight, in place, every pixel whose centre a face of ``table`` owns: the light of the
    pixel's own point (and interpolated normal) replaces the light of the face's centre it was drawn
    with (multiplied by the ratio, the specular swapped), so anti-aliased rims follow too."""
    idx = np.flatnonzero(fidbuf >= 0)
    if idx.size == 0 or not table.faces:
        return
    fid = fidbuf.ravel()[idx].astype(np.int64)
    P = _pixel_points(cam, izbuf, idx)
    normals = np.array([f.normal for f in table.faces])[fid]
    _smooth_normals(P, fid, table, normals)
    fac, spec = light_at(light, P, normals, cam.position, table.mat_ids[fid], table.palette, shadows)
    ratio = np.clip(fac / np.maximum(table.fac[fid], 1e-4), 0.0, 20.0)
    flat = img.reshape(-1, 3)
    flat[idx] = np.maximum(flat[idx] * ratio + (spec - table.spec[fid])[:, None], 0.0)
