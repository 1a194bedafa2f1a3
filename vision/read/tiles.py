"""Stage 4: the terrace tiles, their levels and flowers, by a plane sweep solved for the garden as a whole.

In the view of level k (:mod:`vision.read.views`) a tile standing on level k shows its printed
structure exactly on its 2 x 2 block: its outline, the inner edge of the flower band 3 mm inside,
and the path cross through its middle, every one a straight line at a known place (within the 1.5 mm
and 3 degrees of hand placement). A tile on another level is moved and scaled by the parallax, so its
lines miss those places: most of all its outline, whose span (58 mm) grows with the height.

:func:`line_scores` measures, for every block and level, how strongly the image has edges along
those lines (colour edges for the outline, edges of the garden green for the band and the path),
over the visible part of each line, at the best small shift. :func:`solve` then reads the garden
from the top down: at each level, the blocks whose lines are strongest at that level (and green
inside) become tiles, overlapping candidates on one level keep the strongest, and every tile
accepted hides, in the views of the levels below, what it covers in the photo.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from scoring.garden import GRID
from vision.camera import Camera
from vision.profile import Profile
from vision.read.views import Grid, LevelView

BLOCKS = GRID - 1  #: a tile's top-left cell is in 0..6
SHIFT_MM = 3.0  #: hand placement (1.5 mm) plus what the camera fit leaves
LINE_SPAN_MM = 44.0  #: the part of each line that is scored (the corners are left out)


@dataclass(frozen=True)
class Template:
    """A tile's lines, in mm from its left (top) edge, for the two kinds of feature."""

    outline: tuple[float, ...]
    green: tuple[float, ...]

    @staticmethod
    def of(profile: Profile) -> Template:
        t = profile.tile
        half = (t.size - t.path_width) / 2
        return Template((0.0, t.size), (t.band_width, half, half + t.path_width, t.size - t.band_width))


@dataclass
class Features:
    """Edge maps of one level view, each normalised to its own robust scale (about 0..1)."""

    ex: np.ndarray  #: colour edges across vertical lines
    ey: np.ndarray
    gx: np.ndarray  #: edges of the garden green across vertical lines
    gy: np.ndarray
    green: np.ndarray
    visible: np.ndarray  #: 0/1: inside the photo and not hidden by an accepted tile


@dataclass
class TileFind:
    row: int
    col: int
    level: int
    score: float  #: line score at its level
    level_scores: dict[int, float]
    green: float
    visible: float
    placement: tuple[float, ...]  #: dx, dy (mm), turn (degrees) from the block's centre
    flower: str = ""
    flower_scores: dict[str, float] = field(default_factory=dict)


def features(view: LevelView) -> Features:
    """Edge maps of a level view. The garden-green edges are in units of a full step of the green
    map (0..1), so a line's score means the same in every photo."""
    g = cv2.GaussianBlur(view.green, (0, 0), 0.7)
    gx = np.abs(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)) / 4.0
    gy = np.abs(cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)) / 4.0
    L = view.lab[..., 0] / 100.0
    ex = np.abs(cv2.Sobel(L, cv2.CV_32F, 1, 0, ksize=3)) / 4.0
    ey = np.abs(cv2.Sobel(L, cv2.CV_32F, 0, 1, ksize=3)) / 4.0
    return Features(ex, ey, gx, gy, view.green, view.inside.astype(np.float32))


def _box(a: np.ndarray, length: int, axis: int) -> np.ndarray:
    """Box sum along one image axis (0: down the columns, for vertical lines; 1: along the rows).
    OpenCV's kernel size is (width, height)."""
    k = (1, length) if axis == 0 else (length, 1)
    return cv2.boxFilter(a, -1, k, normalize=False, borderType=cv2.BORDER_CONSTANT)


@dataclass
class BlockScores:
    score: np.ndarray  #: (7, 7) best line score
    shift: np.ndarray  #: (7, 7, 3) the placement at the best score: dx, dy (mm), turn (degrees)
    green: np.ndarray  #: (7, 7) green fraction of the visible tile area at that placement
    visible: np.ndarray  #: (7, 7) visible fraction of the template's lines


TURNS_DEG = (-3.0, -1.5, 0.0, 1.5, 3.0)
SEGMENTS = (-0.25, 0.25)  #: each line is scored in two halves, centred at these fractions of the tile
TRIM = 0.75  #: a block's score is the mean of this share of its line segments, the strongest


def line_scores(f: Features, grid: Grid, profile: Profile, tmpl: Template) -> BlockScores:
    """For every block, the mean green-edge strength along the tile's green lines (visible parts
    only; each line in two halves so that a turned tile still fits), at the best placement within
    :data:`SHIFT_MM` and :data:`TURNS_DEG`."""
    ppm = grid.ppm
    tile = profile.tile.size
    seg = int(round(tile / 2 * 0.8 * ppm)) | 1
    vis = f.visible
    vx, vy = _box(vis, seg, 0), _box(vis, seg, 1)
    gx, gy = _box(f.gx * vis, seg, 0), _box(f.gy * vis, seg, 1)
    b = profile.board
    ox, oy = b.grid_origin
    inset = (2 * b.pitch - tile) / 2
    rr, cc = np.meshgrid(np.arange(BLOCKS), np.arange(BLOCKS), indexing="ij")
    X0 = ox + cc.ravel() * b.pitch + inset  # (49,) tiles' top-left corners, placed exactly
    Y0 = oy + rr.ravel() * b.pitch + inset
    T = int(round(SHIFT_MM * ppm))
    sh = np.arange(-T, T + 1) / ppm  # mm
    dx, dy = np.meshgrid(sh, sh, indexing="xy")  # (S, S)
    H, W = vis.shape
    best = np.full(49, -1.0)
    best_p = np.zeros((49, 3))
    best_v = np.zeros(49)
    n_lines = 2 * len(tmpl.green) * len(SEGMENTS)
    keep = int(round(n_lines * TRIM))
    for turn in TURNS_DEG:
        th = np.radians(turn)
        parts, vparts = [], []
        for u in tmpl.green:
            for sgm in SEGMENTS:
                along = tile / 2 + sgm * tile  # position along the line, from the tile's edge
                # vertical line at x = X0 + u, point at y = Y0 + along, turned about the tile centre
                px = X0[:, None, None] + u + dx - th * (along - tile / 2)
                py = Y0[:, None, None] + along + dy + th * (u - tile / 2)
                i = np.clip(np.round((py - grid.y0) * ppm).astype(int), 0, H - 1)
                j = np.clip(np.round((px - grid.x0) * ppm).astype(int), 0, W - 1)
                parts.append(gx[i, j] / np.maximum(vx[i, j], 0.3 * seg))
                vparts.append(vx[i, j])
                # horizontal line at y = Y0 + u, point at x = X0 + along
                px = X0[:, None, None] + along + dx - th * (u - tile / 2)
                py = Y0[:, None, None] + u + dy + th * (along - tile / 2)
                i = np.clip(np.round((py - grid.y0) * ppm).astype(int), 0, H - 1)
                j = np.clip(np.round((px - grid.x0) * ppm).astype(int), 0, W - 1)
                parts.append(gy[i, j] / np.maximum(vy[i, j], 0.3 * seg))
                vparts.append(vy[i, j])
        # the mean of the best segments: pieces standing on a tile hide some of its lines
        part = np.sort(np.array(parts), axis=0)[-keep:]
        s = part.mean(axis=0)
        den = np.array(vparts).sum(axis=0)
        flat = s.reshape(49, -1)
        k = np.argmax(flat, axis=1)
        val = flat[np.arange(49), k]
        better = val > best
        best[better] = val[better]
        best_p[better, 0] = dx.ravel()[k[better]]
        best_p[better, 1] = dy.ravel()[k[better]]
        best_p[better, 2] = turn
        best_v[better] = den.reshape(49, -1)[np.arange(49), k][better] / (n_lines * seg)
    # green fraction of the visible tile square at the best placement
    area = int(round(tile * ppm)) | 1
    g_sum = cv2.boxFilter(f.green * vis, -1, (area, area), normalize=False, borderType=cv2.BORDER_CONSTANT)
    v_sum = cv2.boxFilter(vis, -1, (area, area), normalize=False, borderType=cv2.BORDER_CONSTANT)
    ci = np.clip(np.round((Y0 + tile / 2 + best_p[:, 1] - grid.y0) * ppm).astype(int), 0, H - 1)
    cj = np.clip(np.round((X0 + tile / 2 + best_p[:, 0] - grid.x0) * ppm).astype(int), 0, W - 1)
    green = g_sum[ci, cj] / np.maximum(v_sum[ci, cj], 1.0)
    return BlockScores(
        best.reshape(BLOCKS, BLOCKS),
        best_p.reshape(BLOCKS, BLOCKS, 3),
        green.reshape(BLOCKS, BLOCKS),
        best_v.reshape(BLOCKS, BLOCKS),
    )


def tile_polygon(
    cam: Camera, profile: Profile, row: int, col: int, level: int, shift: tuple[float, ...] = (0.0, 0.0)
) -> np.ndarray:
    """The photo pixels (undistorted pinhole) of a tile's solid: top-face and bottom-face corners (8, 2)."""
    b, t = profile.board, profile.tile
    x0 = b.grid_origin[0] + col * b.pitch + (2 * b.pitch - t.size) / 2 + shift[0]
    y0 = b.grid_origin[1] + row * b.pitch + (2 * b.pitch - t.size) / 2 + shift[1]
    sq = np.array([[x0, y0], [x0 + t.size, y0], [x0 + t.size, y0 + t.size], [x0, y0 + t.size]])
    z = profile.tile_top_z(level)
    pts = np.vstack(
        [np.column_stack([sq, np.full(4, z)]), np.column_stack([sq, np.full(4, z - t.thickness)])]
    )
    return cam.project(pts, distort=False)


def hide(view_vis: np.ndarray, cam: Camera, grid: Grid, z: float, polygon_px: np.ndarray) -> None:
    """Mark, in the view of the plane at height z, what the photo shows of a solid whose outline in
    the (undistorted) photo is the convex hull of ``polygon_px``."""
    H = cam.homography(z)
    inv = np.linalg.inv(H)
    p = np.column_stack([polygon_px, np.ones(len(polygon_px))]) @ inv.T
    xy = p[:, :2] / p[:, 2:3]
    hull = cv2.convexHull(grid.to_px(xy).astype(np.float32))
    cv2.fillConvexPoly(view_vis, np.round(hull).astype(np.int32), 0.0)


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return abs(a[0] - b[0]) <= 1 and abs(a[1] - b[1]) <= 1


@dataclass
class SolveParams:
    min_score: float = 0.3  #: line score (relative to the photo's strong edges) for a tile
    min_green: float = 0.2
    min_visible: float = 0.12
    level_margin: float = 0.0  #: a level must beat the levels below by this much


def solve(
    views: dict[int, LevelView], cam: Camera, profile: Profile, params: SolveParams | None = None
) -> tuple[list[TileFind], dict[int, BlockScores]]:
    """Read the tiles from the top level down (see the module's docstring)."""
    params = params or SolveParams()
    tmpl = Template.of(profile)
    feats = {k: features(v) for k, v in views.items()}
    levels = sorted(views)
    found: list[TileFind] = []
    scores: dict[int, BlockScores] = {}
    for k in reversed(levels):
        scores = {j: line_scores(feats[j], views[j].grid, profile, tmpl) for j in levels if j <= k}
        sk = scores[k]
        cands = []
        for r in range(BLOCKS):
            for c in range(BLOCKS):
                s = sk.score[r, c]
                if (
                    s < params.min_score
                    or sk.green[r, c] < params.min_green
                    or sk.visible[r, c] < params.min_visible
                ):
                    continue
                below = max((scores[j].score[r, c] for j in levels if j < k), default=0.0)
                if s < below + params.level_margin:
                    continue
                if any(overlaps((r, c), (t.row, t.col)) and t.level == k for t in found):
                    continue
                cands.append((s, r, c))
        cands.sort(reverse=True)
        accepted: list[tuple[int, int]] = []
        for s, r, c in cands:
            if any(overlaps((r, c), a) for a in accepted):
                continue
            accepted.append((r, c))
            found.append(
                TileFind(
                    r,
                    c,
                    k,
                    float(s),
                    {j: float(scores[j].score[r, c]) for j in scores},
                    float(sk.green[r, c]),
                    float(sk.visible[r, c]),
                    tuple(float(v) for v in sk.shift[r, c]),
                )
            )
            poly = tile_polygon(cam, profile, r, c, k, tuple(sk.shift[r, c, :2]))
            for j in levels:
                if j < k:
                    hide(feats[j].visible, cam, views[j].grid, views[j].z, poly)
    return found, scores
