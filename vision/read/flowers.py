"""Stage 5: flower colours, of each tile (its band) and of the board (its emblem's petals).

Colours are compared in CIE Lab after the photo has been white-balanced on the board's own sand
(:func:`vision.read.views.board_gain`), so a warm lamp or a dark exposure does not move them, and
then, for the bands, on the tiles' own plaques (:func:`vision.read.views.print_gain`: the tiles may
stand in another light than the board's margin); the references are the profile's flower colours, so
a calibrated profile reads another edition.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.camera import Camera, in_image
from vision.profile import Profile, rgb
from vision.read.tilefit import OTHER_MIN, not_green


@dataclass(frozen=True)
class BandLab:
    """The photo in CIE Lab after a white balance, converted only where it is looked at: the bands
    are a few thousand pixels of a photo of millions."""

    bgr: np.ndarray  #: uint8 (H, W, 3), the photo as taken
    lut: np.ndarray  #: float32 (256, 3), each channel's balanced value in [0, 1]

    @property
    def shape(self) -> tuple[int, int]:
        return self.bgr.shape[:2]

    def at(self, v: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Lab (N, 3) of the pixels at rows ``v``, columns ``u``."""
        if len(v) == 0:
            return np.zeros((0, 3), np.float32)
        balanced = self.balanced(v, u)
        return cv2.cvtColor(balanced.reshape(-1, 1, 3), cv2.COLOR_BGR2Lab).reshape(-1, 3)

    def balanced(self, v: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Balanced BGR (N, 3, in 0..1) of the pixels at rows ``v``, columns ``u``."""
        return self.lut[self.bgr[v, u], np.arange(3)]

    def tinted(self, gain: np.ndarray) -> BandLab:
        """The same photo balanced further by ``gain`` (B, G, R)."""
        return BandLab(self.bgr, np.clip(self.lut * np.asarray(gain, np.float32)[None, :], 0.0, 1.0))


def flower_lab(profile: Profile) -> dict[str, np.ndarray]:
    out = {}
    for name, hx in profile.flowers.items():
        c = rgb(hx)[::-1].reshape(1, 1, 3).astype(np.float32)
        out[name] = cv2.cvtColor(c, cv2.COLOR_BGR2Lab).reshape(3)
    return out


MAX_FADE = 2.5  #: a band may show as little as 1 / this of its print's chroma (glare, a phone's processing)
#: a band sample greener than this (Lab a*, the band's balance) may be the garden green beside the band
#: (about -30); every flower's print is above it. Asked of the samples the edge search's green map
#: takes for green only where too few are left without them: that map's balance (the tiles') can
#: tint a white band green (development 47031: every white band's sample left out, its flower read
#: on a fountain's water standing over it). Asked of every band, it read 41089's and 42095's white
#: bands blue and pink (with the own-plaque balance of that time), so the map's test stays first
BAND_GREEN_A = -8.0
NEUTRAL_CHROMA = 10.0  #: a flower printed with less chroma than this (Lab) is a neutral one (white)


def classify(lab_pixels: np.ndarray, profile: Profile) -> tuple[str, dict[str, float]]:
    """The flower of a band's pixels (Lab): :func:`classify_colour` of their :func:`band_colour`."""
    if not len(lab_pixels):
        return "", {}
    return classify_colour(band_colour(lab_pixels, profile), profile)


#: a band sample within this (Lab a b) of a colour of the board's print or a tile's path or edge
#: passes for that print: a ring sampled a hair off a tile mostly hidden lies past its edge. On the
#: 14,697 bands of the 1,500 development photos of seeds 41000-41099 and 42000-48199 (their samples as
#: read, classified again), these rules left 38 bands wrong of 52 (16 right now, 2 wrong now); with
#: PRINT_APART 20, 37 (20 and 5); with PRINT_NEAR 14, 37 (19 and 4); with PRINT_APART 30 and
#: PRINT_SHARE 0.2, 41 (12 and 1) ...
PRINT_NEAR = 12.0
#: ... and where such samples are this share of a band's or more, and as big a share at most of the
#: others, the two groups' medians this far apart (a b), the band is the others ...
PRINT_SHARE, PRINT_APART = 0.15, 25.0
#: ... but for those as light as this or lighter (Lab L): glare at the sensor's white tells no colour
#: (development 44083: a yellow band under glare, its paler samples passing for the sand, read from
#: the rest, glare and deep yellow, as white)
GLARE_L = 98.0


#: a band with this share of its samples below :data:`GLARE_L` or more is told by those alone: a glare
#: spot clips part of a band to the sensor's white, which tells no colour, and with it a pink band's
#: median came out nearly white (the lattice test photo of seed 41084: half its samples at the white,
#: the rest of chroma 17-34; its median 7 from white, the washed band's rule's reach 9)
LIT_SHARE = 1 / 3


def print_lab(profile: Profile) -> np.ndarray:
    """Lab (N, 3) of the colours printed round the bands: the board's sand, cells, gaps, recess, and the
    tiles' path and cut edges."""
    b, t = profile.board, profile.tile
    hexes = [b.colour, b.cell_colour, b.gap_colour, b.recess_colour, t.path_colour, t.edge_colour]
    bgr = np.array([rgb(h)[::-1] for h in hexes], np.float32).reshape(-1, 1, 3)
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab).reshape(-1, 3)


def band_colour(lab_pixels: np.ndarray, profile: Profile) -> np.ndarray:
    """A band's colour: the median of its pixels (Lab), or, where they fall in two groups far apart,
    one of them passing for the print round the band (:data:`PRINT_SHARE`), the median of the other
    (glare left out: :data:`GLARE_L`).
    A tile mostly hidden, its placement a millimetre or two off, has its rings on the board past its
    edge on one side: mixed half and half, a blue band and the sand have a median of little chroma,
    read white (development 47139). Samples at the sensor's white are left out first where enough are
    left (:data:`LIT_SHARE`)."""
    px = lab_pixels.reshape(-1, 3)
    below = px[:, 0] < GLARE_L
    if LIT_SHARE * len(px) <= below.sum() < len(px):
        px = px[below]
    median = np.median(px, axis=0)
    near = np.linalg.norm(px[:, None, 1:] - print_lab(profile)[None, :, 1:], axis=2).min(axis=1)
    printed = near < PRINT_NEAR
    share = float(printed.mean()) if len(px) else 0.0
    rest = ~printed & (px[:, 0] < GLARE_L)
    if not PRINT_SHARE <= share <= 1.0 - PRINT_SHARE or not rest.any():
        return median
    band = np.median(px[rest], axis=0)
    if np.linalg.norm(band[1:] - np.median(px[printed], axis=0)[1:]) < PRINT_APART:
        return median
    return band


def classify_colour(med: np.ndarray, profile: Profile) -> tuple[str, dict[str, float]]:
    """The flower whose colour is nearest to ``med`` (a band's median, Lab; chroma weighs twice the
    lightness), with a score per flower (0..1, softmax of the distances).

    Glare and a phone's processing wash a band out towards white: its hue stays, its chroma drops.
    So against a coloured flower the median's chroma is first raised towards that flower's (by up to
    :data:`MAX_FADE` times); against white it is taken as it is, and a white band, nearly without
    chroma, stays nearer white than any coloured flower raised that much."""
    refs = flower_lab(profile)
    chroma = float(np.hypot(med[1], med[2]))
    w = np.array([0.5, 1.0, 1.0])
    d = {}
    for n, r in refs.items():
        ref_chroma = float(np.hypot(r[1], r[2]))
        k = (
            1.0
            if ref_chroma < NEUTRAL_CHROMA or chroma < 1e-6
            else min(max(ref_chroma / chroma, 1.0), MAX_FADE)
        )
        d[n] = float(np.linalg.norm((np.array([med[0], med[1] * k, med[2] * k]) - r) * w))
    z = np.array([-v / 12.0 for v in d.values()])
    p = np.exp(z - z.max())
    p /= p.sum()
    scores = {n: float(pi) for n, pi in zip(d, p, strict=True)}
    return min(d, key=d.get), scores


#: a band as read: its flower, that flower's score, how many pixels it was seen by, its colour (Lab)
Band = tuple[str, float, int, np.ndarray]
#: the photo's own white: the median colour of the bands read white this surely (and seen on this many
#: pixels), from this many bands at least: one is enough (a band washed out is read white less surely,
#: and is not one of them; on the 400 development photos, asking two left 41140's and 42126's washed
#: blue bands white, the photo's one white tile beside them; one read 41169's pink band, white before,
#: blue: wrong either way)
WHITE_SURE, WHITE_PIXELS, WHITE_BANDS = 0.85, 100, 1
#: a band read white that stands this far (Lab chroma) from the photo's own white towards a flower
#: printed darker than white by WASHED_SHADE or more (blue, pink), within this angle of its hue, is that
#: flower washed out (glare, haze); measured for the blue (the first flower it was made for): on
#: development photos the white bands stood at most 8 that way from their photo's whites, the washed
#: blue ones 11-22; a white in a deep shadow takes a cool tint too, so a band darker than the whites by
#: more than WASHED_SHADE ...
WASHED_MIN, WASHED_ANGLE, WASHED_SHADE = 9.0, 35.0, 20.0
#: ... leans this many times WASHED_MIN at least: past the 20 towards the blue that such shadowed whites
#: were once measured at. On the 600 development photos of seeds 41000-43199 (5,820 bands), the 40 white
#: bands that dark leaned at most 8.8 towards the blue and 5.8 towards the pink; of the 3 washed bands
#: that dark left white, 42030's and 43033's blue (22.6, 25.5) are now read blue (43006's pink, 13,
#: stays white), and no band read rightly changed
WASHED_DARK = 2.3
#: WASHED_MIN is for a flower whose hue lies along the light's warm-cool axis (Lab b*), where a photo's
#: whites spread with the white balance and the shade (the blue); for one across it (the pink, along a*)
#: a band needs to lean only this far, and in between by the share of the flower's way along b*. On
#: the 200 development photos of seeds 56000-56199, the 502 bands read white that are white leaned at
#: most 4.2 towards the pink (within WASHED_ANGLE), and up to 8.2 towards the blue; the two washed pink
#: bands read white leaned 14 (56089, read pink) and 8.5 (56199, read white before)
WASHED_MIN_ACROSS = 6.0
WASHED_SCORE = 0.6  #: the score of a band so read (a doubt)


def neutral_flower(profile: Profile) -> str | None:
    """The flower printed without a hue (white), if the edition has one."""
    for name, r in flower_lab(profile).items():
        if float(np.hypot(r[1], r[2])) < NEUTRAL_CHROMA:
            return name
    return None


def photo_white(bands: Sequence[Band], neutral: str) -> np.ndarray | None:
    """The colour (Lab) white bands show in this photo, from every tile's ``bands`` (``neutral``: the
    white flower's name); None with too few sure white bands to tell."""
    sure = [c for f, s, n, c in bands if f == neutral and s >= WHITE_SURE and n >= WHITE_PIXELS]
    if len(sure) < WHITE_BANDS:
        return None
    return np.median(np.array(sure), axis=0)


def washed_bands(bands: Sequence[Band], profile: Profile) -> dict[int, str]:
    """Of every tile's ``bands``, those read white that show a coloured flower washed out once compared
    with the photo's own white (:func:`photo_white`) rather than the print's: glare or a haze pales a
    blue or pink band to a tinted white, which only the white bands of the same photo tell apart (see
    :data:`WASHED_MIN`). Their index, with that flower (the one they lean furthest towards). A flower
    printed nearly as light as white (within :data:`WASHED_SHADE`: a yellow) is left out: a white in a
    light shade takes its tint too, and the two cannot be told apart."""
    neutral = neutral_flower(profile)
    white = photo_white(bands, neutral) if neutral else None
    if white is None:
        return {}
    refs = flower_lab(profile)
    dark = {n: r for n, r in refs.items() if n != neutral and r[0] <= refs[neutral][0] - WASHED_SHADE}
    ways = {n: r[1:] - refs[neutral][1:] for n, r in dark.items()}
    ways = {n: w / np.linalg.norm(w) for n, w in ways.items()}
    out = {}
    for i, (flower, _, _, colour) in enumerate(bands):
        if flower != neutral:
            continue
        off = colour - white
        leans = {n: float(off[1:] @ w) for n, w in ways.items() if _leans(off, w)}
        if leans:
            out[i] = max(leans, key=leans.get)
    return out


def washed_min(way: np.ndarray) -> float:
    """How far (Lab chroma) a band read white must lean from its photo's white along ``way`` (a unit hue
    direction, a b) to be that flower washed out: :data:`WASHED_MIN` along b*, where the whites spread,
    :data:`WASHED_MIN_ACROSS` across it."""
    return WASHED_MIN_ACROSS + (WASHED_MIN - WASHED_MIN_ACROSS) * abs(float(way[1]))


def _leans(off: np.ndarray, way: np.ndarray) -> bool:
    """Whether a band ``off`` its photo's white (Lab) leans far enough along ``way`` (a unit hue
    direction, a b), near enough its hue: further when it is darker, as a shadow's white is."""
    along = float(off[1:] @ way)
    least = washed_min(way)
    if along < (WASHED_DARK * least if off[0] < -WASHED_SHADE else least):
        return False
    angle = np.degrees(np.arccos(np.clip(along / max(float(np.linalg.norm(off[1:])), 1e-9), -1.0, 1.0)))
    return bool(angle <= WASHED_ANGLE)


def band_pixels(
    lab: BandLab,
    green_map: np.ndarray,
    cam: Camera,
    profile: Profile,
    row: int,
    col: int,
    level: int,
    placement: tuple[float, ...],
    hidden: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Lab pixels (white-balanced photo) of the middle of a tile's 3 mm flower band, where it is seen,
    sampled once and kept two ways: past every sample ``green_map`` takes for garden green, and past
    only those the band's own balance shows green too (:data:`BAND_GREEN_A`, lenient)."""
    t = profile.tile
    cx, cy = profile.block_centre(row, col)
    cx, cy = cx + placement[0], cy + placement[1]
    th = np.radians(placement[2]) if len(placement) > 2 else 0.0
    half = t.size / 2
    rings = []
    for inset in (0.9, 1.5, 2.1):
        r = half - inset
        s = np.linspace(-r + 1.0, r - 1.0, 40)
        for ux, uy in (
            (s, np.full_like(s, -r)),
            (s, np.full_like(s, r)),
            (np.full_like(s, -r), s),
            (np.full_like(s, r), s),
        ):
            x = cx + ux * np.cos(th) - uy * np.sin(th)
            y = cy + ux * np.sin(th) + uy * np.cos(th)
            rings.append(np.column_stack([x, y]))
    xy = np.vstack(rings)
    uv = np.round(cam.project(np.column_stack([xy, np.full(len(xy), profile.tile_top_z(level))]))).astype(int)
    uv = uv[in_image(uv, lab.shape)]
    if hidden is not None:
        uv = uv[~hidden[uv[:, 1], uv[:, 0]].astype(bool)]
    px = lab.at(uv[:, 1], uv[:, 0])
    # leave out the garden green (a sample off the band) and deep shadow
    green = green_map[uv[:, 1], uv[:, 0]] <= OTHER_MIN
    lit = px[:, 0] > 25.0
    return px[~green & lit], px[~(green & (px[:, 1] < BAND_GREEN_A)) & lit]


def board_flower(
    image: np.ndarray, cam: Camera, profile: Profile, gain: np.ndarray
) -> tuple[str, dict[str, float]]:
    """The board's flower, from the petals of the emblem in the storage strip."""
    b = profile.board
    ex, ey = b.emblem_centre
    r0, r1 = b.emblem_centre_diameter / 2 + 1.5, b.emblem_diameter / 2 - 2.0
    rr, aa = np.meshgrid(np.linspace(r0, r1, 8), np.linspace(0, 2 * np.pi, 90, endpoint=False))
    xy = np.column_stack([ex + (rr * np.cos(aa)).ravel(), ey + (rr * np.sin(aa)).ravel(), np.zeros(rr.size)])
    uv = np.round(cam.project(xy)).astype(int)
    ok = in_image(uv, image.shape)
    px = (
        np.clip(image[uv[ok, 1], uv[ok, 0]].astype(np.float32) * gain, 0, 255)
        .astype(np.uint8)
        .reshape(-1, 1, 3)
    )
    lab = cv2.cvtColor(px.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab).reshape(-1, 3)
    # the petals are what is neither the emblem's dark green ground nor its shadows
    petals = lab[(not_green(px).reshape(-1) > OTHER_MIN) & (lab[:, 0] > 30.0)]
    if len(petals) < 10:
        return "", {}
    return classify(petals, profile)
