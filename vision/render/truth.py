"""The ground truth written beside each rendered photo."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from scoring.garden import Garden
from scoring.score import score_garden
from vision.camera import Camera
from vision.profile import Profile
from vision.render.scene import PieceTruth, Scene

VISIBLE_MIN_PX = 4  #: a decoration with fewer visible pixels (at the render's scale) counts as hidden


def _px(cam: Camera, p: np.ndarray) -> list[list[float]]:
    return cam.project(np.atleast_2d(p)).round(3).tolist()


def board_corners_px(cam: Camera, profile: Profile) -> dict[str, list[float]]:
    uv = _px(cam, profile.board.corners)
    return dict(zip(("top_left", "top_right", "bottom_right", "bottom_left"), uv, strict=True))


def _score(garden: Garden) -> dict[str, int]:
    return score_garden(garden).to_dict()


def _offset(rcam: Camera, cam: Camera) -> tuple[int, int]:
    """Where the photo's frame starts in the render (px, x and y; ignoring the lens distortion)."""
    return round(rcam.cx - cam.cx), round(rcam.cy - cam.cy)


def _crop(ids: np.ndarray, rcam: Camera, cam: Camera) -> np.ndarray:
    """The part of the render's id buffer the photo shows (ignoring the slight lens distortion)."""
    mx, my = _offset(rcam, cam)
    return ids[my : my + cam.height, mx : mx + cam.width]


def _placed(cam: Camera, ob: PieceTruth, count: int) -> dict[str, Any]:
    """Where a pillar or decoration shows in the photo, and whether it does."""
    return {"centre_px": _px(cam, ob.anchor3d)[0], "visible_in_photo": bool(count >= VISIBLE_MIN_PX)}


def build_truth(
    garden: Garden,
    scene: Scene,
    ids: np.ndarray,
    rcam: Camera,
    cam: Camera,
    profile: Profile,
    seed: int,
    photo: dict[str, Any],
) -> dict[str, Any]:
    """Truth dict: garden, score, camera (+ distorted board corners), photo conditions, pieces."""
    seen = _crop(ids, rcam, cam)
    counts = np.bincount(seen.ravel().astype(np.int64), minlength=len(scene.objects) + 1)
    tiles, decos, pillars = [], [], []
    for k, ob in enumerate(scene.objects, start=1):
        if ob.kind == "tile_top":
            full = _polygon_area_px(ob.corners3d, seen.shape, cam, rcam)
            vis = float(min(1.0, counts[k] / full)) if full > 0 else 0.0
            tiles.append(ob.info | {"corners_px": _px(cam, ob.corners3d), "visible_fraction": round(vis, 4)})
        elif ob.kind == "decoration":
            decos.append(ob.info | _placed(cam, ob, counts[k]) | {"visible_px": int(counts[k])})
        elif ob.kind == "pillar":
            pillars.append(ob.info | _placed(cam, ob, counts[k]))
    shown = scene.shown or garden
    score = _score(shown)
    return {
        "garden": shown.to_dict(),
        "score": score,
        "seed": seed,
        "camera": cam.to_dict() | {"board_corners_px": board_corners_px(cam, profile)},
        "photo": photo,
        "pieces": {"tiles": tiles, "decorations": decos, "pillars": pillars},
    }


def _polygon_area_px(corners: np.ndarray, shape: tuple[int, int], cam: Camera, rcam: Camera) -> float:
    """Pixel count of a 3-D polygon as the undistorted render sees it, within the photo's crop."""
    uv = rcam.project(corners, distort=False) - _offset(rcam, cam)
    box = np.array([[0, 0], [shape[1], 0], [shape[1], shape[0]], [0, shape[0]]], np.float32)
    inter, _ = cv2.intersectConvexConvex(uv.astype(np.float32), box)
    return float(inter)
