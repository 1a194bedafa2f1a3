"""Stage 5: flower colours, of each tile (its band) and of the board (its emblem's petals).

Colours are compared in CIE Lab after the photo has been white-balanced on the board's own sand
(:func:`vision.read.views.board_gain`), so a warm lamp or a dark exposure does not move them, and
then, for the bands, on the tiles' own plaques (:func:`vision.read.views.print_gain`: the tiles may
stand in another light than the board's margin); the references are the profile's flower colours, so
a calibrated profile reads another edition.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.camera import Camera
from vision.profile import Profile, rgb
from vision.read.tilefit import OTHER_MIN, not_green


def flower_lab(profile: Profile) -> dict[str, np.ndarray]:
    out = {}
    for name, hx in profile.flowers.items():
        c = rgb(hx)[::-1].reshape(1, 1, 3).astype(np.float32)
        out[name] = cv2.cvtColor(c, cv2.COLOR_BGR2Lab).reshape(3)
    return out


MAX_FADE = 2.5  #: a band may show as little as 1 / this of its print's chroma (glare, a phone's processing)
NEUTRAL_CHROMA = 10.0  #: a flower printed with less chroma than this (Lab) is a neutral one (white)


def classify(lab_pixels: np.ndarray, profile: Profile) -> tuple[str, dict[str, float]]:
    """The flower whose colour is nearest to the pixels' median (chroma weighs twice the lightness),
    with a score per flower (0..1, softmax of the distances).

    Glare and a phone's processing wash a band out towards white: its hue stays, its chroma drops.
    So against a coloured flower the median's chroma is first raised towards that flower's (by up to
    :data:`MAX_FADE` times); against white it is taken as it is, and a white band, nearly without
    chroma, stays nearer white than any coloured flower raised that much."""
    refs = flower_lab(profile)
    if not len(lab_pixels):
        return "", {}
    med = np.median(lab_pixels.reshape(-1, 3), axis=0)
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


def band_pixels(
    lab: np.ndarray,
    green_map: np.ndarray,
    cam: Camera,
    profile: Profile,
    row: int,
    col: int,
    level: int,
    placement: tuple[float, ...],
    hidden: np.ndarray | None = None,
) -> np.ndarray:
    """Lab pixels (white-balanced photo) of the middle of a tile's 3 mm flower band, where it is seen."""
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
    h, w = lab.shape[:2]
    ok = (uv[:, 0] >= 0) & (uv[:, 0] < w) & (uv[:, 1] >= 0) & (uv[:, 1] < h)
    uv = uv[ok]
    if hidden is not None:
        uv = uv[~hidden[uv[:, 1], uv[:, 0]].astype(bool)]
    px = lab[uv[:, 1], uv[:, 0]]
    # leave out the garden green (a sample off the band) and deep shadow
    green = green_map[uv[:, 1], uv[:, 0]] <= OTHER_MIN
    return px[~green & (px[:, 0] > 25.0)]


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
    h, w = image.shape[:2]
    ok = (uv[:, 0] >= 0) & (uv[:, 0] < w) & (uv[:, 1] >= 0) & (uv[:, 1] < h)
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
