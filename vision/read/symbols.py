"""Stage 7: the symbols printed on the fields that no piece stands on (spec 2.3).

Each field of a tile read is rectified on its tile's plane, in the tile's own axes, so that a
symbol's icon appears upright or turned by a quarter turn, the tile's orientation on the board
(all four fields of a tile share it). A field whose middle is garden green is blank (its three small
flowers are not a plaque); otherwise it carries a cream plaque, and the dark icon on it is
classified by shape descriptors that do not depend on how the icon is drawn, only on what spec 2.3
says it shows:

- stairs, a staircase rising to one side, are the only icon that is not mirror-symmetric about an
  axis of the plaque: their ink lies on one side of a diagonal, the other side is empty;
- a bridge has a deck line across the top and an arch below it, open in the middle at the bottom;
- a fountain has a wide bowl at the bottom, a thin jet rising from it and arcs falling at the sides;
- a statue is a narrow standing figure, its pedestal its widest part.

The descriptors are measured in the frame where the icon's symmetry axis is vertical, for both ways
up; the tile's fields vote on which way is up.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from scoring.garden import Cell
from vision.camera import Camera
from vision.profile import Profile
from vision.read.decorations import (
    ColourSampler,
    DecorationFind,
    Occluders,
    Surfaces,
    TileLike,
    green_lead,
)

SymbolGrid = tuple[tuple[str | None, str | None], tuple[str | None, str | None]]
UNREAD = "?"  #: a field that was not read (covered, or a piece stands on it)

CROP_MM = 12.0  #: half the side of a field's rectified crop
CROP_PPM = 2.0  #: its pixels per mm
MIN_SEEN = 0.8  #: a field less visible than this in the photo is not read


@dataclass(frozen=True)
class SymbolRead:
    row: int  #: the field's cell
    col: int
    level: int
    symbol: str | None  #: None: a blank field
    score: float  #: 0..1, how clearly
    quarter: int = 0  #: the icon's quarter turns (clockwise) in the tile's axes


@dataclass
class FieldCrop:
    cell: Cell
    level: int
    tile: int  #: index of the tile in ``tiles``
    grey: np.ndarray  #: (S, S) float32 luminance, 1.0 = the plaque's cream (or the green's light)
    lead: np.ndarray  #: (S, S) float32 how far green leads (:func:`green_lead`); NaN where hidden
    seen: float  #: share of the crop not hidden by higher tiles


def crop_grid(profile: Profile) -> tuple[np.ndarray, np.ndarray]:
    """Local coordinates (mm, tile axes) of the crop's pixel centres, (S, S) each."""
    n = int(round(2 * CROP_MM * CROP_PPM))
    g = (np.arange(n) + 0.5) / CROP_PPM - CROP_MM
    return np.meshgrid(g, g)


def field_crops(
    image: np.ndarray,
    cam: Camera,
    surf: Surfaces,
    fields: Sequence[tuple[Cell, int]],
    profile: Profile,
    gain_srgb: np.ndarray,
) -> list[FieldCrop]:
    """The fields rectified on their tiles' planes, in the tiles' axes, at :data:`CROP_PPM`."""
    if not fields:
        return []
    u, v = crop_grid(profile)
    n = u.shape[0]
    maps = []
    for cell, level in fields:
        p = surf.field(cell, level)
        a = math.radians(surf.turn(cell, level))
        x = p[0] + u * math.cos(a) - v * math.sin(a)
        y = p[1] + u * math.sin(a) + v * math.cos(a)
        maps.append(np.column_stack([x.ravel(), y.ravel(), np.full(x.size, p[2])]))
    uv = cam.project(np.vstack(maps)).astype(np.float32)
    mx = uv[:, 0].reshape(-1, n)
    my = uv[:, 1].reshape(-1, n)
    bgr = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    sampler = ColourSampler(bgr, cam, gain_srgb)
    lin = sampler.gain * _lut()[bgr]
    occ = Occluders(cam, surf)
    out = []
    for i, (cell, level) in enumerate(fields):
        sl = slice(i * n, (i + 1) * n)
        li = lin[sl]
        hidden = occ.hidden(uv[i * n * n : (i + 1) * n * n], level).reshape(n, n)
        y = li.sum(axis=2)
        lead = np.where(hidden, np.nan, green_lead(li)).astype(np.float32)
        out.append(
            FieldCrop(
                cell, level, surf.at[(cell, level)], y.astype(np.float32), lead, float(1.0 - hidden.mean())
            )
        )
    return out


def _lut() -> np.ndarray:
    from vision.read.decorations import _LUT

    return _LUT


# ------------------------------------------------------------------------------------ descriptors


def ink_mask(crop: FieldCrop, profile: Profile) -> tuple[np.ndarray, float]:
    """The icon's ink inside the plaque (bool (S, S)) and the plaque's contrast (ink over cream)."""
    u, v = crop_grid(profile)
    r = np.hypot(u, v)
    t = profile.tile
    disc = r < t.plaque_diameter / 2 - 1.2
    vals = crop.grey[disc]
    cream = float(np.percentile(vals, 90))
    dark = float(np.percentile(vals, 3))
    thr = math.sqrt(max(cream, 1e-4) * max(dark, 1e-5))  # halfway in log brightness
    ink = (crop.grey < thr) & (r < t.icon_box / 2 * math.sqrt(2) + 0.5) & disc
    return ink, dark / max(cream, 1e-4)


@dataclass(frozen=True)
class IconShape:
    """Shape descriptors of an icon's ink, in the frame where its mirror axis is vertical."""

    axis_symmetry: float  #: overlap of the (softened) ink with its mirror image about the best plaque axis
    diagonal_symmetry: float  #: ... about the best diagonal
    height: float  #: mm, along the mirror axis
    width: float  #: mm, across it (the widest row)
    centre_line: float  #: share of the rows with ink on the mirror axis itself
    legs: float  #: share of the rows of one half with ink on both sides and none on the axis
    end_width: float  #: the wider end's width over the widest row (a pedestal is both; a bowl narrows)
    widest_at: float  #: where the widest rows are: 0 in the middle of the height, 1 at an end
    quarter: int  #: quarter turns that bring the mirror axis vertical (0 or 1)


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.minimum(a, b).sum() / max(float(np.maximum(a, b).sum()), 1e-6))


SOFTEN_MM = 0.8  #: the ink is blurred this much before symmetry is measured (thin strokes, resampling)


def icon_shape(ink: np.ndarray) -> IconShape | None:
    """Descriptors of an ink mask (None when there is too little ink to be an icon)."""
    m = ink.astype(np.float32)
    mo = cv2.moments(m)
    if mo["m00"] < 4 * CROP_PPM * CROP_PPM:
        return None
    n = m.shape[0]
    cx, cy = mo["m10"] / mo["m00"], mo["m01"] / mo["m00"]
    shift = np.float32([[1, 0, (n - 1) / 2 - cx], [0, 1, (n - 1) / 2 - cy]])
    c = cv2.warpAffine(m, shift, (n, n), flags=cv2.INTER_LINEAR)
    soft = cv2.GaussianBlur(c, (0, 0), SOFTEN_MM * CROP_PPM)
    lr, ud = _iou(soft, soft[:, ::-1]), _iou(soft, soft[::-1, :])
    diag = max(_iou(soft, soft.T), _iou(soft, soft[::-1, ::-1].T))
    quarter = 1 if ud > lr else 0
    if quarter:
        c = np.ascontiguousarray(c.T)
    b = c > 0.5
    rows = np.where(b.any(axis=1))[0]
    if len(rows) < 3:
        return None
    b = b[rows[0] : rows[-1] + 1]
    mid = n // 2
    half_w = max(1, int(round(0.8 * CROP_PPM)))
    centre = b[:, mid - half_w : mid + half_w].any(axis=1)
    cols = [np.where(r)[0] for r in b]
    span = np.array([(r[-1] - r[0] + 1) / CROP_PPM if len(r) else 0.0 for r in cols])
    h = len(b) / CROP_PPM
    halves = (slice(0, len(b) // 2), slice(len(b) // 2, None))
    legs = max(float(np.mean(~centre[hv] & (span[hv] > 3.0))) if len(centre[hv]) else 0.0 for hv in halves)
    k = max(1, int(round(len(b) * 0.12)))
    end = max(float(span[:k].mean()), float(span[-k:].mean())) / max(float(span.max()), 1e-3)
    wide = np.where(span >= 0.9 * span.max())[0]
    widest_at = float(np.abs((wide + 0.5) / len(b) - 0.5).mean() * 2)
    return IconShape(
        max(lr, ud), diag, h, float(span.max()), float(centre.mean()), legs, end, widest_at, quarter
    )


#: decision rules on :class:`IconShape`, from spec 2.3's description of the icons
STAIRS_AXIS = 0.7  #: stairs, rising to one side, are the only icon without a mirror axis this clear
BRIDGE_LEGS = 0.5  #: a bridge: this share of one half's rows straddle the axis (the open arch)
BRIDGE_CENTRE = 0.7  #: ... and the axis itself is inked over less than this share of its rows
#: a statue stands on its pedestal, its widest part at its foot; a fountain's bowl is widest at its rim,
#: well inside the icon's height, and narrows to its foot
STATUE_WIDEST_AT = 0.58
STATUE_END = 0.72


def classify_icon(shape: IconShape) -> tuple[str, float]:
    """The symbol an icon shows, with a margin (0..1) from the rule that decided it."""
    if shape.axis_symmetry < STAIRS_AXIS:
        return "stairs", float(np.clip((STAIRS_AXIS - shape.axis_symmetry) / 0.15, 0, 1))
    if shape.legs >= BRIDGE_LEGS and shape.centre_line < BRIDGE_CENTRE:
        return "bridge", float(np.clip((shape.legs - BRIDGE_LEGS) / 0.3, 0, 1))
    vote = (shape.widest_at - STATUE_WIDEST_AT) / 0.1 + (shape.end_width - STATUE_END) / 0.3
    return ("statue" if vote > 0 else "fountain"), float(np.clip(abs(vote) / 2, 0, 1))


BLANK_GREEN = 0.35  #: a field whose plaque disc is this green is blank (three small flowers on green)
#: a pixel of the disc is green when green leads in it by this share of the lead round the plaque (the
#: field's own garden green) or more: a cream plaque lit warm and balanced on the board's sand can show
#: green leading by a hair (dev 42094: 0.065, against 0.35 round it), while a tile washed by a sheen or
#: a glare shows its green leading by little everywhere (0.02 round a blank field, the same inside) ...
BLANK_LEAD = 0.5
#: ... and by this at least (a field washed white leads by nothing; its plaque, if any, is read by its
#: ink). On the 400 development photos read with their true tiles, against a fixed 0.06 on the board's
#: balance: blank fields read as an icon 46 -> 4, icons read as blank 39 -> 20 (fields misread 141 ->
#: 79 of 9,100)
BLANK_FLOOR = 0.015


def disc_green(crop: FieldCrop, profile: Profile) -> float:
    """The share of the plaque's disc that is garden green, judged against the field round it."""
    u, v = crop_grid(profile)
    r = np.hypot(u, v)
    ring = crop.lead[r > profile.tile.plaque_diameter / 2 + 1.0]
    ring = ring[~np.isnan(ring)]
    own = float(np.median(ring)) if ring.size else 0.0
    disc = crop.lead[r < profile.tile.plaque_diameter / 2 - 2.0]
    with np.errstate(invalid="ignore"):
        return float((disc > max(BLANK_FLOOR, BLANK_LEAD * own)).mean())


def classify_field(crop: FieldCrop, profile: Profile) -> tuple[str | None, float]:
    """A field's symbol (None: blank) and how clearly."""
    green = disc_green(crop, profile)
    if green >= BLANK_GREEN:
        return None, float(np.clip((green - BLANK_GREEN) / 0.3, 0, 1))
    ink, contrast = ink_mask(crop, profile)
    shape = icon_shape(ink)
    if shape is None or contrast > 0.6:  # a plaque without a dark icon: nothing readable
        return None, 0.0
    return classify_icon(shape)


def read_fields(
    image_bgr: np.ndarray, cam: Camera, tiles: Sequence[TileLike], profile: Profile, gain_srgb: np.ndarray
) -> dict[tuple[Cell, int], SymbolRead]:
    """The symbol of every field seen from above (pieces standing on some of them or not: a piece
    makes its field's reading meaningless, which :func:`symbol_grids` leaves out)."""
    surf = Surfaces(tiles, profile)
    fields = [(cell, lv) for (cell, lv) in sorted(surf.at) if surf.seen(cell, lv)]
    out = {}
    for crop in field_crops(image_bgr, cam, surf, fields, profile, gain_srgb):
        if crop.seen < MIN_SEEN:
            continue
        sym, score = classify_field(crop, profile)
        out[(crop.cell, crop.level)] = SymbolRead(crop.cell[0], crop.cell[1], crop.level, sym, score)
    return out


def symbol_grids(
    tiles: Sequence[TileLike], reads: dict[tuple[Cell, int], SymbolRead], finds: Sequence[DecorationFind]
) -> dict[tuple[int, int, int], SymbolGrid]:
    """Each tile's 2 x 2 symbols in board orientation, row-major (spec 4.1): a field covered by a higher
    tile, too hidden in the photo, or under a piece found is :data:`UNREAD`."""
    occupied = {(cell, lv) for f in finds for cell, lv in zip(f.cells, f.levels, strict=True)}
    grids: dict[tuple[int, int, int], SymbolGrid] = {}
    for t in tiles:
        g = [[UNREAD, UNREAD], [UNREAD, UNREAD]]
        for i in range(2):
            for j in range(2):
                key = ((t.row + i, t.col + j), t.level)
                if key in reads and key not in occupied:
                    g[i][j] = reads[key].symbol
        grids[(t.row, t.col, t.level)] = ((g[0][0], g[0][1]), (g[1][0], g[1][1]))
    return grids

