"""The reader's stages in order, each one's result kept for the debug pictures."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from scoring.garden import FORMAT, Garden, Tile
from scoring.visibility import top_levels
from vision.profile import Profile
from vision.read import board as board_stage
from vision.read import flowers, pose, tiles, views
from vision.read.load import Photo
from vision.read.reading import Reading, ReadWarning, TileReading

VIEW_PPM = 2.5  #: pixels per mm of the level views
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
    grid = views.zone_grid(profile, VIEW_PPM)
    gain = views.board_gain(img, cam, profile)
    lv = {k: views.level_view(img, cam, grid, k, profile, gain) for k in LEVELS}
    found, _ = tiles.solve(lv, cam, profile)
    lap("tiles")
    board_flower, _ = flowers.board_flower(img, cam, profile, gain)
    finds = []
    for f in found:
        vis = lv[f.level].inside.astype(np.float32)
        px = flowers.band_pixels(lv[f.level], vis, profile, f.row, f.col, f.placement)
        f.flower, f.flower_scores = flowers.classify(px, profile)
        finds.append(f)
    lap("flowers")
    garden_tiles = [Tile(row=f.row, col=f.col, level=f.level, flower=f.flower or "white") for f in finds]
    garden = Garden(format=FORMAT, board_flower=board_flower or None, tiles=garden_tiles, decorations=[])
    top = top_levels(garden)
    full = cam.with_size(*photo.original_size)
    readings = []
    warnings: list[ReadWarning] = []
    for f in finds:
        corners = full.project(
            np.column_stack([_tile_corners(profile, f), np.full(4, profile.tile_top_z(f.level))])
        )
        cells = tuple((r, c) for r in (f.row, f.row + 1) for c in (f.col, f.col + 1) if top[r][c] == f.level)
        others = [v for k, v in f.level_scores.items() if k != f.level]
        margin = f.score - max(others, default=0.0)
        conf = float(np.clip(0.5 + margin * 4, 0.0, 1.0)) * max(f.flower_scores.get(f.flower, 0.0), 0.3)
        if margin < 0.05:
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
                dict(f.level_scores),
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
        {"board": fit, "focal": focal, "views": lv},
    )
    if debug_dir is not None:
        from vision.read.debug import save_debug

        save_debug(debug_dir, photo, reading, profile)
    return reading


def _tile_corners(profile: Profile, f: tiles.TileFind) -> np.ndarray:
    b, t = profile.board, profile.tile
    cx = b.grid_origin[0] + (f.col + 1) * b.pitch + f.placement[0]
    cy = b.grid_origin[1] + (f.row + 1) * b.pitch + f.placement[1]
    th = np.radians(f.placement[2])
    h = t.size / 2
    sq = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    rot = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    return sq @ rot.T + [cx, cy]
