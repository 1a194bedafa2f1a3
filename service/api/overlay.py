"""The overlay the service returns with ``?overlay=true``: the photo with what was read drawn on it
(tile outlines coloured by flower and labelled with their level, decorations marked), and the
board's grid projected into that picture so that a client can map a tap to a cell and level.

The picture is the reader's own overlay (:func:`vision.read.overlay.draw_overlay`, without the score
card, so that the grid below refers to its pixels).
"""

from __future__ import annotations

import base64

import cv2
import numpy as np

from scoring.garden import GRID
from vision.camera import Camera
from vision.profile import REFERENCE, Profile
from vision.read import Reading

GRID_LEVELS = 8  #: the grid is given for levels 0 (board) .. GRID_LEVELS
#: BGR outline colours per flower (white drawn light grey so it shows on a cream plaque)
FLOWER_BGR = {
    "white": (235, 235, 235), "pink": (154, 106, 232), "yellow": (46, 193, 242), "blue": (209, 111, 74),
}
KIND_LABEL = {"statue": "S", "fountain": "F", "bridge": "B", "stairs": "St", "belvedere": "Bv"}


def grid_points(camera: Camera, factor: float, profile: Profile = REFERENCE) -> np.ndarray:
    """(GRID_LEVELS + 1, GRID + 1, GRID + 1, 2): the pixel of every cell corner at every level, in a
    picture ``factor`` times the camera's size."""
    ox, oy = profile.board.grid_origin
    p = profile.board.pitch
    i, j = np.meshgrid(np.arange(GRID + 1), np.arange(GRID + 1), indexing="ij")
    out = np.empty((GRID_LEVELS + 1, GRID + 1, GRID + 1, 2))
    for level in range(GRID_LEVELS + 1):
        pts = np.column_stack([ox + j.ravel() * p, oy + i.ravel() * p,
                               np.full(i.size, profile.tile_top_z(level))])
        out[level] = camera.project(pts).reshape(GRID + 1, GRID + 1, 2) * factor
    # a wild camera (a misreading) can put points behind it: keep the numbers finite for JSON
    return np.clip(np.nan_to_num(out, nan=-1e6, posinf=1e6, neginf=-1e6), -1e6, 1e6)


def _label(img: np.ndarray, text: str, at: tuple[float, float], colour: tuple[int, int, int],
           size: float) -> None:
    font = cv2.FONT_HERSHEY_SIMPLEX
    (w, h), _ = cv2.getTextSize(text, font, size, max(1, round(2 * size)))
    org = (round(at[0] - w / 2), round(at[1] + h / 2))
    cv2.putText(img, text, org, font, size, (0, 0, 0), max(2, round(5 * size)), cv2.LINE_AA)
    cv2.putText(img, text, org, font, size, colour, max(1, round(2 * size)), cv2.LINE_AA)


def draw(image: np.ndarray, reading: Reading, grid: np.ndarray) -> np.ndarray:
    """``image`` (BGR, the picture ``grid`` refers to) with the reading drawn on it."""
    from vision.read.overlay import draw_overlay

    return draw_overlay(image, reading, card=False)


def render(photo_bgr: np.ndarray, reading: Reading, long_side: int) -> tuple[str, int, int, np.ndarray]:
    """The overlay as (base64 PNG, width, height, grid of that picture); ``photo_bgr`` is the upright
    photo at any scale."""
    h, w = photo_bgr.shape[:2]
    f = min(1.0, long_side / max(h, w))
    small = photo_bgr
    if f < 1:
        small = cv2.resize(photo_bgr, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA)
    oh, ow = small.shape[:2]
    grid = grid_points(reading.camera, ow / reading.camera.width)
    ok, png = cv2.imencode(".png", draw(small, reading, grid), [cv2.IMWRITE_PNG_COMPRESSION, 3])
    if not ok:
        raise RuntimeError("could not encode the overlay as PNG")
    return base64.b64encode(png.tobytes()).decode("ascii"), ow, oh, grid
