"""The fixes of issue 6, each checked where it used to fail: noise in every channel, pieces jittered
around the field they stand on, no tiles passing through each other, camera heights drawn evenly,
stairs that reach the upper tile's edge."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import pytest

from scoring.garden import Decoration, Garden, Tile
from scoring.generate import generate_garden
from vision.profile import REFERENCE, Profile
from vision.render import ranges

GARDENS = 500


# ------------------------------------------------------------------ where the pieces went (plain data)


@dataclass(frozen=True)
class TileAt:
    level: int
    row: int
    col: int
    centre: np.ndarray  #: (2,) board mm
    rotation_deg: float
    corners: np.ndarray  #: (4, 2) top face, board mm


@dataclass(frozen=True)
class PieceAt:
    kind: str  #: "pillar" or a decoration kind
    cells: tuple[tuple[int, int], ...]
    levels: tuple[int, ...]  #: pillar: the surface it stands on; decoration: per cell
    xy: np.ndarray  #: (2,) board mm: a pillar's axis, a decoration's placement point


def _rot(deg: float) -> np.ndarray:
    a = np.radians(deg)
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])


def field_centre(t: TileAt, cell: tuple[int, int], profile: Profile = REFERENCE) -> np.ndarray:
    """The centre of the field of tile ``t`` over ``cell``, where the jittered tile really put it."""
    local = np.subtract(profile.cell_centre(*cell), profile.block_centre(t.row, t.col))
    return t.centre + _rot(t.rotation_deg) @ local


def _tile_over(tiles: list[TileAt], cell: tuple[int, int], level: int) -> TileAt | None:
    for t in tiles:
        if t.level == level and t.row <= cell[0] <= t.row + 1 and t.col <= cell[1] <= t.col + 1:
            return t
    return None


def decoration_offsets(tiles: list[TileAt], pieces: list[PieceAt]) -> list[float]:
    """Each (non-stairs) decoration's distance from the centre of the field(s) it stands on: one field,
    or the middle of the two fields of a fountain or of a bridge's two ends."""
    out = []
    for p in pieces:
        if p.kind in ("pillar", "stairs"):
            continue
        fields = [field_centre(t, c) for c, lv in zip(p.cells, p.levels, strict=True)
                  if (t := _tile_over(tiles, c, lv)) is not None]
        out.append(float(np.linalg.norm(p.xy - np.mean(fields, axis=0))))
    return out


def pillar_offsets(tiles: list[TileAt], pieces: list[PieceAt]) -> list[float]:
    """Each pillar's distance from the centre of what it stands on: a board cell, or a lower tile's
    field."""
    out = []
    for p in pieces:
        if p.kind != "pillar":
            continue
        (cell,), (surface,) = p.cells, p.levels
        t = _tile_over(tiles, cell, surface) if surface else None
        ref = field_centre(t, cell) if t is not None else np.array(REFERENCE.cell_centre(*cell))
        out.append(float(np.linalg.norm(p.xy - ref)))
    return out


def overlapping_pairs(tiles: list[TileAt], tol_mm2: float = 1e-3) -> int:
    """Pairs of tiles on one level whose top faces share more than ``tol_mm2`` of area."""
    n = 0
    for i, a in enumerate(tiles):
        for b in tiles[i + 1 :]:
            if a.level == b.level and abs(a.row - b.row) <= 2 and abs(a.col - b.col) <= 2:
                pa, pb = a.corners.astype(np.float32), b.corners.astype(np.float32)
                area, _ = cv2.intersectConvexConvex(pa, pb)
                n += area > tol_mm2
    return n


# ------------------------------------------------------------------------- the renderer's placement


def placed(garden: Garden, seed: int) -> tuple[list[TileAt], list[PieceAt]]:
    from vision.render.placement import place_pieces

    pl = place_pieces(garden, REFERENCE, seed)
    size = REFERENCE.tile.size
    tiles = [TileAt(t.tile.level, t.tile.row, t.tile.col, t.pose.t[:2].copy(), t.turn_deg,
                    t.corners(size)[:, :2]) for t in pl.tiles]
    pieces = [PieceAt("pillar", (p.support.cell,), (p.support.surface,), p.pose.t[:2].copy())
              for p in pl.pillars]
    pieces += [PieceAt(d.decoration.kind, d.decoration.cells, tuple(lv for _, lv in d.decoration.cell_levels),
                       np.asarray(d.xy, float)) for d in pl.decorations]
    return tiles, pieces


@pytest.fixture(scope="module")
def many_placed() -> list[tuple[list[TileAt], list[PieceAt]]]:
    return [placed(generate_garden(s), s) for s in range(GARDENS)]


def test_decorations_stand_around_their_fields_centre(many_placed) -> None:
    """Spec 2.5: each piece off its field centre by up to 2 mm, the field being where its (jittered)
    tile put it (issue 6: up to 4.3 mm off, 34% of the pieces beyond 2 mm)."""
    offs = [o for tiles, pieces in many_placed for o in decoration_offsets(tiles, pieces)]
    assert len(offs) > 2000
    assert max(offs) <= REFERENCE.decoration.placement_offset + 1e-6
    assert np.mean(offs) > 0.5  # still hand-placed, not snapped to the centre


def test_pillars_stand_around_their_surfaces_field(many_placed) -> None:
    offs = [o for tiles, pieces in many_placed for o in pillar_offsets(tiles, pieces)]
    assert len(offs) > 5000
    assert max(offs) <= REFERENCE.pillar.placement_offset + 1e-6
    assert np.mean(offs) > 0.2


def test_tiles_never_pass_through_each_other(many_placed) -> None:
    """Neighbours on one level may touch, never overlap (issue 6: 57% of gardens had an overlap); the
    hand-placement jitter is kept within spec 2.3 (centre 1.5 mm, 3 degrees)."""
    assert sum(overlapping_pairs(tiles) for tiles, _ in many_placed) == 0
    offs, turns = [], []
    for tiles, _ in many_placed:
        for t in tiles:
            offs.append(np.linalg.norm(t.centre - REFERENCE.block_centre(t.row, t.col)))
            turns.append(abs(t.rotation_deg))
    assert max(offs) <= REFERENCE.tile.placement_offset + 1e-6 and np.mean(offs) > 0.5
    assert max(turns) <= REFERENCE.tile.placement_turn_deg + 1e-6 and np.mean(turns) > 0.8


def test_tiles_keep_clear_of_pillars_passing_their_level(many_placed) -> None:
    """A double pillar passes through the level of the tile below the one it carries: no tile of that
    level may cut into it."""
    r = REFERENCE.pillar.diameter / 2
    checked = 0
    for tiles, pieces in many_placed:
        for p in pieces:
            if p.kind != "pillar":
                continue
            (cell,), (surface,) = p.cells, p.levels
            for t in tiles:
                if t.level != surface + 1 or _tile_over([t], cell, t.level):
                    continue  # only tiles beside the pillar, on the level it passes through
                d = cv2.pointPolygonTest(t.corners.astype(np.float32), (float(p.xy[0]), float(p.xy[1])), True)
                checked += 1
                assert d < -r, (cell, t)
    assert checked > 100


# ----------------------------------------------------------------------------------- camera heights


def test_camera_heights_are_even_over_the_spec_range() -> None:
    """5,000 draws for gardens of 1..5 levels: heights spread evenly over 350..700 mm (issue 6: 4% of
    the draws were under 450 mm), and every camera frames its garden."""
    from vision.render.conditions import board_in_frame, garden_top_mm, sample_camera

    rng_g = np.random.default_rng(0)
    heights = []
    for s in range(5000):
        top = garden_top_mm(REFERENCE, int(rng_g.integers(1, 6)), bool(rng_g.random() < 0.7))
        cam = sample_camera(s, REFERENCE, top_mm=top)
        heights.append(cam["height_mm"])
        if s % 50 == 0:
            assert board_in_frame(cam["camera"], REFERENCE, top_mm=top)
    lo, hi = ranges.HEIGHT_MM.lo, ranges.HEIGHT_MM.hi
    counts, _ = np.histogram(heights, bins=7, range=(lo, hi))
    assert min(heights) >= lo and max(heights) <= hi
    assert counts.min() > 0.8 * 5000 / 7 and counts.max() < 1.2 * 5000 / 7, counts


# ----------------------------------------------------------------------------------------- stairs


def _stairs_gardens() -> list[Garden]:
    """Stairs from a level-1 tile up to a level-2 tile beside it, in each of the four directions."""
    sym = (("stairs", "stairs"), ("stairs", "stairs"))
    out = []
    for lower, upper, cells in (
        ((3, 1), (2, 3), ((3, 2), (3, 3))),  # rising to the right
        ((3, 5), (2, 3), ((3, 5), (3, 4))),  # to the left
        ((4, 3), (2, 2), ((4, 3), (3, 3))),  # away from the player
        ((2, 3), (4, 2), ((3, 3), (4, 3))),  # towards the player
    ):
        tiles = (Tile(row=lower[0], col=lower[1], level=1, flower="pink", symbols=sym),
                 Tile(row=upper[0], col=upper[1], level=2, flower="blue", symbols=sym))
        out.append(Garden(board_flower="pink", tiles=tiles,
                          decorations=(Decoration(kind="stairs", cells=cells, levels=(1, 2)),)))
    return out


def stairs_ends(seed: int, garden: Garden) -> tuple[np.ndarray, np.ndarray, TileAt, TileAt]:
    """The corners (board xy) of the stairs' first and last faces across their run, as built, and the
    lower and upper tiles."""
    from vision.render.scene import build_scene

    scene = build_scene(garden, REFERENCE, seed, 0.5, board_tex=np.zeros((4, 4, 3), np.float32))
    tiles = [TileAt(o.info["level"], o.info["row"], o.info["col"], np.array(o.info["centre_board_mm"]),
                    o.info["rotation_deg"], o.corners3d[:, :2])
             for o in scene.objects if o.kind == "tile_top"]
    (oid,) = [k for k, o in enumerate(scene.objects, start=1) if o.info.get("kind") == "stairs"]
    faces = [f for s in scene.solids for f in s.faces if f.obj == oid]
    pts = np.vstack([f.verts for f in faces])
    d = next(x for x in garden.decorations if x.kind == "stairs")
    (ca, la), (cb, lb) = d.cell_levels
    if la > lb:
        (ca, la), (cb, lb) = (cb, lb), (ca, la)
    lower, upper = _tile_over(tiles, ca, la), _tile_over(tiles, cb, lb)
    turn = np.radians(scene.objects[oid - 1].info["rotation_deg"])  # the stairs' own run direction
    along = pts[:, :2] @ np.array([np.cos(turn), np.sin(turn)])
    start = pts[along < along.min() + 1e-3][:, :2]
    end = pts[along > along.max() - 1e-3][:, :2]
    return start, end, lower, upper


def test_stairs_run_from_the_lower_field_to_the_upper_tiles_edge() -> None:
    """Spec 2.5: the run spans the lower field up to the upper tile's edge (issue 6: it ended 0.5 to
    3.5 mm short): the stairs' end touches the upper tile's side and does not cut into it; its start
    is at the far edge of the lower field."""
    n = 0
    for g in _stairs_gardens():
        (lower_cell, _), (upper_cell, _) = g.decorations[0].cell_levels
        for seed in range(6):
            start, end, lower, upper = stairs_ends(seed, g)
            poly = upper.corners.astype(np.float32)
            dist = [cv2.pointPolygonTest(poly, (float(x), float(y)), True) for x, y in end]
            assert max(dist) == pytest.approx(0.0, abs=0.05), dist  # touching, not short, not inside
            lower_field = field_centre(lower, lower_cell)
            axis = field_centre(upper, upper_cell) - lower_field
            axis /= np.linalg.norm(axis)
            back = (start - lower_field) @ axis
            assert np.all(np.abs(back + REFERENCE.tile.field_size / 2) < 2.5), back  # the field's far edge
            n += 1
    assert n == 24


# ------------------------------------------------------------------------------------------ noise


def test_noise_is_in_every_channel_within_the_spec_bound() -> None:
    """Sensor noise of sigma/255 lands in all three channels (issue 6: 0 / 0 / 3.75 at sigma 4), with
    colour (chroma) noise beside the luminance noise, and no channel's std exceeds the spec's bound."""
    from vision.render.conditions import render_camera, sample_conditions
    from vision.render.post import finish_photo

    sigma = ranges.NOISE_SIGMA.hi
    cases = ((3, 0.18, None), (4, 0.5, None), (5, 0.05, None), (6, 0.18, 0.5), (7, 0.9, 0.75))
    for seed, grey, chroma in cases:
        proc = {} if chroma is None else {"chroma_noise": chroma}  # None: as drawn for the photo
        c = sample_conditions(seed, size=(640, 480), noise_sigma=sigma, blur_sigma=0.0, motion_px=0.0,
                              vignette=0.0, exposure_ev=0.0, light={"kelvin": 5000.0},
                              white_balance_kelvin=5000.0, processing=proc)
        rc = render_camera(c)
        img = finish_photo(np.full((rc.height, rc.width, 3), grey, np.float32), c).astype(np.float64)
        patch = img[100:380, 100:540]
        std = patch.reshape(-1, 3).std(axis=0)
        assert np.all(std > 0.45 * sigma), std
        assert np.all(std <= sigma + 0.2), std  # + the rounding to 8 bits
        # the channels are not one luminance noise copied three times
        chroma_std = (patch[..., 2] - patch[..., 1]).std()
        assert chroma_std > 0.5 * c.processing.chroma_noise * std.mean(), chroma_std
