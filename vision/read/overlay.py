"""What the reader read, drawn over the photo: the board's grid, each tile outlined on its own level and
labelled with its level and flower, each piece marked with its kind and points, the doubtful cells
(the reading's warnings) highlighted, and the score card beside the photo (``babylon score
--overlay``, the service's overlay).

Everything is placed through the reading's camera, so a tile three levels up is outlined where the
photo shows its top, not where its cells are on the board.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import cv2
import numpy as np

from scoring.facts import CATEGORIES, ROW_LABELS
from scoring.garden import GRID, Decoration
from scoring.score import Score, decoration_points, score_garden
from scoring.visibility import decoration_visible, top_levels
from vision.camera import Camera
from vision.profile import REFERENCE, Profile
from vision.read.reading import Reading

#: BGR outline colours per flower (white drawn light grey so that it shows on the cream plaques)
FLOWER_BGR = {
    "white": (225, 225, 225),
    "pink": (154, 106, 232),
    "yellow": (46, 193, 242),
    "blue": (209, 111, 74),
}
KIND_BGR = {
    "statue": (60, 120, 200),
    "fountain": (230, 160, 40),
    "bridge": (40, 90, 200),
    "stairs": (150, 150, 150),
    "belvedere": (140, 150, 40),
}
KIND_SHORT = {"statue": "S", "fountain": "F", "bridge": "B", "stairs": "St", "belvedere": "Bv"}
WARN_BGR = (40, 40, 230)
GRID_BGR = (30, 30, 30)
CARD_WIDTH = 0.42  #: the score card's width, as a share of the picture's height


def _scale(image: np.ndarray, camera: Camera) -> float:
    return image.shape[1] / camera.width


def _px(camera: Camera, pts: np.ndarray, factor: float) -> np.ndarray:
    """Board points (N, 3) -> picture pixels (N, 2) as float, finite."""
    uv = camera.project(np.asarray(pts, float)) * factor
    return np.clip(np.nan_to_num(uv, nan=-1e5, posinf=1e5, neginf=-1e5), -1e5, 1e5)


def _cell_quad(profile: Profile, r: int, c: int, level: int, inset: float = 0.0) -> np.ndarray:
    b = profile.board
    x0 = b.grid_origin[0] + c * b.pitch + inset
    y0 = b.grid_origin[1] + r * b.pitch + inset
    x1, y1 = x0 + b.pitch - 2 * inset, y0 + b.pitch - 2 * inset
    z = profile.tile_top_z(level)
    return np.array([[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]])


def _text(
    img: np.ndarray,
    text: str,
    at: Sequence[float],
    colour: tuple[int, int, int],
    size: float,
    centre: bool = True,
    outline: bool = True,
) -> None:
    font = cv2.FONT_HERSHEY_SIMPLEX
    thick = max(1, round(2 * size))
    (w, h), _ = cv2.getTextSize(text, font, size, thick)
    x, y = (at[0] - w / 2, at[1] + h / 2) if centre else (at[0], at[1])
    org = (int(round(x)), int(round(y)))
    if outline:  # dark edge: readable over any part of the photo
        cv2.putText(img, text, org, font, size, (0, 0, 0), thick + max(2, round(3 * size)), cv2.LINE_AA)
    cv2.putText(img, text, org, font, size, colour, thick, cv2.LINE_AA)


def _poly(img: np.ndarray, quad: np.ndarray, colour: tuple[int, int, int], thick: int) -> None:
    p = np.round(quad).astype(np.int32).reshape(-1, 1, 2)
    cv2.polylines(img, [p], True, (0, 0, 0), thick + 2, cv2.LINE_AA)
    cv2.polylines(img, [p], True, colour, thick, cv2.LINE_AA)


def _fill(img: np.ndarray, quad: np.ndarray, colour: tuple[int, int, int], alpha: float) -> None:
    layer = img.copy()
    cv2.fillPoly(layer, [np.round(quad).astype(np.int32)], colour, cv2.LINE_AA)
    cv2.addWeighted(layer, alpha, img, 1 - alpha, 0, dst=img)


def piece_anchor(profile: Profile, d: Decoration) -> np.ndarray:
    """A board point (3,) at the middle of a piece: its cells' centres, on their levels, averaged."""
    pts = [(*profile.cell_centre(r, c), profile.tile_top_z(lv)) for (r, c), lv in d.cell_levels]
    return np.mean(np.array(pts), axis=0)


def draw_reading(image_bgr: np.ndarray, reading: Reading, profile: Profile = REFERENCE) -> np.ndarray:
    """The photo (any scale of the upright photo the reading is of) with the reading drawn on it."""
    out = np.ascontiguousarray(image_bgr.copy())
    cam = reading.camera
    f = _scale(out, cam)
    board = _px(cam, profile.board.corners, f)
    size = float(np.clip(np.linalg.norm(board[2] - board[0]) / 800, 0.35, 3.0))
    thick = max(1, round(2 * size))
    garden = reading.garden
    # the board's cell grid, on the board
    b = profile.board
    ox, oy = b.grid_origin
    for i in range(GRID + 1):
        for a, bb in (
            ((ox + i * b.pitch, oy), (ox + i * b.pitch, oy + GRID * b.pitch)),
            ((ox, oy + i * b.pitch), (ox + GRID * b.pitch, oy + i * b.pitch)),
        ):
            seg = np.linspace(a, bb, 9)
            uv = _px(cam, np.column_stack([seg, np.zeros(len(seg))]), f)
            cv2.polylines(
                out, [np.round(uv).astype(np.int32).reshape(-1, 1, 2)], False, GRID_BGR, 1, cv2.LINE_AA
            )
    # doubtful cells, on the level seen there from above
    top = top_levels(garden)
    for w in reading.warnings:
        for r, c in w.cells:
            if 0 <= r < GRID and 0 <= c < GRID:
                _fill(out, _px(cam, _cell_quad(profile, r, c, top[r][c]), f), WARN_BGR, 0.35)
    # tiles, lowest first so that higher ones are drawn over them
    read_by_key = {(t.row, t.col, t.level): t for t in reading.tiles}
    for t in sorted(garden.tiles, key=lambda t: t.level):
        tr = read_by_key.get((t.row, t.col, t.level))
        if tr is not None and np.all(np.isfinite(tr.corners_px)):
            quad = np.asarray(tr.corners_px, float) * (out.shape[1] / reading.image_size[0])
        else:
            quad = _px(
                cam,
                np.vstack(
                    [
                        _cell_quad(profile, t.row, t.col, t.level)[:1],
                        _cell_quad(profile, t.row, t.col + 1, t.level)[1:2],
                        _cell_quad(profile, t.row + 1, t.col + 1, t.level)[2:3],
                        _cell_quad(profile, t.row + 1, t.col, t.level)[3:4],
                    ]
                ),
                f,
            )
        colour = FLOWER_BGR.get(t.flower, (255, 255, 255))
        _poly(out, quad, colour, thick + 1)
        _text(out, f"L{t.level} {t.flower}", quad.mean(axis=0), colour, 0.42 * size)
    # pieces, with their points where they score
    for d in garden.decorations:
        uv = _px(cam, piece_anchor(profile, d)[None], f)[0]
        seen = decoration_visible(d, top)
        colour = KIND_BGR.get(d.kind, (255, 255, 255)) if seen else (120, 120, 120)
        r = max(4, round(9 * size))
        cv2.circle(out, (int(uv[0]), int(uv[1])), r + 2, (0, 0, 0), -1, cv2.LINE_AA)
        cv2.circle(out, (int(uv[0]), int(uv[1])), r, colour, -1, cv2.LINE_AA)
        pts = f"+{decoration_points(d)}" if seen else " hidden"
        _text(out, f"{KIND_SHORT[d.kind]}{pts}", (uv[0], uv[1] - r - 8 * size), colour, 0.45 * size)
    return out


def score_card(score: Score, height: int, reading: Reading | None = None) -> np.ndarray:
    """The score card as a picture ``height`` pixels high: the eight rows, the total, the tie-break,
    and the reading's confidence and warnings."""
    w = max(240, int(round(height * CARD_WIDTH)))
    card = np.full((height, w, 3), 248, np.uint8)
    size = max(0.4, height / 1500)
    line = int(round(34 * size))
    grey = (60, 60, 60)

    def write(text: str, x: float, y: int, colour: tuple[int, int, int], scale: float) -> None:
        _text(card, text, (x, y), colour, scale * size, centre=False, outline=False)

    y = line
    write("Score card", 12, y, (0, 0, 0), 0.8)
    y += line
    values = score.to_dict()
    for key in CATEGORIES:
        write(ROW_LABELS[key], 12, y, (40, 40, 40), 0.5)
        write(str(values[key]), w - 60 * size, y, (0, 0, 0), 0.55)
        y += line
    cv2.line(card, (10, y - line // 2), (w - 10, y - line // 2), (0, 0, 0), 1)
    write("Total", 12, y, (0, 0, 0), 0.7)
    write(str(score.total), w - 60 * size, y, (0, 0, 0), 0.7)
    y += line
    write(f"visible holes (tie-break) {score.tiebreak_visible_holes}", 12, y, grey, 0.45)
    y += line
    write(", ".join(f"{v} {k}" for k, v in KIND_SHORT.items()), 12, y, grey, 0.4)
    y += line
    if reading is not None:
        write(f"confidence {reading.confidence:.2f}", 12, y, grey, 0.45)
        y += line
        # each warning whole, wrapped, as far as the card's height allows
        rows = [part for warn in reading.warnings for part in [*textwrap.wrap(warn.message, 48), ""]]
        for part in rows[: max(0, (height - y) // int(line * 0.8))]:
            write(part, 12, y, WARN_BGR, 0.4)
            y += int(line * 0.8)
    return card


def board_box(reading: Reading, shape: tuple[int, ...], margin: float = 0.08) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1): the board's outline in a picture of ``shape``, with a margin (a share of the
    board's size), within the picture."""
    f = shape[1] / reading.camera.width
    pts = np.asarray(reading.board_corners_px, float) * f
    if not len(pts) or not np.all(np.isfinite(pts)):
        return 0, 0, shape[1], shape[0]
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    pad = margin * float(np.max(hi - lo))
    x0, y0 = np.floor(np.maximum(lo - pad, 0)).astype(int)
    x1, y1 = np.ceil(np.minimum(hi + pad, [shape[1], shape[0]])).astype(int)
    if x1 - x0 < 16 or y1 - y0 < 16:
        return 0, 0, shape[1], shape[0]
    return int(x0), int(y0), int(x1), int(y1)


def draw_overlay(
    image_bgr: np.ndarray,
    reading: Reading,
    score: Score | None = None,
    card: bool = True,
    crop: bool = False,
    profile: Profile = REFERENCE,
) -> np.ndarray:
    """:func:`draw_reading`, with the score card beside it (``card``; the picture widens, the photo's
    pixels keep their coordinates), cropped to the board (``crop``). ``score`` defaults to the score of
    the reading's garden."""
    drawn = draw_reading(image_bgr, reading, profile)
    if crop:
        x0, y0, x1, y1 = board_box(reading, drawn.shape)
        drawn = np.ascontiguousarray(drawn[y0:y1, x0:x1])
    if not card:
        return drawn
    score = score if score is not None else score_garden(reading.garden)
    return np.hstack([drawn, score_card(score, drawn.shape[0], reading)])
