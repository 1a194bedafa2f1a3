"""Procedural table tops (wood planks, cloth, plain laminate) in the board plane.

Everything is a function of the table point in board-frame millimetres, seeded by the spec: the
same spec evaluated over two overlapping extents agrees where they overlap. Noise is value noise
on a (possibly rotated, anisotropic) lattice of hashed values, resampled with cv2.warpAffine, so
the cost is a handful of vectorised passes per octave and never a Python loop over pixels.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.render.conditions import TableSpec
from vision.render.lighting import Material
from vision.render.textures import linear

Extent = tuple[float, float, float, float]

_M1, _M2, _M3 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x165667B19E3779F9)


def _hash01(i: np.ndarray, j: np.ndarray, seed: int) -> np.ndarray:
    """Deterministic uniform values in [0, 1) for integer lattice points (splitmix64 finaliser)."""
    with np.errstate(over="ignore"):
        h = i.astype(np.uint64) * _M1 ^ j.astype(np.uint64) * _M2 ^ np.uint64(seed & 0xFFFFFFFF) * _M3
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
    return (h >> np.uint64(11)).astype(np.float64) / float(1 << 53)


class _Grid:
    """The pixel grid of a texture, possibly turned and anisotropic: pixel (row, col) centre at
    (u, v) = (x0 + (col + 0.5) sx, y0 + (row + 0.5) sy) in the frame turned by ``angle_deg`` from
    the board frame (u = c x + s y, v = -s x + c y)."""

    def __init__(
        self, extent: Extent, mm_per_px: float, sy: float | None = None, angle_deg: float = 0.0
    ) -> None:
        x0, y0, x1, y1 = extent
        self.x0, self.y0, self.s = float(x0), float(y0), float(mm_per_px)
        self.sx, self.sy = self.s, float(sy if sy is not None else mm_per_px)
        self.angle = float(angle_deg)
        self.w = max(1, math.ceil((x1 - x0) / self.sx - 1e-9))
        self.h = max(1, math.ceil((y1 - y0) / self.sy - 1e-9))

    def to_xy(self) -> np.ndarray:
        """(2, 3): (col, row, 1) -> board xy of the pixel centre."""
        c, s = math.cos(math.radians(self.angle)), math.sin(math.radians(self.angle))
        rt = np.array([[c, -s], [s, c]])
        uv = np.array([[self.sx, 0, self.x0 + 0.5 * self.sx], [0, self.sy, self.y0 + 0.5 * self.sy]])
        return rt @ uv

    def _affine(self, angle_deg: float) -> np.ndarray:
        c, s = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
        return np.array([[c, s], [-s, c]]) @ self.to_xy()

    def rotated(self, angle_deg: float) -> tuple[np.ndarray, np.ndarray]:
        """(u, v) maps (H, W) float32: u along the direction ``angle_deg``, v across it."""
        m = self._affine(angle_deg).astype(np.float32)
        cols = np.arange(self.w, dtype=np.float32)[None, :]
        rows = np.arange(self.h, dtype=np.float32)[:, None]
        return (m[0, 0] * cols + (m[0, 1] * rows + m[0, 2]), m[1, 0] * cols + (m[1, 1] * rows + m[1, 2]))

    def noise(self, seed: int, cell_u: float, cell_v: float, angle_deg: float = 0.0) -> np.ndarray:
        """Smooth value noise in [-1, 1] (H, W) float32 on a lattice of cell_u x cell_v mm, its u axis
        along ``angle_deg``."""
        m = np.diag([1 / cell_u, 1 / cell_v]) @ self._affine(angle_deg)
        # a broad noise is interpolated on a coarser grid of texels, every k-th of the global texel
        # lattice (so overlapping extents still agree), then linearly up to the full grid: cheap
        k = int(min(cell_u, cell_v) / max(self.sx, self.sy) / 8)
        w, h = self.w, self.h
        if k >= 2:
            g0, h0 = self.x0 / self.sx, self.y0 / self.sy
            j0, i0 = math.floor(g0 / k), math.floor(h0 / k)
            w, h = math.ceil((g0 + self.w) / k) - j0 + 2, math.ceil((h0 + self.h) / k) - i0 + 2
            m = m @ np.array([[k, 0, k * j0 - g0], [0, k, k * i0 - h0], [0, 0, 1.0]])
        corners = m @ np.array([[0, w, 0, w], [0, 0, h, h], [1, 1, 1, 1]], float)
        lo = np.floor(corners.min(axis=1)).astype(int) - 2
        hi = np.ceil(corners.max(axis=1)).astype(int) + 3
        iu, iv = np.arange(lo[0], hi[0]), np.arange(lo[1], hi[1])
        lattice = (_hash01(iu[None, :], iv[:, None], seed) * 2 - 1).astype(np.float32)
        m[:, 2] -= lo
        out = cv2.warpAffine(lattice, m, (w, h), flags=cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP,
                             borderMode=cv2.BORDER_REFLECT)
        if k < 2:
            return out
        up = np.array([[1 / k, 0, g0 / k - j0], [0, 1 / k, h0 / k - i0]])
        return cv2.warpAffine(out, up, (self.w, self.h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_REPLICATE)


def _shade_mix(a: np.ndarray, b: np.ndarray, t: np.ndarray, shade: np.ndarray) -> np.ndarray:
    """(a + (b - a) t) shade per pixel -> (H, W, 3) float32, in one cv2.transform pass."""
    t = np.clip(t, 0.0, 1.0, out=t)
    two = cv2.merge([np.multiply(t, shade, dtype=np.float32), shade.astype(np.float32)])
    m = np.column_stack([b - a, a]).astype(np.float32)  # (3, 2): colour = m @ (t shade, shade)
    return cv2.transform(two, m)


def _ramp(x: np.ndarray, e0: float, e1: float) -> np.ndarray:
    """0 below e0, 1 above e1, linear between."""
    y = (x - np.float32(e0)) * np.float32(1.0 / (e1 - e0))
    return np.clip(y, 0.0, 1.0, out=y)


def _line(dist: np.ndarray, width: float, soft: float) -> np.ndarray:
    """1 on a line of ``width`` mm (``dist`` from its centre), antialiased over ``soft`` mm."""
    return 1.0 - _ramp(np.abs(dist), width / 2, width / 2 + soft)


def _per_band(w: np.ndarray, period: float, seed: int, n: int) -> list[np.ndarray]:
    """``n`` uniform [0, 1) values per band floor(w / period) (e.g. per plank), for every pixel:
    a nearest-neighbour cv2.remap from a small table is a fast multi-threaded lookup."""
    x = w * np.float32(1.0 / period)
    k0, k1 = math.floor(float(x.min())) - 1, math.floor(float(x.max())) + 2
    ks = np.arange(k0, k1)
    table = np.stack([_hash01(ks, np.full(len(ks), salt), seed) for salt in range(n)], axis=-1)
    table = np.ascontiguousarray(table[None].astype(np.float32))
    mx = x - np.float32(k0 + 0.5)
    vals = cv2.remap(table, mx, np.zeros_like(mx), cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE)
    return list(cv2.split(vals)) if n > 1 else [vals]


def _wood(spec: TableSpec, g: _Grid) -> np.ndarray:
    a, b = linear(spec.colour_a), linear(spec.colour_b)
    sd, rot, tex = spec.seed, spec.rotation_deg, spec.texture
    u, v = g.rotated(rot)  # on the plank-aligned grid: u varies along columns only, v along rows
    if g.angle == rot:  # per-plank values and seams are functions of the row only
        u, v = np.ascontiguousarray(u[:1]), np.ascontiguousarray(v[:, :1])
    pw = max(spec.plank_mm, 30.0)
    p_tone, p_phase, p_joint = _per_band(v, pw, sd, 3)
    # growth rings: stripes across the plank, displaced by a slow noise so they wander and flame
    ring = g.noise(sd + 11, 160.0, 30.0, rot) * np.float32(7.0)
    ring += g.noise(sd + 12, 60.0, 8.0, rot) * np.float32(1.5)
    ring += v + p_phase * np.float32(97.0)
    ring *= np.float32(1.0) / (np.float32(5.0) + np.float32(4.0) * p_phase)
    late = np.cos(ring * np.float32(2 * np.pi))
    late = (late + 1) * np.float32(0.5)
    late *= late
    late *= late
    t = late * np.float32(0.45 * tex)
    t += g.noise(sd + 13, 45.0, 0.9, rot) * np.float32(0.12 * tex)  # fibre
    t += _ramp(g.noise(sd + 14, 220.0, 10.0, rot), 0.35, 0.9) * np.float32(0.35 * tex)  # streaks
    t += (p_tone - np.float32(0.5)) * np.float32(0.35) + np.float32(0.25)
    # plank seams (along u) and staggered butt joints (across)
    seam = _line(v - np.round(v / np.float32(pw)) * np.float32(pw), 0.8, max(g.sy, 0.4))
    length = np.float32(900.0)
    ju = u + p_joint * length
    joint = _line(ju - np.round(ju / length) * length, 0.8, max(g.sx, 0.4))
    shade = 1.0 - np.float32(0.65) * np.maximum(seam, joint)
    shade += np.float32(0.05) * g.noise(sd + 15, 400.0, 400.0)
    return _shade_mix(a, b, t, shade)


def _weave(spec: TableSpec, g: _Grid) -> np.ndarray:
    """The shading of woven cloth (H, W): threads, fuzz and broad folds."""
    sd, rot, tex = spec.seed, spec.rotation_deg, spec.texture
    weave = 0.5 * (g.noise(sd + 21, 6.0, 0.8, rot) + g.noise(sd + 22, 0.8, 6.0, rot))
    fuzz = g.noise(sd + 23, 2.5, 2.5)
    folds = g.noise(sd + 24, 240.0, 50.0, rot + 30)
    return 1.0 + tex * (0.06 * weave + 0.04 * fuzz) + 0.05 * folds


def _cloth(spec: TableSpec, g: _Grid) -> np.ndarray:
    a, b = linear(spec.colour_a), linear(spec.colour_b)
    rot = spec.rotation_deg
    if spec.check_mm > 0:
        u, v = g.rotated(rot)
        if g.angle == rot:  # checks: one function of the column plus one of the row
            u, v = np.ascontiguousarray(u[:1]), np.ascontiguousarray(v[:, :1])
        p = 2 * spec.check_mm
        soft = max(g.s, 0.5)

        def band(w: np.ndarray) -> np.ndarray:
            return _line(w - np.floor(w / p) * p - spec.check_mm / 2, spec.check_mm, soft)

        t = np.float32(0.5) * band(u) + np.float32(0.5) * band(v)
    else:
        t = np.zeros((g.h, g.w), np.float32)
    return _shade_mix(a, b, t, _weave(spec, g))


def _palette(spec: TableSpec) -> np.ndarray:
    """The print's colours, linear (n, 3), the ground first (at least two)."""
    cols = spec.colours or (spec.colour_a, spec.colour_b)
    return np.array([linear(c) for c in cols], np.float32)


def _band_colours(w: np.ndarray, pal: np.ndarray, motif: float, seed: int, step: float) -> np.ndarray:
    """Colours (..., 3) of bands across the coordinate ``w`` (mm): the palette's colours in turn,
    each band its own width (the ground's the widest), anti-aliased over ``step`` mm by
    supersampling (``w`` is one row or column of the grid: cheap)."""
    n = len(pal)
    widths = motif * (0.35 + 0.65 * _hash01(np.arange(n), np.full(n, 7), seed))
    widths[0] = motif * 1.2
    edges = np.concatenate([[0.0], np.cumsum(widths)])
    period = edges[-1]
    out = np.zeros((*w.shape, 3), np.float32)
    subs = 4
    for k in range(subs):
        x = np.mod(w + (k + 0.5) / subs * step - step / 2, period)
        idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, n - 1)
        out += pal[idx]
    return out / subs


def _stripes(spec: TableSpec, g: _Grid) -> np.ndarray:
    u, v = g.rotated(spec.rotation_deg)
    pal = _palette(spec)
    if g.angle == spec.rotation_deg:  # stripes along u: a function of the row only
        rows = _band_colours(np.ascontiguousarray(v[:, 0]), pal, spec.motif_mm, spec.seed, g.sy)
        return rows[:, None, :] * _weave(spec, g)[..., None]
    return _band_colours(v, pal, spec.motif_mm, spec.seed, g.s) * _weave(spec, g)[..., None]


def _checks(spec: TableSpec, g: _Grid) -> np.ndarray:
    """Many-coloured checks (gingham, tartan): warp bands along one direction, weft bands across,
    woven together (where they cross, the mean of the two colours)."""
    u, v = g.rotated(spec.rotation_deg)
    pal = _palette(spec)
    warp_pal = pal
    weft_pal = pal if len(pal) == 2 else pal[np.r_[0, len(pal) - 1:0:-1]]  # the colours the other way
    if g.angle == spec.rotation_deg:
        cols = _band_colours(np.ascontiguousarray(u[0]), warp_pal, spec.motif_mm, spec.seed, g.sx)
        rows = _band_colours(np.ascontiguousarray(v[:, 0]), weft_pal, spec.motif_mm, spec.seed + 1, g.sy)
        mix = (cols[None, :, :] + rows[:, None, :]) * np.float32(0.5)
    else:
        mix = (_band_colours(u, warp_pal, spec.motif_mm, spec.seed, g.s)
               + _band_colours(v, weft_pal, spec.motif_mm, spec.seed + 1, g.s)) * np.float32(0.5)
    return mix * _weave(spec, g)[..., None]


class _Cells:
    """The cells of a ``cell`` mm lattice on the grid's (u, v): per-cell values for every texel by a
    nearest-neighbour remap of a small table (fast and multi-threaded)."""

    def __init__(self, u: np.ndarray, v: np.ndarray, cell: float, seed: int) -> None:
        cu, cv_ = u * np.float32(1.0 / cell), v * np.float32(1.0 / cell)
        self.i0, self.j0 = int(np.floor(cu.min())) - 1, int(np.floor(cv_.min())) - 1
        i1, j1 = int(np.floor(cu.max())) + 2, int(np.floor(cv_.max())) + 2
        self.ii, self.jj = np.meshgrid(np.arange(self.i0, i1), np.arange(self.j0, j1))
        self.mx, self.my = cu - np.float32(self.i0 + 0.5), cv_ - np.float32(self.j0 + 0.5)
        self.seed = seed

    def values(self, salt: int, n: int) -> list[np.ndarray]:
        """``n`` <= 4 uniform values per cell."""
        table = np.stack([_hash01(self.ii, self.jj + 7919 * (salt + c), self.seed) for c in range(n)], -1)
        return self.lookup(table.astype(np.float32), split=True)

    def lookup(self, table: np.ndarray, split: bool = False) -> np.ndarray | list[np.ndarray]:
        """Per-texel values of a per-cell table (rows j, columns i, up to 4 channels)."""
        vals = cv2.remap(np.ascontiguousarray(table, np.float32), self.mx, self.my, cv2.INTER_NEAREST,
                         borderMode=cv2.BORDER_REPLICATE)
        if not split:
            return vals
        return list(cv2.split(vals)) if vals.ndim == 3 else [vals]


def _floral(spec: TableSpec, g: _Grid) -> np.ndarray:
    """Flowers scattered on a ground: one per cell of a jittered lattice, five or six rounded petals
    of a colour of the print around a contrasting heart, and small dots between them. The shapes'
    signed distances are computed on a grid of about a twentieth of a cell and resized (they are
    smooth where it matters), then cut sharp, anti-aliased, at the texture's own resolution."""
    cell = float(spec.motif_mm)
    k = max(1, int(cell / 20.0 / max(g.sx, g.sy)))
    c = _Grid((g.x0, g.y0, g.x0 + g.w * g.sx, g.y0 + g.h * g.sy), g.sx * k, g.sy * k, g.angle)
    u, v = c.rotated(spec.rotation_deg)
    pal = _palette(spec)
    cells = _Cells(u, v, cell, spec.seed)
    ox, oy, phase, size = cells.values(0, 4)
    n = len(pal)
    flower_cols = pal[1:] if n > 1 else pal
    pick = _hash01(cells.ii, cells.jj + 104729, spec.seed)
    which = np.minimum((pick * len(flower_cols)).astype(int), len(flower_cols) - 1)
    petal_col = cells.lookup(flower_cols[which])
    six = cells.lookup((_hash01(cells.ii, cells.jj + 3, spec.seed) > 0.5).astype(np.float32))
    f32 = np.float32
    r_max = f32(0.42 * cell)
    radius = r_max * (f32(0.6) + f32(0.4) * size)
    off = (r_max - radius) + f32(0.05 * cell)  # the flower stays inside its cell
    dx = u - (np.floor(u * f32(1 / cell)) + f32(0.5)) * f32(cell) - (ox * 2 - 1) * off
    dy = v - (np.floor(v * f32(1 / cell)) + f32(0.5)) * f32(cell) - (oy * 2 - 1) * off
    r = np.sqrt(dx * dx + dy * dy)
    lobes = np.cos((f32(2.5) + six * f32(0.5)) * np.arctan2(dy, dx) + phase * f32(6.3))
    petal = radius * (f32(0.55) + f32(0.45) * np.abs(lobes)) - r  # signed distances, mm (inside > 0)
    heart = radius * f32(0.28) - r
    cx = u - np.round(u * f32(1 / cell)) * f32(cell)  # dots at the lattice corners
    cy = v - np.round(v * f32(1 / cell)) * f32(cell)
    spot = f32(0.07 * cell) - np.sqrt(cx * cx + cy * cy)
    size_hw = (c.w * k, c.h * k)

    def full(a: np.ndarray, interp: int = cv2.INTER_LINEAR) -> np.ndarray:
        return cv2.resize(a, size_hw, interpolation=interp)[: g.h, : g.w]

    inv_soft = f32(1.0 / max(g.s, 0.4))
    out = np.empty((g.h, g.w, 3), np.float32)
    out[:] = pal[0]
    tmp = np.empty_like(out)
    heart_col = pal[-1] if n > 2 else np.array(linear("#F0C419"), np.float32)
    layers = ((petal, full(petal_col, cv2.INTER_NEAREST)), (heart, heart_col), (spot, flower_cols[-1]))
    for sdf, col in layers:
        m = full(sdf)
        m *= inv_soft
        m += f32(0.5)
        np.clip(m, 0.0, 1.0, out=m)
        np.subtract(col, out, out=tmp)
        tmp *= m[..., None]
        out += tmp
    out *= _weave(spec, g)[..., None]
    return out


def _plain(spec: TableSpec, g: _Grid) -> np.ndarray:
    a, sd, tex = linear(spec.colour_a), spec.seed, spec.texture
    speck = g.noise(sd + 31, 1.5, 1.5)
    mottle = g.noise(sd + 32, 30.0, 30.0)
    wash = g.noise(sd + 33, 500.0, 500.0)
    shade = 1.0 + tex * (0.012 * speck + 0.012 * mottle) + 0.03 * wash
    return _shade_mix(a, a, np.zeros_like(shade), shade)


_KINDS = {"wood": _wood, "cloth": _cloth, "plain": _plain, "stripes": _stripes, "checks": _checks,
          "floral": _floral}
PRINTED = ("stripes", "checks", "floral")  #: the printed tablecloths

#: texel length along u / across (wood: grain)
_ALONG = {"wood": 8.0, "cloth": 1.0, "plain": 1.0, "stripes": 1.0, "checks": 1.0, "floral": 1.0}
MAX_TEXELS = 5.0e6  #: cap on the table grid's texel count (cost)
#: mm: the finest texel the pattern needs
_FINEST = {"wood": 0.25, "cloth": 0.45, "plain": 0.5, "stripes": 0.45, "checks": 0.45, "floral": 0.6}


def table_material(spec: TableSpec) -> Material:
    """How the table reflects: a varnished or laminated top is glossy, cloth is matte."""
    return Material(spec.roughness, spec.gloss) if spec.gloss > 0 else Material()


def table_texture_uv(spec: TableSpec, extent_mm: Extent, mm_per_px: float) -> tuple[np.ndarray, np.ndarray]:
    """The table over (at least) ``extent_mm`` on its own grid: turned with the planks / weave and,
    for wood, ``_ALONG`` times coarser along the grain than across it (the grain barely changes
    along a plank). Returns (linear RGB float32 (H, W, 3), frame (2, 3)): texel (col, row) centre at
    board xy = frame @ (col, row, 1). The grid is snapped to multiples of its steps, so two extents
    sample the same points where they overlap."""
    if spec.kind not in _KINDS:
        raise ValueError(f"unknown table kind {spec.kind!r}")
    rot = spec.rotation_deg if spec.kind != "plain" else 0.0
    sv = max(float(mm_per_px), _FINEST[spec.kind])
    su = sv * _ALONG[spec.kind]
    x0, y0, x1, y1 = extent_mm
    c, s = math.cos(math.radians(rot)), math.sin(math.radians(rot))
    xs, ys = np.array([x0, x1, x0, x1]), np.array([y0, y0, y1, y1])
    us, vs = c * xs + s * ys, -s * xs + c * ys
    n = float(np.ptp(us) * np.ptp(vs)) / (su * sv)
    if n > MAX_TEXELS:  # the cost cap: coarser texels over a very large table extent
        k = math.sqrt(n / MAX_TEXELS)
        su, sv = su * k, sv * k
    u0 = (math.floor(us.min() / su) - 2) * su
    v0 = (math.floor(vs.min() / sv) - 2) * sv
    u1 = (math.ceil(us.max() / su) + 2) * su
    v1 = (math.ceil(vs.max() / sv) + 2) * sv
    g = _Grid((u0, v0, u1, v1), su, sv, rot)
    tex = _KINDS[spec.kind](spec, g)
    return np.clip(tex, 0.0, 1.0, out=tex), g.to_xy()


def table_texture(spec: TableSpec, extent_mm: Extent, mm_per_px: float) -> np.ndarray:
    """Linear RGB float32 (H, W, 3) of the table over ``extent_mm`` = (x0, y0, x1, y1) in the board
    plane: pixel (row, col) shows the point (x0 + (col + 0.5) mm_per_px, y0 + (row + 0.5) mm_per_px);
    W = ceil((x1 - x0) / mm_per_px), H likewise. (Resampled from :func:`table_texture_uv`.)"""
    tex, frame = table_texture_uv(spec, extent_mm, float(mm_per_px))
    dst = _Grid(extent_mm, float(mm_per_px))
    f3 = np.vstack([frame, [0, 0, 1]])
    m = (np.linalg.inv(f3) @ np.vstack([dst.to_xy(), [0, 0, 1]]))[:2]
    out = cv2.warpAffine(tex, m, (dst.w, dst.h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                         borderMode=cv2.BORDER_REPLICATE)
    return np.clip(out, 0.0, 1.0, out=out)
