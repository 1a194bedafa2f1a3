"""The pieces' own 3-D shapes from the profile: the points that show each part from any camera
(:func:`piece_parts`), the hull that holds a piece (:func:`piece_hull`), and a candidate's local
frame on the board (:func:`_to_board`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from vision.profile import DecorationModel, Profile
from vision.read.decorations.surfaces import Candidate

BELVEDERE_RING = 0.85  #: share of the tile round a belvedere's base that must not look like water
STATUE_CREAM_MAX = 0.07  #: a statue's base leaves at most this share of the middle of its field cream


@dataclass(frozen=True)
class Part:
    """Points inside (or on) one part of a piece, in its local frame (mm), and the colour they show."""

    colour: str  #: a key of :data:`GROUPS`
    points: np.ndarray  #: (N, 3)
    weight: float = 1.0
    #: how the part counts: "mean" parts are pooled (by weight) into the piece's colour share; the score
    #: is at most the share of any "min" part (a fountain's water at both ends and in the middle);
    #: a "cover" part is judged only where the empty tile would show its garden green (away from its
    #: plaque, band and path), where a piece must hide the green whatever the photo's colours, and caps
    #: the score likewise; a "gate" part rejects the piece unless ``gate`` of its points are hits
    role: str = "mean"
    gate: float = 0.0
    #: leave out points whose line of sight passes through the piece itself: (radius, height) of a
    #: cylinder round its axis (a point on the tile beside a belvedere, seen past its dome)
    own_body: tuple[float, float] | None = None


def _disc(r: float, step: float) -> np.ndarray:
    g = np.arange(-r, r + 1e-9, step)
    x, y = np.meshgrid(g, g)
    m = x * x + y * y <= r * r + 1e-9
    return np.column_stack([x[m], y[m]])


def _ellipse_grid(a: float, b: float, step: float) -> np.ndarray:
    gx, gy = np.arange(-a, a + 1e-9, step), np.arange(-b, b + 1e-9, step)
    x, y = np.meshgrid(gx, gy)
    m = (x / a) ** 2 + (y / b) ** 2 <= 1.0
    return np.column_stack([x[m], y[m]])


def _ring(r0: float, r1: float, n: int = 24) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.vstack([np.column_stack([r * np.cos(t), r * np.sin(t)]) for r in (r0, (r0 + r1) / 2, r1)])


def bridge_top(profile: Profile, x: np.ndarray) -> np.ndarray:
    """Height of the bridge deck's top at local x (spec 2.5: 2 thick at the ends, 12 over the middle)."""
    return _bridge_top(profile.decoration, x)


def _bridge_top(d: DecorationModel, x: np.ndarray) -> np.ndarray:
    half = d.bridge_deck[0] / 2
    return (
        d.bridge_end_thickness
        + (d.bridge_rise - d.bridge_end_thickness) * np.cos(np.clip(x / half, -1, 1) * np.pi / 2) ** 0.7
    )


def piece_parts(profile: Profile, kind: str, run: float = 0.0, rise: float = 0.0) -> tuple[Part, ...]:
    """The parts of a piece as points that show it from any camera (inside convex parts, kept a hand
    placement's offset away from their outline)."""
    return _parts(profile.decoration, kind, round(run, 1), round(rise, 1))


@lru_cache(maxsize=256)
def _parts(d: DecorationModel, kind: str, run: float, rise: float) -> tuple[Part, ...]:
    if kind == "statue":
        bd, bh = d.statue_base
        axis = np.column_stack([np.zeros(8), np.zeros(8), np.linspace(bh, d.statue_height - 1.5, 8)])
        inner = _disc(bd / 2 - 2.5, 1.2)
        base = np.column_stack([inner, np.full(len(inner), bh * 0.6)])
        middle = _disc(bd / 2 - 1.0, 0.6)
        clear = np.column_stack([middle, np.full(len(middle), bh * 0.6)])
        return (
            Part("bronze", np.vstack([axis, base])),
            Part("clear", clear, role="gate", gate=1 - STATUE_CREAM_MAX),
        )
    if kind == "belvedere":
        r = d.belvedere_dome / 2
        z_dome = d.belvedere_height - r
        dome = _disc(r - 2.5, 1.0)
        dome_pts = np.column_stack([dome, np.full(len(dome), z_dome + r * 0.5)])
        h = d.belvedere_base / 2 - 1.2
        corners = np.array([[sx * h, sy * h] for sx in (-1, 1) for sy in (-1, 1)])
        roof = np.column_stack([corners, np.full(4, z_dome - d.belvedere_roof / 2)])
        slab = np.column_stack([corners, np.full(4, d.belvedere_slab / 2)])
        # round the base, the tile: a fountain's water, cyan like the dome, would reach there
        ring = np.column_stack([_ring(10.0, 11.0, 20), np.zeros(60)])
        return (
            Part("teal", dome_pts, 1.0),
            Part("ivory", np.vstack([roof, slab]), 0.3),
            Part("nocyan", ring, role="gate", gate=BELVEDERE_RING, own_body=(r + 1.5, d.belvedere_height)),
        )
    if kind == "fountain":
        L, W, H = d.fountain_basin
        ins = d.fountain_inset
        a, b = (L - 2 * ins) / 2 - 2.0, (W - 2 * ins) / 2 - 2.0
        water = _ellipse_grid(a, b, 1.5)
        water = water[np.hypot(water[:, 0], water[:, 1]) > d.fountain_spout[0] / 2 + 1.5]
        t = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        rim = np.column_stack([(L / 2 - ins / 2) * np.cos(t), (W / 2 - ins / 2) * np.sin(t), np.full(24, H)])
        # the water at both ends and in the middle: a belvedere's dome (cyan too) covers one end only
        w3 = np.column_stack([water, np.full(len(water), H)])
        third = a / 3
        return (
            Part("water", w3[water[:, 0] < -third], 1.0, role="min"),
            Part("water", w3[np.abs(water[:, 0]) <= third], 1.0, role="min"),
            Part("water", w3[water[:, 0] > third], 1.0, role="min"),
            Part("rim", rim, 0.3),
        )
    if kind == "bridge":
        L, W = d.bridge_deck
        x = np.linspace(-L / 2 + 3.0, L / 2 - 3.0, 19)
        y = np.array([-W / 2 + d.bridge_rail_width + 2.0, 0.0, W / 2 - d.bridge_rail_width - 2.0])
        X, Y = np.meshgrid(x, y)
        Z = _bridge_top(d, X) - 0.5
        return (Part("terracotta", np.column_stack([X.ravel(), Y.ravel(), Z.ravel()])),)
    if kind == "stairs":
        # the treads' colour, and where the empty field would show green, that something hides it
        n = d.stairs_steps
        step = run / n
        treads = [
            ((i + 0.5) * step, y, rise * (i + 1) / n - 1.0)
            for i in range(n)
            for y in (-d.stairs_width / 2 + 2.5, 0.0, d.stairs_width / 2 - 2.5)
        ]
        inside = []
        for x in np.arange(1.0, run - 0.9, 0.7):
            top = rise * (min(math.floor(x / step), n - 1) + 1) / n
            for y in np.linspace(-d.stairs_width / 2 + 1.5, d.stairs_width / 2 - 1.5, 9):
                inside += [(x, y, max(0.5, top - 1.0)), (x, y, max(0.5, top / 2))]
        return (Part("stone", np.array(treads), 1.0), Part("stone", np.array(inside), 1.0, role="cover"))
    raise ValueError(f"unknown decoration kind {kind!r}")


def _to_board(c: Candidate, pts: np.ndarray, shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """Local points of the piece (shifted by ``shift`` in its own frame) -> board points."""
    return _to_board_shifted(c, pts, [shift])


def _to_board_shifted(c: Candidate, pts: np.ndarray, shifts: Sequence[tuple[float, float]]) -> np.ndarray:
    """:func:`_to_board` of the same points at each of ``shifts``: (shifts * N, 3), shift after shift."""
    a = math.radians(c.angle_deg)
    ca, sa = math.cos(a), math.sin(a)
    sh = np.asarray(shifts, float).reshape(-1, 2)
    px, py = pts[None, :, 0] + sh[:, :1], pts[None, :, 1] + sh[:, 1:]
    out = np.empty((len(sh), len(pts), 3))
    out[..., 0] = c.origin[0] + ca * px - sa * py
    out[..., 1] = c.origin[1] + sa * px + ca * py
    out[..., 2] = c.origin[2] + pts[None, :, 2]
    return out.reshape(-1, 3)


def piece_hull(profile: Profile, c: Candidate) -> np.ndarray:
    """Points whose convex hull holds the piece, local frame (for what it hides of the pieces below it).
    As tight as a convex hull can be: a piece behind the lower steps of stairs, or past a statue's
    slim body, is in sight over them."""
    d = profile.decoration
    if c.kind == "stairs":  # the steps' outline: the first step's front edge, the top step's
        step = c.run / d.stairs_steps
        profile_xz = [
            (0.0, 0.0),
            (0.0, c.rise / d.stairs_steps),
            (c.run - step, c.rise),
            (c.run, c.rise),
            (c.run, 0.0),
        ]
        return np.array([[x, y, z] for x, z in profile_xz for y in (-d.stairs_width / 2, d.stairs_width / 2)])
    if c.kind == "statue":  # the base disc's box, and the body narrowing to the head
        r_base, h_base = d.statue_base[0] / 2, d.statue_base[1]
        r_top = max(d.statue_body[1], d.statue_head) / 2
        rings = [(r_base, 0.0), (r_base, h_base), (r_top, d.statue_height)]
        return np.array([[sx * r, sy * r, z] for r, z in rings for sx in (-1, 1) for sy in (-1, 1)])
    if c.kind == "belvedere":
        hx = hy = d.belvedere_base / 2
        h = d.belvedere_height
    elif c.kind == "fountain":
        hx, hy = d.fountain_basin[0] / 2, d.fountain_basin[1] / 2
        h = d.fountain_basin[2] + d.fountain_spout[1]
    else:
        hx, hy = d.bridge_deck[0] / 2, d.bridge_deck[1] / 2
        h = d.bridge_rise + d.bridge_rail_lift
    return np.array([[x, y, z] for x in (-hx, hx) for y in (-hy, hy) for z in (0.0, h)])
