"""Photo conditions: everything about a photo except the garden itself (spec section 3).

:func:`sample_conditions` draws a :class:`PhotoConditions` from a seed, reproducibly. Each group
(camera, light, post, table, clutter, looks, optics, processing, geometry) draws from its own child
generator of ``numpy.random.SeedSequence(seed)``, so overriding one group leaves the others unchanged
(and a group added at the end leaves the earlier groups' draws as they were). The camera frames the
garden it is given (its actual top), else the tallest possible garden.

Conventions: board frame as in :mod:`vision.profile` (mm, x right, y towards the player, z up).
A light's azimuth is measured in the board plane from +x towards +y; ``Light.direction`` points
from the scene towards the light. Blur and motion lengths are in pixels *at 12 MP* (long side
4032); :mod:`vision.render.post` scales them to the actual image size. The ranges drawn from are
named in :mod:`vision.render.ranges`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from scoring.garden import GRID, SYMBOLS, Garden
from scoring.generate import MATERIAL_SYMBOLS
from vision.camera import Camera
from vision.profile import REFERENCE, Profile
from vision.render import ranges as rg
from vision.render.looks import KEY_SOFTNESS_DEG, NEUTRAL, Looks, log_uniform, sample_looks

REFERENCE_LONG_SIDE = rg.REFERENCE_LONG_SIDE  #: blur and motion lengths are given at this long side
ZONE_LEVELS = 5  #: the building zone's corners at the height of this many levels must stay in frame
FRAME_MARGIN = 0.02  #: ... with this margin, as a fraction of the image's short side
COMMON_SIZES = ((4032, 3024), (4000, 3000), (3264, 2448), (2048, 1536), (1600, 1200),
                (3840, 2160), (1920, 1080), (4032, 2268))


@dataclass(frozen=True)
class Light:
    """One key light plus ambient (sky/room fill)."""

    elevation_deg: float = 60.0  #: 35..85 above the horizon
    azimuth_deg: float = 0.0  #: 0..360, in the board plane from +x towards +y
    softness_deg: float = 4.0  #: penumbra angle: ~0.5 hard (sun, bare bulb) .. ~12 soft (window)
    ambient: float = 0.35  #: fraction of the illumination that is ambient, 0.20..0.60
    kelvin: float = 5500.0  #: colour temperature of the light, 2800..6500

    @property
    def direction(self) -> np.ndarray:
        """Unit vector in the board frame from the scene towards the light."""
        el, az = math.radians(self.elevation_deg), math.radians(self.azimuth_deg)
        return np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])


@dataclass(frozen=True)
class TableSpec:
    """A procedural table top (see :mod:`vision.render.table`). Colours are sRGB hex."""

    kind: str = "wood"  #: "wood" | "cloth" | "plain" | printed cloths: "stripes" | "checks" | "floral"
    colour_a: str = "#8A5A34"  #: base colour (wood: light wood; cloth: ground; plain: surface)
    colour_b: str = "#5A3418"  #: second colour (wood: grain/late wood; cloth: check stripes)
    seed: int = 0
    rotation_deg: float = 0.0  #: direction of planks / weave / print in the board plane
    plank_mm: float = 140.0  #: wood: plank width
    check_mm: float = 0.0  #: cloth: width of a check stripe, 0 = plain cloth
    texture: float = 1.0  #: contrast of the fine texture (grain, weave, mottling), 0.5..1.5
    colours: tuple[str, ...] = ()  #: printed cloths: the print's colours, the ground first
    motif_mm: float = 0.0  #: printed cloths: stripe or check band width, or the flowers' spacing
    gloss: float = 0.0  #: a varnished or laminated top: reflectance at normal incidence (0: matte)
    roughness: float = 0.2  #: ... and its GGX alpha (small: a sharp mirror image of the lamp)


@dataclass(frozen=True)
class ClutterItem:
    """A loose piece on the table beside the board, or a bigger thing around it (never scores)."""

    #: "pillar" | "decoration" | "tile" | "card" | "board" (another player's) | "box" | "pad" | "hand"
    kind: str
    x_mm: float  #: centre in the board frame, on the table (z = 0 is the board top; the table is
    y_mm: float  #: at z = -board thickness)
    angle_deg: float = 0.0  #: turn about the vertical (a lying pillar's axis direction)
    double: bool = False  #: pillar: double height
    lying: bool = False  #: pillar: lying on its side
    decoration: str = ""  #: decoration: statue | fountain | bridge | stairs | belvedere
    flower: str = ""  #: tile, board: flower colour name
    material: str = ""  #: tile: clay | granite | basalt
    face_up: bool = True  #: tile: garden side up; card: face up; hand: a right hand
    symbols: tuple[tuple[str | None, str | None], tuple[str | None, str | None]] | None = None
    radius_mm: float = 0.0  #: footprint radius used to keep items apart
    size_mm: tuple[float, float, float] = (0.0, 0.0, 0.0)  #: box, pad: w, d, h; hand: length, width, height
    colour: str = ""  #: box: the lid's colour; pad: the paper's; hand: the skin's
    tiles: tuple[tuple[int, int, str], ...] = ()  #: board: its level-1 tiles (row, col, flower)
    seed: int = 0  #: board, box, pad, hand: what is printed or written on it, its shape's details

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["symbols"] = [list(r) for r in self.symbols] if self.symbols else None
        return d


@dataclass(frozen=True)
class Optics:
    """The lens beyond the spec's k1 (all small; :mod:`vision.render.ranges` names the ranges). The
    defaults are an ideal lens."""

    k2: float = 0.0  #: second radial distortion term (the camera carries it too)
    principal_offset: tuple[float, float] = (0.0, 0.0)  #: principal point off centre, fractions of w, h
    #: lateral chromatic aberration: how far (px at 12 MP) red moves outwards against green at the
    #: frame's corner (blue moves the other way by 0.8 of it)
    chromatic_aberration_px: float = 0.0
    dof_px: float = 0.0  #: depth of field: blur sigma (px at 12 MP) per unit of |1 - focus / depth|
    focus_mm: float = 0.0  #: focus distance along the optical axis (0: the aim point's distance)


@dataclass(frozen=True)
class Processing:
    """What the phone's image processor does to the picture (the defaults: nothing)."""

    chroma_noise: float = 0.0  #: share of the noise that is colour noise (blotches), 0..0.75
    chroma_grain_px: float = 3.0  #: size of the colour-noise blotches (px at 12 MP)
    sharpen_amount: float = 0.0  #: unsharp mask: halos at edges
    sharpen_radius_px: float = 1.5
    denoise: float = 0.0  #: smearing of fine low-contrast texture, 0..1
    local_tone: float = 0.0  #: local tone mapping (the HDR look), 0..0.6
    jpeg_subsampling: str = "4:2:0"  #: "4:2:0" | "4:4:4" (JPEG and HEIC)


@dataclass(frozen=True)
class Geometry:
    """How the physical pieces depart from flat (mm; the defaults: perfectly flat, printed holes)."""

    board_warp_mm: float = 0.0  #: the board's middle raised over its edges (a pillow shape)
    tile_bow_mm: float = 0.0  #: the most a tile's middle is raised over its edges (each tile draws its own)
    hole_depth_mm: float = 0.0  #: the board's holes are recesses this deep (0: printed only)


@dataclass(frozen=True)
class PhotoConditions:
    seed: int
    camera: Camera  #: the final photo's camera (size, K, pose, k1)
    light: Light
    white_balance_kelvin: float  #: the camera's WB setting; the cast is light.kelvin vs this
    exposure_ev: float  #: -1..+1
    vignette: float  #: 0..0.30, gain = 1 - vignette (r / r_corner)^2
    noise_sigma: float  #: 0..4, in 1/255 of full scale
    blur_sigma: float  #: Gaussian sigma in px at 12 MP, 0..1.2
    motion_px: float  #: motion blur length in px at 12 MP, 0..5
    motion_angle_deg: float
    jpeg_quality: int  #: 70..95
    table: TableSpec
    clutter: tuple[ClutterItem, ...] = ()
    image_format: str = "jpeg"  #: "jpeg" | "heic" | "png" | "webp"
    exif_orientation: int = 1  #: 1 upright; 3, 6, 8: stored turned, the EXIF tag says how to show it
    hfov_deg: float = 70.0  #: field of view across the image's long side
    height_mm: float = 500.0  #: camera centre above the board surface
    tilt_deg: float = 0.0  #: optical axis from vertical
    tilt_azimuth_deg: float = 0.0  #: direction (board plane, from +x towards +y) the camera leans to
    roll_deg: float = 0.0  #: rotation of the board in the frame
    aim_mm: tuple[float, float] = (165.0, 135.0)  #: where the optical axis meets the board plane
    tries: int = 1  #: camera draws needed to fit the whole board in the frame
    framed_top_mm: float = 0.0  #: the height over the building zone kept in frame (the garden's top)
    optics: Optics = Optics()
    processing: Processing = Processing()
    geometry: Geometry = Geometry()
    looks: Looks = NEUTRAL  #: gloss, artwork, lamp, mixed light, photographer's shadow (vision.render.looks)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.name == "camera":
                d[f.name] = v.to_dict()
            elif f.name == "clutter":
                d[f.name] = [c.to_dict() for c in v]
            elif dataclasses.is_dataclass(v):
                d[f.name] = dataclasses.asdict(v)
            else:
                d[f.name] = list(v) if isinstance(v, tuple) else v
        return d


# ----------------------------------------------------------------------------------- sampling


def random_in_disc(rng: np.random.Generator, radius: float, scale: float = 1.0) -> tuple[float, float]:
    """A uniformly random point in the disc of ``radius`` (times ``scale``) around the origin: two
    draws, the radius then the angle."""
    r = radius * math.sqrt(rng.random()) * scale
    a = rng.uniform(0.0, 2 * math.pi)
    return r * math.cos(a), r * math.sin(a)


def _rngs(seed: int) -> dict[str, np.random.Generator]:
    # new groups go at the end: SeedSequence.spawn(n) children stay the same as n grows
    names = ("camera", "light", "post", "table", "clutter", "looks", "optics", "processing", "geometry")
    kids = np.random.SeedSequence(seed).spawn(len(names))
    return {n: np.random.default_rng(k) for n, k in zip(names, kids, strict=True)}


def _image_size(rng: np.random.Generator, ov: dict[str, Any]) -> tuple[int, int]:
    """(width, height): 4:3 or 16:9, landscape or portrait, long side 1200..4032."""
    aspect_43 = rng.random() < 0.6
    portrait = rng.random() < 0.3
    common = rng.random() < 0.4
    long_side = int(rng.integers(int(rg.LONG_SIDE_PX.lo), int(rg.LONG_SIDE_PX.hi) + 1))
    pick = int(rng.integers(len(COMMON_SIZES)))
    if "size" in ov:
        return int(ov["size"][0]), int(ov["size"][1])
    if "aspect" in ov:
        aspect_43 = ov["aspect"] == "4:3"
    portrait = ov.get("portrait", portrait)
    ratio = 4 / 3 if aspect_43 else 16 / 9
    if "megapixels" in ov:
        long_side = round(math.sqrt(float(ov["megapixels"]) * 1e6 * ratio))
    elif "long_side" in ov:
        long_side = int(ov["long_side"])
    elif common:
        cands = [s for s in COMMON_SIZES if abs(s[0] / s[1] - ratio) < 0.01]
        long_side = cands[pick % len(cands)][0]
    w, h = long_side, round(long_side / ratio)
    w, h = w - w % 2, h - h % 2
    return (h, w) if portrait else (w, h)


def zone_top_z(profile: Profile, levels: int = ZONE_LEVELS) -> float:
    """The height of the top tile of a garden ``levels`` high (default: the highest possible)."""
    return levels * profile.level_height


def tallest_piece_mm(profile: Profile) -> float:
    """How far the tallest decoration stands above the tile it is on."""
    d = profile.decoration
    return max(d.statue_height, d.belvedere_height, d.fountain_basin[2] + d.fountain_spout[1],
               d.bridge_rise + d.bridge_rail_lift)


def garden_top_mm(profile: Profile, top_level: int = ZONE_LEVELS, pieces_on_top: bool = True) -> float:
    """The height over the building zone that must stay in frame for a garden whose highest tile is on
    ``top_level``, with (or without) decorations standing on that level."""
    return zone_top_z(profile, top_level) + (tallest_piece_mm(profile) if pieces_on_top else 0.0)


def frame_top_mm(garden: Garden, profile: Profile = REFERENCE) -> float:
    """:func:`garden_top_mm` of an actual garden: its highest level, and whether pieces stand on it."""
    top = max((t.level for t in garden.tiles), default=0)
    on_top = any(lv == top for d in garden.decorations for _, lv in d.cell_levels)
    return garden_top_mm(profile, top, on_top)


def _check_points(profile: Profile, top_mm: float | None = None) -> np.ndarray:
    """Points that must be in frame: board corners (top and bottom face) and the building zone's
    corners at ``top_mm`` (default: a 5-level garden's top tile, :func:`zone_top_z`)."""
    b = profile.board
    top = b.corners
    bottom = top - [0, 0, b.thickness]
    ox, oy = b.grid_origin
    s = GRID * b.pitch
    zone = np.array([[ox, oy], [ox + s, oy], [ox + s, oy + s], [ox, oy + s]], dtype=np.float64)
    zone = np.column_stack([zone, np.full(4, zone_top_z(profile) if top_mm is None else top_mm)])
    return np.vstack([top, bottom, zone])


def board_in_frame(cam: Camera, profile: Profile = REFERENCE, margin: float = FRAME_MARGIN,
                   top_mm: float | None = None) -> bool:
    """Whether the whole board, and the garden on it up to ``top_mm`` (default: a 5-level garden's top
    tile), is inside the photo, with margin."""
    return _in_frame(cam, _check_points(profile, top_mm), margin)


def _in_frame(cam: Camera, pts: np.ndarray, margin: float) -> bool:
    if np.any(cam.to_camera(pts)[:, 2] <= 1.0):
        return False
    uv = cam.project(pts)
    m = margin * min(cam.width, cam.height)
    return bool(np.all((uv[:, 0] >= m) & (uv[:, 0] <= cam.width - 1 - m)
                       & (uv[:, 1] >= m) & (uv[:, 1] <= cam.height - 1 - m)))


def make_camera(
    size: tuple[int, int], hfov_deg: float, height_mm: float, tilt_deg: float, tilt_azimuth_deg: float,
    roll_deg: float, aim_mm: tuple[float, float], k1: float, k2: float = 0.0,
    principal_offset: tuple[float, float] = (0.0, 0.0),
) -> Camera:
    """A camera ``height_mm`` above the board, its optical axis meeting the board plane at ``aim_mm``,
    tilted ``tilt_deg`` from vertical; ``roll_deg`` turns the board in the frame. ``hfov_deg`` is
    across the image's long side; the principal point sits ``principal_offset`` (fractions of the
    width and height) off the image's centre."""
    w, h = size
    t, a = math.radians(tilt_deg), math.radians(tilt_azimuth_deg)
    axis = np.array([math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), -math.cos(t)])
    target = np.array([aim_mm[0], aim_mm[1], 0.0])
    eye = target - axis * (height_mm / math.cos(t))
    r = math.radians(roll_deg)
    up = np.array([math.cos(r), math.sin(r), 0.0])
    long_px = max(w, h)
    f = long_px / (2 * math.tan(math.radians(hfov_deg) / 2))
    hfov_w = math.degrees(2 * math.atan(w / (2 * f)))
    cam = Camera.look_at(eye, target, up, w, h, hfov_w, k1, k2)
    if principal_offset[0] or principal_offset[1]:
        dx, dy = principal_offset
        cam = dataclasses.replace(cam, cx=cam.cx + dx * w, cy=cam.cy + dy * h)
    return cam


MAX_CAMERA_TRIES = 4000
SIZE_REDRAW_TRIES = 25  #: a frame that has not fitted after this many draws is drawn again (aspect too)


def _sample_camera(
    rng: np.random.Generator, ov: dict[str, Any], profile: Profile, top_mm: float, optics: Optics
) -> dict[str, Any]:
    """Draw the camera: the height first, evenly over the spec's range; then the frame, the lens and the
    pose, redrawn until the whole board and the garden on it (up to ``top_mm``) are in frame. Close
    shots need a wide lens and the board along the frame, so at low heights those are what fits."""
    height = float(ov.get("height_mm", rg.HEIGHT_MM.draw(rng)))
    k1 = float(ov.get("k1", rg.K1.draw(rng)))
    centre = np.array([profile.board.width / 2, profile.board.depth / 2])
    pts = _check_points(profile, top_mm)
    for tries in range(1, MAX_CAMERA_TRIES + 1):
        if tries % SIZE_REDRAW_TRIES == 1:  # the frame and the lens; the aim and roll every try
            size = _image_size(rng, ov)
            hfov = float(ov.get("hfov_deg", rg.HFOV_DEG.draw(rng)))
            tilt = float(ov.get("tilt_deg", rg.TILT_DEG.draw(rng)))
            tilt_az = float(ov.get("tilt_azimuth_deg", rng.uniform(0.0, 360.0)))
        if tries % (20 * SIZE_REDRAW_TRIES) == 0 and "height_mm" not in ov:
            height = min(rg.HEIGHT_MM.hi, height + 10.0)  # rare: nothing fits this low
        roll = float(ov.get("roll_deg", rg.ROLL_DEG.draw(rng)))
        off = random_in_disc(rng, 60.0, max(0.2, 1.0 - (tries % SIZE_REDRAW_TRIES) / 12))
        aim = tuple(ov.get("aim_mm", centre + np.array(off)))
        cam = make_camera(size, hfov, height, tilt, tilt_az, roll, aim, k1, optics.k2,
                          optics.principal_offset)
        if _in_frame(cam, pts, FRAME_MARGIN):
            return dict(camera=cam, hfov_deg=hfov, height_mm=height, tilt_deg=tilt,
                        tilt_azimuth_deg=tilt_az, roll_deg=roll, aim_mm=(float(aim[0]), float(aim[1])),
                        tries=tries, framed_top_mm=top_mm)
    raise ValueError(f"no camera with the whole board in frame for overrides {sorted(ov)}")


def _sample_optics(rng: np.random.Generator) -> Optics:
    """The lens beyond k1: most phones' are close to ideal, some show more."""
    off = (rg.PRINCIPAL_POINT_OFFSET.draw(rng), rg.PRINCIPAL_POINT_OFFSET.draw(rng))
    k2 = rg.K2.draw(rng)
    ca = rg.CHROMATIC_ABERRATION_PX.draw(rng)
    dof = rg.DOF_PX.draw(rng) if rng.random() < 0.6 else 0.0
    return Optics(k2=k2, principal_offset=off, chromatic_aberration_px=ca, dof_px=dof)


def _sample_processing(rng: np.random.Generator) -> Processing:
    return Processing(
        chroma_noise=rg.CHROMA_NOISE.draw(rng),
        chroma_grain_px=rg.CHROMA_GRAIN_PX.draw(rng),
        sharpen_amount=rg.SHARPEN_AMOUNT.draw(rng),
        sharpen_radius_px=rg.SHARPEN_RADIUS_PX.draw(rng),
        denoise=rg.DENOISE.draw(rng),
        local_tone=rg.LOCAL_TONE.draw(rng) if rng.random() < 0.7 else 0.0,
        jpeg_subsampling=str(rng.choice(rg.JPEG_SUBSAMPLING, p=[0.6, 0.4])),
    )


def _sample_geometry(rng: np.random.Generator) -> Geometry:
    return Geometry(board_warp_mm=rg.BOARD_WARP_MM.draw(rng), tile_bow_mm=rg.TILE_BOW_MM.draw(rng),
                    hole_depth_mm=rg.HOLE_DEPTH_MM.draw(rng))


def sample_camera(seed: int, profile: Profile = REFERENCE, top_mm: float | None = None,
                  **overrides: Any) -> dict[str, Any]:
    """The camera fields of :func:`sample_conditions` (``camera``, ``height_mm``, ...) alone: the same
    draws, for a garden whose top is ``top_mm`` (default: the tallest possible garden's)."""
    rng = _rngs(seed)
    optics = _merge(_sample_optics(rng["optics"]), overrides.get("optics", {}))
    top = garden_top_mm(profile) if top_mm is None else float(top_mm)
    return _sample_camera(rng["camera"], {k: v for k, v in overrides.items() if k in CAMERA_KEYS}, profile,
                          top, optics)


def _sample_light(rng: np.random.Generator) -> Light:
    return Light(
        elevation_deg=rg.LIGHT_ELEVATION_DEG.draw(rng),
        azimuth_deg=rg.LIGHT_AZIMUTH_DEG.draw(rng),
        softness_deg=log_uniform(rng, KEY_SOFTNESS_DEG),
        ambient=rg.AMBIENT.draw(rng),
        kelvin=rg.WB_KELVIN.draw(rng),
    )


def _sample_post(rng: np.random.Generator, light_kelvin: float) -> dict[str, Any]:
    # auto white balance corrects part of the way towards the light; warm light stays a bit warm
    corr = rng.uniform(0.3, 1.0)
    wb = light_kelvin + (1.0 - corr) * (5200.0 - light_kelvin) + rng.normal(0.0, 250.0)
    blur_kind = rng.choice(3, p=[0.4, 0.4, 0.2])
    blur = rg.BLUR_SIGMA_PX.draw(rng)
    motion = float(rng.uniform(0.5, rg.MOTION_PX.hi))  # a shake shorter than half a pixel is no shake
    motion_angle = float(rng.uniform(0.0, 180.0))
    return dict(
        white_balance_kelvin=float(np.clip(wb, rg.WB_KELVIN.lo, rg.WB_KELVIN.hi)),
        exposure_ev=rg.EXPOSURE_EV.draw(rng),
        vignette=rg.VIGNETTE.draw(rng),
        noise_sigma=rg.NOISE_SIGMA.draw(rng),
        blur_sigma=blur if blur_kind == 1 else 0.0,
        motion_px=motion if blur_kind == 2 else 0.0,
        motion_angle_deg=motion_angle,
        jpeg_quality=int(rng.integers(int(rg.JPEG_QUALITY.lo), int(rg.JPEG_QUALITY.hi) + 1)),
        image_format=str(rng.choice(list(rg.IMAGE_FORMATS), p=[0.6, 0.15, 0.1, 0.15])),
        exif_orientation=int(rng.choice([1, 6, 8, 3], p=[0.7, 0.15, 0.1, 0.05])),
    )


WOODS = (("#B98A5A", "#8A5A32"), ("#8A5A34", "#5A3418"), ("#5C3A22", "#3A2212"), ("#A0703F", "#6E4420"),
         ("#C8A878", "#9C7A50"), ("#7A6A5A", "#55483C"), ("#6B3A26", "#42200F"), ("#D2B48A", "#A88458"))
CLOTHS = ("#23304F", "#2E5A3A", "#8A2A2A", "#C8BFAE", "#5A5A60", "#E8E4DA", "#3C6A8A", "#6A4A6A",
          "#B8A070")
PLAINS = ("#F0EEE8", "#DCD8D0", "#9A9A98", "#2A2A2C", "#E6DCC8", "#B8C4C8", "#5A4A3E")
#: strong colours of printed tablecloths (white, navy, red, yellow, green, blue, orange, purple, black,
#: pink, teal)
PRINTS = ("#F4F2EC", "#1E2A4A", "#B3262B", "#F0C419", "#2E7D4F", "#3B7DD8", "#E27A3F", "#7A3E8E",
          "#151515", "#EAB6C8", "#5FB8B4")
PRINTED_SHARE = 0.3  #: of tables: a printed tablecloth (stripes, many-coloured checks, florals)


def _sample_table(rng: np.random.Generator) -> TableSpec:
    kind = str(rng.choice(["wood", "cloth", "plain"], p=[0.5, 0.25, 0.25]))
    seed = int(rng.integers(0, 2**31 - 1))
    rot = float(rng.uniform(0.0, 180.0))
    tex = float(rng.uniform(0.6, 1.4))
    i, j = int(rng.integers(len(WOODS))), int(rng.integers(len(CLOTHS)))
    k = int(rng.integers(len(PLAINS)))
    checked = rng.random() < 0.35
    check = float(rng.uniform(8.0, 35.0))
    plank = float(rng.uniform(80.0, 220.0))
    if kind == "wood":
        spec = TableSpec("wood", WOODS[i][0], WOODS[i][1], seed, rot, plank, 0.0, tex)
    elif kind == "cloth":
        b = CLOTHS[(j + 1 + int(rng.integers(len(CLOTHS) - 1))) % len(CLOTHS)]
        spec = TableSpec("cloth", CLOTHS[j], b if checked else CLOTHS[j], seed, rot, 0.0,
                         check if checked else 0.0, tex)
    else:
        spec = TableSpec("plain", PLAINS[k], PLAINS[k], seed, rot, 0.0, 0.0, tex)
    # drawn after the above, so that a photo's wood, cloth or plain table stays what it was
    printed = rng.random() < PRINTED_SHARE
    pkind = str(rng.choice(["stripes", "checks", "floral"]))
    n = int(rng.integers(2, 5))
    cols = [PRINTS[int(c)] for c in rng.permutation(len(PRINTS))[:n]]
    if rng.random() < 0.5:  # a white or cream ground half the time: the highest contrast
        cols = [PRINTS[0]] + [c for c in cols if c != PRINTS[0]][: n - 1]
    motif = {"stripes": rng.uniform(6.0, 60.0), "checks": rng.uniform(5.0, 40.0),
             "floral": rng.uniform(25.0, 80.0)}[pkind]
    glossy = rng.random() < {"wood": 0.5, "plain": 0.6}.get(kind, 0.0)
    f0, rough = float(rng.uniform(0.02, 0.05)), float(math.exp(rng.uniform(math.log(0.03), math.log(0.35))))
    if printed:
        return TableSpec(pkind, cols[0], cols[1], seed, rot, 0.0, 0.0, tex, tuple(cols), float(motif))
    if glossy:
        return dataclasses.replace(spec, gloss=f0, roughness=rough)
    return spec


CLUTTER_DECORATIONS = ("statue", "fountain", "bridge", "stairs", "belvedere")
CLEARANCE_MM = 1.0  #: added to a loose piece's footprint radius


def decoration_radius(profile: Profile, kind: str) -> float:
    """How far a loose decoration reaches from its placement point (the circle around its footprint,
    as :func:`vision.render.scene` draws it), plus :data:`CLEARANCE_MM`."""
    d = profile.decoration
    r = {
        "statue": d.statue_base[0] / 2,
        "fountain": max(d.fountain_basin[:2]) / 2,
        "bridge": math.hypot(d.bridge_deck[0] / 2, d.bridge_deck[1] / 2),
        # a loose flight of stairs runs one printed cell from its placement point
        "stairs": math.hypot(profile.board.cell_print, d.stairs_width / 2),
        "belvedere": d.belvedere_base / math.sqrt(2),
    }[kind]
    return r + CLEARANCE_MM


def card_radius(profile: Profile) -> float:
    """How far a loose card reaches from its centre, plus :data:`CLEARANCE_MM`."""
    return math.hypot(*profile.card.size) / 2 + CLEARANCE_MM



def _clutter_item(rng: np.random.Generator, profile: Profile) -> ClutterItem:
    kind = str(rng.choice(["pillar", "decoration", "tile", "card"], p=[0.45, 0.25, 0.2, 0.1]))
    angle = float(rng.uniform(0.0, 360.0))
    if kind == "pillar":
        double, lying = bool(rng.random() < 0.4), bool(rng.random() < 0.5)
        hgt = profile.pillar.double_height if double else profile.pillar.single_height
        r = hgt / 2 + 2 if lying else profile.pillar.diameter / 2 + 2
        return ClutterItem("pillar", 0, 0, angle, double=double, lying=lying, radius_mm=r)
    if kind == "decoration":
        deco = str(rng.choice(list(CLUTTER_DECORATIONS)))
        return ClutterItem("decoration", 0, 0, angle, decoration=deco,
                           radius_mm=decoration_radius(profile, deco))
    if kind == "tile":
        material = str(rng.choice(list(MATERIAL_SYMBOLS)))
        fields = [None] * 4
        for i in rng.permutation(4)[: MATERIAL_SYMBOLS[material]]:
            fields[int(i)] = str(rng.choice(SYMBOLS))
        return ClutterItem("tile", 0, 0, angle, flower=str(rng.choice(list(profile.flowers))),
                           material=material, face_up=bool(rng.random() < 0.6),
                           symbols=((fields[0], fields[1]), (fields[2], fields[3])),
                           radius_mm=profile.tile.size / math.sqrt(2) + CLEARANCE_MM)
    return ClutterItem("card", 0, 0, angle, face_up=bool(rng.random() < 0.5), radius_mm=card_radius(profile))


def _dist_to_board(x: float, y: float, profile: Profile) -> float:
    dx = max(0.0 - x, 0.0, x - profile.board.width)
    dy = max(0.0 - y, 0.0, y - profile.board.depth)
    return math.hypot(dx, dy)


def _sample_clutter(rng: np.random.Generator, cam: Camera, profile: Profile) -> tuple[ClutterItem, ...]:
    """0..8 items within 250 mm of the board, clear of it and of each other, mostly in frame (some
    pushed against its edge); sometimes other players' boards, the game box, a score pad, hands."""
    n = int(rng.choice(9, p=[0.15, 0.1, 0.12, 0.14, 0.14, 0.12, 0.1, 0.07, 0.06]))
    items: list[ClutterItem] = []
    reach = 250.0
    for _ in range(n):
        item = _clutter_item(rng, profile)
        for _attempt in range(60):
            x = rng.uniform(-reach, profile.board.width + reach)
            y = rng.uniform(-reach, profile.board.depth + reach)
            d = _dist_to_board(x, y, profile)
            if d < item.radius_mm + 3 or d > reach:
                continue
            if any(math.hypot(x - o.x_mm, y - o.y_mm) < item.radius_mm + o.radius_mm + 3 for o in items):
                continue
            u, v = cam.project(np.array([[x, y, -profile.board.thickness]]))[0]
            inside = 0 <= u < cam.width and 0 <= v < cam.height
            if inside or rng.random() < 0.25:
                items.append(dataclasses.replace(item, x_mm=float(x), y_mm=float(y)))
                break
    from vision.render.extras import sample_extras  # it builds on ClutterItem

    # the bigger things come from a generator spawned off this one, so the loose pieces keep their draws
    return sample_extras(rng.spawn(1)[0], cam, profile, tuple(items))


def _merge(default: Any, value: Any) -> Any:
    """An override may be a whole dataclass or a dict of some of its fields (a field that is itself a
    dataclass may again be given as a dict of some of its fields)."""
    if not isinstance(value, dict):
        return value
    fields = {k: _merge(getattr(default, k), v) if dataclasses.is_dataclass(getattr(default, k, None))
              else v for k, v in value.items()}
    return dataclasses.replace(default, **fields)


CAMERA_KEYS = {"size", "megapixels", "long_side", "aspect", "portrait", "hfov_deg", "height_mm",
               "tilt_deg", "tilt_azimuth_deg", "roll_deg", "aim_mm", "k1"}
#: groups that may be overridden by a dict of some of their fields
GROUPS = ("light", "table", "looks", "optics", "processing", "geometry")


def sample_conditions(
    seed: int, profile: Profile = REFERENCE, garden: Garden | None = None, **overrides: Any
) -> PhotoConditions:
    """Draw the conditions of photo ``seed`` of ``garden`` (the camera frames the garden's actual top;
    None: the tallest possible garden). Overrides: any field of :class:`PhotoConditions` (the groups
    ``light``, ``table``, ``looks``, ``optics``, ``processing``, ``geometry`` also as a dict of some
    fields), or the camera drawing's inputs: ``size=(w, h)``, ``megapixels``, ``long_side``, ``aspect``
    ("4:3"/"16:9"), ``portrait``, ``hfov_deg``, ``height_mm``, ``tilt_deg``, ``tilt_azimuth_deg``,
    ``roll_deg``, ``aim_mm``, ``k1``. A ``camera`` override is used as is (then the camera-drawing keys
    and the optics' k2 and principal point are ignored)."""
    names = {f.name for f in dataclasses.fields(PhotoConditions)}
    unknown = set(overrides) - names - CAMERA_KEYS
    if unknown:
        raise TypeError(f"unknown overrides: {sorted(unknown)}")
    rng = _rngs(seed)
    optics = _merge(_sample_optics(rng["optics"]), overrides.get("optics", {}))
    top = garden_top_mm(profile) if garden is None else frame_top_mm(garden, profile)
    if "camera" in overrides:
        cam = overrides["camera"]
        cam_fields: dict[str, Any] = dict(camera=cam, hfov_deg=cam.long_side_fov_deg, tries=0,
                                          framed_top_mm=top)
        optics = dataclasses.replace(optics, k2=cam.k2, principal_offset=(
            (cam.cx - (cam.width - 1) / 2) / cam.width, (cam.cy - (cam.height - 1) / 2) / cam.height))
    else:
        cam_fields = _sample_camera(rng["camera"], {k: v for k, v in overrides.items() if k in CAMERA_KEYS},
                                    profile, top, optics)
    processing = _merge(_sample_processing(rng["processing"]), overrides.get("processing", {}))
    geometry = _merge(_sample_geometry(rng["geometry"]), overrides.get("geometry", {}))
    light = _merge(_sample_light(rng["light"]), overrides.get("light", {}))
    post = _sample_post(rng["post"], light.kelvin)
    table = _merge(_sample_table(rng["table"]), overrides.get("table", {}))
    clutter = _sample_clutter(rng["clutter"], cam_fields["camera"], profile)
    board_size = (profile.board.width, profile.board.depth)
    looks = sample_looks(rng["looks"], light, cam_fields["camera"], board_size)
    looks = _merge(looks, overrides.get("looks", {}))
    values: dict[str, Any] = dict(seed=seed, light=light, table=table, clutter=clutter, looks=looks, **post,
                                  **cam_fields, optics=optics, processing=processing, geometry=geometry)
    for k, v in overrides.items():
        if k in names and k not in GROUPS and k != "camera":
            values[k] = v
    values["clutter"] = tuple(values["clutter"])
    return PhotoConditions(**values)


# ------------------------------------------------------------------------------- render camera


def source_extent(cam: Camera) -> tuple[float, float]:
    """How far (px) beyond the frame's left/right and top/bottom edges the lens-distortion remap
    reads from the undistorted image: max over both sides of each axis."""
    w, h = cam.width, cam.height
    n = 256
    xs, ys = np.linspace(0, w - 1, n), np.linspace(0, h - 1, n)
    border = np.vstack([
        np.column_stack([xs, np.zeros(n)]), np.column_stack([xs, np.full(n, h - 1.0)]),
        np.column_stack([np.zeros(n), ys]), np.column_stack([np.full(n, w - 1.0), ys]),
    ])
    xu, yu = cam.undistort_normalised(border[:, 0], border[:, 1])
    u = xu * cam.fx + cam.cx
    v = yu * cam.fy + cam.cy
    mx = max(0.0, -u.min(), u.max() - (w - 1))
    my = max(0.0, -v.min(), v.max() - (h - 1))
    return mx, my


def render_margin(cond: PhotoConditions) -> tuple[int, int]:
    """Overscan (px each side, x and y) so that remap and blur never read outside the render."""
    mx, my = source_extent(cond.camera)
    s = max(cond.camera.width, cond.camera.height) / REFERENCE_LONG_SIDE
    blur = rg.BLUR_SIGMA_PX.hi if cond.optics.dof_px else cond.blur_sigma  # depth of field: up to the cap
    ca = abs(cond.optics.chromatic_aberration_px)
    pad = 3 + math.ceil(3 * blur * s + cond.motion_px * s / 2 + ca * s)
    return math.ceil(mx) + pad, math.ceil(my) + pad


def render_camera(cond: PhotoConditions) -> Camera:
    """The undistorted pinhole camera the rasterizer renders with: the photo camera's focal length
    and pose on a canvas enlarged by :func:`render_margin`, principal point shifted to match."""
    c = cond.camera
    mx, my = render_margin(cond)
    return Camera(c.width + 2 * mx, c.height + 2 * my, c.fx, c.fy, c.cx + mx, c.cy + my, c.R, c.t)
