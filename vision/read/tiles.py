"""Stage 4: the terrace tiles and their levels, by a plane sweep solved for the garden as a whole.

A tile standing on level k has its printed lines (the inner edge of its flower band, the edges of
its path cross) exactly where the plane z = 22.5 k puts them, within hand placement; on any other
plane the parallax moves and scales them by millimetres, which the sub-pixel edge fit of
:mod:`vision.read.tilefit` tells apart. The reader

1. proposes, for every block and level, a tile wherever the garden green shows where that level
   would put the tile's fields (:func:`green_fractions`), and again every tile read on the camera
   before this one (a refinement of a few pixels can move a tile's field samples onto its plaques);
2. fits each proposal on each of its plausible levels, and keeps for each block its best level;
3. accepts tiles from the top of the garden down: a tile accepted hides, from every tile below it,
   what it covers in the photo (its top and its sides), so that the lower tiles are judged on what
   of them is really seen; proposals overlapping an accepted tile on its own level, or covering it
   fully one level below, are impossible by the rules (spec 1.1) and dropped, and so is a tile over a
   field of a lower tile seen whole (:attr:`TileFind.whole`: its lines there were seen); before a tile
   seen by few edges is taken, every block's other levels where green shows that no accepted tile explains
   are proposed too (a low tile mostly hidden under higher ones was not greenest on its own plane);
   last, tiles seen by a few edges are taken for the green they alone explain, or, seen by a strip
   of plaques with little green or read on the camera before, for lines that fit closely; either
   way only where the print past their edges is their own (a path's cream past a path edge, a band
   past a band edge), and a well seen tile slid a little past a hand's reach is kept on that
   evidence too; a tile that covers a field showing no green though nothing above hides it was
   read one cell off, and moves back (:func:`shift_off_bare`);
4. refines the camera's focal length on the tiles found where the board's plane alone cannot fix it
   (a view nearly straight down), and reads the levels again with it.

A low tile whose one field in sight holds a piece is not read here; the decorations stage finds the
piece, and the piece implies the tile (:func:`implied_by_pieces`). The few lines such a field shows
round the piece, where its level's plane puts them, are measured here (:func:`glimpsed`): they back
the piece, and tell which block the tile is on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache

import cv2
import numpy as np

from scoring.garden import GRID, block_cells
from vision.camera import Camera, in_image
from vision.profile import Profile
from vision.read import tilefit
from vision.read.tilefit import LevelFit

log = logging.getLogger(__name__)

BLOCKS = GRID - 1  #: a tile's top-left cell is in 0..6
#: the photos to read show levels 1 to 5 (spec section 3). The plane above is swept too: a level-5 tile
#: is judged against a plane on either side, and a fit that no level explains has a plane to go to
#: (swept on levels 1 to 5 only, such fits were taken on lower planes instead: on development photos, a
#: tile not there and a level one off); a tile read on it is none (all those read on development
#: photos were fits of a clutter's or a tile's edges, not tiles)
TOP_LEVEL = 5
MIN_GREEN = 0.2  #: share of a proposal's field samples that must be green
GREEN_SHARE = 0.5  #: ... and at least this share of the greenest level's, on the same block
MAX_LEVELS_TRIED = 4  #: a block is fitted on at most this many of its greenest levels
#: a block with this many cells whose hole the photo shows holds no tile on any level: a level-1 tile
#: hides its cells' holes, and a tile higher up stands on tiles one level down under three of its cells
#: (a cell under one corner may be bare: the corner's pillar-less overhang may leave its hole in sight).
#: Dev 50100: two level-5 tiles read on a cloth's green stripes past the board's edge, over bare cells
BARE_HOLES = 2
MIN_EDGES = 4  #: edge points (on its lines) a tile needs to be accepted at all
MAX_COST = 1.6  #: mean truncated squared residual (px^2) of an accepted tile ...
#: ... or, in a photo whose tiles seen well fit this roughly or worse (the median of BLUR_TILES at least;
#: motion blur or a soft focus spreads every edge), this many times their median, up to BLUR_COST_CAP.
#: Dev 56003: 3 px of motion blur, its five tiles accepted at 1.3-1.6, a sixth, seen whole, at 1.83
BLUR_COST, BLUR_RATIO, BLUR_COST_CAP, BLUR_TILES = 1.2, 1.25, 2.0, 3
MAX_SHIFT_MM = 2.0  #: how far from its block's centre an accepted tile may sit (on the board) ...
SHIFT_PER_MM = 0.015  #: ... and this much further per mm of height
#: ... or this much further still, for a tile seen by many edges whose print past its edges is its own
#: (the camera's errors and a warped board move a tile's lines by a millimetre or more)
SLID_SLACK_MM = 1.0
SIDES_SHARE = 0.9  #: ... on this share of its edges
#: a tile moved one cell over (:func:`_moved`) where its lines fit as no neighbour's could
#: (:func:`_well_seen`) may sit this much further still: the camera is off by as much in places (variant
#: development photo 720036: the two tiles of the far row fit 2.3 and 2.5 mm right of where a hand put
#: them; the white one, read one cell off, leaving a field of bare board, fit 27 of 27 edges one cell
#: back but 3.5 mm off its block, and stayed off). At stop 54 the only photo of the 500 development
#: and 100 variant development photos read otherwise
MOVED_SLACK_MM = 2.0
MIN_INLIER_SHARE = 0.5  #: of the edges found, the share on the tile's lines
STRICT_INLIER_SHARE, STRICT_COST = 0.75, 0.8  #: the same for a tile seen by a few edges only
STRONG_EDGES = 10  #: a tile this well seen is accepted on its edges alone (first pass)
SURE_EDGES = 20  #: a tile seen by fewer edges is taken only once every block's green was proposed
MIN_UNEXPLAINED = 4  #: a tile seen less must explain this much green no accepted tile explains ...
#: ... or only some, when its lines fit this closely and the print past every one of them is its own
#: (a tile seen by a strip of plaques shows little green), on this many edges at least
CLEAN_COST, CLEAN_EDGES = 0.25, 5
#: a tile taken in the second pass shows the print it has past at least this share of its inlier edges
#: (on the development photos, the tiles taken there wrongly showed it past none or half of them)
MIN_SIDES = 0.6
#: a tile read on all 32 of its line points (:func:`vision.read.tilefit.tile_edges`), fitting them this
#: closely, was seen whole (:attr:`TileFind.whole`): a tile over one of its fields would hide that field's
#: 8 points. On the development photos, a piece read at a higher level on such a tile's field, implying
#: a tile there, was wrong (42137: stairs from level 4 on a pink level-1 tile seen by all 32, cost 0.06;
#: the lower tiles of the right ones were seen by 16-19), and so were the tiles read over one (41038,
#: 42052: 14-16 points, a cell off a true tile or between two). Seen by 28, a lower tile can still lie
#: under a true one (42112; 41038's level-2 tile over a level-1 one by a cell, whose path lines the
#: upper one's band edges stand in for)
WHOLE_EDGES, WHOLE_COST = 32, 0.5
#: a field of a tile read whose ring shows this many samples (of 9), none green, is bare
#: (:func:`bare_fields`)
BARE_SEEN = 7
#: a tile a piece implies is not on a block where a field in sight from above, without a piece read
#: on it, shows this many samples of its ring (of 9) in sight (:func:`board_in_sight`) ...
IMPLIED_BARE_SEEN = 5
#: ... all as far from green as the board's sand (``not_green`` this much at least). Dev 44044: stairs
#: read on bare board beside a level-2 tile implied a level-1 tile whose other field in sight showed 6
#: samples of sand (32-42); on 41025's bare cells the sand read 23-33, where a washed-out photo's pale
#: garden green and plaques read 1-35 (with "no sample green" alone, its true tile was not implied)
BOARD_NOT_GREEN = 15.0
#: ... or this many of them so (of 9), with no more than one green (:data:`tilefit.GREEN_MAX`): a
#: board's hole, a grid line or a neighbour's edge under a sample or two is no tile's field. Of the
#: blocks 61 development photos asked of for a tile implied by a piece, 57 true and 107 wrong, this
#: takes 16 wrong ones more and 2 true ones (43106's, whose reading stays right, another block holding
#: its piece; 44118's, its board placed a cell off): dev 45174's stairs, read on bare board beside a
#: level-2 tile, showed 7-8 sandy samples of 9 on each field, one in a hole
IMPLIED_SANDY = 7
#: a field whose ring shows this many samples of green (of 9) that no tile read explains shows a tile's
#: field there (:func:`green_fields`)
FIELD_GREEN = 3
LATE_GREEN = 8  #: field samples of unexplained green that propose a block's level late (of 36)
#: the table seen this far past the board's edges (mm) tells a green table; it is green where this share
#: of it is (of at least this many points in the photo)
TABLE_RING_MM = (50.0, 150.0)
GREEN_TABLE, TABLE_MIN_SEEN = 0.2, 50


@dataclass
class TileFind:
    row: int
    col: int
    level: int
    cost: float  #: the fit's mean truncated squared residual at its level
    level_costs: dict[int, float]  #: the same on every level tried
    edges: int  #: edge points found
    placement: tuple[float, float, float]  #: dx, dy (mm) from the block's centre, turn (degrees)
    flower: str = ""
    flower_scores: dict[str, float] = field(default_factory=dict)
    #: read from a piece standing on it, not from its own lines (:func:`implied_by_pieces`)
    inferred: bool = False

    @property
    def cells(self) -> tuple[tuple[int, int], ...]:
        return block_cells(self.row, self.col)

    @property
    def whole(self) -> bool:
        """Seen whole: all its line points found (:data:`WHOLE_EDGES`), closely (:data:`WHOLE_COST`). No
        tile stands over any of its fields: one would hide that field's 8 line points."""
        return not self.inferred and self.edges >= WHOLE_EDGES and self.cost <= WHOLE_COST


def field_samples(profile: Profile) -> np.ndarray:
    """Points (tile coordinates, mm) in the green of a tile's four fields, away from the plaques."""
    t = profile.tile
    h = t.size / 2
    u = np.array([-h + 5.5, -h + 9.0, -5.0, 5.0, h - 9.0, h - 5.5])
    # the ring of each field between its band/path and its plaque
    pts = [(x, y) for x in u for y in u]
    return np.array(pts, float)


def green_fractions(img: tilefit.EdgeImage, pixels: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """(levels, 7, 7): the share of each block's field samples (at ``pixels``, from :func:`field_pixels`)
    that are green on each level's plane."""
    return green_counts(img, pixels) / (pixels[0].shape[1] / BLOCKS**2)


def field_pixels(
    cam: Camera, profile: Profile, levels: range, shape: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """Where every block's field samples (:func:`field_samples`) lie on each level's plane: the pixels
    (levels, 7 * 7 * samples, 2), rounded, and which of them are in a photo of ``shape``."""
    local = field_samples(profile)
    centres = np.array([profile.block_centre(r, c) for r in range(BLOCKS) for c in range(BLOCKS)], float)
    xy = (centres[:, None, :] + local[None, :, :]).reshape(-1, 2)
    uv = np.stack(
        [
            np.round(cam.project(np.column_stack([xy, np.full(len(xy), profile.tile_top_z(k))]))).astype(int)
            for k in levels
        ]
    )
    return uv, in_image(uv, shape)


def green_counts(
    img: tilefit.EdgeImage, pixels: tuple[np.ndarray, np.ndarray], explained: np.ndarray | None = None
) -> np.ndarray:
    """(levels, 7, 7): how many of each block's field samples (at ``pixels``, from :func:`field_pixels`)
    are green on each level's plane (and, with ``explained``, in no accepted tile's top: pixels where it
    is 0)."""
    uv, ok = pixels
    val = np.zeros(ok.shape, bool)
    u, v = uv[ok, 0], uv[ok, 1]
    val[ok] = img.green_shown[v, u] <= tilefit.GREEN_MAX
    if explained is not None:
        val[ok] &= explained[v, u] == 0
    return val.reshape(len(uv), BLOCKS, BLOCKS, -1).sum(axis=3)


def green_table(img: tilefit.EdgeImage, cam: Camera, profile: Profile) -> bool:
    """Whether the table round the board (:data:`TABLE_RING_MM` past its edges, beyond where a high
    tile's top reaches in the photo) is green in places: a green cloth, a green pattern."""
    b = profile.board
    lo, hi = TABLE_RING_MM
    x, y = np.meshgrid(np.arange(-hi, b.width + hi, 10.0), np.arange(-hi, b.depth + hi, 10.0))
    out = np.maximum(np.maximum(-x, x - b.width), np.maximum(-y, y - b.depth))  # distance past an edge
    ring = (out >= lo) & (out <= hi)
    uv = np.round(cam.project(np.column_stack([x[ring], y[ring], np.zeros(ring.sum())]))).astype(int)
    seen = in_image(uv, img.shape)
    if seen.sum() < TABLE_MIN_SEEN:
        return False
    green = img.not_green[uv[seen, 1], uv[seen, 0]] <= tilefit.GREEN_MAX
    return bool(green.mean() >= GREEN_TABLE)


def off_board(cam: Camera, profile: Profile, shape: tuple[int, int]) -> np.ndarray:
    """A uint8 mask of the photo pixels outside the board's outline: the table (and whatever stands on
    the board and reaches past its edge in the photo)."""
    a = profile.board.corners
    edges = [a[i] + np.linspace(0.0, 1.0, 24)[:, None] * (a[(i + 1) % 4] - a[i]) for i in range(4)]
    outline = np.round(cam.project(np.vstack(edges))).astype(np.int32)  # sampled: the lens bends the edges
    mask = np.ones(shape, np.uint8)
    cv2.fillPoly(mask, [outline], 0)
    return mask


def tile_polygon(
    cam: Camera,
    profile: Profile,
    row: int,
    col: int,
    level: int,
    placement: tuple[float, ...] = (0.0, 0.0, 0.0),
    distort: bool = True,
) -> np.ndarray:
    """The photo pixels of a tile's solid: its top-face corners then its bottom-face corners (8, 2)."""
    t = profile.tile
    h = t.size / 2
    sq = np.array([[-h, -h], [h, -h], [h, h], [-h, h]], float)
    top = tilefit._board_points(
        profile,
        row,
        col,
        np.array([profile.tile_top_z(level), placement[0], placement[1], np.radians(placement[2])]),
        sq,
    )
    bottom = top - [0, 0, t.thickness]
    return cam.project(np.vstack([top, bottom]), distort=distort)


def hide(hidden: np.ndarray, polygon_px: np.ndarray, grow_px: int = 2) -> None:
    """Mark the convex hull of a solid's photo pixels as hidden (in place), grown a little."""
    hull = cv2.convexHull(polygon_px.astype(np.float32))
    cv2.fillConvexPoly(hidden, np.round(hull).astype(np.int32), 1)
    if grow_px:
        x, y, w, h = cv2.boundingRect(np.round(hull).astype(np.int32))
        x0, y0 = max(x - grow_px, 0), max(y - grow_px, 0)
        roi = hidden[y0 : y + h + grow_px, x0 : x + w + grow_px]
        roi[:] = cv2.dilate(roi, np.ones((2 * grow_px + 1, 2 * grow_px + 1), np.uint8))


def _box(polygon_px: np.ndarray, shape: tuple[int, int], pad: int) -> tuple[int, int, int, int]:
    """The pixels (x0, y0, x1, y1) round a polygon, ``pad`` more each side, within an image of ``shape``."""
    x, y, w, h = cv2.boundingRect(np.round(cv2.convexHull(polygon_px.astype(np.float32))).astype(np.int32))
    return max(x - pad, 0), max(y - pad, 0), min(x + w + pad, shape[1]), min(y + h + pad, shape[0])


def blur_cost(found: Sequence[TileFind]) -> float:
    """The cost a tile may fit at in this photo (:data:`BLUR_COST`), from the tiles accepted so far."""
    seen = [f.cost for f in found if f.edges >= SURE_EDGES and not f.inferred]
    if len(seen) < BLUR_TILES or (median := float(np.median(seen))) < BLUR_COST:
        return MAX_COST
    return min(BLUR_COST_CAP, max(MAX_COST, BLUR_RATIO * median))


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return abs(a[0] - b[0]) <= 1 and abs(a[1] - b[1]) <= 1


def _penalised(f: LevelFit | None) -> float:
    """A fit's cost with edges not found counted against it (an empty plane explains nothing)."""
    if f is None:
        return float("inf")
    return f.cost + 3.0 * max(0.0, 1.0 - f.found / 16.0)


def _support(img: tilefit.EdgeImage, cam: Camera, profile: Profile, r: int, c: int, f: LevelFit) -> int:
    """A tile's edges on its lines; for a tile seen by few, only those whose far side shows the print
    the tile has there (:func:`vision.read.tilefit.sides_agree`)."""
    return f.inliers if f.inliers >= SURE_EDGES else tilefit.sides_agree(img, cam, profile, r, c, f)


def _placement(pose: tuple[float, ...] | np.ndarray) -> tuple[float, float, float]:
    """A fit's pose (height, dx, dy, turn in radians) as a tile's placement: dx, dy (mm), turn (degrees)."""
    return (pose[1], pose[2], float(np.degrees(pose[3])))


def _placed(f: LevelFit, slack_mm: float = 0.0) -> bool:
    """Whether the fitted placement is one a hand makes (spec 2.3: within 1.5 mm and 3 degrees, plus
    what the camera fit leaves): a fit that slid further has latched onto a neighbour's lines."""
    reach = MAX_SHIFT_MM + SHIFT_PER_MM * f.pose[0] + slack_mm  # the camera's errors grow with the height
    return abs(f.pose[1]) <= reach and abs(f.pose[2]) <= reach and abs(np.degrees(f.pose[3])) <= 4.5


def _takes_late(f: LevelFit, unexplained: int, support: int, read_before: bool = False) -> bool:
    """Whether the second pass may take a tile seen by few edges, ``support`` of them showing past them
    the print the tile has there: for green no accepted tile explains, or, when its lines fit closely
    and every one of them shows its print, for a little of it. A tile read on the camera before this
    one (``read_before``) whose lines fit closely again needs no green of its own: it was seen, and the
    tiles above it may explain all the green it shows (dev 41065: a level-2 tile half under a level-3
    one, read by 14 edges on the first camera, by 9 of 10 closely on the last, none of its green left
    unexplained)."""
    close = f.cost <= CLEAN_COST and f.inliers >= CLEAN_EDGES
    own_print = support >= MIN_SIDES * f.inliers
    if read_before and close:
        return own_print
    clean = close and support >= f.inliers
    return unexplained >= (1 if clean else MIN_UNEXPLAINED) and own_print


def _slid_but_sure(
    img: tilefit.EdgeImage, cam: Camera, profile: Profile, r: int, c: int, f: LevelFit
) -> bool:
    """A tile seen by many edges, placed a little beyond a hand's reach, whose print past its edges is
    its own, or seen whole (all :data:`WHOLE_EDGES` of its line points, closely: a neighbour's lines
    cannot give them all): the camera or the board moved its lines, it did not latch onto a
    neighbour's. Dev 55188: a white level-1 tile in full view, 3 degrees turned, fit all 32 points at
    0.08 px^2 but 2.5 mm off its block; past its white band the print measured its own on 28 of them
    (28.8 asked), and the block was read on level 5 by 8 edges. On the 600 development photos of
    seeds 43000-43199, 53000-53199 and 55000-55199 it read no other tile otherwise."""
    return (
        f.inliers >= SURE_EDGES
        and not _placed(f)
        and _placed(f, SLID_SLACK_MM)
        and (
            (f.inliers >= WHOLE_EDGES and f.cost <= WHOLE_COST)
            or tilefit.sides_agree(img, cam, profile, r, c, f) >= SIDES_SHARE * f.inliers
        )
    )


def _most_inliers(per_level: dict[int, LevelFit | None]) -> LevelFit | None:
    """A block's fit with the most edges on its lines, of all its levels."""
    return max((f for f in per_level.values() if f is not None), key=lambda f: f.inliers, default=None)


def _well_seen(f: LevelFit | None) -> bool:
    """A fit no neighbour's lines could make: many edges, nearly all on its lines, closely."""
    if f is None:
        return False
    return f.inliers >= SURE_EDGES and f.inliers >= SIDES_SHARE * f.found and f.cost <= 2 * CLEAN_COST


def _best(
    fits: dict[int, LevelFit | None],
    min_inliers: int,
    strict: bool = False,
    slid: frozenset[int] = frozenset(),
    max_cost: float = MAX_COST,
) -> tuple[int, LevelFit] | None:
    """The block's best plausible level; ``slid``: levels whose fits are placed too far but sure."""
    ok = {
        k: f
        for k, f in fits.items()
        if f is not None and _plausible(f, min_inliers, strict, k in slid, max_cost)
    }
    if not ok:
        return None
    k = min(ok, key=lambda k: _penalised(ok[k]))
    return k, ok[k]


def _plausible(
    f: LevelFit, min_inliers: int, strict: bool = False, slid: bool = False, max_cost: float = MAX_COST
) -> bool:
    """Enough of the edges found sit on the tile's lines, and the placement is a hand's (or ``slid``,
    :func:`_slid_but_sure`); ``strict`` (a tile seen by few edges) asks for a cleaner fit."""
    share, cost = (STRICT_INLIER_SHARE, STRICT_COST) if strict else (MIN_INLIER_SHARE, max_cost)
    placed = slid or _placed(f)
    return f.inliers >= min_inliers and f.inliers >= share * f.found and f.cost <= cost and placed


def owned_lines(
    cam: Camera,
    profile: Profile,
    row: int,
    col: int,
    level: int,
    placement: tuple[float, ...],
    shape: tuple[int, int],
    width_px: int = 3,
) -> np.ndarray:
    """A mask of the photo pixels along a tile's green boundaries: the edges it explains."""
    t = profile.tile
    h = t.size / 2
    band = h - t.band_width
    p = t.path_width / 2
    segs = []
    for v in (-band, band, -p, p):
        segs += [((v, -band), (v, band)), ((-band, v), (band, v))]
    pose = np.array([profile.tile_top_z(level), placement[0], placement[1], np.radians(placement[2])])
    mask = np.zeros(shape, np.uint8)
    for a, b in segs:
        pts = tilefit._board_points(profile, row, col, pose, np.linspace(a, b, 12))
        uv = np.round(cam.project(pts)).astype(np.int32)
        cv2.polylines(mask, [uv], False, 1, width_px)
    return mask


def late_proposals(
    img: tilefit.EdgeImage,
    pixels: tuple[np.ndarray, np.ndarray],
    levels: range,
    found: list[TileFind],
    fits: dict[tuple[int, int], dict[int, LevelFit | None]],
    explained: np.ndarray,
) -> list[tuple[int, int, int]]:
    """Blocks and levels not fitted yet whose plane shows enough green that no accepted tile's top
    explains, and where the rules allow a tile beside those accepted (spec 1.1)."""
    unexplained = green_counts(img, pixels, explained)
    return [
        (int(r), int(c), levels[li])
        for r, c, li in zip(*np.nonzero(np.moveaxis(unexplained >= LATE_GREEN, 0, -1)), strict=True)
        if levels[li] not in fits.get((r, c), {}) and not any(_excludes(f, r, c, levels[li]) for f in found)
    ]


def _forbids(f: TileFind, r: int, c: int, k: int) -> bool:
    """Whether the rules rule out a tile on block (r, c) at level k beside tile ``f``: one level's
    tiles never share a cell, and of two tiles on one block, on levels next to each other, the upper
    would cover the lower fully. (A tile two levels or more above another on its block, on double
    pillars, may stand there: :func:`_excludes` leaves such a block to the sweep that judged it.
    Development 48051: a level-4 tile over a level-2 one on its block, read a cell over onto the table,
    could not move back.)"""
    same_block = (r, c) == (f.row, f.col)
    return (k == f.level and overlaps((r, c), (f.row, f.col))) or (same_block and abs(k - f.level) == 1)


def _excludes(f: TileFind, r: int, c: int, k: int) -> bool:
    """Whether accepted tile ``f`` rules out a tile on block (r, c) at level k: what the rules rule
    out (:func:`_forbids`), and a block under an accepted tile was judged with it."""
    return _forbids(f, r, c, k) or ((r, c) == (f.row, f.col) and k > f.level - 2)


def solve(
    img: tilefit.EdgeImage,
    cam: Camera,
    profile: Profile,
    levels: range = range(1, 7),
    known: Iterable[TileFind] = (),
    bare: Collection[tuple[int, int]] = (),
) -> list[TileFind]:
    """Read the tiles (see the module's docstring, steps 1-3): the best-explained proposal first;
    ``known``: tiles read on another camera, proposed on their levels whatever green shows; ``bare``:
    cells whose hole the photo shows (:func:`vision.read.board.refinement.holes_in_sight`), on which
    no tile is taken where :data:`BARE_HOLES` of its block's cells are among them."""
    bare_blocks = {
        (r, c)
        for r in range(BLOCKS)
        for c in range(BLOCKS)
        if sum(cell in bare for cell in block_cells(r, c)) >= BARE_HOLES
    }
    pixels = field_pixels(cam, profile, levels, img.shape)  #: the blocks' field samples on each level
    green = green_fractions(img, pixels)
    slid: set[tuple[int, int, int]] = set()  #: fits placed too far but sure (:func:`_slid_but_sure`)
    supports: dict[tuple[int, int, int], int] = {}  #: :func:`_support` of the current fits, once each

    def fit(todo: list[tuple[int, int, int]], hidden: list[np.ndarray | None]) -> None:
        """Fit the tiles (r, c, k) in ``todo`` (all at once), each past its mask, into ``fits``; a fit
        that the mask cannot change is kept."""
        again = [
            (t, h)
            for t, h in zip(todo, hidden, strict=True)
            if (old := fits.get(t[:2], {}).get(t[2])) is None or tilefit.refits(old, h)
        ]
        new = tilefit.fit_levels(img, cam, profile, [t for t, _ in again], [h for _, h in again])
        for ((r, c, k), _), f in zip(again, new, strict=True):
            fits.setdefault((r, c), {})[k] = f
            supports.pop((r, c, k), None)
            mark_slid(r, c, k, f)

    def mark_slid(r: int, c: int, k: int, f: LevelFit | None) -> None:
        """Keep ``slid`` in step with the fit of (r, c, k) (:func:`_slid_but_sure`)."""
        if f is not None and _slid_but_sure(img, cam, profile, r, c, f):
            slid.add((r, c, k))
        else:
            slid.discard((r, c, k))

    def support(r: int, c: int, k: int, f: LevelFit) -> int:
        if (r, c, k) not in supports:
            supports[(r, c, k)] = _support(img, cam, profile, r, c, f)
        return supports[(r, c, k)]

    def block_best(
        r: int, c: int, min_inliers: int, strict: bool = False, max_cost: float = MAX_COST
    ) -> tuple[int, LevelFit] | None:
        per_level = fits[(r, c)]
        slid_here = frozenset(k for k in per_level if (r, c, k) in slid)
        return _best(per_level, min_inliers, strict, slid_here, max_cost)

    lines = np.zeros(img.shape, bool)  #: edges explained by accepted tiles
    covered = {k: np.zeros(img.shape, bool) for k in levels}  #: hidden from level k by tiles above
    fits: dict[tuple[int, int], dict[int, LevelFit | None]] = {}
    first = []
    for r in range(BLOCKS):
        for c in range(BLOCKS):
            # the levels where the block's fields look greenest (the tile's own level is among the
            # three greenest and within 60 % of the greenest in all but a few hundredths of cases)
            col = green[:, r, c]
            order = np.argsort(-col)[:MAX_LEVELS_TRIED]
            first += [(r, c, levels[i]) for i in order if col[i] >= max(MIN_GREEN, GREEN_SHARE * col.max())]
    read_before = {(f.row, f.col, f.level) for f in known if f.level in levels and not f.inferred}
    first += sorted(read_before - set(first))
    fit(first, [None] * len(first))
    # the path's colour as this photo shows it, on the blocks fitted well (their print tells a tile from
    # its neighbour one cell over, :func:`vision.read.tilefit.sides_agree`)
    well = [(r, c, f) for (r, c), per in fits.items() for f in [_most_inliers(per)] if _well_seen(f)]
    img = tilefit.with_print_path(img, cam, profile, well)
    for (r, c), per in fits.items():
        for k, f in per.items():
            mark_slid(r, c, k, f)
    found: list[TileFind] = []
    #: the top faces of accepted tiles, and a green table: green off the board is then the cloth's, not
    #: that of a tile seen by a sliver (a green cloth proposed level-5 tiles round the board)
    if green_table(img, cam, profile):
        explained = off_board(cam, profile, img.shape)
    else:
        explained = np.zeros(img.shape, np.uint8)
    stale: set[tuple[int, int, int]] = set()  #: fits made before a tile now accepted could change them

    masks: dict[int, np.ndarray] = {}  #: per level, what is hidden from it now (made when needed)
    windows: dict[tuple[int, int, int], tuple[int, int, int, int]] = {}

    def window(r: int, c: int, k: int) -> tuple[int, int, int, int]:
        """The pixels (x0, y0, x1, y1) round where a tile on block (r, c) at level k would be."""
        if (r, c, k) not in windows:
            box = tile_polygon(cam, profile, r, c, k)
            x0, y0 = np.maximum(np.floor(box.min(axis=0)).astype(int) - 8, 0)
            x1, y1 = np.ceil(box.max(axis=0)).astype(int) + 8
            windows[(r, c, k)] = (int(x0), int(y0), int(x1), int(y1))
        return windows[(r, c, k)]

    def mask(k: int) -> np.ndarray:
        if k not in masks:
            masks[k] = lines | covered[k]
        return masks[k]

    def refresh(todo: list[tuple[int, int, int]]) -> bool:
        """Fit again the tiles in ``todo`` that accepted tiles may have changed; whether any."""
        todo = [t for t in todo if t in stale and fits[t[:2]][t[2]] is not None]
        fit(todo, [mask(k) for _, _, k in todo])
        stale.difference_update(todo)
        return bool(todo)

    while True:
        # greedy, lazily: a fit only gets worse when tiles are accepted (it loses edges), so a stale
        # fit is fitted again only when it would be chosen
        best = None
        max_cost = blur_cost(found)
        for r, c in fits:
            b = block_best(r, c, STRONG_EDGES, max_cost=max_cost)
            if b is None:
                continue
            k, f = b
            key = (1, support(r, c, k, f), -f.cost)
            if best is None or key > best[0]:
                best = (key, (r, c), k, f)
        if best is None and stale:
            # hiding what accepted tiles cover can also make a fit better (edges of the tile above
            # no longer pull it): fit again everything that changed before going on
            blocks = {t[:2] for t in stale if (f := fits.get(t[:2], {}).get(t[2])) and f.inliers >= MIN_EDGES}
            refresh(sorted(t for t in stale if t[:2] in blocks))  # (hiding never adds edges)
            stale.clear()
            continue
        if (best is None or best[0][1] < SURE_EDGES) and found:
            # before a tile seen by few edges is taken: green that no accepted tile explains, on a plane
            # where its block was not greenest at first (a low tile mostly hidden under higher ones, or
            # its neighbour one cell over, which the same few edges might fit), is proposed too
            props = late_proposals(img, pixels, levels, found, fits, explained)
            fit(props, [mask(k) for _, _, k in props])
            if props:
                continue
        if best is None:
            # the second pass: tiles mostly hidden, accepted for the green they alone explain
            unexplained = green_counts(img, pixels, explained)
            for r, c in fits:
                b = block_best(r, c, MIN_EDGES, strict=True)
                if b is None:
                    continue
                k, f = b
                n = int(unexplained[levels.index(k), r, c])
                log.debug(
                    "  second pass %s level %d: %d unexplained, %d on lines of %d, cost %.2f, stale %s",
                    (r, c),
                    k,
                    n,
                    f.inliers,
                    f.found,
                    f.cost,
                    (r, c, k) in stale,
                )
                # a tile seen by one field can be mistaken for its neighbour shifted by the band's width
                # (3 mm): the smaller shift from its block is the right one
                key = (0, support(r, c, k, f), -float(np.hypot(f.pose[1], f.pose[2])))
                if _takes_late(f, n, key[1], (r, c, k) in read_before) and (best is None or key > best[0]):
                    best = (key, (r, c), k, f)
        if best is None:
            break
        _, (r, c), k, f = best
        if refresh([(r, c, j) for j in fits[(r, c)]]):
            continue
        if (r, c) in bare_blocks or any(
            g.whole and g.level < k and overlaps((g.row, g.col), (r, c)) for g in found
        ):
            # it would stand over the board's holes in sight (on any level: a tile needs tiles one level
            # down under three of its cells), or hide a field of a tile below seen whole: its lines are
            # others'
            fits[(r, c)][k] = None
            stale.discard((r, c, k))
            continue
        log.debug(
            "tile %s level %d: %d edges, %d on its lines, cost %.2f", (r, c), k, f.found, f.inliers, f.cost
        )
        placement = _placement(f.pose)
        found.append(
            TileFind(r, c, k, f.cost, {j: _penalised(g) for j, g in fits[(r, c)].items()}, f.found, placement)
        )
        # a tile two or more levels below, on the same block, is hidden from above but may be seen in the
        # photo past this one's sides: it stays a candidate, so its green is not taken for a neighbour's
        fits[(r, c)] = {j: g for j, g in fits[(r, c)].items() if j <= k - 2}
        if not fits[(r, c)]:
            del fits[(r, c)]
        # the edges the new tile explains are no one else's; what it covers is hidden from the levels below
        masks.clear()
        new_lines = owned_lines(cam, profile, r, c, k, placement, lines.shape)
        poly = tile_polygon(cam, profile, r, c, k, placement)
        cover = np.zeros(lines.shape, np.uint8)
        hide(cover, poly)
        cv2.fillConvexPoly(
            explained, np.round(cv2.convexHull(poly[:4].astype(np.float32))).astype(np.int32), 1
        )
        # both masks lie in the tile's box (its lines are on its top, 3 px wide; its cover is its outline
        # grown by 2 px): the updates and the tests below are made there
        bx0, by0, bx1, by1 = _box(poly, lines.shape, pad=4)
        box = (slice(by0, by1), slice(bx0, bx1))
        new_in_box, cover_in_box = new_lines[box].astype(bool), cover[box].astype(bool)
        lines[box] |= new_in_box
        for j in levels:
            if j < k:
                covered[j][box] |= cover_in_box
        lines_or_cover = new_in_box | cover_in_box
        for (r2, c2), per_level in fits.items():
            for k2 in list(per_level):
                if per_level[k2] is None:
                    continue
                if (k2 == k and overlaps((r2, c2), (r, c))) or (k2 == k - 1 and (r2, c2) == (r, c)):
                    per_level[k2] = None  # one level's tiles never share a cell, nor cover one below fully
                    stale.discard((r2, c2, k2))  # and it is never fitted again
                    continue
                change = lines_or_cover if k2 < k else new_in_box
                x0, y0, x1, y1 = window(r2, c2, k2)
                x0, y0, x1, y1 = (
                    max(x0, bx0) - bx0,
                    max(y0, by0) - by0,
                    min(x1, bx1) - bx0,
                    min(y1, by1) - by0,
                )
                if x0 < x1 and y0 < y1 and change[y0:y1, x0:x1].any():
                    stale.add((r2, c2, k2))
    found = shift_to_ends(img, cam, profile, shift_off_bare(img, cam, profile, found))
    return [f for f in found if f.level <= TOP_LEVEL]


def _field_rings(
    img: tilefit.EdgeImage, cam: Camera, profile: Profile, f: TileFind
) -> tuple[np.ndarray, np.ndarray] | None:
    """The pixels (N, 2) of tile ``f``'s garden ring samples (:func:`field_samples`, 9 a field) and the
    field (0..3, row-major in the tile) of each; None where the tile is not wholly in the photo."""
    local = field_samples(profile)
    pose = np.array([profile.tile_top_z(f.level), *f.placement[:2], np.radians(f.placement[2])])
    uv = np.round(cam.project(tilefit._board_points(profile, f.row, f.col, pose, local))).astype(int)
    if not in_image(uv, img.shape).all():
        return None
    return uv, (local[:, 1] > 0).astype(int) * 2 + (local[:, 0] > 0)


def _ring_samples(
    img: tilefit.EdgeImage, cam: Camera, profile: Profile, f: TileFind, hidden: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Tile ``f``'s garden ring samples (:func:`_field_rings`): which of them are in sight past
    ``hidden`` (uint8, 1: hidden), their ``not_green``, and the field of each; None where the tile is
    not wholly in the photo."""
    rings = _field_rings(img, cam, profile, f)
    if rings is None:
        return None
    uv, field_of = rings
    return hidden[uv[:, 1], uv[:, 0]] == 0, img.not_green[uv[:, 1], uv[:, 0]], field_of


def bare_fields(
    img: tilefit.EdgeImage, cam: Camera, profile: Profile, f: TileFind, hidden: np.ndarray
) -> list[tuple[int, int]]:
    """The fields (row, column offsets in the tile) of a tile read whose garden ring is in view (all but
    a little of it clear of ``hidden``, the tiles above) and shows no green at all: the tile is not there
    (or a piece hides the ring: the caller asks for a better explanation before it drops the tile)."""
    samples = _ring_samples(img, cam, profile, f, hidden)
    if samples is None:
        return []
    seen, ng, field_of = samples
    green = ng <= tilefit.GREEN_MAX
    return [
        (i // 2, i % 2)
        for i in range(4)
        if seen[field_of == i].sum() >= BARE_SEEN and not green[field_of == i].any()
    ]


def green_fields(
    img: tilefit.EdgeImage, cam: Camera, profile: Profile, f: TileFind, hidden: np.ndarray
) -> list[tuple[int, int]]:
    """The cells of tile ``f``'s fields whose garden ring shows green (:data:`FIELD_GREEN` samples at
    least) past ``hidden`` (what the tiles read cover in the photo: green there is theirs)."""
    samples = _ring_samples(img, cam, profile, f, hidden)
    if samples is None:
        return []
    seen, ng, field_of = samples
    green = seen & (ng <= tilefit.GREEN_MAX)
    return [(f.row + i // 2, f.col + i % 2) for i in range(4) if green[field_of == i].sum() >= FIELD_GREEN]


def unexplained_green(
    img: tilefit.EdgeImage, cam: Camera, profile: Profile, finds: list[TileFind]
) -> Callable[[TileFind], list[tuple[int, int]]]:
    """:func:`green_fields` past everything the tiles ``finds`` cover in the photo (the green there is
    theirs: :func:`_covered_above` level 0), the mask made once, when first asked."""

    @cache
    def explained() -> np.ndarray:
        return _covered_above(cam, profile, finds, 0, img.shape)

    def shows_green(tile: TileFind) -> list[tuple[int, int]]:
        return green_fields(img, cam, profile, tile, explained())

    return shows_green


def board_in_sight(
    img: tilefit.EdgeImage, cam: Camera, profile: Profile, finds: list[TileFind]
) -> Callable[[TileFind], list[tuple[int, int]]]:
    """The cells of a tile's fields whose garden ring shows :data:`IMPLIED_BARE_SEEN` samples or more
    past the tiles ``finds`` above it, each of them as far from green as the board's sand
    (:data:`BOARD_NOT_GREEN`), or :data:`IMPLIED_SANDY` so with one green at most: the photo shows no
    tile there. The masks of what the tiles above each level hide are made once, when first asked."""

    @cache
    def covered(level: int) -> np.ndarray:
        return _covered_above(cam, profile, finds, level, img.shape)

    def shows_board(tile: TileFind) -> list[tuple[int, int]]:
        samples = _ring_samples(img, cam, profile, tile, covered(tile.level))
        if samples is None:
            return []
        seen, ng, field_of = samples
        sandy, green = ng >= BOARD_NOT_GREEN, ng <= tilefit.GREEN_MAX
        out = []
        for i in range(4):
            m = field_of == i
            n_seen, n_sandy = seen[m].sum(), (sandy & seen)[m].sum()
            if (n_seen >= IMPLIED_BARE_SEEN and n_sandy == n_seen) or (
                n_sandy >= IMPLIED_SANDY and (green & seen)[m].sum() <= 1
            ):
                out.append((tile.row + i // 2, tile.col + i % 2))
        return out

    return shows_board


def _covered_above(
    cam: Camera, profile: Profile, finds: Iterable[TileFind], level: int, shape: tuple[int, int]
) -> np.ndarray:
    """Where the tiles of ``finds`` above ``level`` hide it in the photo (uint8, 1: hidden)."""
    hidden = np.zeros(shape, np.uint8)
    for g in finds:
        if g.level > level:
            hide(hidden, tile_polygon(cam, profile, g.row, g.col, g.level, g.placement))
    return hidden


def _moved(
    img: tilefit.EdgeImage,
    cam: Camera,
    profile: Profile,
    f: TileFind,
    others: list[TileFind],
    moves: Iterable[tuple[int, int]],
    mask: np.ndarray,
    good: Callable[[TileFind, LevelFit], bool],
    min_inliers: int = 0,
) -> TileFind | None:
    """Tile ``f`` moved one cell over (``moves``: row and column steps): of the blocks where nothing read
    (``others``) rules it out, its lines fit cleanly past ``mask`` (placed by a hand, or, fitting as no
    neighbour's lines could, up to :data:`MOVED_SLACK_MM` further) and ``good`` (the moved tile, its
    fit) holds, the one with the most edges on its lines (more than ``min_inliers``), with the levels
    ``f`` was tried on tried there too (how sure its level is). None: no such block."""
    best: TileFind | None = None
    best_inliers = min_inliers
    for dr, dc in moves:
        r, c = f.row + dr, f.col + dc
        if not (0 <= r < BLOCKS and 0 <= c < BLOCKS):
            continue
        if any(g is not f and _forbids(g, r, c, f.level) for g in others):
            continue
        fit = tilefit.fit_level(img, cam, profile, r, c, f.level, hidden=mask)
        if fit is None or fit.inliers <= best_inliers:
            continue
        slid = _well_seen(fit) and _placed(fit, MOVED_SLACK_MM)
        if not _plausible(fit, CLEAN_EDGES, strict=True, slid=slid):
            continue
        moved = TileFind(r, c, f.level, fit.cost, {f.level: _penalised(fit)}, fit.found, _placement(fit.pose))
        if good(moved, fit):
            best, best_inliers = moved, fit.inliers
    if best is not None:
        for k in f.level_costs:
            if k != f.level:
                other = tilefit.fit_level(img, cam, profile, best.row, best.col, k, hidden=mask)
                best.level_costs[k] = _penalised(other)
    return best


def shift_off_bare(
    img: tilefit.EdgeImage, cam: Camera, profile: Profile, finds: list[TileFind]
) -> list[TileFind]:
    """A tile can be read one cell off its block: seen by one field, or with the edges of another tile
    near its own, it fits the lines one cell over nearly as well (its band lies 3 mm from where the
    neighbour's path would). Read one cell off, it covers a field where the photo shows no green: the
    board, or a tile lower down. Every tile read with a bare field (:func:`bare_fields`) is moved one
    cell away from it when its lines fit cleanly there, its print shows past them, and it leaves no
    field bare; otherwise it stays (a piece on a field hides the green too)."""
    out = list(finds)
    for i, f in enumerate(finds):
        hidden = _covered_above(cam, profile, out, f.level, img.shape)
        bare = bare_fields(img, cam, profile, f, hidden)
        if not bare:
            continue
        moves = {(-1 if dr else 1, 0) for dr, _ in bare} | {(0, -1 if dc else 1) for _, dc in bare}

        def good(moved: TileFind, fit: LevelFit, hidden: np.ndarray = hidden) -> bool:
            seen = tilefit.sides_agree(img, cam, profile, moved.row, moved.col, fit)
            return seen >= MIN_SIDES * fit.inliers and not bare_fields(img, cam, profile, moved, hidden)

        best = _moved(img, cam, profile, f, out, moves, hidden.astype(bool), good)
        if best is None:
            continue
        log.debug("tile %s level %d moved to %s", (f.row, f.col), f.level, (best.row, best.col))
        out[i] = best
    return out


#: a tile read by few edges, beyond whose path and band the photo shows what the tile has there on less
#: than this share of its edges (:func:`vision.read.tilefit.ends_agree`; on development photos, of the fits
#: seen by 10 to 19 edges, the true tiles' showed it on a median 95%, those one cell over on 50%) ...
ENDS_DOUBT = 0.7
#: ... moves one cell over where a fit shows it on this share, with as many edges on its lines
ENDS_SURE = 0.9


def shift_to_ends(
    img: tilefit.EdgeImage, cam: Camera, profile: Profile, finds: list[TileFind]
) -> list[TileFind]:
    """A tile read one cell off its block by a pale band (a white or yellow band looks like the path, so
    the print past its edges cannot tell it from its neighbour) shows, beyond its paths and bands, the
    board where its next field should be green and green where it should have ended. Such a tile, seen
    by few edges, moves one cell over where a fit sees as many edges and what lies beyond them agrees
    (:data:`ENDS_DOUBT`, :data:`ENDS_SURE`), and where it leaves no field bare (:func:`bare_fields`: the
    move :func:`shift_off_bare` undoes; the decks of bridges from a tile's two fields in sight hide what
    lies beyond its edges, and their ends agree one cell over, on the gap)."""
    out = list(finds)
    for i, f in enumerate(finds):
        if f.edges >= SURE_EDGES or f.inferred:
            continue
        mask = _covered_above(cam, profile, out, f.level, img.shape).astype(bool)
        here = tilefit.fit_level(img, cam, profile, f.row, f.col, f.level, hidden=mask)
        if here is None:
            continue
        if tilefit.ends_agree(img, cam, profile, f.row, f.col, here) >= ENDS_DOUBT * here.inliers:
            continue

        def good(moved: TileFind, fit: LevelFit, mask: np.ndarray = mask) -> bool:
            agree = tilefit.ends_agree(img, cam, profile, moved.row, moved.col, fit)
            return agree >= ENDS_SURE * fit.inliers and not bare_fields(img, cam, profile, moved, mask)

        steps = ((-1, 0), (1, 0), (0, -1), (0, 1))
        best = _moved(img, cam, profile, f, out, steps, mask, good, min_inliers=here.inliers - 1)
        if best is None:
            continue
        log.debug("tile %s level %d moved to %s by what lies beyond its edges", (f.row, f.col), f.level,
                  (best.row, best.col))
        out[i] = best
    return out


def top_of(finds: list[TileFind]) -> np.ndarray:
    """(8, 8): the level of the highest tile read over each cell (0: none)."""
    top = np.zeros((GRID, GRID), int)
    for f in finds:
        for r, c in f.cells:
            top[r, c] = max(top[r, c], f.level)
    return top


GLIMPSE_LINES = 3  #: line points of a tile's one field in sight (of 8) fitted within INLIER_PX ...
GLIMPSE_COST = 0.7  #: ... by a fit this close (mean truncated squared residual, px^2)


def glimpsed(
    img: tilefit.EdgeImage, cam: Camera, profile: Profile, finds: list[TileFind]
) -> dict[tuple[tuple[int, int], int], tuple[int, int]]:
    """Fields of tiles not read that show their own lines round a piece: a block on level k with three
    cells under higher tiles read and the fourth in sight from above (no tile read over it, none read
    whole under it), fitted on that level past everything the tiles read hide or explain. A piece on
    such a field (the foot of stairs, a fountain's half) hides most of its green and lines, so the
    tile is not read on them; the few lines left round the piece, on the plane of that level, are
    the tile's, and they back the piece that implies it (the decorations stage). Returns, for each
    such (cell, level), the block whose fit put the most of that field's line points (at least
    :data:`GLIMPSE_LINES`) on its lines, the closest fit of those."""
    top = top_of(finds)
    whole = {cell for f in finds if f.whole for cell in f.cells}
    todo: list[tuple[int, int, int]] = []
    seen: list[tuple[int, int]] = []
    for k in range(1, TOP_LEVEL):
        for r in range(BLOCKS):
            for c in range(BLOCKS):
                cells = block_cells(r, c)
                open_ = [x for x in cells if top[x] <= k]
                if len(open_) != 1 or top[open_[0]] == k or open_[0] in whole:
                    continue
                if any(_excludes(f, r, c, k) for f in finds):
                    continue
                todo.append((r, c, k))
                seen.append(open_[0])
    if not todo:
        return {}
    lines = np.zeros(img.shape, bool)
    for f in finds:
        lines |= owned_lines(cam, profile, f.row, f.col, f.level, f.placement, img.shape).astype(bool)
    levels = {k for _, _, k in todo}
    masks = {k: lines | _covered_above(cam, profile, finds, k, img.shape).astype(bool) for k in levels}
    fits = tilefit.fit_levels(img, cam, profile, todo, [masks[k] for _, _, k in todo])
    points = np.array([e.point for e in tilefit.tile_edges(profile)], float)
    best: dict[tuple[tuple[int, int], int], tuple[tuple[int, float], tuple[int, int]]] = {}
    for (r, c, k), cell, fit in zip(todo, seen, fits, strict=True):
        if fit is None or fit.cost > GLIMPSE_COST:
            continue
        pts = points[fit.edges]  # (tile mm: x along the columns, y along the rows)
        on_field = ((pts[:, 0] > 0) == (cell[1] > c)) & ((pts[:, 1] > 0) == (cell[0] > r))
        n = int(np.sum(on_field & (np.abs(fit.residuals) < tilefit.INLIER_PX)))
        rank = (n, -fit.cost)
        if n >= GLIMPSE_LINES and ((cell, k) not in best or rank > best[(cell, k)][0]):
            best[(cell, k)] = (rank, (r, c))
    return {key: block for key, (_, block) in best.items()}


def implied_by_pieces(
    finds: list[TileFind],
    fields: Iterable[tuple[tuple[int, int], int]],
    glimpses: Mapping[tuple[tuple[int, int], int], tuple[int, int]] | None = None,
    shows_green: Callable[[TileFind], Collection[tuple[int, int]]] | None = None,
    shows_board: Callable[[TileFind], Collection[tuple[int, int]]] | None = None,
) -> list[TileFind]:
    """The tiles that pieces found on ``fields`` ((cell, level) each) stand on where no tile was read,
    the cell in sight from above (a low tile whose one field in sight holds a fountain's half or the
    foot of stairs shows too little of its own lines to be read). Each goes on the block whose lines
    showed round the piece (``glimpses``, :func:`glimpsed`), else on the block that holds the cell and
    the most other fields of ``fields`` on its level (the feet of two stairs side by side stand on one
    tile), else the most fields in sight from above that show a garden green no tile read explains
    (``shows_green``: a tile's cells whose rings show it, :func:`unexplained_green`; its other field in
    sight, without a piece, was too little to read it by), then leaves the most of the tile under
    higher tiles read, as the rules allow beside those read (a tile read on its edges would have shown
    any other field in sight). Never on a block whose other field in sight from above, with no piece
    on it, shows the board (``shows_board``: :func:`board_in_sight`); with no block left, no tile (the
    piece then stands on none, and the self-correction leaves it out)."""
    glimpses = glimpses or {}
    top = top_of(finds)
    out: list[TileFind] = []
    wanted = set(fields)
    for cell, level in sorted(wanted):
        if top[cell] >= level or any(cell in f.cells and f.level == level for f in out):
            continue
        options = []
        for r in (cell[0] - 1, cell[0]):
            for c in (cell[1] - 1, cell[1]):
                if not (0 <= r < BLOCKS and 0 <= c < BLOCKS):
                    continue
                if any(_excludes(f, r, c, level) for f in finds + out):
                    continue
                cells = block_cells(r, c)
                tile = _inferred(r, c, level)
                if shows_board is not None and any(
                    top[x] < level and (x, level) not in wanted for x in shows_board(tile)
                ):
                    continue
                shared = sum((x, level) in wanted for x in cells)
                lines = glimpses.get((cell, level)) == (r, c)
                green = 0
                if shows_green is not None:
                    green = sum(x != cell and top[x] < level for x in shows_green(tile))
                options.append((lines, shared, green, sum(int(top[x] > level) for x in cells), (r, c)))
        if not options:
            continue
        _, _, _, hidden, (r, c) = max(options)
        log.debug("tile %s level %d implied by a piece on %s (%d fields hidden)", (r, c), level, cell, hidden)
        out.append(_inferred(r, c, level))
    return out


def placed_inferred(
    img: tilefit.EdgeImage, cam: Camera, profile: Profile, finds: list[TileFind]
) -> list[TileFind]:
    """``finds`` with each tile inferred from a piece (:func:`implied_by_pieces`) placed where its own
    edges in sight past the higher tiles read put it. Inferred, a tile stands on its block unmoved, and
    a hand's placement (spec 2.3: 1.5 mm, 3 degrees) then puts its 3 mm flower band's middle where the
    band is sampled on one side and past it on another (development 55088: a pink band, sampled half on
    its tile's cut edge and half on the garden's green, read white). Left unmoved where too few edges
    are found, they fit loosely, or the fit slides further than a hand places and a camera's error
    moves (:data:`SLID_SLACK_MM`: the block is known, the piece on it told it)."""
    todo = [i for i, f in enumerate(finds) if f.inferred]
    if not todo:
        return finds
    masks = [_covered_above(cam, profile, finds, finds[i].level, img.shape) for i in todo]
    blocks = [(finds[i].row, finds[i].col, finds[i].level) for i in todo]
    fits = tilefit.fit_levels(img, cam, profile, blocks, masks)
    out = list(finds)
    for i, fit in zip(todo, fits, strict=True):
        if fit is not None and fit.cost <= MAX_COST and _placed(fit, SLID_SLACK_MM):
            out[i] = replace(finds[i], placement=_placement(fit.pose))
    return out


def _inferred(row: int, col: int, level: int) -> TileFind:
    """A tile not read but inferred on a block and level, placed where a hand puts it unmoved."""
    return TileFind(row, col, level, 0.0, {level: 0.0}, 0, (0.0, 0.0, 0.0), inferred=True)


def observations(
    img: tilefit.EdgeImage, cam: Camera, profile: Profile, finds: list[TileFind], min_inliers: int = 12
) -> list[tuple]:
    """The edge points of the well-seen tiles, for refining the camera on them
    (:func:`vision.read.pose.refine_with_tiles`): (row, col, level, placement, tile points, lens-
    corrected pixels, normals), inliers only."""
    edges = tilefit.tile_edges(profile)
    pts = np.array([e.point for e in edges], float)
    fitted = [
        (f, fit)
        for f, fit in zip(finds, tilefit.fit_placed(img, cam, profile, finds), strict=True)
        if fit is not None and fit.inliers >= min_inliers
    ]
    poses = np.array([fit.pose for _, fit in fitted], float).reshape(-1, 4)
    blocks = [(f.row, f.col) for f, _ in fitted]
    measured = tilefit.measure_many(img, cam, profile, blocks, poses, edges, [None] * len(fitted))
    out = []
    for (f, _), pose, (idx, uv, nrm, *_) in zip(fitted, poses, measured, strict=True):
        if len(idx) < min_inliers:
            continue
        proj = cam.project(tilefit._board_points(profile, f.row, f.col, pose, pts[idx]))
        keep = np.abs(np.sum((uv - proj) * nrm, axis=1)) < 1.5
        if keep.sum() < min_inliers:
            continue
        placement = _placement(pose)
        out.append(
            (f.row, f.col, f.level, placement, pts[idx][keep], cam.undistort_pixels(uv[keep]), nrm[keep])
        )
    return out
