"""The focal length that puts the tiles on whole levels.

Seen from nearly straight above, the board's plane alone hardly fixes the focal length: a longer lens
further away shows the board the same. What changes is how much larger a raised tile looks than its
block: its top face at height h is magnified by about Z / (Z - h), Z the camera's distance, so the
photo measures h / Z for each tile, and a wrong focal length (hence a wrong Z) scales every tile's
measured height alike. The spec's tiles lie on whole levels (22.5 mm apart), so the focal length at
which the measured heights fall on whole levels, all together, is the camera's: with two different
levels in the garden there is one such focal length within the phone's field of view.

The edge points each tile was fitted to are pixels of the photo; they do not move with the camera
assumed, so each candidate focal length costs only a small least-squares fit per tile, and the
candidates of one sweep are fitted together, as one batch (a third of the time). Where no focal
length puts the tiles cleanly on whole levels, the principal point is searched with it (a phone's lies
a few percent off the middle of the photo, and the board's plane alone cannot tell where).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

import numpy as np

from vision.camera import Camera
from vision.profile import Profile
from vision.read import pose, tilefit

STEPS = 17  #: focal lengths tried across the range the board plane allows ...
FINE_STEPS = 7  #: ... then around the best of them, a third of that step apart
MAX_TILES = 10  #: the best-seen tiles used
TRUNCATE_PX2 = 4.0  #: a residual counts at most this (px^2)
PRIOR_SIGMA = 0.25  #: log focal length: a weak pull towards the board plane's estimate ...
PRIOR_WEIGHT = 0.05  #: ... worth this (px^2) per sigma^2: it breaks ties only
MIN_GAIN = 0.6  #: the summed cost must drop by this (px^2) ...
MIN_RATIO = 0.7  #: ... and to this share of the current camera's before the focal length is changed
MIN_CHANGE = 0.03  #: ... and the focal length move by this fraction (or the principal point move)
#: the best focal length with the principal point in the middle of the photo fits the tiles worse than
#: this (px^2, per tile): the principal points this share of the photo's sides around it are searched too.
#: A phone's principal point lies a few percent off the middle, and the lens correction turns about it:
#: on two development photos tilted 9 and 10 degrees, 2-3 % off, the focal length came out 22 % off
#: (the tall tiles then read a level too low), the best fits costing 0.17 and 0.22 per tile (three in
#: four development photos cost 0.1 or less); with the principal points around searched, 1-2 % off
PP_TRY, PP_STEP = 0.1, 0.02


#: a search's best (its cost with the prior, its cost, its camera), the ratio of two focal lengths tried,
#: and the range they spanned
_Search = tuple[tuple[float, float, Camera], float, tuple[float, float]]


@dataclass(frozen=True)
class ScaleCheck:
    """What the search found (for inspection: tests, debugging)."""

    focal: float  #: the focal length chosen (pixels of the working image)
    cost: float  #: its cost: the tiles' summed mean squared residuals (px^2) on whole levels
    current_cost: float  #: the same at the camera's focal length before the search
    searched: tuple[float, float]  #: the range of focal lengths searched


def tile_costs(
    cams: Sequence[Camera], profile: Profile, observations: list, scales: Sequence[float], top_level: int = 5
) -> list[list[float]]:
    """How well each observed tile's edge points fit a tile on a whole level, on each of ``cams``: its
    height fitted freely (from the height it was read at times that camera's ``scales``, how much
    farther it is), then held on the nearest of levels 1..``top_level`` while its placement is fitted
    again; per camera, each tile's mean truncated squared residual (px^2) of that fit. All cameras'
    fits run as one batch."""
    if not observations or not cams:
        return [[] for _ in cams]
    rows, cols, levels, placements, local, uvu, nrm = zip(*observations, strict=True)
    n = len(observations)
    blocks = list(zip(rows, cols, strict=True)) * len(cams)
    start = np.array(
        [
            [profile.tile_top_z(level) * scale, p[0], p[1], math.radians(p[2])]
            for scale in scales
            for level, p in zip(levels, placements, strict=True)
        ]
    )
    each = [c for c in cams for _ in range(n)]  #: the tiles' camera, tile by tile
    local, uvu, nrm = list(local) * len(cams), list(uvu) * len(cams), list(nrm) * len(cams)
    free, _, _ = tilefit.fit_undistorted_many(each, profile, blocks, start, local, uvu, nrm, iters=4)
    k = np.clip(np.round(free[:, 0] / profile.level_height), 1, top_level)
    free[:, 0] = [profile.tile_top_z(int(j)) for j in k]
    _, res, _ = tilefit.fit_undistorted_many(each, profile, blocks, free, local, uvu, nrm, False, iters=3)
    costs = [float(np.mean(np.minimum(r**2, TRUNCATE_PX2))) for r in res]
    return [costs[i : i + n] for i in range(0, len(costs), n)]


def search_focal(
    H: np.ndarray,
    cam: Camera,
    kappa: float,
    observations: list,
    profile: Profile,
    size: tuple[int, int],
    prior_f: float,
) -> tuple[Camera, ScaleCheck | None]:
    """The camera (same principal point, the focal length the tiles' levels ask for) that sees the
    board plane through ``H``; ``cam`` itself when the tiles do not clearly ask for another.
    ``observations`` as :func:`vision.read.tiles.observations` gives them (undistorted pixels on
    ``cam``)."""
    if len(observations) < 2:
        return cam, None
    # the lens correction is in pixels about the principal point, which every candidate keeps: the
    # observations' corrected pixels hold for all of them
    obs = sorted(observations, key=lambda o: -len(o[4]))[:MAX_TILES]
    z0 = float(cam.position[2])

    def evaluate(fs: Sequence[float], c: tuple[float, float]) -> list[tuple[float, float, Camera]]:
        """Each focal length of ``fs`` with principal point ``c``: (its cost with the prior, its cost,
        its camera), all fitted in one batch."""
        cands = [pose.camera_from_intrinsics(H, f, c, kappa, size) for f in fs]
        costs = tile_costs(cands, profile, obs, [float(cand.position[2]) / z0 for cand in cands])
        return [
            (sum(fit) + PRIOR_WEIGHT * (math.log(f / prior_f) / PRIOR_SIGMA) ** 2, sum(fit), cand)
            for f, fit, cand in zip(fs, costs, cands, strict=True)
        ]

    def coarse(c: tuple[float, float]) -> _Search:
        """With principal point ``c``: the best of :data:`STEPS` focal lengths across the range the
        plane allows, the ratio of two steps, that range."""
        lo, hi = pose.plane_range(H, c, size)
        fs = np.geomspace(lo, hi, STEPS)
        return min(evaluate(fs, c), key=lambda e: e[0]), float(fs[1] / fs[0]), (lo, hi)

    centre = (cam.cx, cam.cy)
    current = evaluate([cam.fx], centre)[0]
    best, step, searched = coarse(centre)
    if best[1] > PP_TRY * len(obs):
        # no focal length puts the tiles cleanly on whole levels: the principal point may be off
        for dx, dy in product((-PP_STEP, 0.0, PP_STEP), repeat=2):
            if dx or dy:
                other = coarse((centre[0] + dx * size[0], centre[1] + dy * size[1]))
                if other[0][0] < best[0]:
                    best, step, searched = other
    c = (best[2].cx, best[2].cy)
    fine = best[2].fx * np.geomspace(1 / step, step, FINE_STEPS)
    best = min([best, *evaluate(fine, c)], key=lambda e: e[0])
    check = ScaleCheck(float(best[2].fx), best[1], current[1], searched)
    moved = abs(math.log(best[2].fx / cam.fx)) > MIN_CHANGE or c != centre
    if moved and best[1] < current[1] - MIN_GAIN and best[1] < MIN_RATIO * current[1]:
        return best[2], check
    return cam, check
