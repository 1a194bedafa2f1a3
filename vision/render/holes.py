"""The board's holes as real recesses: what a camera sees looking into a round pit in the board.

A hole of the reference board is printed near-black (spec 2.1); on a real board it is a pit punched
through the top layer, so the camera sees into it: the floor shifted away from the camera by the
depth, and a crescent of the far wall; the rim casts a crescent of shadow onto the floor, and the
wall facing the light is lit. The recesses are drawn into the board's print as the camera and the
key light of the photo see them (exact ray casting per texel of each pit, a cylinder of the hole's
diameter and ``depth_mm`` deep), shading given relative to the lit board around them, so the
rasterizer's light and shadows on the board apply on top. Pillars stand on the board's surface over
a hole (spec 2.4's heights); they cover all but a sliver of it.
"""

from __future__ import annotations

import numpy as np

from scoring.garden import GRID
from vision.profile import Profile, srgb_to_linear

WALL_TINT = 0.65  #: the pit's wall: this much of the board's cut-cardboard colour in the hole's print
WALL_SKY = 0.55  #: the share of the ambient light a wall of a shallow pit receives


def hole_centres(profile: Profile) -> np.ndarray:
    """(N, 2) board xy of every hole: the building zone's cells and the storage zone's pillar slots."""
    b = profile.board
    cells = [profile.cell_centre(r, c) for r in range(GRID) for c in range(GRID)]
    return np.array(cells + list(b.pillar_slots), float)


def recessed(
    tex: np.ndarray, profile: Profile, depth_mm: float, cam_pos: np.ndarray, light_dir: np.ndarray,
    ambient: float,
) -> np.ndarray:
    """A copy of the board print ``tex`` (linear RGB, the board's texel grid) with every hole drawn as
    a pit ``depth_mm`` deep seen from ``cam_pos`` (board frame) under a key light from ``light_dir``
    (unit, towards the light) and ``ambient`` (0..1 share of the light). Unchanged when depth is 0."""
    if depth_mm <= 0:
        return tex
    b = profile.board
    out = tex.copy()
    ppm = tex.shape[1] / b.width
    r = b.hole_diameter / 2
    hole = srgb_to_linear(np.array([int(b.hole_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]))
    edge = srgb_to_linear(np.array([int(b.edge_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]))
    wall_albedo = (1 - WALL_TINT) * hole + WALL_TINT * edge
    L = np.asarray(light_dir, float)
    lit_up = ambient + (1 - ambient) * max(L[2], 1e-3)  # an upward face in the open: the reference
    ao_floor = r * r / (r * r + depth_mm * depth_mm)  # the floor sees the sky through the opening
    to_light = L[:2] / max(L[2], 1e-3)
    half = int(np.ceil(r * ppm)) + 2
    centres = hole_centres(profile)
    c0 = np.round(centres[:, 0] * ppm - 0.5).astype(int) - half  # each hole's patch of texels
    r0 = np.round(centres[:, 1] * ppm - 0.5).astype(int) - half
    n = 2 * half + 1
    keep = (c0 >= 0) & (r0 >= 0) & (c0 + n <= tex.shape[1]) & (r0 + n <= tex.shape[0])
    centres, c0, r0 = centres[keep], c0[keep], r0[keep]
    k = np.arange(n)
    # texel centres relative to each hole's centre (holes, n, n), mm
    shape = (len(c0), n, n)
    ox = ((c0[:, None] + k + 0.5) / ppm - centres[:, :1]).astype(np.float32)
    oy = ((r0[:, None] + k + 0.5) / ppm - centres[:, 1:]).astype(np.float32)
    px, py = np.broadcast_to(ox[:, None, :], shape), np.broadcast_to(oy[:, :, None], shape)
    cover = np.clip((r - np.hypot(px, py)) * ppm + 0.5, 0.0, 1.0)  # anti-aliased rim
    # the view ray through each texel, carried on below the surface: x + t v at depth t
    height = max(float(cam_pos[2]), 1.0)
    vx = (px + np.float32(-cam_pos[0]) + centres[:, 0, None, None].astype(np.float32)) / np.float32(height)
    vy = (py + np.float32(-cam_pos[1]) + centres[:, 1, None, None].astype(np.float32)) / np.float32(height)
    t_wall = _exit_depth(px, py, vx, vy, r)
    on_floor = t_wall >= depth_mm
    t = np.minimum(t_wall, depth_mm)
    hx, hy = px + t * vx, py + t * vy  # where the ray lands (relative to the centre)
    # lit: the ray towards the light from there leaves through the opening
    lit = np.hypot(hx + t * to_light[0], hy + t * to_light[1]) <= r
    n_dot_l = np.maximum(0.0, -(hx * L[0] + hy * L[1]) / r)  # the wall's normal points inwards
    floor = (ambient * ao_floor + (1 - ambient) * L[2] * lit) / lit_up
    wall = (ambient * WALL_SKY + (1 - ambient) * n_dot_l * lit) / lit_up
    colour = np.where(on_floor[..., None], floor[..., None] * hole, wall[..., None] * wall_albedo)
    for i in range(len(c0)):
        patch = out[r0[i] : r0[i] + n, c0[i] : c0[i] + n]
        a = cover[i, :, :, None]
        patch[:] = patch * (1 - a) + colour[i] * a
    return out


def _exit_depth(px: np.ndarray, py: np.ndarray, vx: np.ndarray, vy: np.ndarray, r: float) -> np.ndarray:
    """The depth t >= 0 at which x + t v (x = (px, py), inside the circle of radius r about the origin)
    reaches the circle: the positive root of |x + t v|^2 = r^2 (inf for a vertical ray)."""
    a = vx * vx + vy * vy
    b = 2 * (px * vx + py * vy)
    c = np.minimum(px * px + py * py - r * r, 0.0)
    disc = np.sqrt(np.maximum(b * b - 4 * a * c, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(a > 1e-12, (-b + disc) / (2 * a), np.inf)
    return np.maximum(t, 0.0)
