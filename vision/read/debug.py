"""One picture per stage of a reading, for people: what the board finder, the camera, the level sweep
and the tile solver made of the photo (``babylon read --debug DIR``)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.profile import Profile
from vision.read.load import Photo
from vision.read.reading import Reading

FLOWER_BGR = {
    "white": (235, 240, 244),
    "pink": (154, 106, 232),
    "yellow": (46, 193, 242),
    "blue": (209, 111, 74),
}


def _save(path: Path, img: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), img)


def board_found(photo: Photo, reading: Reading) -> np.ndarray:
    """The photo with the board's outline and every measured hole."""
    img = photo.image.copy()
    fit = reading.debug["board"]
    s = photo.scale
    cv2.polylines(img, [np.round(reading.board_corners_px * s).astype(np.int32)], True, (0, 0, 255), 2)
    for x, y in fit.holes:
        cv2.circle(img, (int(round(x)), int(round(y))), 5, (0, 255, 0), 2)
    cv2.putText(
        img,
        f"registration {fit.score:.2f}  holes {len(fit.holes)}  rms {fit.residual_px:.2f} px",
        (20, 40),
        cv2.FONT_HERSHEY_SIMPLEX,
        1.0,
        (0, 0, 255),
        2,
    )
    return img


def level_sweep(image: np.ndarray, reading: Reading, profile: Profile) -> np.ndarray:
    """The building zone seen on each level's plane, side by side: a tile of that level is upright
    and on its block in its own view only."""
    from vision.read import views

    cam, gain = reading.debug["camera"], reading.debug["gain"]
    grid = views.zone_grid(profile, 2.0)
    tiles = []
    for k in range(1, 7):
        v = views.level_view(image, cam, grid, k, profile, gain)
        im = (v.bgr * 255).astype(np.uint8)
        g = v.grid
        for t in reading.tiles:
            if t.level == k:
                b = 15 + np.array([t.col, t.row]) * 30
                p0 = np.round(g.to_px(b + 1)).astype(int)
                p1 = np.round(g.to_px(b + 59)).astype(int)
                cv2.rectangle(im, tuple(p0), tuple(p1), (0, 0, 255), 2)
        cv2.putText(im, f"level {k}", (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 255), 2)
        tiles.append(cv2.resize(im, (400, 400), interpolation=cv2.INTER_AREA))
    rows = [np.hstack(tiles[i : i + 3]) for i in range(0, len(tiles), 3)]
    width = max(r.shape[1] for r in rows)
    rows = [np.pad(r, ((0, 0), (0, width - r.shape[1]), (0, 0))) for r in rows]
    return np.vstack(rows)


def tiles_labelled(photo: Photo, reading: Reading) -> np.ndarray:
    """Each tile read, outlined where it stands, with its level and flower."""
    img = photo.image.copy()
    s = photo.scale
    for t in sorted(reading.tiles, key=lambda t: t.level):
        poly = np.round(t.corners_px * s).astype(np.int32)
        colour = FLOWER_BGR.get(t.flower, (0, 0, 255))
        cv2.polylines(img, [poly], True, (0, 0, 0), 5)
        cv2.polylines(img, [poly], True, colour, 2)
        c = poly.mean(axis=0).astype(int)
        label = f"L{t.level}"
        cv2.putText(img, label, (c[0] - 14, c[1] + 8), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 0), 5)
        cv2.putText(img, label, (c[0] - 14, c[1] + 8), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (255, 255, 255), 2)
    return img


def save_debug(directory: Path, photo: Photo, reading: Reading, profile: Profile) -> list[Path]:
    """Write the stage pictures into ``directory``; returns their paths."""
    out = []
    for name, img in (
        ("1-board.jpg", board_found(photo, reading)),
        ("2-levels.jpg", level_sweep(photo.image, reading, profile)),
        ("3-tiles.jpg", tiles_labelled(photo, reading)),
    ):
        p = Path(directory) / name
        _save(p, img)
        out.append(p)
    return out
