"""The 3-D scene of one photo: board, tiles, pillars, decorations and clutter as solids, plus the
bookkeeping the ground truth needs (where each piece really went after hand-placement jitter)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scoring.garden import SYMBOLS, Garden, Tile
from scoring.generate import MATERIAL_SYMBOLS
from vision.profile import Profile
from vision.render import clutter, pieces
from vision.render.conditions import ClutterItem, Geometry
from vision.render.looks import Artwork, Looks
from vision.render.mesh import Face, Pose, Solid, rect, rot_z
from vision.render.placement import PlacedDecoration, place_pieces
from vision.render.textures import (
    BOARD_MOTTLE,
    REFERENCE_ART,
    board_top,
    card_back,
    flat,
    linear,
    print_finish,
    tile_top,
)

MATERIAL_BY_SYMBOLS = {n: m for m, n in MATERIAL_SYMBOLS.items()}  #: symbol count -> tile material


#: a tile's 2 x 2 field symbols seen from above (None: a blank field)
Symbols = tuple[tuple[str | None, str | None], tuple[str | None, str | None]]


@dataclass
class PieceTruth:
    """One object in the scene whose pixels are tracked in the id buffer."""

    kind: str  #: "tile_top", "tile", "pillar", "decoration"
    info: dict[str, Any]
    corners3d: np.ndarray | None = None  #: tile top corners (4, 3), board frame
    anchor3d: np.ndarray | None = None  #: a representative 3-D point (centre) for centre_px


@dataclass
class Scene:
    solids: list[Solid]
    objects: list[PieceTruth] = field(default_factory=list)  #: object id = index + 1
    #: the garden as the photo shows it: the board flower and every tile's symbols filled in where
    #: the input left them unknown (the truth file records this one)
    shown: Garden | None = None

    def new_obj(self, kind: str, info: dict[str, Any], **kw: Any) -> int:
        self.objects.append(PieceTruth(kind, info, **kw))
        return len(self.objects)


def tile_material(tile: Tile, board_flower: str, rng: np.random.Generator) -> str:
    """A material consistent with the tile's number of symbols (spec 2.3)."""
    n = sum(s is not None for row in tile.symbols or () for s in row)
    if n <= 2 and tile.flower == board_flower and rng.random() < 0.5 and n >= 1:
        return "start"
    return MATERIAL_BY_SYMBOLS.get(n, "clay" if n < 2 else "basalt")


def plausible_symbols(rng: np.random.Generator, garden: Garden, tile: Tile) -> Symbols:
    """Symbols for a tile whose symbols are unknown: the decorations on it, then random ones."""
    grid = [[None, None], [None, None]]
    for d in garden.decorations:
        if d.kind == "belvedere":
            continue
        for cell, lv in d.cell_levels:
            if lv == tile.level and tile.covers(cell):
                grid[cell[0] - tile.row][cell[1] - tile.col] = d.kind
    n = int(rng.integers(2, 5))
    for i in rng.permutation(4):
        r, c = divmod(int(i), 2)
        if sum(x is not None for row in grid for x in row) >= n:
            break
        if grid[r][c] is None:
            grid[r][c] = SYMBOLS[int(rng.integers(len(SYMBOLS)))]
    return (tuple(grid[0]), tuple(grid[1]))


def board_flower(garden: Garden, profile: Profile, seed: int) -> str:
    """The board's flower colour in photo ``seed``: the garden's, or drawn from the seed when the
    garden leaves it unknown."""
    if garden.board_flower:
        return garden.board_flower
    rng = np.random.default_rng([seed, 0xB4B1])
    return list(profile.flowers)[int(rng.integers(len(profile.flowers)))]


def build_scene(
    garden: Garden,
    profile: Profile,
    seed: int,
    ppm: float,
    clutter: tuple[ClutterItem, ...] = (),
    board_tex: np.ndarray | None = None,
    geometry: Geometry | None = None,
    looks: Looks | None = None,
) -> Scene:
    """All solids of the photo. ``ppm``: texture pixels per mm for printed faces. The garden must
    name its board flower (:func:`board_flower` fills it in). ``geometry``: the photo's board warp and
    tile bows (default: flat). ``looks``: the photo's artwork (default: the reference print)."""
    flower = garden.board_flower
    if not flower:
        raise ValueError("build_scene needs the garden's board flower: see scene.board_flower()")
    geometry = geometry or Geometry()
    rng = np.random.default_rng([seed, 0xB4B1])
    scene = Scene([])
    art = looks.artwork if looks is not None else REFERENCE_ART
    _add_board(scene, profile, flower, ppm, rng, board_tex, art)
    if geometry.board_warp_mm:
        pieces.warp_board_top(scene.solids[-1], profile, geometry.board_warp_mm)
    placement = place_pieces(garden, profile, seed, geometry.board_warp_mm, geometry.tile_bow_mm)
    shown_symbols: dict[tuple[int, int, int], Any] = {}
    for pt in placement.tiles:
        t, pose = pt.tile, pt.pose
        symbols = t.symbols if t.symbols is not None else plausible_symbols(rng, garden, t)
        shown_symbols[t.key] = symbols
        material = tile_material(t.model_copy(update={"symbols": symbols}), flower, rng)
        quarter = int(rng.integers(4))
        tex = tile_top(profile, t.flower, symbols, ppm, rng, quarter, art, (t.row, t.col, t.level))
        info = {
            "row": t.row,
            "col": t.col,
            "level": t.level,
            "flower": t.flower,
            "material": material,
            "centre_board_mm": [round(float(pose.t[0]), 4), round(float(pose.t[1]), 4)],
            "rotation_deg": round(pt.turn_deg, 4),
            "quarter_turns": quarter,
            "top_z_mm": round(float(pose.t[2]), 4),
            "bow_mm": round(pt.bow_mm, 4),  #: its middle raised over its edges ...
            "bow_axis": "x" if pt.bow_axis == 0 else "y",  #: ... across its own x or y (before the turn)
        }
        top_id = scene.new_obj("tile_top", info, corners3d=pt.corners(profile.tile.size),
                               anchor3d=pose.t.copy())
        scene.solids.append(pieces.tile(profile, pose, tex, material, t.flower, obj_top=top_id, obj=top_id,
                                        bow=(pt.bow_mm, pt.bow_axis)))
        for pp in (p for p in placement.pillars if p.under.key == t.key):
            s = pp.support
            height = profile.pillar.double_height if pp.double else profile.pillar.single_height
            foot = [round(float(v), 4) for v in pp.pose.t]
            pid = scene.new_obj(
                "pillar",
                {"cell": list(s.cell), "level": s.surface, "double": pp.double,
                 "under_tile": [t.row, t.col, t.level], "pos_board_mm": foot},
                anchor3d=pp.pose.apply([0, 0, height / 2]),
            )
            scene.solids.append(pieces.pillar(profile, pp.pose, pp.double, obj=pid))
    for pd in placement.decorations:
        _add_decoration(scene, profile, pd)
    for item in clutter:
        _add_clutter(scene, profile, item, ppm, rng, art)
    scene.shown = garden.model_copy(update={
        "board_flower": flower,
        "tiles": tuple(t.model_copy(update={"symbols": shown_symbols[t.key]}) for t in garden.tiles),
    })
    return scene


def _add_board(
    scene: Scene, profile: Profile, flower: str, ppm: float, rng: np.random.Generator, tex: np.ndarray | None,
    art: Artwork = REFERENCE_ART,
) -> None:
    """The player board: its print (``tex``: the unmottled :func:`board_top`, or None to draw it)
    finished as this copy of the game is printed."""
    b = profile.board
    if tex is None:
        tex = board_top(profile, flower, ppm, rng, mottled=False)
    tex = print_finish(tex, art, ppm, (0,), BOARD_MOTTLE, scuffs_per_dm2=3.0)
    bp = tex.shape[1] / b.width
    poly = rect(b.width, b.depth, b.width / 2, b.depth / 2)
    solid = pieces.prism(Pose.at(0, 0, 0), poly, -b.thickness, 0.0, linear(b.edge_colour))
    top = Face(
        np.column_stack([poly, np.zeros(4)]),
        tex=tex,
        receiver=True,
        normal=np.array([0, 0, 1.0]),
        tex_frame=np.array([[1 / bp, 0, 0.5 / bp], [0, 1 / bp, 0.5 / bp], [0, 0, 0]]),
    )
    solid.faces.append(top)
    solid.casts = False
    scene.solids.append(solid.finish())


#: builders of the decorations that stand on fields (stairs are built from their run and rise)
_BUILD = {
    "statue": pieces.statue,
    "fountain": pieces.fountain,
    "bridge": pieces.bridge,
    "belvedere": pieces.belvedere,
}


def _add_decoration(scene: Scene, profile: Profile, pd: PlacedDecoration) -> None:
    d = pd.decoration
    info: dict[str, Any] = {"kind": d.kind, "cells": [list(c) for c in d.cells]}
    if d.levels is not None:
        info["levels"] = list(d.levels)
    else:
        info["level"] = d.level
    info |= {"pos_board_mm": [round(v, 4) for v in pd.xy], "rotation_deg": round(pd.rotation_deg, 4)}
    oid = scene.new_obj("decoration", info, anchor3d=pd.anchor)
    if d.kind == "stairs":
        scene.solids += pieces.stairs(profile, pd.pose, pd.rise_mm, pd.run_mm, obj=oid)
    else:
        scene.solids += _BUILD[d.kind](profile, pd.pose, obj=oid)


def _add_clutter(
    scene: Scene, profile: Profile, item: ClutterItem, ppm: float, rng: np.random.Generator,
    art: Artwork = REFERENCE_ART,
) -> None:
    z = -profile.board.thickness
    kind = item.kind
    x, y, ang = item.x_mm, item.y_mm, item.angle_deg
    if kind == "pillar":
        if item.lying:
            r = profile.pillar.diameter / 2
            h = profile.pillar.double_height if item.double else profile.pillar.single_height
            R = rot_z(ang) @ np.array([[0, 0, 1.0], [0, 1.0, 0], [-1.0, 0, 0]])  # axis along local x
            pose = Pose(R, np.array([x, y, z + r]) - R @ np.array([0, 0, h / 2]))
        else:
            pose = Pose.at(x, y, z, ang)
        scene.solids.append(pieces.pillar(profile, pose, item.double))
    elif kind == "decoration":
        kind_d = item.decoration or "statue"
        pose = Pose.at(x, y, z, ang)
        if kind_d == "stairs":
            scene.solids += pieces.stairs(profile, pose, profile.level_height, profile.board.cell_print)
        else:
            scene.solids += _BUILD[kind_d](profile, pose)
    elif kind == "tile":
        flower = item.flower or "white"
        material = item.material or "clay"
        th = profile.tile.thickness
        if item.face_up:
            key = (2, int(item.x_mm), int(item.y_mm))
            tex = tile_top(profile, flower, item.symbols, ppm, rng, int(rng.integers(4)), art, key)
        else:
            tex = flat(
                pieces.underside_hex(profile, material, flower),
                profile.tile.size,
                profile.tile.size,
                min(ppm, 4.0),
                rng,
            )
            tex = print_finish(tex, art, min(ppm, 4.0), (3, int(item.x_mm), int(item.y_mm)))
        scene.solids.append(
            pieces.tile(profile, Pose.at(x, y, z + th, ang), tex, material, flower, receiver=False)
        )
    elif kind == "card":
        scene.solids.append(
            pieces.card(profile, Pose.at(x, y, z, ang), card_back(profile, min(ppm, 6.0), rng))
        )
    elif kind == "board":
        scene.solids += clutter.other_board(profile, item, ppm, art)
    elif kind == "box":
        scene.solids += clutter.game_box(item, ppm, z)
    elif kind == "pad":
        scene.solids += clutter.pad_and_pencil(item, ppm, z)
    elif kind == "hand":
        scene.solids += clutter.hand(item, z)
