"""The board's printed template outside the building zone (the frame line, the storage strip with the
flower emblem, the tile recess and the pillar slots: :func:`board_template`), drawn from the profile,
and its agreement with the photo under a placement; :func:`flat_field` takes the light out of the
photo first, so that the print alone is compared."""

from __future__ import annotations

import cv2
import numpy as np

from scoring.garden import GRID
from vision.profile import Profile
from vision.read.board.plane import _project_many

FLAT_FIELD_SIGMA = 0.04  #: of the image's long side: light varying more slowly than this is divided out


def board_template(profile: Profile, ppm: float) -> tuple[np.ndarray, np.ndarray]:
    """A luminance picture of the board's print outside the building zone, and the mask of where it
    is always visible (the margin around the zone and the storage strip), at ``ppm`` px per mm.

    Drawn from the profile's geometry with relative luminances only, so it does not depend on the
    exact colours of a copy of the game."""
    b = profile.board
    w, h = round(b.width * ppm), round(b.depth * ppm)
    lum = lambda hx: float(np.dot([0.299, 0.587, 0.114], [int(hx[i : i + 2], 16) for i in (1, 3, 5)]))  # noqa: E731
    t = np.full((h, w), lum(b.colour), np.float32)
    fw = round(b.frame_width * ppm)
    t[:fw, :] = t[-fw:, :] = lum(b.frame_colour)
    t[:, :fw] = t[:, -fw:] = lum(b.frame_colour)
    s = lambda v: round(v * ppm)  # noqa: E731
    x0, y0, x1, y1 = b.recess
    t[s(y0) : s(y1), s(x0) : s(x1)] = lum(b.recess_colour)
    cv2.rectangle(t, (s(x0), s(y0)), (s(x1), s(y1)), lum(b.frame_colour), max(1, s(b.recess_line)))
    ex, ey = b.emblem_centre
    cv2.circle(t, (s(ex), s(ey)), s(b.emblem_diameter / 2), lum(b.emblem_colour), -1)
    cv2.circle(t, (s(ex), s(ey)), s(b.emblem_centre_diameter / 2), lum(b.emblem_centre_colour), -1)
    for px, py in b.pillar_slots:
        cv2.circle(t, (s(px), s(py)), s(b.hole_diameter / 2), lum(b.hole_colour), -1)
    mask = np.ones((h, w), np.uint8)
    ox, oy = b.grid_origin
    zone = GRID * b.pitch
    mask[s(oy - 2) : s(oy + zone + 2), s(ox - 2) : s(ox + zone + 2)] = 0
    # the emblem's petals are in the board's flower colour, unknown here: leave the emblem's ring out
    cv2.circle(mask, (s(ex), s(ey)), s(b.emblem_diameter / 2), 0, -1)
    cv2.circle(mask, (s(ex), s(ey)), s(b.emblem_diameter * 0.28), 1, -1)
    return t, mask.astype(bool)


def cell_to_board(profile: Profile) -> np.ndarray:
    """The affine map (col, row, 1) of hole centres -> board mm (x, y, 1)."""
    b = profile.board
    ox, oy = b.grid_origin
    p = b.pitch
    return np.array([[p, 0, ox + p / 2], [0, p, oy + p / 2], [0, 0, 1.0]])


def _template_samples(profile: Profile, n: int = 3000) -> tuple[np.ndarray, np.ndarray]:
    """Board points (n, 2) in mm where :func:`board_template` is always visible, and its values."""
    ppm = 2.0
    tmpl, mask = board_template(profile, ppm)
    ys, xs = np.nonzero(mask)
    pick = np.random.default_rng(0).choice(len(xs), size=min(n, len(xs)), replace=False)
    xy = np.column_stack([xs[pick], ys[pick]]).astype(np.float64) / ppm + 0.5 / ppm
    return xy, tmpl[ys[pick], xs[pick]].astype(np.float64)


def _sample(gray: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """Bilinear samples of ``gray`` at pixel positions (N, 2); 0 outside the image."""
    m = uv.astype(np.float32).reshape(1, -1, 2)
    return (
        cv2.remap(gray, m, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        .reshape(-1)
        .astype(np.float64)
    )


def _ncc_vec(x: np.ndarray, y: np.ndarray) -> float:
    x = x - x.mean()
    y = y - y.mean()
    d = np.sqrt((x * x).sum() * (y * y).sum())
    return float((x * y).sum() / d) if d > 0 else 0.0


def _agreement_in_frame(gray: np.ndarray, H: np.ndarray, xy: np.ndarray, values: np.ndarray) -> float | None:
    """The template's agreement (:func:`_ncc_vec`) with the photo under ``H`` (board mm -> pixels), on
    the template samples in the photo; None when the board is not wholly in the photo (under 90% of
    the samples)."""
    return _agreements_in_frame(gray, H[None], xy, values)[0]


def _agreements_in_frame(
    gray: np.ndarray, Hs: np.ndarray, xy: np.ndarray, values: np.ndarray
) -> list[float | None]:
    """:func:`_agreement_in_frame` of many homographies (n, 3, 3), the photo sampled for all at once."""
    if not len(Hs):
        return []
    return _agreements_at(gray, _project_many(Hs, xy), values)


def _agreements_at(gray: np.ndarray, uv: np.ndarray, values: np.ndarray) -> list[float | None]:
    """:func:`_agreement_in_frame` of the template samples already placed at pixels ``uv`` (n, N, 2),
    n placements at once (one placed through the lens's distortion, too: :func:`_refined_weak`)."""
    h, w = gray.shape
    seen = (uv[..., 0] >= 0) & (uv[..., 0] < w - 1) & (uv[..., 1] >= 0) & (uv[..., 1] < h - 1)
    got = cv2.remap(gray, uv.astype(np.float32), None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    return [
        _ncc_vec(got[i][seen[i]].astype(np.float64), values[seen[i]]) if seen[i].mean() >= 0.9 else None
        for i in range(len(uv))
    ]


def flat_field(gray: np.ndarray) -> np.ndarray:
    """``gray`` divided by its own blur (wider than the board's printed features): the light's
    fall-off, a lamp's glare and the soft shadow of a hand or a phone over part of the board no longer
    weigh on the template's correlation, which compares the print alone."""
    g = gray.astype(np.float32) + 8.0
    # the blur is wide: it is made on the image a quarter the size, and brought back (the same light)
    h, w = g.shape
    quarter = cv2.resize(g, ((w + 3) // 4, (h + 3) // 4), interpolation=cv2.INTER_AREA)
    light = cv2.GaussianBlur(quarter, (0, 0), FLAT_FIELD_SIGMA * max(gray.shape) / 4)
    light = cv2.resize(light, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(128.0 * g / light, 0, 255).astype(np.uint8)
