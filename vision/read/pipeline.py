"""The reader's stages in order, each one's result kept for the debug pictures."""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np

from scoring.garden import FORMAT, Garden, Tile
from scoring.visibility import top_levels
from vision.profile import Profile
from vision.read import board as board_stage
from vision.read import flowers, pose, tilefit, tiles, views
from vision.read.load import Photo
from vision.read.reading import Reading, ReadWarning, TileReading

LEVELS = range(1, 7)  #: the planes swept (the spec's gardens reach level 5)


def run(photo: Photo, profile: Profile, debug_dir: Path | None = None) -> Reading:
    t: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        t[name] = now - clock
        clock = now

    img = photo.image
    size = (img.shape[1], img.shape[0])
    fit = board_stage.find_board(img, profile)
    lap("board")
    focal = pose.estimate_focal(fit.H, fit.centre, size, photo.focal_px, fit.H_samples)
    cam = pose.camera_from_homography(fit.H, focal.f, fit.kappa, size, fit.centre)
    lap("camera")
    gain = views.board_gain(img, cam, profile)
    lab = cv2.cvtColor(np.clip(img.astype(np.float32) * (gain / 255.0), 0.0, 1.0), cv2.COLOR_BGR2Lab)
    edge_img = tilefit.edge_image(img, gain)
    finds = tiles.solve(edge_img, cam, profile, LEVELS)
    lap("tiles")
    # the tiles, at known heights, fix what the board's plane leaves open: refine the camera on them
    refined = pose.refine_with_tiles(
        fit.H, cam, fit.kappa, tiles.observations(edge_img, cam, profile, finds), profile, size, focal
    )
    if refined is not cam:
        cam = refined
        finds = tiles.solve(edge_img, cam, profile, LEVELS)
    lap("tiles again")
    board_flower, _ = flowers.board_flower(img, cam, profile, gain)
    hidden = np.zeros(img.shape[:2], np.uint8)
    for f in sorted(finds, key=lambda f: -f.level):
        px = flowers.band_pixels(lab, cam, profile, f.row, f.col, f.level, f.placement, hidden)
        f.flower, f.flower_scores = flowers.classify(px, profile)
        tiles.hide(hidden, tiles.tile_polygon(cam, profile, f.row, f.col, f.level, f.placement))
    lap("flowers")
    garden_tiles = [Tile(row=f.row, col=f.col, level=f.level, flower=f.flower or "white") for f in finds]
    garden = Garden(format=FORMAT, board_flower=board_flower or None, tiles=garden_tiles, decorations=[])
    top = top_levels(garden)
    full = cam.with_size(*photo.original_size)
    readings = []
    warnings: list[ReadWarning] = []
    for f in finds:
        corners = tiles.tile_polygon(full, profile, f.row, f.col, f.level, f.placement)[:4]
        cells = tuple((r, c) for r in (f.row, f.row + 1) for c in (f.col, f.col + 1) if top[r][c] == f.level)
        others = [v for k, v in f.level_costs.items() if k != f.level]
        margin = min(others, default=9.0) - f.level_costs.get(f.level, f.cost)
        conf = float(np.clip(margin / 0.5, 0.0, 1.0)) * max(f.flower_scores.get(f.flower, 0.0), 0.3)
        if margin < 0.15:
            warnings.append(
                ReadWarning(
                    "level-doubt", f"tile at row {f.row}, col {f.col}: level {f.level} is uncertain", cells
                )
            )
        readings.append(
            TileReading(
                f.row,
                f.col,
                f.level,
                f.flower,
                conf,
                corners,
                cells,
                {k: -v for k, v in f.level_costs.items()},
                dict(f.flower_scores),
            )
        )
    lap("assemble")
    confidence = float(np.prod([max(r.confidence, 0.05) for r in readings]) ** (1 / max(len(readings), 1)))
    corners_px = full.project(np.column_stack([profile.board.corners[:, :2], np.zeros(4)]))
    reading = Reading(
        garden,
        confidence,
        warnings,
        full,
        corners_px,
        readings,
        photo.original_size,
        t,
        {"board": fit, "focal": focal, "camera": cam, "gain": gain},
    )
    if debug_dir is not None:
        from vision.read.debug import save_debug

        save_debug(debug_dir, photo, reading, profile)
    return reading
