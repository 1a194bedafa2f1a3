"""3-D primitives: planar faces grouped into solids, and builders for the shapes the game uses.

A :class:`Face` is a planar polygon in board millimetres, flat-coloured or textured; a
:class:`Solid` is a closed convex-ish group of faces whose vertex set also serves as its shadow
silhouette (the convex hull of the vertices projected along the light).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.render.lighting import Material


@dataclass
class Face:
    verts: np.ndarray  #: (N, 3) board mm, planar
    colour: np.ndarray | None = None  #: linear RGB albedo of a flat face
    tex: np.ndarray | None = None  #: (h, w, 3) linear albedo
    tex_frame: np.ndarray | None = None  #: (3, 3) columns u, v, o: texel (s, t) centre -> o + s u + t v
    normal: np.ndarray = field(default_factory=lambda: np.zeros(3))
    obj: int = 0  #: truth object id written into the id buffer (0 = none)
    receiver: bool = False  #: cast shadows and occlusion are baked into its texture (horizontal only)
    gloss: float = 0.0  #: > 0: a wet, mirror-like face (water) whatever the solid's material
    material: Material | None = None  #: how it reflects, if not as its solid's material
    #: (N, 3) unit normals at the vertices of a face of a curved surface: the light is computed with
    #: the normal interpolated across the face (smooth shading); None: the face's own normal
    vnormals: np.ndarray | None = None


def newell_normal(verts: np.ndarray) -> np.ndarray:
    """The unit normal of a planar polygon (N, 3) by Newell's method (robust for any planar polygon,
    degenerate edges included); counter-clockwise seen from its tip."""
    n = np.cross(verts, np.roll(verts, -1, axis=0)).sum(axis=0)
    n /= np.linalg.norm(n) + 1e-12
    return n


@dataclass
class Solid:
    faces: list[Face]
    hull: np.ndarray  #: (M, 3) vertices; silhouette for cast shadows
    casts: bool = True
    is_tile: bool = False  #: terrace tiles also darken what lies below them (ambient occlusion)
    #: convex pieces whose vertex sets cast the solid's shadow (an arch's shadow shows the light
    #: under it); None: the whole hull
    parts: list[np.ndarray] | None = None
    #: how its flat faces reflect: "plastic" | "matte" | "skin" | "coat"; "" infers it (tiles and the
    #: board slab: matte cardboard edges; other casting solids: plastic)
    material: str = ""

    @property
    def shadow_parts(self) -> list[np.ndarray]:
        return self.parts if self.parts is not None else [self.hull]

    def finish(self) -> Solid:
        """Orient every face normal away from the solid's centre (Newell's method, for all the faces
        with the same number of corners at once)."""
        c = self.hull.mean(axis=0)
        todo = [f for f in self.faces if not np.any(f.normal)]
        by_size: dict[int, list[Face]] = {}
        for f in todo:
            by_size.setdefault(len(f.verts), []).append(f)
        for group in by_size.values():
            V = np.array([f.verts for f in group], float)  # (k, n, 3)
            n = np.cross(V, np.roll(V, -1, axis=1)).sum(axis=1)
            n /= np.linalg.norm(n, axis=1, keepdims=True) + 1e-12
            out = np.einsum("ij,ij->i", n, V.mean(axis=1) - c) < 0
            n[out] *= -1
            for f, nn in zip(group, n, strict=True):
                f.normal = nn
        return self


def rot_z(deg: float) -> np.ndarray:
    a = np.radians(deg)
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


@dataclass(frozen=True)
class Pose:
    """Local -> board: p_board = R @ p_local + t."""

    R: np.ndarray
    t: np.ndarray

    @staticmethod
    def at(x: float, y: float, z: float, turn_deg: float = 0.0) -> Pose:
        return Pose(rot_z(turn_deg), np.array([x, y, z], float))

    def apply(self, p: np.ndarray) -> np.ndarray:
        return np.asarray(p, float) @ self.R.T + self.t


def circle(d: float, n: int = 20) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([np.cos(a), np.sin(a)]) * d / 2


def ellipse(a: float, b: float, n: int = 28) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([np.cos(t) * a / 2, np.sin(t) * b / 2])


def rect(w: float, h: float, cx: float = 0.0, cy: float = 0.0) -> np.ndarray:
    return np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]]) + (cx, cy)


def loft(
    pose: Pose,
    rings: list[tuple[np.ndarray, float]],
    side: np.ndarray,
    top: np.ndarray | None = None,
    bottom: np.ndarray | None = None,
    bands: list[tuple[float, float, np.ndarray]] | None = None,
    obj: int = 0,
) -> Solid:
    """A solid through horizontal rings (2-D polygons with the same vertex count, each a scaled copy
    of the first, at increasing z): side quads between rings, optional caps. ``bands`` splits the
    side into colour bands (z0, z1, colour) — used for a pillar's groove."""
    faces: list[Face] = []
    pts3 = [np.column_stack([r, np.full(len(r), z)]) for r, z in rings]
    if bands:
        cuts = sorted({z for b in bands for z in b[:2]} | {rings[0][1], rings[-1][1]})
        new = []
        for z in cuts:
            if rings[0][1] <= z <= rings[-1][1]:
                new.append((_ring_at(rings, z), z))
        pts3 = [np.column_stack([r, np.full(len(r), z)]) for r, z in new]
    keys: list[list[tuple[int, int]]] = []  # (ring, vertex) of each side face's corners
    for k, (a, b) in enumerate(zip(pts3[:-1], pts3[1:], strict=False)):
        zm = (a[0, 2] + b[0, 2]) / 2
        col = side
        for z0, z1, c in bands or ():
            if z0 <= zm <= z1:
                col = c
        n = len(a)
        for i in range(n):
            j = (i + 1) % n
            quad = np.array([a[i], a[j], b[j], b[i]])
            key = [(k, i), (k, j), (k + 1, j), (k + 1, i)]
            if np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3]) < 1e-6:
                continue
            if np.linalg.norm(a[i] - a[j]) < 1e-9:
                quad, key = quad[1:], key[1:]
            elif np.linalg.norm(b[i] - b[j]) < 1e-9:
                quad, key = quad[:3], key[:3]
            faces.append(Face(pose.apply(quad), colour=col, obj=obj))
            keys.append(key)
    sides = len(faces)
    if top is not None and np.ptp(pts3[-1][:, :2]) > 1e-9:
        faces.append(Face(pose.apply(pts3[-1]), colour=top, obj=obj))
    if bottom is not None and np.ptp(pts3[0][:, :2]) > 1e-9:
        faces.append(Face(pose.apply(pts3[0][::-1]), colour=bottom, obj=obj))
    hull = pose.apply(np.vstack(pts3))
    solid = Solid(faces, hull).finish()
    if len(pts3[0]) >= SMOOTH_MIN_VERTICES:
        _smooth_normals(faces[:sides], keys)
    return solid


SMOOTH_MIN_VERTICES = 12  #: a loft whose rings have this many vertices is a curved surface


def _smooth_normals(faces: list[Face], keys: list[list[tuple[int, int]]]) -> None:
    """Give the side faces of a curved loft vertex normals: at each ring vertex, the mean of the
    normals of the side faces meeting there."""
    if not faces:
        return
    width = 1 + max(i for key in keys for _, i in key)
    flat = [[k * width + i for k, i in key] for key in keys]
    owner = np.repeat(np.arange(len(faces)), [len(k) for k in flat])
    idx = np.concatenate(flat)
    normals = np.array([f.normal for f in faces])
    acc = np.zeros((int(idx.max()) + 1, 3))
    np.add.at(acc, idx, normals[owner])
    acc /= np.maximum(np.linalg.norm(acc, axis=1, keepdims=True), 1e-12)
    start = 0
    for f, key in zip(faces, flat, strict=True):
        f.vnormals = acc[idx[start : start + len(key)]]
        start += len(key)


def _ring_at(rings: list[tuple[np.ndarray, float]], z: float) -> np.ndarray:
    for (r0, z0), (r1, z1) in zip(rings[:-1], rings[1:], strict=False):
        if z0 <= z <= z1:
            f = 0.0 if z1 == z0 else (z - z0) / (z1 - z0)
            return r0 + f * (r1 - r0)
    return rings[-1][0]


def prism(
    pose: Pose,
    poly: np.ndarray,
    z0: float,
    z1: float,
    side: np.ndarray,
    top: np.ndarray | None = None,
    bottom: np.ndarray | None = None,
    obj: int = 0,
    bands: list[tuple[float, float, np.ndarray]] | None = None,
) -> Solid:
    return loft(pose, [(poly, z0), (poly, z1)], side, top, bottom, bands=bands, obj=obj)


def dome(
    pose: Pose,
    d: float,
    z0: float,
    colour: np.ndarray,
    n: int = 24,
    stacks: int = 7,
    full: bool = False,
    obj: int = 0,
) -> Solid:
    """A hemisphere (or a sphere with ``full``) of diameter d whose equator is at z0 (sphere: centre)."""
    lat = np.linspace(-np.pi / 2 if full else 0, np.pi / 2, stacks + 1)
    base = circle(2.0, n)
    rings = [(base * np.cos(a) * d / 2 + 1e-7, z0 + np.sin(a) * d / 2) for a in lat]
    return loft(pose, rings, colour, None, None if full else colour, obj=obj)
