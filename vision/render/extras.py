"""Where the bigger things around the board go: other players' boards (partly in frame at most, so the
photographed board stays the one wholly in frame), the game box, a score pad with a pencil and the
players' hands; and loose pieces pushed against the board's edge.

Footprints are convex polygons in the board plane (mm). Everything here is drawn from the clutter
group's spawned generator, so the small loose pieces keep the draws they had.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import cv2
import numpy as np

from vision.camera import Camera
from vision.profile import Profile
from vision.render.conditions import ClutterItem

SKINS = ("#F3D2BC", "#E8B898", "#D29B76", "#B47A56", "#8D5A3B", "#65402B", "#4A2E20")
BOX_COLOURS = ("#2F6E5E", "#C9A45C", "#7E3B2C", "#2D4C7A", "#D8C8A0")
HAND_LENGTH_MM = 185.0  #: fingertips to wrist
FOREARM_MM = 300.0
OTHER_BOARD_GAP_MM = (40.0, 220.0)  #: from the photographed board (taller neighbours never hide it)
FRAME_SHARE_MAX = 0.85  #: another board may show at most this much of itself in the photo
PENCIL_TURN_DEG = 96.0  #: the pencil beside a score pad lies along its long side, a little askew


def _rect(w: float, d: float, x: float, y: float, angle_deg: float, ox: float = 0.0) -> np.ndarray:
    """A w x d rectangle turned by ``angle_deg`` about (x, y); ``ox`` shifts it along its length
    first (its local x)."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    loc = np.array([[-w / 2, -d / 2], [w / 2, -d / 2], [w / 2, d / 2], [-w / 2, d / 2]]) + (ox, 0.0)
    return loc @ np.array([[c, s], [-s, c]]) + (x, y)


def _circle(r: float, x: float, y: float, n: int = 12) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.column_stack([x + r * np.cos(t), y + r * np.sin(t)])


def footprint(item: ClutterItem, profile: Profile, tight: bool = False) -> np.ndarray:
    """The convex outline (k, 2) an item covers on the table; ``tight``: its real outline (else the
    circle of its ``radius_mm`` for the small pieces, which keeps them apart)."""
    x, y, a = item.x_mm, item.y_mm, item.angle_deg
    k = item.kind
    if k == "board":
        return _rect(profile.board.width, profile.board.depth, x, y, a)
    if k in ("box", "pad"):
        w, d, _ = item.size_mm
        poly = _rect(w, d, x, y, a)
        if k == "pad":  # the pencil beside it
            pencil = _rect(170.0, 8.0, 0.0, 0.0, a + PENCIL_TURN_DEG) + _turn((w / 2 + 14, 0), a) + (x, y)
            poly = np.vstack([poly, pencil])
            poly = cv2.convexHull(poly.astype(np.float32))[:, 0, :].astype(float)
        return poly
    if k == "hand":
        length = HAND_LENGTH_MM + FOREARM_MM
        return _rect(length, item.size_mm[1] + 10.0, x, y, a, ox=length / 2)
    if not tight:
        return _circle(item.radius_mm, x, y)
    if k == "pillar":
        p = profile.pillar
        if item.lying:
            return _rect(p.double_height if item.double else p.single_height, p.diameter, x, y, a)
        return _circle(p.diameter / 2, x, y)
    if k == "tile":
        return _rect(profile.tile.size, profile.tile.size, x, y, a)
    if k == "card":
        return _rect(*profile.card.size, x, y, a)
    return _circle(max(item.radius_mm - 1.0, 1.0), x, y)


def _turn(v: tuple[float, float], angle_deg: float) -> np.ndarray:
    a = math.radians(angle_deg)
    return np.array([v[0] * math.cos(a) - v[1] * math.sin(a), v[0] * math.sin(a) + v[1] * math.cos(a)])


def _vertex_edge(p: np.ndarray, q: np.ndarray) -> float:
    """The least distance from the points ``p`` (n, 2) to the edges of the polygon ``q`` (m, 2)."""
    a, b = q, np.roll(q, -1, axis=0)
    ab = b - a  # (m, 2)
    ap = p[:, None, :] - a[None, :, :]  # (n, m, 2)
    t = np.clip((ap * ab).sum(-1) / np.maximum((ab * ab).sum(-1), 1e-12), 0.0, 1.0)
    return float(np.sqrt(((ap - t[..., None] * ab) ** 2).sum(-1).min()))


def gap(a: np.ndarray, b: np.ndarray) -> float:
    """The distance between two convex polygons (0 when they overlap; when they are far apart, a
    lower bound: the gap between their enclosing circles)."""
    ca, cb = a.mean(axis=0), b.mean(axis=0)
    ra = float(np.linalg.norm(a - ca, axis=1).max())
    rb = float(np.linalg.norm(b - cb, axis=1).max())
    far = float(np.linalg.norm(ca - cb)) - ra - rb
    if far > 0:
        return max(far, min(_vertex_edge(a, b), _vertex_edge(b, a))) if far < 50 else far
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    if area > 1e-6:
        return 0.0
    return min(_vertex_edge(a, b), _vertex_edge(b, a))


def _board(profile: Profile) -> np.ndarray:
    b = profile.board
    return np.array([[0, 0], [b.width, 0], [b.width, b.depth], [0, b.depth]], float)


def _in_frame_share(cam: Camera, poly: np.ndarray, z: float) -> float:
    """How much of a table polygon the photo shows (0..1)."""
    pts = np.column_stack([poly, np.full(len(poly), z)])
    if np.any(cam.to_camera(pts)[:, 2] <= 1.0):
        return 0.0
    uv = cam.project(pts, distort=False).astype(np.float32)
    hull = cv2.convexHull(uv)[:, 0, :]
    full = float(cv2.contourArea(hull))
    frame = np.array([[0, 0], [cam.width, 0], [cam.width, cam.height], [0, cam.height]], np.float32)
    inter, _ = cv2.intersectConvexConvex(hull, frame)
    return float(inter) / full if full > 0 else 0.0


def _hides_board(cam: Camera, poly: np.ndarray, z0: float, height: float, profile: Profile) -> bool:
    """Whether a thing ``height`` tall on ``poly`` covers any of the board in the photo."""
    pts = np.vstack([np.column_stack([poly, np.full(len(poly), z0)]),
                     np.column_stack([poly, np.full(len(poly), z0 + height)])])
    if np.any(cam.to_camera(pts)[:, 2] <= 1.0):
        return True
    hull = cv2.convexHull(cam.project(pts, distort=False).astype(np.float32))[:, 0, :]
    board = cam.project(np.column_stack([_board(profile), np.zeros(4)]), distort=False).astype(np.float32)
    inter, _ = cv2.intersectConvexConvex(hull, board)
    return float(inter) > 0.5


def _free(poly: np.ndarray, taken: list[np.ndarray], clearance: float) -> bool:
    return all(gap(poly, t) >= clearance for t in taken)


def sample_extras(
    rng: np.random.Generator, cam: Camera, profile: Profile, items: tuple[ClutterItem, ...]
) -> tuple[ClutterItem, ...]:
    """Other players' boards, the game box, a score pad and hands, clear of ``items`` and of each
    other; loose pieces in ``items`` are sometimes pushed against the board's edge."""
    z_table = -profile.board.thickness
    board = _board(profile)
    moved = list(items)
    for k in range(len(moved)):
        if rng.random() < 0.3:
            moved[k] = _touch(rng, moved[k], profile, tuple(moved[:k] + moved[k + 1 :]))
    items = tuple(moved)
    taken = [footprint(it, profile) for it in items]
    out: list[ClutterItem] = []
    skin = str(rng.choice(SKINS))  # one photographer's (or player's) hands

    def place(make: Callable[[], tuple[ClutterItem, Callable[[np.ndarray], bool]]], tries: int = 40) -> None:
        for _ in range(tries):
            item, ok = make()
            poly = footprint(item, profile)
            if ok(poly) and _free(poly, taken, 3.0):
                out.append(item)
                taken.append(poly)
                return

    def other_board() -> tuple[ClutterItem, Callable[[np.ndarray], bool]]:
        side = int(rng.integers(4))
        g = rng.uniform(*OTHER_BOARD_GAP_MM)
        a = float(rng.choice([0.0, 90.0, 180.0, 270.0]) + rng.normal(0.0, 8.0))
        w, d = profile.board.width, profile.board.depth
        half = np.abs(_rect(w, d, 0, 0, a)).max(axis=0)  # half-extent of the turned board
        lateral = rng.uniform(-0.6, 0.6)
        cx, cy = w / 2 + lateral * w, d / 2 + lateral * d
        x, y = [(-g - half[0], cy), (w + g + half[0], cy), (cx, -g - half[1]), (cx, d + g + half[1])][side]
        tiles = []
        for _ in range(int(rng.integers(0, 7))):
            r, c = int(rng.integers(0, 7)), int(rng.integers(0, 7))
            if all(abs(r - r2) >= 2 or abs(c - c2) >= 2 for r2, c2, _ in tiles):
                tiles.append((r, c, str(rng.choice(list(profile.flowers)))))
        item = ClutterItem("board", float(x), float(y), a, flower=str(rng.choice(list(profile.flowers))),
                           radius_mm=float(math.hypot(w, d) / 2), tiles=tuple(tiles),
                           seed=int(rng.integers(0, 2**31 - 1)))

        def ok(poly: np.ndarray) -> bool:
            share = _in_frame_share(cam, poly, z_table)
            return gap(poly, board) >= OTHER_BOARD_GAP_MM[0] - 1 and 0.02 < share <= FRAME_SHARE_MAX
        return item, ok

    def box() -> tuple[ClutterItem, Callable[[np.ndarray], bool]]:
        w, d, h = rng.uniform(270, 310), rng.uniform(270, 310), rng.uniform(60, 80)
        x, y = _around(rng, profile, rng.uniform(30, 260) + max(w, d) / 2)
        item = ClutterItem("box", x, y, float(rng.uniform(0, 360)), radius_mm=float(math.hypot(w, d) / 2),
                           size_mm=(float(w), float(d), float(h)),
                           colour=str(rng.choice(BOX_COLOURS)), seed=int(rng.integers(0, 2**31 - 1)))
        return item, lambda poly: gap(poly, board) > 20 and not _hides_board(cam, poly, z_table, h, profile)

    def pad() -> tuple[ClutterItem, Callable[[np.ndarray], bool]]:
        w, d = rng.uniform(95, 110), rng.uniform(140, 160)
        x, y = _around(rng, profile, rng.uniform(10, 200) + 90)
        item = ClutterItem("pad", x, y, float(rng.uniform(0, 360)),
                           radius_mm=float(math.hypot(w, d) / 2 + 20),
                           size_mm=(float(w), float(d), float(rng.uniform(3, 6))),
                           colour=str(rng.choice(("#F7F5EE", "#FBF3D0", "#EEF2F4"))),
                           seed=int(rng.integers(0, 2**31 - 1)))
        return item, lambda poly: gap(poly, board) > 5 and not _hides_board(cam, poly, z_table, 8.0, profile)

    def hand() -> tuple[ClutterItem, Callable[[np.ndarray], bool]]:
        side = int(rng.integers(4))
        w, d = profile.board.width, profile.board.depth
        reach = rng.uniform(2.0, 20.0)  # fingertips from the board's edge
        t = rng.uniform(0.15, 0.85)
        x, y, out_deg = [(-reach, t * d, 180.0), (w + reach, t * d, 0.0), (t * w, -reach, 270.0),
                         (t * w, d + reach, 90.0)][side]
        width = rng.uniform(78, 95)
        item = ClutterItem("hand", float(x), float(y), float(out_deg + rng.uniform(-25, 25)),
                           radius_mm=60.0, size_mm=(HAND_LENGTH_MM, float(width), 30.0),
                           colour=skin, face_up=bool(rng.random() < 0.5),
                           seed=int(rng.integers(0, 2**31 - 1)))

        def ok(poly: np.ndarray) -> bool:
            # the fingers may touch the board's edge, but never hide its corners
            tip = np.array([x, y])
            return (np.min(np.linalg.norm(board - tip, axis=1)) > 45.0 and gap(poly, board) > 0.5
                    and not _hides_board(cam, poly + (_turn((12.0, 0.0), item.angle_deg)), z_table, 5.0,
                                         profile))
        return item, ok

    if rng.random() < 0.3:
        for _ in range(1 + int(rng.random() < 0.3)):
            place(other_board)
    if rng.random() < 0.15:
        place(box)
    if rng.random() < 0.2:
        place(pad)
    if rng.random() < 0.25:
        for _ in range(1 + int(rng.random() < 0.4)):
            place(hand)
    return items + tuple(out)


def _around(rng: np.random.Generator, profile: Profile, dist: float) -> tuple[float, float]:
    """A point ``dist`` mm out from the board's outline, anywhere around it."""
    w, d = profile.board.width, profile.board.depth
    t = rng.uniform(0, 2 * (w + d))
    if t < w:
        return float(t), -dist
    if t < w + d:
        return w + dist, float(t - w)
    if t < 2 * w + d:
        return float(t - w - d), d + dist
    return -dist, float(t - 2 * w - d)


def _touch(rng: np.random.Generator, item: ClutterItem, profile: Profile, others: tuple[ClutterItem, ...]
           ) -> ClutterItem:
    """``item`` slid towards the board until it touches its edge (0.2 to 1.5 mm away), if it stays
    clear of the ``others``."""
    board = _board(profile)
    poly = footprint(item, profile, tight=True)
    c = np.array([item.x_mm, item.y_mm])
    nearest = np.clip(c, board[0], board[2])
    v = c - nearest
    dist = float(np.linalg.norm(v))
    if dist < 1e-6:
        return item
    g = gap(poly, board)
    move = (g - rng.uniform(0.2, 1.5)) * v / dist
    moved = dataclasses.replace(item, x_mm=float(c[0] - move[0]), y_mm=float(c[1] - move[1]))
    new = footprint(moved, profile, tight=True)
    if gap(new, board) < 0.1:
        return item
    rest = [footprint(o, profile) for o in others]
    return moved if _free(new, rest, 1.0) else item
