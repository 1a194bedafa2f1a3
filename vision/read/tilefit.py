"""A tile's height, measured: the sub-pixel fit of its printed green boundaries.

Every tile's garden green ends along straight lines at known places of the tile: the inner edge of
the 3 mm flower band on all four sides and the two edges of the 2 mm path cross. Those lines are
searched, across their direction, in the photo's green map at a dozen places each; the tile's pose
(height h above the board, shift and turn on its block) is then the least-squares fit of the lines
to the edge points found, through the camera. The height follows mostly from the tile's apparent
size (58 mm seen from a camera h closer) and from its parallax away from the point under the camera;
its uncertainty comes from the fit. Points the fit cannot use (hidden by a higher tile or a piece)
fall out through a robust loss.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import NamedTuple

import cv2
import numpy as np
from scipy.ndimage import maximum_filter1d, minimum_filter1d

from scoring.garden import GRID
from vision.camera import Camera, in_image, radial_distort_scale
from vision.profile import Profile, chroma, rgb, srgb_to_linear
from vision.read.board import cross2

SEARCH_MM = 3.5  #: how far across a line its edge is searched for
STEP_MM = 0.2


@dataclass(frozen=True)
class Edge:
    """A place on one of the tile's green boundaries, in tile coordinates (mm, origin at the tile's
    centre): the point, the unit normal pointing from green to not-green."""

    point: tuple[float, float]
    normal: tuple[float, float]


def tile_edges(profile: Profile) -> list[Edge]:
    t = profile.tile
    h = t.size / 2
    band = h - t.band_width  # the band's inner edge, from the centre
    p = t.path_width / 2  # the path's edges, from the centre
    along = (-h + 7.0, -h + 21.0, h - 21.0, h - 7.0)  # away from the plaques' tangents and the cross
    out: list[Edge] = []
    for a in along:
        out += [
            Edge((-band, a), (-1, 0)),
            Edge((band, a), (1, 0)),
            Edge((a, -band), (0, -1)),
            Edge((a, band), (0, 1)),
        ]
        out += [Edge((-p, a), (1, 0)), Edge((p, a), (-1, 0)), Edge((a, -p), (0, 1)), Edge((a, p), (0, -1))]
    return out


def _board_points(profile: Profile, row: int, col: int, pose: np.ndarray, local: np.ndarray) -> np.ndarray:
    """Tile-coordinate points (N, 2) -> board points (N, 3) for pose (h, dx, dy, turn in radians)."""
    h, dx, dy, th = pose
    cx, cy = profile.block_centre(row, col)
    c, s = np.cos(th), np.sin(th)
    x = cx + dx + local[:, 0] * c - local[:, 1] * s
    y = cy + dy + local[:, 0] * s + local[:, 1] * c
    return np.column_stack([x, y, np.full(len(local), h)])


GREEN_MAX = -20.0  #: ``not_green`` at or below this is the garden green
OTHER_MIN = -8.0  #: ... at or above this it is not
#: ... or at least this far above the green beside it: a pale print (an ivory band, the path's cream)
#: has so little colour that a tint of its sheet's ink, not the board's, turns it towards green (an
#: ivory band measured -24 beside a garden green of -80 once the photo was balanced on the board)
OTHER_STEP = 35.0
#: the colourfulness below which a pixel counts as grey (noise, a tint of the light, not a hue): this
#: share of its channels' sum, and never under :data:`CHROMA_MIN` (8-bit)
CHROMA_FLOOR = 0.12
CHROMA_MIN = 30.0


@dataclass(frozen=True)
class EdgeImage:
    """What the edge search reads: the photo white-balanced on the board, as ``not_green`` (to tell
    the garden green from everything else) and as linear light (where a blurred edge is a linear mix
    of the two colours it separates, so its halfway point is where the edge is).

    ``not_green`` is minus how much green outweighs red and blue, in percent of the pixel's
    colourfulness (its largest channel less its smallest): the garden green is about -56, and every
    other print of the board and the tiles, the flower bands included, is above zero. Glare adds
    white light to all three channels and a shadow scales them alike; neither changes the measure,
    so a washed-out or shaded field is as green as a lit one."""

    not_green: np.ndarray  #: float32 (H, W)
    linear: np.ndarray  #: float32 (H, W, 3)
    #: the chromaticity the tiles' path shows in this photo, once well-seen tiles tell it
    #: (:func:`with_print_path`); None: the print's own
    print_path: np.ndarray | None = None
    #: ``not_green`` of the photo less a glare spot's light (:func:`glare_spots`), where one was taken
    #: off: the green a block shows, that proposes a tile on it (:func:`vision.read.tiles.green_counts`).
    #: The edges are searched on ``not_green``: taken off, the blend of a pale band and the garden green
    #: beside it reads green, and a band's inner edge would move out
    deglared_green: np.ndarray | None = None
    glare: Glare | None = None  #: the glare spots taken off for ``deglared_green``

    @property
    def shape(self) -> tuple[int, int]:
        return self.not_green.shape

    @property
    def green_shown(self) -> np.ndarray:
        """The map that tells where the garden green shows, a glare spot's light taken off."""
        return self.not_green if self.deglared_green is None else self.deglared_green


_SRGB_TO_LINEAR = (lambda v: np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4))(
    np.arange(256) / 255.0
).astype(np.float32)


def edge_image(
    image: np.ndarray, gain: np.ndarray, blur: float = 0.8, glare: Glare | None = None
) -> EdgeImage:
    """An :class:`EdgeImage` of a BGR uint8 photo; ``gain`` is the board's white balance (B, G, R);
    ``glare`` (:func:`glare_spots`), where given, is taken off for :attr:`EdgeImage.deglared_green`."""
    # white balance on 8 bits through a table per channel, and linear light through another: the
    # photo is large
    lut = np.clip(np.arange(256)[:, None] * np.asarray(gain, float)[None, :3], 0, 255).astype(np.uint8)
    balanced = cv2.LUT(image, lut.reshape(256, 1, 3))
    deglared = None
    if glare is not None:
        bgr = cv2.subtract(image, cv2.merge([glare.light] * 3))
        bgr = cv2.transform(bgr, np.diag(gain[:3]).astype(np.float32))
        deglared = cv2.GaussianBlur(not_green(bgr), (0, 0), blur)
    return EdgeImage(
        cv2.GaussianBlur(not_green(balanced), (0, 0), blur),
        cv2.GaussianBlur(cv2.LUT(balanced, _SRGB_TO_LINEAR.reshape(256, 1)), (0, 0), blur),
        deglared_green=deglared,
        glare=glare,
    )


#: the glare floor is the darkest round each place over this share of the photo's long side (about
#: two thirds of a field in most photos), measured on an image this many times smaller
GLARE_WINDOW = 1 / 68
GLARE_STEP = 4
#: a place is glared where its floor stands this far (8-bit) above the building zone's median floor,
#: fully so this much further up
GLARE_MARGIN = 20.0
GLARE_RAMP = 40.0


def glare_floor(image: np.ndarray) -> np.ndarray:
    """uint8 (H, W): the darkest channel of the darkest pixel round each place (:data:`GLARE_WINDOW`),
    smoothed. Beside an icon's ink, a hole or a shadow it is near zero; over a field washed out by the
    key light's reflection, with nothing dark near, it is that field's own darkest channel."""
    h, w = image.shape[:2]
    darkest = cv2.min(cv2.min(image[..., 0], image[..., 1]), image[..., 2])
    step = GLARE_STEP
    small = cv2.erode(darkest, cv2.getStructuringElement(cv2.MORPH_RECT, (step, step)))[::step, ::step]
    win = max(3, int(round(max(h, w) * GLARE_WINDOW / step)) | 1)
    small = cv2.erode(small, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (win, win)))
    small = cv2.GaussianBlur(small, (0, 0), win / 2)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


@dataclass(frozen=True)
class Glare:
    """The glare spots of a photo (:func:`glare_spots`): the key light's reflection on the board and the
    tiles, white light added to every channel alike."""

    floor: np.ndarray  #: uint8 (H, W), :func:`glare_floor`
    share: np.ndarray  #: float32 (H, W), 0..1: how surely each place is in a spot (0 outside any)

    @cached_property  # the edge image is made twice on some photos (pipeline.edge_image)
    def light(self) -> np.ndarray:
        """uint8 (H, W): what to take off each pixel before the garden green it shows is measured: the
        floor where it stands in a spot, nothing elsewhere. The camera's tone curve leaves glare grey,
        not the light's colour, so the white balance turns a glared field to the inverse of the board's
        cast (under a warm light a glared green went orange), and the colourfulness floor of
        :func:`not_green` grows with the glare's brightness; taken off before either, a glared field
        keeps the garden's hue."""
        return (self.floor * self.share).astype(np.uint8)


def glare_spots(image: np.ndarray, cam: Camera, profile: Profile) -> Glare | None:
    """Where ``image`` is washed out by glare: where its :func:`glare_floor` stands well above the
    building zone's median (:data:`GLARE_MARGIN`, fully so :data:`GLARE_RAMP` further up); None where
    no place is glared."""
    floor = glare_floor(image)
    uv = zone_pixels(cam, profile, image.shape[:2])
    if uv is None:
        return None
    base = float(np.median(floor[uv[:, 1], uv[:, 0]])) + GLARE_MARGIN
    if floor.max() <= base:
        return None
    share = np.clip((floor.astype(np.float32) - base) / GLARE_RAMP, 0.0, 1.0)
    return Glare(floor, share)


def not_green(bgr: np.ndarray) -> np.ndarray:
    """See :class:`EdgeImage`: -100 (G - max(R, B)) / (max(R, G, B) - min(R, G, B)) of a white-balanced
    uint8 BGR image (the colourfulness floored at :data:`CHROMA_FLOOR` of the pixel's sum, so that grey
    and white pixels with a tint or noise stay near zero)."""
    b8, g8, r8 = cv2.split(bgr)  # the extremes and the sum on integers (exact), the ratio in float
    rb8 = cv2.max(r8, b8)
    spread = cv2.subtract(cv2.max(g8, rb8), cv2.min(g8, cv2.min(r8, b8)))
    total = cv2.add(cv2.add(b8, g8, dtype=cv2.CV_16U), r8, dtype=cv2.CV_16U)
    den = total.astype(np.float32)
    den *= np.float32(CHROMA_FLOOR)
    np.maximum(den, np.float32(CHROMA_MIN), out=den)
    np.maximum(den, spread.astype(np.float32), out=den)
    lead = cv2.subtract(g8, rb8, dtype=cv2.CV_16S).astype(np.float32)
    lead *= np.float32(-100.0)
    return np.divide(lead, den, out=lead)


#: ``not_green`` of the garden green in most photos balanced on the board (the spec's print under
#: white light), and the share of it that a photo's green must reach before it is taken as washed out:
#: a look, a print or a light that leaves the green nearer the board's sand (half as green and less)
GREEN_TYPICAL = -55.0
WEAK_GREEN = 0.5
NO_GREEN = -10.0  #: the greenest pixels over the building zone no greener than this: no green to scale


def garden_green(img: EdgeImage, cam: Camera, profile: Profile) -> float:
    """``not_green`` of the photo's garden green: the greenest 1% of the building zone, seen on the
    first level's plane (one tile's green covers 3% of the zone; nothing else on it is green)."""
    uv = zone_pixels(cam, profile, img.shape)
    if uv is None:
        return GREEN_TYPICAL
    return float(np.percentile(img.not_green[uv[:, 1], uv[:, 0]], 1))


def zone_pixels(cam: Camera, profile: Profile, shape: tuple[int, int]) -> np.ndarray | None:
    """The photo pixels (N, 2) of a grid of 80 x 80 points over the building zone on the first level's
    plane, those in the photo; None if fewer than 100 are."""
    b = profile.board
    ox, oy = b.grid_origin
    t = np.linspace(0.0, GRID * b.pitch, 80)
    x, y = np.meshgrid(ox + t, oy + t)
    z = np.full(x.size, profile.tile_top_z(1))
    uv = np.round(cam.project(np.column_stack([x.ravel(), y.ravel(), z])))
    ok = in_image(uv, shape)
    return uv[ok].astype(int) if ok.sum() >= 100 else None


def washed_out(level: float | np.ndarray) -> bool | np.ndarray:
    """Whether a garden green's ``not_green`` (a photo's, or each place's) is washed out: half the
    typical green or less (:data:`WEAK_GREEN`), but some green (:data:`NO_GREEN`)."""
    return (level < NO_GREEN) & (level > WEAK_GREEN * GREEN_TYPICAL)


def normalise_green(img: EdgeImage, cam: Camera, profile: Profile) -> EdgeImage:
    """``img`` with its ``not_green`` scaled so that a washed-out garden green (see :data:`WEAK_GREEN`)
    reads as green as a typical one: the thresholds of the edge search are set on the typical green.
    (:attr:`EdgeImage.deglared_green` likewise, on its own green.)"""
    level = garden_green(img, cam, profile)
    if washed_out(level):
        img = replace(img, not_green=img.not_green * np.float32(GREEN_TYPICAL / level))
    out = normalise_green_locally(img, cam.project(profile.board.corners))
    if img.deglared_green is None:
        return out
    deglared = normalise_green(replace(img, not_green=img.deglared_green, deglared_green=None), cam, profile)
    return replace(out, deglared_green=deglared.not_green)


LOCAL_STEP = 8  #: the local garden green is measured on an image this many times smaller ...
LOCAL_WINDOW = 1 / 10  #: ... as the greenest round each place, over this share of the photo's width


def normalise_green_locally(img: EdgeImage, board: np.ndarray) -> EdgeImage:
    """``img`` with its ``not_green`` scaled, place by place, where the greenest round a place is washed
    out (as :func:`normalise_green` does for the whole photo): a lamp lighting part of the garden
    brightly, its sheen and the camera's tone curve leave the green there a fraction of the green in
    the shade. The greenest round a place is that of its blocks of :data:`LOCAL_STEP` pixels, averaged.
    Only within ``board`` (the photo pixels of the board's corners): a table's own pale green (a
    cloth, a print) is not a tile's."""
    n = img.not_green
    small = cv2.resize(n, (n.shape[1] // LOCAL_STEP, n.shape[0] // LOCAL_STEP), interpolation=cv2.INTER_AREA)
    win = max(3, int(round(small.shape[1] * LOCAL_WINDOW)) | 1)
    greenest = cv2.erode(small, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (win, win)))
    inside = np.zeros(small.shape, np.uint8)
    cv2.fillConvexPoly(inside, np.round(board / LOCAL_STEP).astype(np.int32), 1)
    inside = inside.astype(bool)
    weak = washed_out(greenest) & inside
    if not weak.any():
        return img
    scale = np.ones(small.shape, np.float32)
    scale[weak] = GREEN_TYPICAL / greenest[weak]
    scale = np.where(inside, cv2.blur(scale, (win, win)), np.float32(1.0))
    scale = cv2.resize(scale, (n.shape[1], n.shape[0]), interpolation=cv2.INTER_LINEAR)
    return replace(img, not_green=n * scale)


ALONG_MM = (-0.8, 0.0, 0.8)  #: each edge is searched on three parallel lines, averaged against noise


@lru_cache(maxsize=8)
def _search_grid(edges: tuple[Edge, ...]) -> np.ndarray:
    """(edges, :data:`ALONG_MM`, steps, 2): the tile-coordinate points searched across each edge (the
    same for every tile and pose: made once)."""
    pts = np.array([e.point for e in edges], float)
    nrm = np.array([e.normal for e in edges], float)
    tan = np.column_stack([-nrm[:, 1], nrm[:, 0]])
    steps = np.arange(-SEARCH_MM, SEARCH_MM + 1e-9, STEP_MM)
    grid = (
        pts[:, None, None, :]
        + steps[None, None, :, None] * nrm[:, None, None, :]
        + np.array(ALONG_MM)[None, :, None, None] * tan[:, None, None, :]
    )
    grid.flags.writeable = False
    return grid


class Measured(NamedTuple):
    """The edges :func:`measure_many` found: their indices, their pixels and image unit normals; and where
    each searched edge's middle lies (the pixel whose being hidden drops the edge), found or not, and
    which of those middles the mask hid."""

    idx: np.ndarray
    px: np.ndarray
    normals: np.ndarray
    centres: np.ndarray  #: int (edges, 2)
    hidden: np.ndarray  #: bool (edges,)


def hidden_at(hidden: np.ndarray | None, px: np.ndarray) -> np.ndarray:
    """Whether each integer pixel (N, 2) is hidden by mask ``hidden`` (None: nothing is); pixels off the
    mask are not."""
    out = np.zeros(len(px), bool)
    if hidden is not None:
        inside = in_image(px, hidden.shape)
        out[inside] = hidden[px[inside, 1], px[inside, 0]]
    return out


def _project_on_tiles(
    cam: Camera, profile: Profile, blocks: Sequence[tuple[int, int]], poses: np.ndarray, local: np.ndarray
) -> np.ndarray:
    """The pixels (B * N, 2) of the same tile points (N, 2) on many tiles (blocks, poses (B, 4)), tile
    after tile: as ``cam.project`` of :func:`_board_points`, each tile's points through one 3 x 3 map
    (its plane's, after its placement) instead of through the board frame."""
    centre = np.array([profile.block_centre(r, c) for r, c in blocks], float).reshape(-1, 2)
    h, dx, dy, th = poses.T
    c, s = np.cos(th), np.sin(th)
    # tile (x, y, 1) -> board (x, y, 1) at height h -> camera frame: R [x, y, h] + t
    place = np.zeros((len(blocks), 3, 3))
    place[:, 0, 0], place[:, 0, 1], place[:, 0, 2] = c, -s, centre[:, 0] + dx
    place[:, 1, 0], place[:, 1, 1], place[:, 1, 2] = s, c, centre[:, 1] + dy
    place[:, 2, 2] = 1.0
    plane = np.repeat(cam.R[None].copy(), len(blocks), axis=0)
    plane[:, :, 2] = cam.R[:, 2] * h[:, None] + cam.t
    q = (plane @ place) @ np.vstack([local.T, np.ones(len(local))])  # (B, 3, N)
    x, y = q[:, 0] / q[:, 2], q[:, 1] / q[:, 2]
    if cam.distorted:
        scale = radial_distort_scale(x * x + y * y, cam.k1, cam.k2)
        x *= scale
        y *= scale
    out = np.empty((len(blocks), len(local), 2))  # (in place: these arrays are large)
    np.multiply(x, cam.fx, out=out[..., 0])
    np.multiply(y, cam.fy, out=out[..., 1])
    out[..., 0] += cam.cx
    out[..., 1] += cam.cy
    return out.reshape(-1, 2)


MAX_BATCH = 200  #: tiles searched in one go (OpenCV's remap takes maps of fewer than 32,767 rows)


def measure_many(
    img: EdgeImage,
    cam: Camera,
    profile: Profile,
    blocks: Sequence[tuple[int, int]],
    poses: np.ndarray,
    edges: list[Edge],
    hidden: Sequence[np.ndarray | None],
) -> list[Measured]:
    """Search each edge of many tiles (block, pose (B, 4) and mask each) across its direction around
    where the tile's pose puts it: the nearest place where the garden green (``not_green`` well below
    zero) gives way to another colour, on the inner side and the outer side as the edge's normal says.
    The edge is then placed where the linear-light colour is halfway between the two, so blur moves it
    to neither side. An edge whose middle is hidden by its tile's mask is not searched. The photo is
    sampled and the edges searched for all the tiles together."""
    if not blocks:
        return []
    if len(blocks) > MAX_BATCH:
        return [
            m
            for i in range(0, len(blocks), MAX_BATCH)
            for m in measure_many(
                img,
                cam,
                profile,
                blocks[i : i + MAX_BATCH],
                poses[i : i + MAX_BATCH],
                edges,
                hidden[i : i + MAX_BATCH],
            )
        ]
    local = _search_grid(tuple(edges))
    n_t = len(blocks)
    n_e, n_a, n_s = local.shape[:3]
    n_e_all = n_t * n_e  # the rows below are every tile's edges, tile after tile
    uv_all = _project_on_tiles(cam, profile, blocks, np.asarray(poses, float), local.reshape(-1, 2))
    uv_all = uv_all.reshape(n_e_all, n_a, n_s, 2)
    maps = uv_all.reshape(n_e_all * n_a, n_s, 2).astype(np.float32)
    prof = (
        cv2.remap(
            img.not_green,
            maps[..., 0],
            maps[..., 1],
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=np.nan,
        )
        .reshape(n_e_all, n_a, n_s)
        .mean(axis=1)
    )
    uv = uv_all[:, n_a // 2]
    near = int(round(1.2 / STEP_MM))  # the plateaus are looked for within this of a crossing
    mid = n_s // 2
    centres = np.round(uv[:, mid]).astype(int)
    hid = np.concatenate([hidden_at(h, centres[i * n_e : (i + 1) * n_e]) for i, h in enumerate(hidden)])
    ok_edge = ~np.isnan(prof).any(axis=1) & ~hid  # off the photo, or hidden
    p = np.nan_to_num(prof, nan=0.0)
    # green (the inner side, lower index) turning into not green (the outer side): the plateaus are the
    # greenest just before a crossing and the least green just after it
    g = minimum_filter1d(p, near + 1, axis=1, origin=near // 2, mode="nearest")
    o = maximum_filter1d(p, near + 1, axis=1, origin=-(near // 2), mode="nearest")
    half = (g + o) / 2
    cand = (
        (p[:, :-1] <= half[:, :-1])
        & (half[:, :-1] < p[:, 1:])
        & (g[:, :-1] <= GREEN_MAX)
        & (o[:, :-1] >= np.minimum(OTHER_MIN, g[:, :-1] + OTHER_STEP))
    )
    cand[:, 0] = False
    dist = np.where(cand, np.abs(np.arange(n_s - 1) - mid)[None, :], 10**6)
    k = np.argmin(dist, axis=1)
    hit = ok_edge & (dist[np.arange(n_e_all), k] < 10**6)
    idx = np.flatnonzero(hit)
    k = k[idx]
    # the two colours: the greenest before the crossing and the least green after it
    span = np.arange(-near, near + 1)
    cols = np.clip(k[:, None] + span[None, :], 0, n_s - 1)
    pa = p[idx[:, None], cols]
    # the linear light, only round the crossings found (n_hit, window, 3)
    lin = np.zeros((len(idx), len(span), 3), np.float32)
    if len(idx):
        around = uv_all[idx[:, None, None], np.arange(n_a)[None, :, None], cols[:, None, :]].astype(
            np.float32
        )
        lin = (
            cv2.remap(
                img.linear,
                around[..., 0].reshape(-1, len(span)),
                around[..., 1].reshape(-1, len(span)),
                cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_CONSTANT,
                borderValue=0,
            )
            .reshape(len(idx), n_a, len(span), 3)
            .mean(axis=1)
        )
    before, after = span <= 0, span >= 1
    rows = np.arange(len(idx))
    w_g = np.argmin(np.where(before, pa, np.inf), axis=1)
    w_o = np.argmax(np.where(after, pa, -np.inf), axis=1)
    i_g, i_o = cols[rows, w_g], cols[rows, w_o]
    c_g, c_o = lin[rows, w_g], lin[rows, w_o]
    d = c_o - c_g
    dd = np.maximum(np.sum(d * d, axis=1), 1e-8)
    frac = np.einsum("nsc,nc->ns", lin - c_g[:, None, :], d) / dd[:, None]
    # the first crossing of one half going outwards from the green plateau (between the two plateaus)
    n_w = len(span)
    j = np.arange(n_w)
    j0 = np.argmax(cols == i_g[:, None], axis=1)
    j1 = n_w - 1 - np.argmax((cols == i_o[:, None])[:, ::-1], axis=1)
    up = (
        (frac[:, :-1] < 0.5)
        & (frac[:, 1:] >= 0.5)
        & (j[None, :-1] >= j0[:, None])
        & (j[None, :-1] < j1[:, None])
    )
    has = up.any(axis=1)
    m = np.where(has, np.argmax(up, axis=1), near)  # without a clean crossing in linear light: the first one
    f0, f1 = frac[rows, m], frac[rows, np.minimum(m + 1, n_w - 1)]
    t_lin = (0.5 - f0) / np.maximum(f1 - f0, 1e-6)
    t_a = (half[idx, k] - p[idx, k]) / np.maximum(p[idx, np.minimum(k + 1, n_s - 1)] - p[idx, k], 1e-6)
    t = np.clip(np.where(has, t_lin, t_a), 0.0, 1.0)
    a0 = cols[rows, m]
    a1 = np.minimum(a0 + 1, n_s - 1)
    pos = uv[idx, a0] + t[:, None] * (uv[idx, a1] - uv[idx, a0])
    dvec = uv[idx, -1] - uv[idx, 0]
    nrm_img = dvec / np.maximum(np.linalg.norm(dvec, axis=1, keepdims=True), 1e-9)
    cut = np.searchsorted(idx, np.arange(1, n_t) * n_e)
    return [
        Measured(i - t * n_e, q, n, centres[t * n_e : (t + 1) * n_e], hid[t * n_e : (t + 1) * n_e])
        for t, (i, q, n) in enumerate(
            zip(np.split(idx, cut), np.split(pos, cut), np.split(nrm_img, cut), strict=True)
        )
    ]


@dataclass(frozen=True)
class LevelFit:
    """How well the tile's lines sit on one level's plane."""

    level: int
    cost: float  #: mean truncated squared residual (px^2) over the edge points found
    inliers: int  #: edge points within :data:`INLIER_PX`
    found: int
    pose: tuple[float, float, float, float]  #: h (mm), dx, dy (mm), turn (radians)
    residuals: np.ndarray
    edges: np.ndarray  #: the indices (into :func:`tile_edges`) of the edges found, as ``residuals``
    #: per round of the fit, the searched edges' middles and which of them were hidden (see :func:`refits`)
    probes: tuple[tuple[np.ndarray, np.ndarray], ...] = field(default=(), compare=False, repr=False)


INLIER_PX = 1.2
HEIGHT_SIGMA = 1.5  #: mm: how far a tile's fitted height may stray from its level's (a soft pull)
HEIGHT_SLACK = 5.0  #: mm: ... and no further (a level is 22.5 mm)
MIN_FOUND = 4  #: fewer edge points found than this is no fit at all
TRUNCATE_PX = 2.0


PRIOR_SIGMA = np.array([1.2, 1.2, np.radians(3.0)])  #: hand placement: dx, dy (mm), turn (radians)


def fit_undistorted(
    cam: Camera,
    profile: Profile,
    row: int,
    col: int,
    pose: np.ndarray,
    local: np.ndarray,
    uvu: np.ndarray,
    nrm: np.ndarray,
    free_height: bool = True,
    iters: int = 6,
    height_sigma: float | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Robust Gauss-Newton (Cauchy weights, 0.6 px) of the pose on the point-to-line residuals of
    edge pixels already lens-corrected (``uvu``: where a plane maps by a homography), with the
    Jacobian in closed form and a weak prior pulling the placement towards the block. The height is
    held fixed when ``free_height`` is false; when free, ``height_sigma``, if given, pulls it towards
    where it started. Returns (pose, residuals in px, the residuals' Jacobian)."""
    poses, res, jac = fit_undistorted_many(
        cam,
        profile,
        [(row, col)],
        np.asarray(pose, float)[None],
        [local],
        [uvu],
        [nrm],
        free_height,
        iters,
        height_sigma,
    )
    return poses[0], res[0], jac[0]


def fit_undistorted_many(
    cam: Camera | Sequence[Camera],
    profile: Profile,
    blocks: Sequence[tuple[int, int]],
    poses: np.ndarray,
    local: Sequence[np.ndarray],
    uvu: Sequence[np.ndarray],
    nrm: Sequence[np.ndarray],
    free_height: bool = True,
    iters: int = 6,
    height_sigma: float | None = None,
) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """:func:`fit_undistorted` of many tiles at once, each with its block, starting pose (B, 4) and
    points, seen by ``cam`` or by a camera of its own (a sequence, one per tile: the same tiles on
    several candidate cameras in one call); each stops when its own steps do. Returns (poses (B, 4),
    residuals and Jacobians per tile)."""
    free = [0, 1, 2, 3] if free_height else [1, 2, 3]
    n_t = len(blocks)
    counts = [len(q) for q in local]
    n = max(counts, default=0)
    valid = np.arange(n)[None, :] < np.array(counts)[:, None]  # the tiles' points, padded to one length

    def padded(arrays: Sequence[np.ndarray]) -> np.ndarray:
        out = np.zeros((n_t, n, 2))
        if n_t:
            out[valid] = np.concatenate(arrays)
        return out

    lq, uv_u, nm = padded(local), padded(uvu), padded(nrm)
    lx, ly = lq[..., 0], lq[..., 1]
    centre = np.array([profile.block_centre(r, c) for r, c in blocks], float).reshape(n_t, 2)
    poses = np.asarray(poses, float).copy()
    cams = [cam] if isinstance(cam, Camera) else list(cam)
    KR = np.stack([c.K @ c.R for c in cams])  #: (1 or B, 3, 3)
    Kt = np.stack([c.K @ c.t for c in cams])
    KRn = KR[:, None]  #: (1 or B, 1, 3, 3): a camera's matrix beside each of its tile's points
    prior_w = 1.0 / PRIOR_SIGMA**2

    def evaluate(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h, dx, dy, th = (p[:, i : i + 1] for i in range(4))
        c, s_ = np.cos(th), np.sin(th)
        x = (centre[:, :1] + dx) + (lx * c - ly * s_)
        y = (centre[:, 1:] + dy) + (lx * s_ + ly * c)
        q = x[..., None] * KRn[..., 0] + y[..., None] * KRn[..., 1] + (h * KR[:, :, 2] + Kt)[:, None, :]
        inv_z = 1.0 / q[..., 2]
        proj = q[..., :2] * inv_z[..., None]
        r = np.einsum("bij,bij->bi", uv_u - proj, nm) * valid
        # the derivative of proj along each board direction (x, y, up), along the normal:
        # (K R e)[:2] . n - (proj . n) (K R e)[2], over z
        pn = np.einsum("bij,bij->bi", proj, nm)
        dn = (nm @ KR[:, :2] - pn[..., None] * KRn[..., 2, :]) * inv_z[..., None]
        dxt, dyt = -lx * s_ - ly * c, lx * c - ly * s_
        J = np.empty((n_t, n, 4))
        J[..., 0] = -dn[..., 2]
        J[..., 1] = -dn[..., 0]
        J[..., 2] = -dn[..., 1]
        J[..., 3] = -(dn[..., 0] * dxt + dn[..., 1] * dyt)
        return r, J[..., free] * valid[..., None]

    # the priors: the placement towards the block's centre, the height (if held) towards where it started
    prior = np.array([1.0 / height_sigma**2 if height_sigma else 0.0, *prior_w])[free]
    towards = np.column_stack([poses[:, 0], np.zeros((n_t, 3))])[:, free]
    diag = np.diag_indices(len(free))
    step_scale = np.array([1, 1, 1, 100])[free]
    active = np.ones(n_t, bool)
    r, J = evaluate(poses)
    for _ in range(iters):
        w = 1.0 / (1.0 + (r / 0.6) ** 2)
        A = np.einsum("bni,bnj->bij", J, J * w[..., None])
        A[:, diag[0], diag[1]] += prior + 1e-9
        g = np.einsum("bni,bn->bi", J, w * r) + prior * (poses[:, free] - towards)
        try:
            delta = np.linalg.solve(A, -g[..., None])[..., 0]
        except np.linalg.LinAlgError:
            break
        delta[~active] = 0.0
        poses[:, free] += delta
        r, J = evaluate(poses)
        active &= np.max(np.abs(delta * step_scale), axis=1) >= 0.01
        if not active.any():
            break
    return poses, [r[i, :k] for i, k in enumerate(counts)], [J[i, :k] for i, k in enumerate(counts)]


def fit_level(
    img: EdgeImage,
    cam: Camera,
    profile: Profile,
    row: int,
    col: int,
    level: int,
    shift: tuple[float, float] = (0.0, 0.0),
    turn_deg: float = 0.0,
    hidden: np.ndarray | None = None,
    rounds: int = 2,
) -> LevelFit | None:
    """The tile on block (row, col) held on ``level``'s plane: its placement fitted to the edges
    found around where that plane puts them. None when too few edges are found."""
    return fit_levels(img, cam, profile, [(row, col, level)], [hidden], [(*shift, turn_deg)], rounds)[0]


def fit_levels(
    img: EdgeImage,
    cam: Camera,
    profile: Profile,
    tiles: Sequence[tuple[int, int, int]],
    hidden: Sequence[np.ndarray | None] | None = None,
    starts: Sequence[tuple[float, float, float]] | None = None,
    rounds: int = 2,
) -> list[LevelFit | None]:
    """:func:`fit_level` of many tiles (row, col, level) at once, each with its mask and its start
    (shift x, y in mm, turn in degrees; none: on its block): the edges of all are searched, and their
    poses fitted, together (a few calls instead of hundreds of small ones)."""
    edges = tile_edges(profile)
    pts = np.array([e.point for e in edges], float)
    hidden = list(hidden) if hidden is not None else [None] * len(tiles)
    starts = list(starts) if starts is not None else [(0.0, 0.0, 0.0)] * len(tiles)
    poses = np.array(
        [
            [profile.tile_top_z(k), sx, sy, np.radians(turn)]
            for (_, _, k), (sx, sy, turn) in zip(tiles, starts, strict=True)
        ],
        float,
    ).reshape(len(tiles), 4)
    level_z = poses[:, 0].copy()
    probes: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in tiles]
    found: dict[int, tuple[np.ndarray, np.ndarray]] = {}  #: per tile still fitted: (edges found, residuals)
    alive = list(range(len(tiles)))
    for _ in range(rounds):
        blocks = [tiles[i][:2] for i in alive]
        measured = measure_many(img, cam, profile, blocks, poses[alive], edges, [hidden[i] for i in alive])
        kept = []
        for i, m in zip(alive, measured, strict=True):
            probes[i].append((m.centres, m.hidden))
            if len(m.idx) >= MIN_FOUND:
                kept.append((i, m))
        alive = [i for i, _ in kept]
        if not alive:
            break
        # the edge pixels of all tiles lens-corrected at once (one call instead of one per tile)
        px = [m.px for _, m in kept]
        undistorted = np.split(cam.undistort_pixels(np.concatenate(px)), np.cumsum([len(q) for q in px])[:-1])
        # the height may move a little from the level's: the camera is not exact, boards warp, tiles bow
        fitted, res, _ = fit_undistorted_many(
            cam,
            profile,
            [tiles[i][:2] for i in alive],
            poses[alive],
            [pts[m.idx] for _, m in kept],
            undistorted,
            [m.normals for _, m in kept],
            height_sigma=HEIGHT_SIGMA,
        )
        fitted[:, 0] = np.clip(fitted[:, 0], level_z[alive] - HEIGHT_SLACK, level_z[alive] + HEIGHT_SLACK)
        poses[alive] = fitted
        found = {i: (m.idx, r) for (i, m), r in zip(kept, res, strict=True)}
    out: list[LevelFit | None] = [None] * len(tiles)
    for i in alive:
        idx, res_i = found[i]
        cost = float(np.mean(np.minimum(res_i**2, TRUNCATE_PX**2)))
        inliers = int(np.sum(np.abs(res_i) < INLIER_PX))
        level = tiles[i][2]
        out[i] = LevelFit(
            level, cost, inliers, len(idx), tuple(map(float, poses[i])), res_i, idx, tuple(probes[i])
        )
    return out


def fit_placed(img: EdgeImage, cam: Camera, profile: Profile, tiles: Sequence) -> list[LevelFit | None]:
    """:func:`fit_levels` of tiles read (objects with row, col, level and placement: dx, dy in mm, turn
    in degrees), each started where it was read."""
    return fit_levels(
        img, cam, profile, [(t.row, t.col, t.level) for t in tiles], None, [t.placement for t in tiles]
    )


def refits(fit: LevelFit, hidden: np.ndarray | None) -> bool:
    """Whether fitting ``fit``'s tile again (the same start) with mask ``hidden`` could give another fit:
    only if the mask hides some edge's middle that the fit's rounds searched and did not hide, or shows
    one they hid. The greedy solver fits a tile again each time a tile accepted near it hides more;
    most such changes miss the few pixels that decide."""
    return not fit.probes or any(not np.array_equal(hidden_at(hidden, c), was) for c, was in fit.probes)


SEPARABLE = 0.06  #: chromaticity distance below which a flower band cannot be told from the path
#: where a flower band is looked for, from the path's chromaticity towards the band's print: a pale
#: print, a phone's processing or a tinted light leave a band in the photo part of the way to its print
#: (on development photos, yellow bands of tiles mostly hidden stood a third to half of the way from
#: the path's colour as the photo shows it), while the path stays within a quarter of the way
BAND_REACH = 0.7


#: past a path edge, this far beyond the path the tile's next field is green; past a band edge, this far
#: beyond the band the tile has ended
FAR_MM = 1.5


def _past_edges_px(
    cam: Camera, profile: Profile, row: int, col: int, fit: LevelFit, far: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The pixels (N, 2) past each of the fit's inlier edges, half the band's or the path's width beyond
    the green (``far``: the whole width and :data:`FAR_MM` beyond), and whether each is a path edge."""
    edges = tile_edges(profile)
    inl = fit.edges[np.abs(fit.residuals) < INLIER_PX]
    pts = np.array([edges[i].point for i in inl], float).reshape(-1, 2)
    nrm = np.array([edges[i].normal for i in inl], float).reshape(-1, 2)
    path_edge = inl % 8 >= 4  # :func:`tile_edges` lists 4 band edges, then 4 path edges
    t = profile.tile
    across = np.where(path_edge, t.path_width, t.band_width)
    past = pts + nrm * (across + FAR_MM if far else across / 2)[:, None]
    return cam.project(_board_points(profile, row, col, np.array(fit.pose), past)), path_edge


def _at(values: np.ndarray, px: np.ndarray) -> np.ndarray:
    h, w = values.shape[:2]
    uv = np.round(px).astype(int)
    return values[np.clip(uv[:, 1], 0, h - 1), np.clip(uv[:, 0], 0, w - 1)]


def _past_edges(
    img: EdgeImage, cam: Camera, profile: Profile, row: int, col: int, fit: LevelFit
) -> tuple[np.ndarray, np.ndarray]:
    """The chromaticity (N, 3) past each of the fit's inlier edges (half the band's or the path's width
    beyond the green), and whether each is a path edge."""
    px, path_edge = _past_edges_px(cam, profile, row, col, fit)
    return chroma(_at(img.linear, px)).reshape(-1, 3), path_edge


MIN_PATH_SAMPLES = 12  #: path edges of well-seen tiles needed to take the path's colour from the photo


def with_print_path(
    img: EdgeImage, cam: Camera, profile: Profile, fits: Sequence[tuple[int, int, LevelFit]]
) -> EdgeImage:
    """``img`` with the path's chromaticity as this photo shows it (:attr:`EdgeImage.print_path`): the
    median past the path edges of ``fits`` ((row, col, fit) of tiles seen well). The tiles' print, a
    phone's processing and a tinted light move it off the print's own by as much as a pale flower band
    lies from it; unchanged with too few path edges to tell."""
    cols = [ch[is_path] for r, c, f in fits for ch, is_path in [_past_edges(img, cam, profile, r, c, f)]]
    cols = np.vstack(cols) if cols else np.zeros((0, 3))
    if len(cols) < MIN_PATH_SAMPLES:
        return img
    return replace(img, print_path=np.median(cols, axis=0))


def sides_agree(img: EdgeImage, cam: Camera, profile: Profile, row: int, col: int, fit: LevelFit) -> int:
    """How many of the fit's inlier edges show, past the green, what the tile prints there: the path's
    cream past a path edge, a flower band past a band edge (by chromaticity, nearer the path's as the
    photo shows it than :data:`BAND_REACH` of the way from it to a flower's print). A tile mostly
    hidden, seen by one field, fits the edges of the tile one cell over nearly as well (its band sits
    where the other's path does, 3 mm off); the prints tell them apart."""
    ch, path_edge = _past_edges(img, cam, profile, row, col, fit)
    if not len(ch):
        return 0
    nominal = chroma(srgb_to_linear(rgb(profile.tile.path_colour))[::-1])
    path = nominal if img.print_path is None else img.print_path
    bands = chroma(np.array([srgb_to_linear(rgb(c))[::-1] for c in profile.flowers.values()]))
    looked_for = path + BAND_REACH * (bands - nominal)
    to_path = np.linalg.norm(ch - path, axis=1)
    to_bands = np.linalg.norm(ch[:, None] - looked_for[None], axis=2)
    nearest = np.argmin(to_bands, axis=1)
    # an edition may print a band nearly the path's colour (an ivory "white"): there the print
    # cannot tell, and the edge counts for the tile
    undecided = np.linalg.norm(bands - nominal, axis=1)[nearest] < SEPARABLE
    return int(np.sum(((to_path < to_bands[np.arange(len(ch)), nearest]) == path_edge) | undecided))


def ends_agree(img: EdgeImage, cam: Camera, profile: Profile, row: int, col: int, fit: LevelFit) -> int:
    """How many of the fit's inlier edges show, past the path or band beyond them (:data:`FAR_MM`
    further), what the tile has there: green again past a path (its next field), no garden green past
    a band (the tile has ended). Where :func:`sides_agree` cannot tell a white or yellow band from the
    path by colour, this still tells a tile from its neighbour one cell over; a piece standing on the
    next field hides its green, so it tells less of how surely a tile is seen than which of two."""
    px, path_edge = _past_edges_px(cam, profile, row, col, fit, far=True)
    green = _at(img.not_green, px) < (GREEN_MAX + OTHER_MIN) / 2
    return int(np.sum(green == path_edge))


def ink_spread(img: EdgeImage, cam: Camera, profile: Profile, tiles: list, min_inliers: int = 20) -> float:
    """How far (mm) the printed band and path reach into the green beyond the profile's widths, from
    the path edges of the well-seen tiles (``tiles``: objects with row, col, level and placement).

    The path's two edges are 1 mm either side of the tile's middle, where neither the tile's height
    nor its placement moves them apart: a wider path is ink, not geometry. A spread left unmodelled
    would shrink every tile's green and read as a lower level."""
    spreads = []
    for t, f in zip(tiles, fit_placed(img, cam, profile, tiles), strict=True):
        if f is None or f.inliers < min_inliers:
            continue
        path = (f.edges % 8) >= 4
        if path.sum() < 6:
            continue
        c = _board_points(
            profile, t.row, t.col, np.array(f.pose), np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
        )
        uv = cam.project(c)
        ppm = float(np.sqrt(abs(cross2(uv[1] - uv[0], uv[2] - uv[0]))))
        spreads.append(-float(np.median(f.residuals[path])) / ppm)
    return float(np.median(spreads)) if len(spreads) >= 2 else 0.0


def with_spread(profile: Profile, spread_mm: float) -> Profile:
    """The profile with the printed band and path as wide as measured (``spread_mm`` more on each of
    their green sides)."""
    t = profile.tile
    tile = replace(t, band_width=t.band_width + spread_mm, path_width=t.path_width + 2 * spread_mm)
    return replace(profile, tile=tile)
