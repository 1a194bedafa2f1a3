"""The reader's stages in order, each one's result kept for the debug pictures."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from itertools import product
from pathlib import Path

import cv2
import numpy as np

from scoring.garden import Cell, Garden, Tile
from scoring.visibility import top_levels
from vision.camera import Camera, in_image
from vision.profile import Profile
from vision.read import board as board_stage
from vision.read import flowers, levelscale, pose, tilefit, tiles, views
from vision.read.assemble import PieceChoice, TileChoice, cells_text, self_correct
from vision.read.board.refinement import holes_in_sight
from vision.read.decorations import PieceKey
from vision.read.load import Photo
from vision.read.pieces import PiecesReading, read_pieces
from vision.read.reading import DecorationReading, Reading, ReadWarning, TileReading

LEVELS = range(1, 7)  #: the planes swept (the spec's gardens reach level 5)
CAMERA_ROUNDS = 2  #: rounds of refining the camera on the tiles and reading them again
#: the focal length the levels ask for is taken from the tiles seen on 16 edge points or more; with
#: fewer than the first figure of such tiles, from those seen on the second figure or more, and then
#: asked again of the tiles read on the camera it gives (:data:`LEVELSCALE_ROUNDS` in all): a camera far
#: off reads few tiles, and their levels ask for a length only part of the way. Dev 43023 under darker
#: tones: 2 tiles so seen, the length left 11% long and 5 of 10 tiles read; with 4 seen on 8 points, 5%,
#: then 6 tiles on 8 points asked for the right length, and all 10 were read. (Every round for every
#: photo, and 8 points always, moved cameras by a hair on many photos: as many readings lost as gained)
LEVELSCALE_FEW = (3, 8)
LEVELSCALE_ROUNDS = 2
INFERRED_CONFIDENCE = 0.5  #: at most this sure of a tile read from the piece on it
MIN_BAND_PX = 20  #: band pixels past the pieces read that are enough to read a flower by
#: where the edge search's green map leaves under this share of the band samples its own balance leaves,
#: the band is read from the latter: a map whose balance takes a white band for garden green leaves only
#: samples off the band (its tile placed a hair off: the cut edge or the print past it), and these read
#: another flower (development 51108: 21 of 405 samples left, two white bands read yellow). On the 400
#: development photos of seeds 43000-43199 and 51000-51199 no other band read differently
MAP_GREEN_LEFT = 0.5
OWN_PLAQUE_SHARE = 0.5  #: of a plaque's samples that show the cream for :func:`own_light` to count it
LAST_MOVE_PX = 1.5  #: the last round reads the tiles again only if the camera moved more than this
#: why a piece inferred (:attr:`~vision.read.decorations.DecorationFind.inferred`) is warned of
PIECE_INFERRED = (
    "hidden from the camera under the belvedere's tile, read from the symbol on the field they climb to"
)
#: the warning of a board whose fit asked for a lens no phone has (:mod:`vision.read.board.refinement`)
LENS_WARNING = ReadWarning(
    "lens-doubt",
    "the board's holes and frame fit only a lens distortion no phone has: the camera was fitted with the "
    "strongest a phone has and may be off, and with it the tiles' levels (check them on the overlay)",
)


def run(photo: Photo, profile: Profile, debug_dir: Path | None = None) -> Reading:
    """Read the photo's garden (:func:`read_board`); where the board found holds no tile, it was another
    board on the table (a finished garden has tiles, spec 3): it is blotted out and the garden's board
    looked for again, and kept where tiles are read on it. Dev 56154: an empty board half out of the
    frame registered with 56 holes, the garden's, 13 tiles covering most of its holes, did not."""
    reading = read_board(photo, profile)
    if not reading.tiles:
        try:
            again = read_board(without_board(photo, reading.debug["board"], profile), profile)
        except board_stage.NoBoardError:
            pass  # no other board: the reading of the one found stands, with its warning
        else:
            if again.tiles:
                reading = again
    if debug_dir is not None:
        from vision.read.debug import save_debug

        save_debug(debug_dir, photo, reading, profile)
    return reading


#: a board blotted out (:func:`without_board`) is grown by this share round its centre (its frame's
#: shadow and the lens's bend), and filled with the median of a ring this wide (px) round it
BLOT_GROW, BLOT_RING_PX = 1.08, 41


def without_board(photo: Photo, fit: board_stage.BoardFit, profile: Profile) -> Photo:
    """``photo`` with the board placed by ``fit`` painted over in the colour of the table round it."""
    corners = fit.project(profile.board.corners[:, :2])
    centre = corners.mean(axis=0)
    mask = np.zeros(photo.image.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(centre + (corners - centre) * BLOT_GROW).astype(np.int32), 255)
    ring = cv2.dilate(mask, np.ones((BLOT_RING_PX, BLOT_RING_PX), np.uint8)) & ~mask
    image = photo.image.copy()
    image[mask > 0] = np.median(photo.image[ring > 0], axis=0) if ring.any() else 0
    return replace(photo, image=image)


def read_board(photo: Photo, profile: Profile) -> Reading:
    """The garden on the board the photo's best placement finds, stage by stage."""
    t: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        t[name] = now - clock
        clock = now

    img = photo.image
    size = (img.shape[1], img.shape[0])
    fit = board_stage.find_board(img, profile, photo.name)
    lap("board")
    focal = pose.estimate_focal(fit.H, fit.centre, size, photo.focal_px)
    cam = pose.camera_from_homography(fit.H, focal.f, fit.kappa, size, fit.centre)
    lap("camera")
    gain = views.board_gain(img, cam, profile)  # the pieces' colours and the emblem
    band_gain = views.band_gain(img, cam, profile)  # the tiles' flower bands
    tile_gain, edge_img = edge_image(img, cam, profile, band_gain)  # the tiles' print: edges and symbols
    cam, printed, finds = read_structure(edge_img, cam, fit, focal, profile, size)
    lap("tiles")
    board_flower, _ = flowers.board_flower(img, cam, profile, gain)
    lab = band_lab(img, cam, profile, finds, band_gain)
    read_flowers(lab, edge_img.not_green, cam, profile, finds)
    lap("flowers")
    glimpsed = tiles.glimpsed(edge_img, cam, printed, finds)

    def read(tiles_read: list[tiles.TileFind], refused: Collection[PieceKey] = ()) -> PiecesReading:
        return read_pieces(img, cam, tiles_read, profile, gain, tile_gain, glimpsed, edge_img.glare, refused)

    pieces, with_implied = pieces_and_implied_tiles(
        read,
        finds,
        glimpsed,
        tiles.unexplained_green(edge_img, cam, printed, finds),
        tiles.board_in_sight(edge_img, cam, printed, finds),
    )
    if len(with_implied) > len(finds):
        finds = tiles.placed_inferred(edge_img, cam, printed, with_implied)
        lab = band_lab(img, cam, profile, finds, band_gain)

    def bands_past(pieces: PiecesReading) -> None:
        """The bands read again past the pieces: stairs or a bridge over a band show their own grey or
        terracotta, not its flower."""
        outlines = [(d.level, d.outline_px) for d in pieces.finds if d.outline_px is not None]
        read_flowers(lab, edge_img.not_green, cam, profile, finds, outlines)

    def settle(pieces: PiecesReading) -> tuple[Garden, list[ReadWarning], int]:
        """The bands read past the pieces (:func:`bands_past`), then the rules' self-correction of tiles
        and pieces."""
        bands_past(pieces)
        choices = [
            TileChoice(
                Tile(
                    row=f.row,
                    col=f.col,
                    level=f.level,
                    flower=f.flower or "white",
                    symbols=pieces.garden_symbols((f.row, f.col, f.level)),
                ),
                f.level_costs,
            )
            for f in finds
        ]
        piece_choices = [PieceChoice(d.to_decoration(), d.confidence) for d in pieces.finds]
        return self_correct(board_flower or None, choices, piece_choices, [cell for cell, _ in pieces.unseen])

    lap("pieces")
    garden, warnings, doubts = settle(pieces)
    refused = left_out(pieces, garden)
    if refused:
        # the next most likely reading of the fields of a piece the rules left out: what else stands there
        # (dev 730010: a statue read on the foot of stairs, out of line with the others, left out; the
        # stairs, 1.0 by colour and in full sight, were not read, their field taken)
        again = read(finds, refused)
        new = {(d.kind, d.cells) for d in again.finds} - {(d.kind, d.cells) for d in pieces.finds}
        if new and {d.key for d in pieces.finds} - refused <= {d.key for d in again.finds}:
            settled = settle(again)
            if new <= placed(settled[0]):  # none of them left out in turn
                removed = [w for w in warnings if w.code == "removed"]
                pieces, (garden, warnings, doubts) = again, settled
                warnings, doubts = removed + warnings, doubts + len(removed)
            else:
                bands_past(pieces)  # the bands as the pieces kept leave them
    lap("rules")
    top = top_levels(garden)
    sight_warning = out_of_sight_warning(pieces.unseen, top)
    if sight_warning is not None:
        # a doubt: of the 400 development photos, 16 of the 52 so warned were read wrongly, 27 of 348 others
        warnings.append(sight_warning)
        doubts += 1
    if fit.evidence.get("lens_bounded"):
        # the board's holes asked for a lens no phone has (board.refinement.distortion_bounds): the camera
        # fitted within the phones' range may still be off (dev 56184: its focal length 14.5% long)
        warnings.append(LENS_WARNING)
        doubts += 1
    full = cam.with_size(*photo.original_size)
    scale = full.width / cam.width
    readings = []
    # the self-correction keeps the tiles in order (it may change their levels): a block can hold
    # several tiles of a stack (levels k and k - 2), so each find is matched by position, not block
    for f, kept in zip(finds, garden.tiles, strict=True):
        level = kept.level
        corners = tiles.tile_polygon(full, profile, f.row, f.col, level, f.placement)[:4]
        cells = tuple((r, c) for r, c in f.cells if top[r][c] == level)
        others = [v for k, v in f.level_costs.items() if k != level]
        margin = min(others, default=9.0) - f.level_costs.get(level, f.cost)
        conf = float(np.clip(margin / 0.5, 0.0, 1.0)) * max(f.flower_scores.get(f.flower, 0.0), 0.3)
        if f.inferred and cells:
            conf = min(conf, INFERRED_CONFIDENCE)
            warnings.append(
                ReadWarning(
                    "tile-inferred",
                    f"tile at row {f.row}, col {f.col}, level {level}: seen only under the piece on it, "
                    "read from the piece",
                    cells,
                )
            )
        elif margin < 0.15 and cells:
            warnings.append(
                ReadWarning(
                    "level-doubt", f"tile at row {f.row}, col {f.col}: level {level} is uncertain", cells
                )
            )
        readings.append(
            TileReading(
                f.row,
                f.col,
                level,
                f.flower,
                conf,
                corners,
                cells,
                {k: -v for k, v in f.level_costs.items()},
                dict(f.flower_scores),
            )
        )
    shown = placed(garden)
    kept = [d for d in pieces.finds if (d.kind, d.cells) in shown]
    for d in kept:
        for flagged, code, why in (
            (d.inferred, "piece-inferred", PIECE_INFERRED),
            (d.doubted, "piece-doubt", "read by its colours, its shape looks doubtful"),
        ):
            if flagged:
                warnings.append(ReadWarning(code, f"{d.kind} on {cells_text(d.cells)}: {why}", d.cells))
                doubts += 1
    decorations = [
        DecorationReading(
            d.kind,
            tuple(map(tuple, d.cells)),
            tuple(d.levels),
            d.confidence,
            (d.centre_px[0] * scale, d.centre_px[1] * scale),
        )
        for d in kept
    ]
    lap("assemble")
    parts = [max(r.confidence, 0.05) for r in readings] + [max(d.confidence, 0.05) for d in decorations]
    doubts += sum(f.inferred for f in finds)  # a tile read from the piece on it is a doubt too
    confidence = float(np.prod(parts) ** (1 / max(len(parts), 1))) * 0.85**doubts
    if not readings:  # a board seen, but a finished garden has tiles: they were not found
        warnings.append(ReadWarning("no-tiles", "no terrace tile was found on the board"))
        confidence = 0.0
    corners_px = fit.project(profile.board.corners[:, :2]) / photo.scale  # the plane's own fit
    reading = Reading(
        garden=garden,
        confidence=confidence,
        warnings=warnings,
        camera=full,
        board_corners_px=corners_px,
        tiles=readings,
        image_size=photo.original_size,
        decorations=decorations,
        timings=t,
        debug={"board": fit, "focal": focal, "camera": cam, "gain": gain, "pieces": pieces},
    )
    return reading


def edge_image(
    img: np.ndarray, cam: Camera, profile: Profile, band_gain: np.ndarray
) -> tuple[np.ndarray, tilefit.EdgeImage]:
    """The gain the tiles' print is balanced with, and the photo as the edge search reads it under that
    gain (:func:`tilefit.edge_image`, :func:`tilefit.normalise_green`). The gain is
    :func:`views.tile_gain`'s unless that one, grey at the knee, leaves the building zone without any
    garden green (:data:`tilefit.NO_GREEN`) where ``band_gain`` (:func:`views.band_gain`) shows some:
    a warm light on a bright photo keeps its colour under a grey gain, and the garden's green turns
    grey under it (development 43034 made lighter or warmer by benchmarks/robustness.py: no tile read)."""
    gain = views.tile_gain(img, cam, profile)
    glare = tilefit.glare_spots(img, cam, profile)
    edges = tilefit.edge_image(img, gain, glare=glare)
    if tilefit.garden_green(edges, cam, profile) >= tilefit.NO_GREEN and not np.array_equal(band_gain, gain):
        other = tilefit.edge_image(img, band_gain, glare=glare)
        if tilefit.garden_green(other, cam, profile) < tilefit.NO_GREEN:
            gain, edges = band_gain, other
    return gain, tilefit.normalise_green(edges, cam, profile)


def pieces_and_implied_tiles(
    read: Callable[[list[tiles.TileFind]], PiecesReading],
    finds: list[tiles.TileFind],
    glimpsed: Mapping[tuple[tuple[int, int], int], tuple[int, int]],
    shows_green: Callable[[tiles.TileFind], list[tuple[int, int]]] | None = None,
    shows_board: Callable[[tiles.TileFind], list[tuple[int, int]]] | None = None,
) -> tuple[PiecesReading, list[tiles.TileFind]]:
    """The pieces ``read`` on the tiles ``finds``, and ``finds`` with the tiles those pieces imply
    (:func:`tiles.implied_by_pieces`, told by ``glimpsed``, ``shows_green`` and ``shows_board``).
    Where some are implied, the pieces are read again with them: a piece none of whose fields is on a
    tile read (a fountain from such a tile to one under a higher tile) had no place to stand before.
    The second reading is kept only where it keeps every piece of the first, and then the tiles its own
    pieces imply are added too."""
    pieces = read(finds)
    implied = tiles.implied_by_pieces(finds, _fields(pieces), glimpsed, shows_green, shows_board)
    if not implied:
        return pieces, finds
    finds = finds + implied
    again = read(finds)
    if set(pieces.decorations) <= set(again.decorations):
        return again, finds + tiles.implied_by_pieces(
            finds, _fields(again), glimpsed, shows_green, shows_board
        )
    return pieces, finds


def placed(garden: Garden) -> set[tuple[str, tuple[Cell, ...]]]:
    """The garden's pieces as (kind, cells)."""
    return {(d.kind, tuple(map(tuple, d.cells))) for d in garden.decorations}


def left_out(pieces: PiecesReading, garden: Garden) -> set[PieceKey]:
    """The pieces read that the rules' self-correction left out of ``garden``."""
    shown = placed(garden)
    return {d.key for d in pieces.finds if (d.kind, d.cells) not in shown}


def _fields(pieces: PiecesReading) -> list[tuple[tuple[int, int], int]]:
    return [f for d in pieces.finds for f in d.fields]


def out_of_sight_warning(
    unseen: Sequence[tuple[tuple[int, int], int]], top: Sequence[Sequence[int]]
) -> ReadWarning | None:
    """The ``out-of-sight`` warning for the fields of ``unseen`` (the pieces stage's, out of the photo's
    sight) still seen from above in the garden read (``top``: its top level per cell); None if none."""
    cells = tuple(cell for cell, level in unseen if top[cell[0]][cell[1]] == level)
    if not cells:
        return None
    return ReadWarning(
        "out-of-sight",
        f"seen from above but hidden from the camera behind taller stacks: {cells_text(cells)} (a piece "
        "standing there is not read; a photo from higher up shows it)",
        cells,
    )


def band_lab(
    img: np.ndarray, cam: Camera, profile: Profile, finds: list[tiles.TileFind], gain: np.ndarray
) -> flowers.BandLab:
    """The photo in CIE Lab, balanced on the board's sand and then on the plaques of the tiles read
    (:func:`vision.read.views.print_gain`), for the flower bands printed beside those plaques."""
    top = tiles.top_of(finds)
    fields = [(r, c, f.level) for f in finds for r, c in f.cells if top[r, c] == f.level]
    both = gain * views.print_gain(img, cam, profile, fields, gain)
    # the balanced values in [0, 1] per channel through a table
    lut = np.clip(np.arange(256, dtype=np.float32)[:, None] * (both / 255.0)[None, :], 0.0, 1.0)
    return flowers.BandLab(img, lut.astype(np.float32))


def read_flowers(
    lab: flowers.BandLab,
    green_map: np.ndarray,
    cam: Camera,
    profile: Profile,
    finds: list[tiles.TileFind],
    pieces: Sequence[tuple[int, np.ndarray]] = (),
) -> None:
    """Each tile's flower (in place), from its band where the tiles above leave it in sight and, where
    enough of it is left, where no piece read stands over it (``pieces``: each one's level and the
    image points whose convex hull holds it). A piece on a tile one level down can cover a band too:
    stairs rise to the tile above. Each band is balanced on its tile's own plaques too
    (:func:`own_light`), and leaves out the garden green as the edge search's map shows it, or, where
    too little is left so, as its own balance shows it (:func:`vision.read.flowers.band_pixels`)."""
    hidden = np.zeros(lab.shape[:2], np.uint8)
    top = tiles.top_of(finds)
    seen = []  #: each tile's band: (tile, its pixels' count, their colour)
    for f in sorted(finds, key=lambda f: -f.level):
        where = (f.row, f.col, f.level, f.placement)
        fields = [(*rc, f.level) for rc in f.cells if top[rc] == f.level]
        own = own_light(lab, green_map, cam, profile, fields, hidden)
        masks = [hidden]
        over = [o for level, o in pieces if level >= f.level - 1]
        if over:
            past = hidden.copy()
            for o in over:
                tiles.hide(past, o, grow_px=0)
            masks.insert(0, past)
        for mask in masks:
            px, loose = flowers.band_pixels(own, green_map, cam, profile, *where, mask)
            if len(px) < max(MIN_BAND_PX, MAP_GREEN_LEFT * len(loose)):
                px = loose
            if len(px) >= MIN_BAND_PX:
                break
        if len(px):
            colour = flowers.band_colour(px, profile)
            f.flower, f.flower_scores = flowers.classify_colour(colour, profile)
            seen.append((f, len(px), colour))
        else:
            f.flower, f.flower_scores = "", {}
        tiles.hide(hidden, tiles.tile_polygon(cam, profile, f.row, f.col, f.level, f.placement))
    # a band washed out to a bluish white, told by the photo's own white bands
    bands = [(f.flower, f.flower_scores[f.flower], n, colour) for f, n, colour in seen]
    for i, washed in flowers.washed_bands(bands, profile).items():
        f = seen[i][0]
        f.flower_scores = dict.fromkeys(f.flower_scores, 0.0) | {
            washed: flowers.WASHED_SCORE,
            f.flower: 1.0 - flowers.WASHED_SCORE,
        }
        f.flower = washed


def own_light(
    lab: flowers.BandLab,
    green_map: np.ndarray,
    cam: Camera,
    profile: Profile,
    fields: list[tuple[int, int, int]],
    hidden: np.ndarray,
) -> flowers.BandLab:
    """``lab`` balanced further on one tile's own plaques (its ``fields`` seen from above, where
    ``hidden`` leaves them in sight): a tile in the shade of higher ones is lit by another lamp than
    the tiles the photo was balanced on, and its white band takes that light's tint (a cool fill
    turned white bands in shadow blue once compared with the whites in the key light). A field counts
    where :data:`OWN_PLAQUE_SHARE` of its plaque's samples show the cream and not the garden green as
    ``green_map`` shows it: a field of flowers has no plaque, and the pale green of a washed-out photo
    passes for cream by its hue (development 42095: a white band balanced on two such fields read
    pink)."""
    if not fields:
        return lab
    creams = []
    for ring in views.plaque_points(cam, profile, fields).reshape(len(fields), -1, 2):
        seen = ring[in_image(ring, lab.shape)]
        seen = seen[hidden[seen[:, 1], seen[:, 0]] == 0]
        px = lab.balanced(seen[:, 1], seen[:, 0])
        cream = views.near_cream(px, profile) & (green_map[seen[:, 1], seen[:, 0]] > tilefit.OTHER_MIN)
        if cream.sum() >= OWN_PLAQUE_SHARE * len(ring):
            creams.append(px[cream])
    if not creams:
        return lab
    gain = views.plaque_gain(np.vstack(creams), profile)
    return lab if np.array_equal(gain, np.ones(3, np.float32)) else lab.tinted(gain)


def _moved_px(a: Camera, b: Camera, profile: Profile) -> float:
    """How far (pixels) two cameras put the building zone apart, at the heights of levels 0 to 4."""
    g = np.linspace(profile.board.grid_origin[0], profile.board.grid_origin[0] + 8 * profile.board.pitch, 5)
    pts = np.array([(x, y, profile.tile_top_z(k)) for x in g for y in g for k in (0, 2, 4)], float)
    return float(np.max(np.linalg.norm(a.project(pts) - b.project(pts), axis=1)))


def clean_share(finds: list[tiles.TileFind]) -> float:
    """The share of the tiles read whose lines fit their plane closely: near 1 when the camera is
    right, low when the planes of the levels are off (the tiles then fit only roughly, or not at all)."""
    if not finds:
        return 0.0
    return sum(f.cost < CLEAN_FIT for f in finds) / len(finds)


#: a tile read on SUPPORT_EDGES edge points or more fits its level's plane cleanly at a cost under
#: CLEAN_FIT (px^2); its edges count towards its camera's support in full there, less and less the
#: worse it fits, and not at all from SOFT_END on. Counted only under CLEAN_FIT, a tile fitting at
#: 0.49 outweighed six at 0.53-0.67: variant development 730090 (a barrel lens, k1 -0.07) took a focal
#: length 9% longer for one tile under 0.5 there (126 edges in all, against 186), and read 4 of 9 tiles.
#: A fit at SOFT_END or worse counts as none, as before: 55003's tiles at 0.7-1.2 on both principal
#: points (:func:`centre_better`), 51052's extra tiles at 0.9-1.3 (:data:`FOCAL_TIE_EDGES`)
CLEAN_FIT, SOFT_END, SUPPORT_EDGES = 0.5, 0.7, 16


def support(finds: list[tiles.TileFind]) -> tuple[int, float]:
    """How many tiles read fit their level's plane cleanly, and the edge points they fit on, each
    tile's weighed by how closely it fits (:data:`CLEAN_FIT`)."""
    seen = [f for f in finds if f.edges >= SUPPORT_EDGES]
    weight = np.clip([(SOFT_END - f.cost) / (SOFT_END - CLEAN_FIT) for f in seen], 0.0, 1.0)
    return sum(f.cost < CLEAN_FIT for f in seen), float(np.dot(weight, [f.edges for f in seen]))


#: where no tile fits cleanly on either focal length, the other one is taken only if its tiles fit this
#: many times as many edges: on the development photos the right focal length fitted 1.6 times as many
#: (41012, seen nearly straight down) to 12 times (720039, a variant photo a warm light over-exposes),
#: and lengths as wrong as the first, or more, 1.03-1.10 times (42107)
FOCAL_EDGES = 1.5
#: ... and where the same tiles fit cleanly on both, this many times as many: 51052's right focal length
#: (4% shorter than the plane's middle, where the tiles of its level-2-to-5 stack fit on no plane) fitted
#: the same 2 tiles cleanly and 6 tiles in all on 1.44 times the edges of the 3 read on the middle
FOCAL_TIE_EDGES = 1.3


def focal_better(again: list[tiles.TileFind], finds: list[tiles.TileFind]) -> bool:
    """Whether the tiles ``again`` read on another focal length say more for it than ``finds`` say for
    the first: more edge points on tiles fitting cleanly (weighed by how closely, :func:`support`); as
    many, and :data:`FOCAL_TIE_EDGES` times as many edge points on all the tiles read; or, where no tile
    fits cleanly on either (a photo whose print the light or the exposure softens), :data:`FOCAL_EDGES`
    times as many."""
    a, b = support(again)[1], support(finds)[1]
    if a != b:
        return a > b
    ratio = FOCAL_TIE_EDGES if a else FOCAL_EDGES
    return sum(f.edges for f in again) >= ratio * sum(f.edges for f in finds)


#: where hardly a tile fits cleanly, the focal lengths tried across the plane's range (pulled in by
#: FOCAL_RANGE_IN at each end): this far apart at most (a ratio), and this many at most, leaving out
#: those within FOCAL_NEAR of the first (the ends only, before: 51052's range, 1,208-1,417 px, had
#: them 8% in, within 5% of its middle, 1,308, and none was tried; the truth is 1,257)
FOCAL_STEP, FOCAL_TRIES, FOCAL_RANGE_IN, FOCAL_NEAR = 1.05, 8, 1.04, 0.03


def focal_tries(focal: pose.FocalEstimate) -> list[float]:
    """The focal lengths to try where the tiles hardly fit (see :data:`FOCAL_STEP`)."""
    a, b = math.log(focal.lo * FOCAL_RANGE_IN), math.log(focal.hi / FOCAL_RANGE_IN)
    n = min(FOCAL_TRIES, max(2, math.ceil((b - a) / math.log(FOCAL_STEP)) + 1))
    return [math.exp(a + (b - a) * i / (n - 1)) for i in range(n)]


#: a principal point searched may cost its tiles this share of their edges, not more: fitting a fifth
#: more of them cleanly, 41084's lost 6% (260 against 278; 3 clean of 12 -> 8), and 41169's, on a camera
#: 15% off in focal length whose one level-1 tile fitted cleanly, 16% (103 against 122, none clean on
#: the right one)
CENTRE_EDGES = 0.9


#: the tiles read fit their planes cleanly on this share or less: the principal point is searched
CENTRE_SEARCH = 0.6
#: the focal lengths the principal point search tries at each point, as shares of the camera's own: the
#: plane's alone is far off where the view is nearly straight down (variant development 730065: a
#: principal point 2.4% off the middle, found across, but on the plane's focal length there, 8.8% long,
#: the tiles fitted no better; on the camera's own, every tile in sight is read)
CENTRE_FOCALS = (1.0, 0.95, 1.05)


def centre_better(again: list[tiles.TileFind], finds: list[tiles.TileFind]) -> bool:
    """Whether the tiles ``again`` read on the principal point searched say more for it than ``finds``
    on the first: a fifth more of them fit cleanly, at most one fewer is read, and they fit nearly as
    many edges in all (:data:`CENTRE_EDGES`); or, where no tile fits cleanly on either, as many are read
    on :data:`FOCAL_EDGES` times as many edges (the test of :func:`focal_better` then)."""
    if clean_share(again) == clean_share(finds) == 0.0:
        return len(again) >= len(finds) and focal_better(again, finds)
    return (
        clean_share(again) >= clean_share(finds) + 0.2
        and len(again) >= len(finds) - 1
        and sum(f.edges for f in again) >= CENTRE_EDGES * sum(f.edges for f in finds)
    )


def principal_point_search(
    edge_img: tilefit.EdgeImage,
    fit,
    profile: Profile,
    size: tuple[int, int],
    finds: list[tiles.TileFind],
    focal_px: float | None = None,
    spread_px: float = 0.025,
) -> Camera | None:
    """When the tiles fit badly, the camera may be off because the principal point is (phones: a few
    percent off the middle shift it, and the board's plane alone cannot tell). Try principal points
    around the middle, each with the focal length the plane then gives and, where ``focal_px`` (the
    camera's own so far) is given, with that one and :data:`CENTRE_FOCALS` round it, and keep the
    camera on whose planes the greenest blocks' edges are found best (the middle on the camera's own
    focal length first, kept on a tie); None with no block or no focal length to try."""
    long_side = max(size)
    centre = np.array(fit.centre)
    blocks = sorted(finds, key=lambda f: -f.edges)[:6]
    if not blocks:
        return None
    edges = tilefit.tile_edges(profile)

    tried = [(f, k) for f in blocks for k in (1, 2, 3, f.level)]
    poses = np.array([[profile.tile_top_z(k), 0.0, 0.0, 0.0] for _, k in tried])

    def score(cam: Camera) -> float:
        """The edge points found on each block's best level, summed (all blocks and levels at once)."""
        found = tilefit.measure_many(
            edge_img, cam, profile, [(f.row, f.col) for f, _ in tried], poses, edges, [None] * len(tried)
        )
        return float(np.array([len(m.idx) for m in found]).reshape(len(blocks), -1).max(axis=1).sum())

    own = [focal_px * s for s in CENTRE_FOCALS] if focal_px else []
    best_cam, best_score = None, None
    for dx, dy in sorted(product((-1, 0, 1), repeat=2), key=lambda d: d != (0, 0)):
        c = centre + np.array([dx, dy]) * spread_px * long_side
        plane = pose.focal_from_homography(fit.H, (c[0], c[1]))
        for f in [*own, *([plane] if plane else [])]:
            cam = pose.camera_from_intrinsics(fit.H, f, (float(c[0]), float(c[1])), fit.kappa, size)
            sc = score(cam)
            if best_score is None or sc > best_score:
                best_cam, best_score = cam, sc
    return best_cam


def read_structure(
    edge_img: tilefit.EdgeImage,
    cam: Camera,
    fit,
    focal: pose.FocalEstimate,
    profile: Profile,
    size: tuple[int, int],
) -> tuple[Camera, Profile, list[tiles.TileFind]]:
    """The tiles and the camera together: read the tiles on the camera the board's plane gives, then
    let the tiles, at their known heights, correct the camera (its focal length and principal point)
    and the print's band widths, and read them again (:mod:`vision.read.tiles`). No tile is read over
    the board's holes in sight."""
    bare = holes_in_sight(fit, profile)
    finds = tiles.solve(edge_img, cam, profile, LEVELS, bare=bare)
    if not focal.certain and support(finds)[0] < 3:
        # hardly a tile fits cleanly: the focal length may be far off; try others across its range
        for f in focal_tries(focal):
            if abs(math.log(f / cam.fx)) < FOCAL_NEAR:
                continue
            other = pose.camera_from_intrinsics(fit.H, f, fit.centre, fit.kappa, size)
            again = tiles.solve(edge_img, other, profile, LEVELS, finds, bare)
            # the right focal length fits more cleanly (or, where no tile fits cleanly on either, on
            # many more edges), and loses no tile the first one found
            if focal_better(again, finds) and len(again) >= len(finds):
                cam, finds = other, again
    if clean_share(finds) <= CENTRE_SEARCH:
        searched = principal_point_search(edge_img, fit, profile, size, finds, cam.fx)
        if searched is not None and _moved_px(cam, searched, profile) > 0.4:
            again = tiles.solve(edge_img, searched, profile, LEVELS, finds, bare)
            if centre_better(again, finds):
                cam, finds = searched, again
    # the print's own band and path widths (ink spread), measured on the tiles found: the tiles'
    # sizes, which tell their heights, are measured inside them
    spread = tilefit.ink_spread(edge_img, cam, profile, finds)
    printed = tilefit.with_spread(profile, spread) if abs(spread) > 0.04 else profile
    again = printed is not profile
    if not focal.certain:  # the focal length the levels ask for (:mod:`vision.read.levelscale`)
        for round_ in range(LEVELSCALE_ROUNDS):
            obs = tiles.observations(edge_img, cam, printed, finds, min_inliers=16)
            few = len(obs) < LEVELSCALE_FEW[0]
            if few:
                obs = tiles.observations(edge_img, cam, printed, finds, min_inliers=LEVELSCALE_FEW[1])
            scaled, _ = levelscale.search_focal(fit.H, cam, fit.kappa, obs, printed, size, focal.f)
            if scaled is cam:
                break
            cam, again = scaled, True
            if not few or round_ == LEVELSCALE_ROUNDS - 1:
                break
            finds, again = tiles.solve(edge_img, cam, printed, LEVELS, finds, bare), False
    for i in range(CAMERA_ROUNDS):
        obs = tiles.observations(edge_img, cam, printed, finds, min_inliers=24)
        if again and len(obs) < pose.REFINE_MIN_TILES:
            # the tiles were read on the camera before the levels' focal length (or the print's widths)
            # and too few fit this one to refine it on: read them on it first. 51158's higher tiles,
            # read a level too high on the plane's focal length, fitted it no longer; its camera kept
            # the image's middle for a principal point 2.5% off, and its level-5 belvedere was looked
            # for 14 px aside, on its dome's shaded rim (not read)
            finds, again = tiles.solve(edge_img, cam, printed, LEVELS, finds, bare), False
            obs = tiles.observations(edge_img, cam, printed, finds, min_inliers=24)
        refined = pose.refine_with_tiles(fit.H, cam, fit.kappa, obs, printed, size, focal)
        moved = _moved_px(cam, refined, profile) if refined is not cam else 0.0
        cam = refined
        # the planes or the lines moved: read the tiles again (after the last round, only for a move
        # that each tile's own placement would not take up)
        if moved > (0.4 if i < CAMERA_ROUNDS - 1 else LAST_MOVE_PX) or again:
            finds = tiles.solve(edge_img, cam, printed, LEVELS, finds, bare)
            again = False
        if moved <= 0.4:
            break
    return cam, printed, finds
