"""Solids of the bigger things around the board (placed by :mod:`vision.render.extras`): another
player's board with tiles on it, the game box, a score pad with a pencil, a hand and forearm."""

from __future__ import annotations

import math

import numpy as np

from scoring.garden import SYMBOLS
from vision.profile import Profile
from vision.render import pieces
from vision.render.conditions import ClutterItem
from vision.render.extras import FOREARM_MM, PENCIL_TURN_DEG
from vision.render.looks import Artwork
from vision.render.mesh import Face, Pose, Solid, ellipse, loft, prism, rect, rot_z
from vision.render.textures import BOARD_MOTTLE, board_top, box_lid, linear, print_finish, score_pad, tile_top

_PRINTS: dict[tuple[int, str, float], tuple[Profile, np.ndarray]] = {}  #: other boards' prints, cached
OTHER_PPM = 3.0  #: texels per mm of the things around the board (at the frame's edge, often blurred)


def _top_face(pose: Pose, w: float, d: float, z: float, tex: np.ndarray, receiver: bool = True) -> Face:
    """A textured w x d rectangle at local height ``z``, its texel (0, 0) at the local (-w/2, -d/2)."""
    ppm = tex.shape[1] / w
    u, v = pose.R @ np.array([1 / ppm, 0, 0]), pose.R @ np.array([0, 1 / ppm, 0])
    o = pose.apply(np.array([-w / 2, -d / 2, z])) + 0.5 * (u + v)
    return Face(pose.apply(np.column_stack([rect(w, d), np.full(4, z)])), tex=tex,
                tex_frame=np.column_stack([u, v, o]), receiver=receiver,
                normal=pose.R @ np.array([0, 0, 1.0]))


def _board_print(profile: Profile, flower: str, ppm: float) -> np.ndarray:
    key = (id(profile), flower, ppm)
    hit = _PRINTS.get(key)
    if hit is None or hit[0] is not profile:
        if len(_PRINTS) > 8:
            _PRINTS.clear()
        print_ = board_top(profile, flower, ppm, np.random.default_rng(7), mottled=False)
        hit = _PRINTS[key] = (profile, print_)
    return hit[1]


def other_board(profile: Profile, item: ClutterItem, ppm: float, art: Artwork) -> list[Solid]:
    """Another player's board lying on the table, with its level-1 tiles on their pillars."""
    b = profile.board
    ppm = min(ppm, OTHER_PPM)
    pose = Pose.at(item.x_mm, item.y_mm, 0.0, item.angle_deg)
    rng = np.random.default_rng([item.seed, 0xB0])
    tex = print_finish(_board_print(profile, item.flower or "white", ppm), art, ppm, (5, item.seed % 9973),
                       BOARD_MOTTLE)
    slab = prism(pose, rect(b.width, b.depth), -b.thickness, 0.0, linear(b.edge_colour))
    slab.faces.append(_top_face(pose, b.width, b.depth, 0.0, tex))
    slab.casts = False
    out = [slab.finish()]
    ox, oy = b.grid_origin
    for r, c, flower in item.tiles:
        cx, cy = -b.width / 2 + ox + (c + 1) * b.pitch, -b.depth / 2 + oy + (r + 1) * b.pitch
        for dr in (-0.5, 0.5):
            for dc in (-0.5, 0.5):
                p = pose.apply([cx + dc * b.pitch, cy + dr * b.pitch, 0.0])
                out.append(pieces.pillar(profile, Pose.at(*p, float(rng.uniform(0, 360))), False))
        n = int(rng.integers(2, 5))
        fields = [str(rng.choice(SYMBOLS)) if k < n else None for k in rng.permutation(4)]
        symbols = ((fields[0], fields[1]), (fields[2], fields[3]))
        key = (6, r, c, item.seed % 9973)
        top = tile_top(profile, flower, symbols, ppm, rng, int(rng.integers(4)), art, key)
        centre = pose.apply([cx, cy, profile.level_height])
        tpose = Pose.at(*centre, item.angle_deg + float(rng.uniform(-3, 3)))
        material = {2: "clay", 3: "granite", 4: "basalt"}[n]
        out.append(pieces.tile(profile, tpose, top, material, flower))
    return out


def game_box(item: ClutterItem, ppm: float, z_table: float) -> list[Solid]:
    """The game box with its lid on: printed cardboard, glossy."""
    w, d, h = item.size_mm
    ppm = min(ppm, OTHER_PPM)
    pose = Pose.at(item.x_mm, item.y_mm, 0.0, item.angle_deg)
    tex = box_lid(w, d, item.colour or "#2F6E5E", ppm, np.random.default_rng([item.seed, 0xB0C]))
    side = linear(item.colour or "#2F6E5E") * 0.8
    box = prism(pose, rect(w, d), z_table, z_table + h, side)
    box.faces.append(_top_face(pose, w, d, z_table + h, tex))
    box.material = "coat"
    return [box.finish()]


def pad_and_pencil(item: ClutterItem, ppm: float, z_table: float) -> list[Solid]:
    """A score pad (a stack of sheets, the top one written on) and a pencil beside it."""
    w, d, h = item.size_mm
    ppm = min(ppm, OTHER_PPM * 1.5)
    pose = Pose.at(item.x_mm, item.y_mm, 0.0, item.angle_deg)
    tex = score_pad(w, d, item.colour or "#F7F5EE", ppm, np.random.default_rng([item.seed, 0x9AD]))
    pad = prism(pose, rect(w, d), z_table, z_table + h, linear("#E4E0D6"))
    pad.faces.append(_top_face(pose, w, d, z_table + h, tex))
    pad.material = "matte"
    a = math.radians(item.angle_deg)
    off = (w / 2 + 14.0) * np.array([math.cos(a), math.sin(a)])
    rng = np.random.default_rng([item.seed, 0x9E])
    colour = ("#E8B920", "#2F5E8F", "#C0392B", "#C8A878")[int(rng.integers(4))]
    length, dia = 170.0, 7.0
    # along the pad's long side, a little askew: local z -> the pencil's direction
    axis = rot_z(item.angle_deg + PENCIL_TURN_DEG) @ np.array([[0, 0, 1.0], [0, 1.0, 0], [-1.0, 0, 0]])
    centre = np.array([item.x_mm + off[0], item.y_mm + off[1], z_table + dia / 2])
    ppose = Pose(axis, centre - axis @ np.array([0, 0, length / 2]))
    hexagon = np.array([[math.cos(t), math.sin(t)] for t in np.radians(np.arange(0, 360, 60) + 30)]) * dia / 2
    pencil = prism(ppose, hexagon, 0.0, length, linear(colour), linear("#D8B48A"), linear("#E79AA5"),
                   bands=[(0.0, 8.0, linear("#C9C9C9"))])
    pencil.material = "plastic"
    return [pad.finish(), pencil]


def _limb(origin: np.ndarray, direction: float, up_lift: float, stations: list[tuple[float, float, float]],
          colour: np.ndarray, lateral: float = 0.0) -> Solid:
    """A rounded limb lying on the table along the board-plane direction ``direction`` (degrees) from
    ``origin``: elliptic sections (along, width, height) resting on the table, smooth-shaded."""
    d = np.array([math.cos(math.radians(direction)), math.sin(math.radians(direction)), 0.0])
    up = np.array([0.0, 0.0, 1.0])
    across = np.cross(d, up)
    R = np.column_stack([up, across, d])  # local x up, y across, z along the limb
    pose = Pose(R, np.asarray(origin, float))
    rings = [(ellipse(h, w, 12) + (h / 2 + up_lift, lateral), along) for along, w, h in stations]
    solid = loft(pose, rings, colour, colour, colour)
    solid.material = "skin"
    return solid


def hand(item: ClutterItem, z_table: float) -> list[Solid]:
    """A hand resting flat on the table, the fingertips at (x, y) towards the board, the forearm
    going away from it along ``angle_deg``."""
    skin = linear(item.colour or "#D29B76")
    width = item.size_mm[1] or 86.0
    k = width / 86.0
    z = z_table
    a = item.angle_deg
    side = 1.0 if item.face_up else -1.0  # the thumb's side
    d = np.array([math.cos(math.radians(a)), math.sin(math.radians(a))])
    across = np.array([d[1], -d[0]])
    tip = np.array([item.x_mm, item.y_mm])
    out = []
    # index, middle, ring, little: where the tip is (back from the middle's), length, width, height
    for j, (back, length, fw, fh) in enumerate(((5.0, 80, 17, 15), (0.0, 84, 18, 16), (4.0, 80, 17, 15),
                                                (16.0, 64, 15, 13))):
        lat = side * (1.5 - j) * 19.0 * k
        o = tip + d * back * k + across * lat
        r = fw * k / 2
        stations = [(0.0, 0.35 * fw * k, 0.35 * fh * k), (0.3 * r, 0.78 * fw * k, 0.78 * fh * k),
                    (0.85 * r, fw * k, 0.97 * fh * k), (length * k, 1.1 * fw * k, 1.05 * fh * k)]
        out.append(_limb(np.array([*o, z]), a, 0.0, stations, skin))
    palm0 = tip + d * 72.0 * k
    pw = width
    out.append(_limb(np.array([*palm0, z]), a, 0.0,
                     [(0.0, 0.8 * pw, 20 * k), (10 * k, pw, 27 * k), (100 * k, 0.9 * pw, 30 * k),
                      (113 * k, 0.65 * pw, 26 * k)], skin))
    # the thumb, from the palm's side near the wrist, slanting in towards the board
    base = palm0 + d * 82.0 * k + across * side * 0.42 * pw
    t_dir = a + 180.0 - side * 42.0
    out.append(_limb(np.array([*base, z]), t_dir, 0.0,
                     [(0.0, 26 * k, 21 * k), (66 * k, 20 * k, 16 * k), (74 * k, 14 * k, 12 * k),
                      (78 * k, 7 * k, 7 * k)], skin))
    wrist = palm0 + d * 105.0 * k
    out.append(_limb(np.array([*wrist, z]), a, 0.0,
                     [(0.0, 0.75 * pw, 34 * k), (FOREARM_MM, 0.9 * pw, 50 * k)], skin))
    return out
