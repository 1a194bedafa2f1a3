"""The looks of a photo beyond the list of spec section 3: gloss, artwork variation, a lamp at a finite
distance, mixed light, the photographer's shadow.

Real photos show all of these and the reader must survive them, so every photo draws them from its
seed (the "looks" group of :func:`vision.render.conditions.sample_conditions`) and the truth records
them (``photo.looks``). :data:`NEUTRAL` switches them all off (tests that need plain pixels).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from vision.camera import Camera
from vision.render import ranges as rg
from vision.render.ranges import Range

if TYPE_CHECKING:
    from vision.render.conditions import Light

ICON_VARIANTS = 4  #: drawings of each symbol icon (:func:`vision.render.textures.draw_icon`)

# the ranges of the looks (not in the spec: the renderer's choice of how far real photos go)
KEY_SOFTNESS_DEG = Range(0.5, 12.0, "deg", "key light's angular size: hard to soft shadows (log-uniform)")
LAMP_DISTANCE_MM = Range(450.0, 1500.0, "mm", "a lamp's distance from the board centre, half the photos "
                         "(log-uniform; else a distant window or sun)")
FILL_KELVIN = Range(rg.WB_KELVIN.lo, rg.WB_KELVIN.hi, "K", "mixed light: the ambient fill's colour "
                    "temperature, half the photos, 1000 K or more from the key light's")
COAT_ROUGHNESS = Range(0.03, 0.45, "", "GGX alpha of the board's and tiles' laminate (log-uniform)")
COAT_F0 = Range(0.02, 0.05, "", "the laminate's reflectance (a fifth of the photos matte: 0.3 of it)")
PLASTIC_ROUGHNESS = Range(0.1, 0.5, "", "GGX alpha of the painted plastic pieces (log-uniform)")
PLASTIC_F0 = Range(0.03, 0.05, "", "the plastic pieces' reflectance")
TILE_TILT_DEG = Range(0.0, 1.5, "deg", "how far each tile's coat leans (tiles never lie flat)")
SMUDGE = Range(0.0, 0.8, "", "how much the shine varies over the surface")
STROKE_MM = Range(-0.25, 0.45, "mm", "icons' strokes lighter or bolder")
INK_GAIN = Range(0.92, 1.08, "", "print colours: per-channel gain")
SATURATION = Range(0.85, 1.15, "", "print colours: saturation")
MOTTLE = Range(0.4, 2.5, "", "cardboard mottling, times the reference's (log-uniform)")
MISREGISTRATION_MM = Range(0.0, 0.3, "mm", "colour plates off register")
WEAR = Range(0.0, 1.0, "", "worn edges and scuffs")
PHOTOGRAPHER_SHADOW = 0.25  #: share of the photos with the phone's or photographer's shadow
LOOKS = (KEY_SOFTNESS_DEG, LAMP_DISTANCE_MM, FILL_KELVIN, COAT_ROUGHNESS, COAT_F0, PLASTIC_ROUGHNESS,
         PLASTIC_F0, TILE_TILT_DEG, SMUDGE, STROKE_MM, INK_GAIN, SATURATION, MOTTLE, MISREGISTRATION_MM, WEAR)


@dataclass(frozen=True)
class Gloss:
    """Specular reflection (GGX microfacets): ``roughness`` is the GGX alpha (small: a mirror-like
    glare spot of the key light; large: a broad sheen), ``f0`` the reflectance at normal incidence
    (0: matte)."""

    coat_roughness: float = 0.25  #: the laminated print of the board and the tiles
    coat_f0: float = 0.0
    plastic_roughness: float = 0.3  #: the painted plastic pieces (pillars, decorations)
    plastic_f0: float = 0.0
    tile_tilt_deg: float = 0.0  #: tiles never lie quite flat: each tile's coat leans by up to this
    smudge: float = 0.0  #: 0..1: how much the coat's shine varies over the surface (fingerprints, wear)
    seed: int = 0  #: where the shine varies and which way each tile leans


@dataclass(frozen=True)
class Artwork:
    """How this copy of the game is printed: which drawing of each icon, how heavy its strokes, the
    inks' colour, the cardboard's mottling, the plates' misregistration, wear."""

    statue: int = 0  #: drawing of each icon, 0 .. ICON_VARIANTS - 1 (0: the one of spec 2.3's figures)
    fountain: int = 0
    bridge: int = 0
    stairs: int = 0
    stroke_mm: float = 0.0  #: icons' outlines pushed out (> 0, bolder) or in (< 0, lighter) by this
    ink_gain: tuple[float, float, float] = (1.0, 1.0, 1.0)  #: per-channel gain of the printed colours
    saturation: float = 1.0  #: of the printed colours
    mottle: float = 1.0  #: factor on the cardboard's mottling
    #: offsets (dx, dy) in mm of the green and blue colour plates against the red one
    misregistration_mm: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    wear: float = 0.0  #: 0 new .. 1 much played: lighter worn edges, scuffs
    seed: int = 0  #: where the wear and scuffs fall

    def icon(self, kind: str) -> int:
        """The drawing used for ``kind`` (0 for a kind without variants)."""
        return int(getattr(self, kind, 0))


@dataclass(frozen=True)
class Occluder:
    """The soft shadow of the phone or the photographer: a rounded shape held ``height_mm`` above the
    board that blocks the key light; its shadow's edge softens with the light's size."""

    kind: str  #: "phone" | "person"
    x_mm: float  #: centre of the shape (board frame, at height_mm)
    y_mm: float
    height_mm: float
    half_width_mm: float  #: half-axes of the shape
    half_length_mm: float
    angle_deg: float
    roundness: float  #: superellipse exponent: 2 an ellipse, 4 a rounded rectangle
    edge_mm: float  #: the shape's own soft rim (hair, fingers, blur of a near object)


@dataclass(frozen=True)
class Looks:
    gloss: Gloss = field(default_factory=Gloss)
    artwork: Artwork = field(default_factory=Artwork)
    #: the key light's distance from the board centre, mm (a lamp: brightness falls off across the
    #: board and shadows diverge); 0: a distant light (window, sun)
    lamp_distance_mm: float = 0.0
    #: colour temperature of the ambient fill; 0: the key light's (mixed light when they differ)
    fill_kelvin: float = 0.0
    occluder: Occluder | None = None


NEUTRAL = Looks()  #: no gloss, the reference artwork, a distant key light, no mixed light, no shadow


def log_uniform(rng: np.random.Generator, r: Range) -> float:
    """A draw from ``r``, uniform in the logarithm."""
    return float(math.exp(rng.uniform(math.log(r.lo), math.log(r.hi))))


def sample_gloss(rng: np.random.Generator) -> Gloss:
    finish = rng.random()
    rough = log_uniform(rng, COAT_ROUGHNESS)
    f0 = COAT_F0.draw(rng)
    matte = finish < 0.2  # a matte-laminated print: a faint broad sheen only
    return Gloss(
        coat_roughness=max(rough, 0.35) if matte else rough,
        coat_f0=float(f0 * (0.3 if matte else 1.0)),
        plastic_roughness=log_uniform(rng, PLASTIC_ROUGHNESS),
        plastic_f0=PLASTIC_F0.draw(rng),
        tile_tilt_deg=TILE_TILT_DEG.draw(rng),
        smudge=SMUDGE.draw(rng),
        seed=int(rng.integers(0, 2**31 - 1)),
    )


def sample_artwork(rng: np.random.Generator) -> Artwork:
    icons = [int(v) for v in rng.integers(0, ICON_VARIANTS, 4)]
    stroke = STROKE_MM.draw(rng)
    gain = np.exp(np.clip(rng.normal(0.0, 0.035, 3), math.log(INK_GAIN.lo), math.log(INK_GAIN.hi)))
    sat = SATURATION.draw(rng)
    mottle = log_uniform(rng, MOTTLE)
    reg = MISREGISTRATION_MM.draw(rng)
    ang = rng.uniform(0.0, 2 * math.pi, 2)
    mis = (reg * math.cos(ang[0]), reg * math.sin(ang[0]), 0.7 * reg * math.cos(ang[1]),
           0.7 * reg * math.sin(ang[1]))
    wear = float(rng.uniform(WEAR.lo, 0.15) if rng.random() < 0.4 else rng.uniform(0.1, WEAR.hi))
    return Artwork(*icons, stroke_mm=stroke, ink_gain=tuple(float(g) for g in gain), saturation=sat,
                   mottle=mottle, misregistration_mm=tuple(float(m) for m in mis), wear=wear,
                   seed=int(rng.integers(0, 2**31 - 1)))


def lamp_position(light: Light, distance_mm: float, centre: np.ndarray) -> np.ndarray | None:
    """Where a lamp ``distance_mm`` from ``centre`` in the light's direction stands; None for a
    distant light."""
    if distance_mm <= 0:
        return None
    return np.asarray(centre, float) + light.direction * distance_mm


def sample_occluder(
    rng: np.random.Generator, light: Light, lamp: np.ndarray | None, cam: Camera,
    board_size: tuple[float, float],
) -> Occluder | None:
    """A phone or a person between the key light and the board, above the camera (so never in the
    frame), placed so that its shadow falls on part of the board; None when the light stands too
    low for that (a lamp below the photographer)."""
    phone = rng.random() < 0.4
    w, d = board_size
    target = np.array([rng.uniform(-0.1, 1.1) * w, rng.uniform(-0.1, 1.1) * d])
    cam_z = float(cam.position[2])
    height = cam_z + (rng.uniform(20.0, 80.0) if phone else rng.uniform(150.0, 500.0))
    if phone:
        hw, hl, rnd, edge = rng.uniform(34.0, 40.0), rng.uniform(70.0, 82.0), 4.0, rng.uniform(1.0, 6.0)
    else:
        hw, hl, rnd, edge = rng.uniform(90.0, 160.0), rng.uniform(150.0, 320.0), 2.0, rng.uniform(15.0, 60.0)
    angle = rng.uniform(0.0, 180.0)
    L = light.direction
    if lamp is None:
        xy = target + L[:2] / L[2] * height
    else:
        if lamp[2] < height + 100.0:
            return None
        xy = target + (lamp[:2] - target) * height / lamp[2]
    return Occluder("phone" if phone else "person", float(xy[0]), float(xy[1]), float(height), float(hw),
                    float(hl), float(angle), float(rnd), float(edge))


def sample_looks(
    rng: np.random.Generator, light: Light, cam: Camera, board_size: tuple[float, float]
) -> Looks:
    """Draw a photo's looks; ``light`` and ``cam`` are the photo's (the photographer's shadow needs
    both)."""
    gloss = sample_gloss(rng)
    art = sample_artwork(rng)
    lamp = rng.random() < 0.5
    dist = log_uniform(rng, LAMP_DISTANCE_MM)
    mixed = rng.random() < 0.5
    fill = FILL_KELVIN.draw(rng)
    if mixed and abs(fill - light.kelvin) < 1000.0:  # mixed light: at least 1000 K apart
        fill = light.kelvin + math.copysign(1000.0, fill - light.kelvin)
        if fill not in FILL_KELVIN:
            fill = light.kelvin - math.copysign(1000.0, fill - light.kelvin)
    shadow = rng.random() < PHOTOGRAPHER_SHADOW
    centre = np.array([board_size[0] / 2, board_size[1] / 2, 0.0])
    pos = lamp_position(light, dist, centre) if lamp else None
    occ = sample_occluder(rng, light, pos, cam, board_size)
    return Looks(gloss, art, dist if lamp else 0.0, fill if mixed else 0.0, occ if shadow else None)
