"""Rectified views of the photo: the building zone seen on the plane of one level.

A view of level k resamples the photo (through the camera and its lens distortion) onto a regular
grid of board coordinates at height z = 22.5 k. A terrace tile on level k appears in that view as an
upright 58 mm square on its 2 x 2 block, whatever the camera; a tile on another level appears moved
and scaled by the parallax between the two planes. That is the plane sweep of :mod:`vision.read.tiles`.

Colours are first normalised on the board's own sand print (a von Kries gain per channel), so the
features below do not depend on white balance or exposure.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.camera import Camera, in_image
from vision.profile import Profile, rgb

MARGIN_MM = 10.0  #: the views reach this far beyond the building zone


@dataclass(frozen=True)
class Grid:
    """Board coordinates of a view: pixel (i, j) is at x = x0 + j / ppm, y = y0 + i / ppm."""

    x0: float
    y0: float
    ppm: float
    size: int

    def to_px(self, xy: np.ndarray) -> np.ndarray:
        return (np.asarray(xy, float) - [self.x0, self.y0]) * self.ppm

    def xy(self) -> tuple[np.ndarray, np.ndarray]:
        c = self.x0 + np.arange(self.size) / self.ppm
        r = self.y0 + np.arange(self.size) / self.ppm
        return np.meshgrid(c, r)


@dataclass
class LevelView:
    level: int
    z: float
    grid: Grid
    bgr: np.ndarray  #: float32 0..1, white-balanced on the board
    lab: np.ndarray  #: float32 Lab of ``bgr``
    green: np.ndarray  #: 0..1, how much each pixel looks like the tiles' garden green
    inside: np.ndarray  #: bool: the pixel's source is inside the photo


def zone_grid(profile: Profile, ppm: float) -> Grid:
    b = profile.board
    ox, oy = b.grid_origin
    span = 8 * b.pitch + 2 * MARGIN_MM
    return Grid(ox - MARGIN_MM, oy - MARGIN_MM, ppm, int(round(span * ppm)))


def sample_maps(cam: Camera, grid: Grid, z: float) -> tuple[np.ndarray, np.ndarray]:
    """cv2.remap maps from the grid at height z to the photo's (distorted) pixels."""
    X, Y = grid.xy()
    pts = np.column_stack([X.ravel(), Y.ravel(), np.full(X.size, z)])
    uv = cam.project(pts).astype(np.float32)
    return uv[:, 0].reshape(X.shape), uv[:, 1].reshape(X.shape)


def sand_colour(image: np.ndarray, cam: Camera, profile: Profile) -> np.ndarray | None:
    """The board's sand print as the photo shows it (B, G, R, 0..1): the median of the margin between
    the frame line and the building zone, which no tile covers; None when too little of it is in
    the photo."""
    b = profile.board
    ox, oy = b.grid_origin
    lo, hi = b.frame_width + 2.5, ox - 3.0
    W, D = b.width, b.depth
    pts = []
    for t in np.linspace(20, min(W, D) - 20, 24):
        for s in np.linspace(lo, hi, 3):
            pts += [(t, s), (s, t), (t, D - s)]
    xy = np.array(pts, float)
    uv = cam.project(np.column_stack([xy, np.zeros(len(xy))]))
    h, w = image.shape[:2]
    ok = (uv[:, 0] >= 0) & (uv[:, 0] < w - 1) & (uv[:, 1] >= 0) & (uv[:, 1] < h - 1)
    uv = np.round(uv[ok]).astype(int)
    if len(uv) < 10:
        return None
    px = image[uv[:, 1], uv[:, 0]].astype(np.float32) / 255.0
    return np.median(px, axis=0)


def _gain(sand: np.ndarray | None, profile: Profile) -> np.ndarray:
    if sand is None:
        return np.ones(3, np.float32)
    return (rgb(profile.board.colour)[::-1] / np.maximum(sand, 1e-3)).astype(np.float32)


def board_gain(image: np.ndarray, cam: Camera, profile: Profile) -> np.ndarray:
    """Per-channel gain (B, G, R) that brings the board's sand print to its nominal colour
    (:func:`sand_colour`)."""
    return _gain(sand_colour(image, cam, profile), profile)


#: a channel of the sand this near white (0..1) is compressed by the photo's highlight roll-off
SAND_KNEE = 0.94


def _at_knee(sand: np.ndarray | None) -> bool:
    """Whether a channel of the sand is at the knee (:data:`SAND_KNEE`)."""
    return sand is not None and bool((sand >= SAND_KNEE).any())


def _grey(gain: np.ndarray) -> np.ndarray:
    """A grey gain of ``gain``'s mean: the exposure kept, the white balance left as the photo's."""
    return np.full(3, gain.mean(), np.float32)


def tile_gain(image: np.ndarray, cam: Camera, profile: Profile) -> np.ndarray:
    """The gain the tiles' print (their edges and symbols) is balanced with: the board's
    (:func:`board_gain`), or, where the sand is nearly white in a channel, a grey one of the same mean.
    An over-exposed photo rolls the sand's brightest channel off towards white: measured too dark, that
    channel's gain comes out too high, and the tiles' pale green (red and blue near its green there)
    turns grey under it. The edge search only tells the garden green from the rest, which needs no white
    balance; the flower bands, which do, have their own gain (:func:`band_gain`). On 48 bright
    development photos (of 420): tiles found 86.8% -> 92.0%, flowers right 97.4% -> 97.0% of
    more tiles."""
    sand = sand_colour(image, cam, profile)
    gain = _gain(sand, profile)
    return _grey(gain) if _at_knee(sand) else gain


#: the white balances photos need lie near a line in log gains: a light warmer or cooler than the
#: camera's setting moves red's gain and blue's against each other (a colour temperature): fitted on 59
#: development photos (seeds 43000-43199, the 59 of the first 67 read whose sand was clear of the knee),
#: log(red gain / green gain) = LOCUS_SLOPE * log(blue gain / green gain) + LOCUS_OFFSET; on all 179
#: such photos of the 200 it holds within 0.046 (standard deviation; 0.14 at most; a fit of their own
#: gives a slope of -0.60), and the 21 at the knee measure red's gain 0.02-0.17 above it
LOCUS_SLOPE, LOCUS_OFFSET = -0.655, 0.013
#: ... which holds only while green and blue stand clear of the roll-off: below this (0..1). An
#: over-exposed photo (development 41105, +1 EV: the sand's green at 0.939, blue 0.859) has them
#: compressed too, and its pale blue bands read white under the cap
LOCUS_SHOULDER = 0.9


def band_gain(image: np.ndarray, cam: Camera, profile: Profile) -> np.ndarray:
    """The gain the flower bands are balanced with: the board's (:func:`board_gain`), except where the
    sand's red alone is at the knee (:data:`SAND_KNEE`): measured too dark there, red's gain comes out
    too high, and it is capped at the gain the blue and green gains predict along the line of white
    balances (:data:`LOCUS_SLOPE`); where green or blue is near the knee too (:data:`LOCUS_SHOULDER`),
    :func:`tile_gain`'s grey one. The bands need their hue, which the tiles' grey gain leaves as the
    light's: a photo with a strong tone curve (an S-curve pushes the sand's red to the knee) read white
    bands yellow under it. 100 development photos with an S-curve applied (benchmarks/robustness.py):
    bands right 864 -> 868 of 877; the 600 as taken: no band changed."""
    sand = sand_colour(image, cam, profile)
    gain = _gain(sand, profile)
    if not _at_knee(sand):
        return gain
    if (sand[:2] >= LOCUS_SHOULDER).any():
        return _grey(gain)
    red = gain[1] * np.exp(LOCUS_SLOPE * np.log(gain[0] / gain[1]) + LOCUS_OFFSET)
    return np.array([gain[0], gain[1], min(gain[2], red)], np.float32)


PLAQUE_RING_MM = (8.6, 9.4)  #: radii sampled on a plaque: outside its icon, inside its rim
MIN_PLAQUE_PX = 40  #: fewer plaque samples than this (the brighter half of them) leave the gain at 1
PLAQUE_HUE = 0.08  #: a plaque sample's chromaticity (r, g, b over their sum) is this near the cream's
CLIPPED = 0.97  #: a sample this bright in any channel (after the board's gain) has lost its hue
MAX_PRINT_TINT = 1.25  #: the tiles' print gain stays within 1 / this .. this of the board's, per channel
#: a print gain within this of 1 in a channel is left at 1 (the plaques' own print and the light's
#: spread across the board differ this much from photo to photo; a correction that small only narrowed
#: the margin of pale blue bands on the development photos)
PRINT_DEAD_ZONE = 0.03


def print_gain(
    image: np.ndarray,
    cam: Camera,
    profile: Profile,
    fields: list[tuple[int, int, int]],
    gain: np.ndarray,
) -> np.ndarray:
    """Per-channel gain (B, G, R), applied after ``gain`` (the board's), that brings the cream plaques
    of the tiles' ``fields`` ((row, col, level) of fields seen from above) to their nominal hue: the
    tiles are printed apart from the board, and a light mixed from lamps of two colours can tint the
    tiles standing in it unlike the board's margin (see :func:`plaque_gain`)."""
    uv = plaque_points(cam, profile, fields)
    uv = uv[in_image(uv, image.shape)]
    px = np.clip(image[uv[:, 1], uv[:, 0]].astype(np.float32) / 255.0 * gain, 0.0, 1.0)
    return plaque_gain(px, profile)


def plaque_points(cam: Camera, profile: Profile, fields: list[tuple[int, int, int]]) -> np.ndarray:
    """The pixels (N, 2, int) sampled on the plaques of ``fields`` ((row, col, level)): a ring each,
    outside the icon and inside the rim (:data:`PLAQUE_RING_MM`)."""
    if not fields:
        return np.zeros((0, 2), int)
    t = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    ring = np.vstack([np.column_stack([r * np.cos(t), r * np.sin(t)]) for r in PLAQUE_RING_MM])
    pts = []
    for row, col, level in fields:
        x, y = profile.cell_centre(row, col)
        z = np.full(len(ring), profile.tile_top_z(level))
        pts.append(np.column_stack([ring[:, 0] + x, ring[:, 1] + y, z]))
    return np.round(cam.project(np.vstack(pts))).astype(int)


def plaque_gain(px: np.ndarray, profile: Profile) -> np.ndarray:
    """The gain (B, G, R) that brings plaque samples ``px`` (N, 3, balanced BGR in 0..1) to the
    plaques' nominal hue. Only the hue changes (the gain's mean is 1); the brighter half of the samples
    near the cream's hue counts (not an icon's ink, a piece, a shadow); fewer than
    :data:`MIN_PLAQUE_PX` such samples leave it at 1."""
    target = rgb(profile.tile.plaque_colour)[::-1]
    px = px[near_cream(px, profile)]
    bright = px[px.sum(axis=1) >= np.median(px.sum(axis=1))] if len(px) else px
    if len(bright) < MIN_PLAQUE_PX:
        return np.ones(3, np.float32)
    g = target / np.maximum(np.median(bright, axis=0), 1e-3)
    g = np.clip(g / g.mean(), 1 / MAX_PRINT_TINT, MAX_PRINT_TINT) - 1.0
    g = 1.0 + np.sign(g) * np.maximum(np.abs(g) - PRINT_DEAD_ZONE, 0.0)
    return (g / g.mean()).astype(np.float32)


def near_cream(px: np.ndarray, profile: Profile) -> np.ndarray:
    """Which samples ``px`` (N, 3, balanced BGR in 0..1) are near the plaques' cream hue (not a
    fountain's water or a dome standing on a plaque) and not clipped."""
    target = rgb(profile.tile.plaque_colour)[::-1]
    hue = px / np.maximum(px.sum(axis=1, keepdims=True), 1e-3) - target / target.sum()
    return (np.abs(hue).max(axis=1) < PLAQUE_HUE) & (px.max(axis=1) < CLIPPED)


def greenness(lab: np.ndarray) -> np.ndarray:
    """0..1: the garden green has a* near -30 where every other print of the board and tiles has
    a* above -2 (white balance already normalised)."""
    return np.clip((-lab[..., 1] - 8.0) / 12.0, 0.0, 1.0)


def level_view(
    image: np.ndarray, cam: Camera, grid: Grid, level: int, profile: Profile, gain: np.ndarray
) -> LevelView:
    z = profile.tile_top_z(level)
    mx, my = sample_maps(cam, grid, z)
    h, w = image.shape[:2]
    inside = (mx >= 0) & (mx <= w - 1) & (my >= 0) & (my <= h - 1)
    src = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    bgr = np.clip(src.astype(np.float32) / 255.0 * gain, 0.0, 1.0)
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab)
    return LevelView(level, z, grid, bgr, lab, greenness(lab), inside)
