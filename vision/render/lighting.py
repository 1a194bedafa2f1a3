"""The light of one photo as the rasterizer uses it: a key light (distant, or a lamp at a finite
distance), ambient fill (possibly of another colour: mixed light), the soft shadow of the phone or the
photographer, and the specular reflection of glossy surfaces (GGX microfacets).

Every function takes arrays of board-frame points ``P`` (..., 3) and, where needed, unit normals and
unit view vectors of the same shape. Brightness is normalised so that a lit upward face of albedo 1 at
the board centre shows 1 (see :attr:`Lighting.norm`); colours are relative to the key light (the
photo's white balance is applied later, in post-processing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from vision.render.conditions import Light
from vision.render.looks import NEUTRAL, Gloss, Looks, Occluder, lamp_position


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-12)


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("...i,...i->...", a, b) if a.ndim > 1 or b.ndim > 1 else np.asarray(a @ b)


@dataclass(frozen=True)
class Lighting:
    direction: np.ndarray  #: unit vector towards the key light from ``reference`` (board frame)
    ambient: float  #: 0..1 share of ambient light
    softness_deg: float  #: angular size of the key light (penumbra angle)
    position: np.ndarray | None = None  #: a lamp's position (board mm); None: a distant light
    #: colour of the ambient fill relative to the key light (luminance 1): mixed light when not grey
    tint: np.ndarray = field(default_factory=lambda: np.ones(3, np.float32))
    occluder: Occluder | None = None  #: the phone's or photographer's shadow
    reference: np.ndarray = field(default_factory=lambda: np.zeros(3))  #: where the lamp's falloff is 1

    @staticmethod
    def from_light(light: Light, looks: Looks = NEUTRAL, reference: np.ndarray | None = None) -> Lighting:
        """The rasterizer's lighting for a photo's :class:`~vision.render.conditions.Light` and its
        looks (the lamp stands ``looks.lamp_distance_mm`` from ``reference``, the board centre)."""
        ref = np.zeros(3) if reference is None else np.asarray(reference, float)
        tint = np.ones(3, np.float32)
        if looks.fill_kelvin > 0:
            from vision.render.post import white_balance_gain

            tint = white_balance_gain(looks.fill_kelvin, light.kelvin)  # fill colour / key colour
        return Lighting(
            np.asarray(light.direction, float), float(light.ambient), float(light.softness_deg),
            lamp_position(light, looks.lamp_distance_mm, ref), np.asarray(tint, np.float32), looks.occluder,
            ref,
        )

    @property
    def norm(self) -> float:
        """Brightness of a lit, upward face at the reference point: divide by it so such a face shows
        its albedo."""
        return self.ambient + (1 - self.ambient) * float(self.direction[2])

    @property
    def mixed(self) -> bool:
        """Whether the ambient fill has another colour than the key light."""
        return bool(np.ptp(self.tint) > 1e-4)

    # ------------------------------------------------------------------------------ geometry

    def towards(self, P: np.ndarray) -> np.ndarray:
        """Unit vectors from the points towards the key light."""
        if self.position is None:
            return np.broadcast_to(self.direction.astype(P.dtype), P.shape)
        return _unit(self.position.astype(P.dtype) - P)

    def falloff(self, P: np.ndarray) -> np.ndarray | float:
        """The key light's irradiance at the points relative to the reference point (inverse
        square for a lamp; 1 for a distant light)."""
        if self.position is None:
            return 1.0
        d0 = float(np.sum((self.position - self.reference) ** 2))
        return d0 / np.maximum(np.sum((self.position.astype(P.dtype) - P) ** 2, axis=-1), 1.0)

    def project(self, P: np.ndarray, z0: float) -> np.ndarray:
        """(..., 2): where the ray from the key light through each point meets the plane z = z0
        (shadows of a lamp diverge; a distant light's are parallel)."""
        P = np.asarray(P, float)
        if self.position is None:
            L = self.direction
            return P[..., :2] - (P[..., 2:3] - z0) * (L[:2] / L[2])
        pos = self.position
        top = np.minimum(P[..., 2:3], pos[2] - 1.0)
        return pos[:2] + (P[..., :2] - pos[:2]) * ((pos[2] - z0) / (pos[2] - top))

    def occlusion(self, P: np.ndarray) -> np.ndarray | float:
        """How much of the key light the occluder (phone, photographer) lets through, 0..1."""
        oc = self.occluder
        if oc is None:
            return 1.0
        z = P[..., 2]
        H = np.float32(oc.height_mm)
        if self.position is None:
            L = self.direction.astype(P.dtype)
            q = P[..., :2] + ((H - z) / L[2])[..., None] * L[:2]
            lz = float(L[2])
        else:
            pos = self.position.astype(P.dtype)
            rise = np.maximum(pos[2] - z, 1.0)
            q = P[..., :2] + (pos[:2] - P[..., :2]) * ((H - z) / rise)[..., None]
            lz = max(0.2, float(self.direction[2]))
        a = math.radians(oc.angle_deg)
        ca, sa = math.cos(a), math.sin(a)
        dx, dy = q[..., 0] - np.float32(oc.x_mm), q[..., 1] - np.float32(oc.y_mm)
        u = np.abs(dx * ca + dy * sa) / np.float32(oc.half_width_mm)
        v = np.abs(-dx * sa + dy * ca) / np.float32(oc.half_length_mm)
        n = oc.roundness
        r = (u**n + v**n) ** (1.0 / n)
        dist = np.hypot(dx, dy) * (1 - 1 / np.maximum(r, 1e-6))  # outside > 0, along the radius
        width = oc.edge_mm + (H - z) / lz * math.tan(math.radians(max(self.softness_deg, 0.1)))
        t = np.clip(0.5 - dist / np.maximum(width, 0.5), 0.0, 1.0)
        return 1.0 - t * t * (3 - 2 * t)

    # ------------------------------------------------------------------------------- shading

    def direct(self, P: np.ndarray, N: np.ndarray) -> np.ndarray:
        """The key light's share at the points for normals ``N``, unshadowed by pieces, normalised
        (a lit upward face at the reference point: (1 - ambient) Lz / norm)."""
        L = self.towards(P)
        ndl = np.maximum(_dot(N, L), 0.0)
        return (1 - self.ambient) / self.norm * ndl * self.falloff(P) * self.occlusion(P)

    def bounce(self, N: np.ndarray) -> np.ndarray:
        """Ambient is a little directional (fill bounced from the lit side): faces turned towards the
        light get more of it than those turned away, so curved pieces keep their shape in the shade;
        an upward face gets exactly ``ambient / norm``."""
        L = self.direction
        return self.ambient / self.norm * (1.0 + 0.45 * (_dot(N, L.astype(N.dtype)) - float(L[2])))

    def shade(self, n: np.ndarray, lit: float, ao: float = 1.0) -> float:
        """Grey shading factor of one face with normal ``n`` at the reference point (no lamp, tint
        or occluder): ambient (occluded by ``ao``) plus the key light where ``lit``."""
        key = (1 - self.ambient) / self.norm * max(0.0, float(n @ self.direction))
        return float(self.bounce(n)) * ao + key * lit

    def soft_alpha(self, alpha: float) -> float:
        """A surface's GGX alpha widened by the key light's angular size: an area light's glare is
        the mirror image of the light, not a point."""
        return float(math.hypot(alpha, math.tan(math.radians(self.softness_deg) / 2)))

    def specular(self, P: np.ndarray, N: np.ndarray, V: np.ndarray, alpha: float, f0: float) -> np.ndarray:
        """The key light's specular reflection (GGX normal distribution, Smith-Schlick visibility,
        Schlick Fresnel) in the units of albedo x shading, before cast shadows."""
        L = self.towards(P)
        H = _unit(L + V)
        nl = np.maximum(_dot(N, L), 0.0)
        nv = np.clip(_dot(N, V), 1e-3, 1.0)
        nh = np.clip(_dot(N, H), 0.0, 1.0)
        vh = np.clip(_dot(V, H), 0.0, 1.0)
        a = self.soft_alpha(alpha)
        a2 = a * a
        d = a2 / (math.pi * (nh * nh * (a2 - 1) + 1) ** 2)
        k = a / 2
        vis = 1.0 / (4 * (nl * (1 - k) + k) * (nv * (1 - k) + k))
        fres = f0 + (1 - f0) * (1 - vh) ** 5
        key = (1 - self.ambient) / self.norm * self.falloff(P) * self.occlusion(P)
        return math.pi * d * vis * fres * nl * key

    def sheen(self, N: np.ndarray, V: np.ndarray, f0: float, glow: float = 0.0, alpha: float = 0.0
              ) -> np.ndarray:
        """The glossy reflection of the ambient surroundings (Fresnel-weighted, so it grows at grazing
        angles, less so on a rough surface); ``glow`` > 0 brightens the part of the surroundings on the
        key light's side (a window's sky in a glossy table)."""
        nv = np.clip(_dot(N, V), 1e-3, 1.0)
        edge = max(1.0 - alpha, f0) - f0  # Schlick's Fresnel with roughness: rough rims stay dim
        out = (f0 + edge * (1 - nv) ** 5) * (self.ambient / self.norm)
        if glow > 0:
            R = 2 * nv[..., None] * N - V  # the mirror direction of the view ray
            out = out * (1.0 + glow * np.maximum(_dot(R, self.direction.astype(R.dtype)), 0.0) ** 3)
        return out


@dataclass(frozen=True)
class Material:
    """How a surface reflects the key light specularly (GGX alpha and reflectance at normal
    incidence; ``f0`` 0 is matte)."""

    alpha: float = 0.3
    f0: float = 0.0
    smudge: float = 0.0  #: how much the shine varies over the surface (receivers only)
    tilt_deg: float = 0.0  #: the coat's normal leans by up to this (tiles never lie quite flat)
    seed: int = 0  #: where the shine varies, which way each tile leans

    def smudge_at(self, xy: np.ndarray) -> np.ndarray | float:
        """A smooth random factor (mean 1) on the shine at board points (..., 2): a few waves of 15 to
        90 mm, the same field over every face of the photo (fingerprints, an uneven coat)."""
        if self.smudge <= 0:
            return 1.0
        rng = np.random.default_rng([self.seed, 0x5D])
        k = 6
        lam = rng.uniform(15.0, 90.0, k)
        ang = rng.uniform(0.0, 2 * np.pi, k)
        ph = rng.uniform(0.0, 2 * np.pi, k)
        w = (np.column_stack([np.cos(ang), np.sin(ang)]) * (2 * np.pi / lam)[:, None]).astype(xy.dtype)
        f = np.sin(xy @ w.T + ph.astype(xy.dtype)).sum(axis=-1) / np.sqrt(k)
        return np.clip(1.0 + 0.6 * self.smudge * f, 0.15, 2.0)

    def tilted(self, normal: np.ndarray, key: np.ndarray) -> np.ndarray:
        """``normal`` leaned by up to ``tilt_deg`` in a direction drawn from ``key`` (a piece's
        centre): every face of a piece leans the same way."""
        if self.tilt_deg <= 0:
            return normal
        rng = np.random.default_rng([self.seed, *(np.abs(np.round(key * 10.0)).astype(np.int64) % (2**31))])
        t = math.radians(self.tilt_deg) * math.sqrt(rng.random())
        a = rng.uniform(0, 2 * math.pi)
        n = normal + math.tan(t) * np.array([math.cos(a), math.sin(a), 0.0])
        return n / np.linalg.norm(n)

    @property
    def glossy(self) -> bool:
        return self.f0 > 0


MATTE = Material()
WATER = Material(0.04, 0.02)


def materials(gloss: Gloss | None) -> dict[str, Material]:
    """The photo's materials by name: "coat" (the laminated print of board, tiles and cards),
    "plastic" (pillars, decorations), "skin", "matte" (cut cardboard), "water"."""
    g = gloss or Gloss()
    return {
        "coat": Material(g.coat_roughness, g.coat_f0, g.smudge, g.tile_tilt_deg, g.seed),
        "plastic": Material(g.plastic_roughness, g.plastic_f0),
        "skin": Material(0.45, 0.028 if g.plastic_f0 > 0 else 0.0),
        "matte": MATTE,
        "water": WATER if g.plastic_f0 > 0 else MATTE,
    }
