"""Calibration: a profile of the player's own copy from a few photos with their gardens labelled.

Each photo is read with the base profile for what does not depend on colours (the board's holes and
the tiles' green give the camera); the *labelled* garden then says what every visible print and piece
is, so its colours are sampled where the camera projects them: the flower bands of the tiles, their
garden, path, plaques and icons, the board's print, and each decoration's parts (the points
:func:`vision.read.decorations.piece_parts` puts inside them). Colours are kept relative to the board's
own print in that photo (the reader white-balances on it, :func:`vision.read.views.board_gain`), so
the photos' lights do not matter; the median over photos makes the profile.

Labels that do not fit their photo are refused (:class:`CalibrationError`, naming the photo and the
element): a photo without a board, tiles where the label has none (or none where it has some), a
tile whose band looks like another flower than labelled, a flower or decoration kind seen too rarely.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scoring.garden import GRID, Garden, GardenError, garden_from_dict
from scoring.visibility import top_levels
from vision.camera import Camera, in_image
from vision.profile import REFERENCE, Profile, srgb_to_linear
from vision.read import evaluate as ev
from vision.read.decorations import (
    Candidate,
    Occluders,
    PlacedTile,
    Surfaces,
    _to_board,
    candidates,
    is_green,
    piece_parts,
    ray_plane,
)
from vision.read.flowers import flower_lab
from vision.read.load import Photo, PhotoError, load_photo
from vision.read.reading import Reading, read_photo

MIN_FLOWER_TILES = 2  #: tiles of each flower whose band was seen, over all photos
MIN_PIECES = 1  #: pieces of each kind seen, over all photos
MIN_PIXELS = 12  #: samples of an element in one place for it to count
MIN_BAND_PIXELS = 60  #: a tile's flower band counts when this much of it is seen (of 480 samples)
MIN_FOUND = 0.5  #: share of the labelled tiles the reader must find in a photo (else its camera is unsure)
#: cells where the photo shows a tile and the label none, before the label is refused: this many, and
#: this share of the cells the label covers
MISMATCH_CELLS, MISMATCH_SHARE = 3, 0.25
MIN_GREEN = 0.3  #: a labelled tile whose garden samples are less often green than this is not there ...
MIN_GREEN_SAMPLES = 72  #: ... when that many were seen (two free fields): a piece may hide one field
ROUNDS = 2  #: reading and sampling rounds (see :func:`calibrate`)
FLOWER_DOUBT = 2.0  #: a band this many times nearer another flower than its own is a wrong label

#: the part colours of :func:`piece_parts` -> the decoration field they calibrate
PART_FIELDS = {
    "bronze": "statue_colour", "teal": "belvedere_dome_colour", "ivory": "belvedere_post_colour",
    "water": "fountain_water_colour", "rim": "fountain_rim_colour", "terracotta": "bridge_colour",
    "stone": "stairs_colour",
}
PART_KIND = {"bronze": "statue", "teal": "belvedere", "ivory": "belvedere", "water": "fountain",
             "rim": "fountain", "terracotta": "bridge", "stone": "stairs"}


class CalibrationError(ValueError):
    """Labels that cannot make a profile; the message is one line naming the photo and the element."""


@dataclass(frozen=True)
class Labelled:
    photo: Path
    garden: Garden


@dataclass
class PhotoSamples:
    """One photo's colours, each as a ratio to the board print's raw colour in that photo (sRGB, BGR)."""

    name: str
    board_raw: np.ndarray
    elements: dict[str, list[np.ndarray]] = field(default_factory=lambda: defaultdict(list))
    bands: list[tuple[str, str, np.ndarray]] = field(default_factory=list)  #: (tile, flower, ratio)


@dataclass
class Calibration:
    profile: Profile
    summary: dict[str, Any]  #: :func:`vision.read.evaluate.summarize` of the profile on the photos
    results: list[ev.PhotoResult]


# ------------------------------------------------------------------------------------------ labels


def labelled_photos(folder: Path) -> list[Labelled]:
    """The photos in ``folder`` with a garden JSON beside them (``x.jpg`` + ``x.json``, the garden
    the document itself or under ``"garden"``)."""
    if not folder.is_dir():
        raise CalibrationError(f"{folder}: not a folder")
    out = []
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() not in ev.PHOTO_SUFFIXES:
            continue
        side = p.with_suffix(".json")
        if not side.exists():
            continue
        try:
            doc = json.loads(side.read_text(encoding="utf-8"))
            garden = garden_from_dict(doc.get("garden", doc) if isinstance(doc, dict) else doc)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise CalibrationError(f"{side.name}: cannot read the label ({e})") from None
        except GardenError as e:
            raise CalibrationError(f"{side.name}: not a babylon-garden/1 garden: {e}") from None
        out.append(Labelled(p, garden))
    if not out:
        raise CalibrationError(f"{folder}: no photos with a garden JSON of the same name beside them")
    return out


def check_label(name: str, label: Garden, read: Garden) -> None:
    """Refuse a label with no tile where the photo shows tiles (the reader's own tiles, found by the
    garden's green whatever the edition's colours). Labelled tiles the photo does not show are found
    by :func:`sample_photo` (no green where their garden should be)."""
    shown = {(r, c) for r, c, _ in ev.visible_tiles(label)}
    found = shown & {(r, c) for r, c, _ in ev.visible_tiles(read)}
    if len(found) < MIN_FOUND * len(shown):
        raise CalibrationError(f"{name}: the reader finds {len(found)} of the {len(shown)} tiles labelled in "
                               "this photo, too few to know where the rest are: leave it out, or take it "
                               "again from higher up (tiles)")
    want, got = top_levels(label), top_levels(read)
    extra = [(r, c) for r in range(8) for c in range(8) if got[r][c] and not want[r][c]]
    covered = sum(bool(v) for row in want for v in row)
    if len(extra) >= max(MISMATCH_CELLS, MISMATCH_SHARE * covered):  # the reader errs too, now and then
        where = ", ".join(f"row {r} col {c}" for r, c in extra[:4])
        raise CalibrationError(f"{name}: the label does not match the photo: the photo shows a tile at "
                               f"{where} ({len(extra)} cell(s)) and the label has none there (tiles)")


# ---------------------------------------------------------------------------------------- sampling


class _Sampler:
    """Raw sRGB colours (BGR, 0..1) of the photo at board points, left out where a tile above hides them."""

    def __init__(self, photo: Photo, cam: Camera, surf: Surfaces) -> None:
        self.img, self.scale, self.cam = photo.image, photo.scale, cam
        self.occ = Occluders(cam, surf)

    def at(self, pts: np.ndarray, above: int) -> np.ndarray:
        if not len(pts):
            return np.zeros((0, 3))
        uv = self.cam.project(pts)
        ij = np.round(uv * self.scale).astype(int)
        ok = in_image(ij, self.img.shape)
        ok &= ~self.occ.hidden(uv, above)
        return self.img[ij[ok, 1], ij[ok, 0]].astype(np.float64) / 255.0


def _placed(reading: Reading, label: Garden, profile: Profile) -> list[PlacedTile]:
    """The labelled tiles, placed as the reader found them (hand placement) where it found them."""
    found = {(t.row, t.col, t.level): t for t in reading.tiles}
    out = []
    for t in label.tiles:
        f = found.get((t.row, t.col, t.level))
        placement = (0.0, 0.0, 0.0)
        if f is not None:
            xy = ray_plane(reading.camera, np.asarray(f.corners_px, float), profile.tile_top_z(t.level))
            bx, by = profile.block_centre(t.row, t.col)
            cx, cy = xy.mean(axis=0)
            turn = math.degrees(math.atan2(xy[1, 1] - xy[0, 1], xy[1, 0] - xy[0, 0]))
            placement = (float(cx - bx), float(cy - by), float(turn))
        out.append(PlacedTile(t.row, t.col, t.level, placement, t.flower))
    return out


def _local_to_board(surf: Surfaces, i: int, local: np.ndarray) -> np.ndarray:
    x, y, z, turn = surf.pose(i)
    a = math.radians(turn)
    rx = x + local[:, 0] * math.cos(a) - local[:, 1] * math.sin(a)
    ry = y + local[:, 0] * math.sin(a) + local[:, 1] * math.cos(a)
    return np.column_stack([rx, ry, np.full(len(local), z)])


def _cells_of(profile: Profile, xy: np.ndarray) -> np.ndarray:
    b = profile.board
    return np.floor((xy[:, :2] - b.grid_origin) / b.pitch).astype(int)[:, ::-1]  # (row, col)


def free_points(
    surf: Surfaces, pts: np.ndarray, level: int, occupied: set[tuple[int, int]]
) -> np.ndarray:
    """Whether board points lie over cells seen from above on ``level`` and free of pieces. A tile on
    the grid's last row or column, placed by hand a little outwards, reaches past the grid: its points
    there lie over no cell and are not taken."""
    cells = _cells_of(surf.profile, pts)
    on = np.all((cells >= 0) & (cells < GRID), axis=1)
    return np.array(
        [bool(o) and surf.seen((int(r), int(c)), level) and (int(r), int(c)) not in occupied
         for (r, c), o in zip(cells, on, strict=True)],
        bool,
    )


def _tile_layout(profile: Profile) -> dict[str, np.ndarray]:
    """Tile-local points (mm, from the tile's centre) of each print of a tile's top."""
    t = profile.tile
    h = t.size / 2
    s = np.linspace(-h + 2.0, h - 2.0, 40)
    band = np.vstack([np.column_stack(p) for d in (1.0, 1.5, 2.0) for p in (
        (s, np.full_like(s, -h + d)), (s, np.full_like(s, h - d)), (np.full_like(s, -h + d), s),
        (np.full_like(s, h - d), s))])
    q = np.linspace(4.0, h - t.band_width - 1.5, 10)
    path = np.vstack([np.column_stack(p) for sg in (-1, 1) for p in ((sg * q, 0 * q), (0 * q, sg * q))])
    return {"band": band, "path": path}


def _field_layout(profile: Profile) -> dict[str, np.ndarray]:
    """Field-local points (mm, from the field's centre) of its garden, plaque rim and icon."""
    t = profile.tile
    g = np.linspace(-0.8, 0.8, 3)
    off = t.field_size / 2 - 5.0  # the field corners: clear of the plaque, the band and the path
    garden = np.array([(sx * off + dx, sy * off + dy)
                       for sx in (-1, 1) for sy in (-1, 1) for dx in g for dy in g])
    r = t.plaque_diameter / 2 - 1.4
    ang = np.radians(np.concatenate([np.linspace(-15, 15, 7) + k for k in (0, 90, 180, 270)]))
    plaque = np.column_stack([r * np.cos(ang), r * np.sin(ang)])
    ig = np.linspace(-t.icon_box / 2 + 1.0, t.icon_box / 2 - 1.0, 13)
    icon = np.array([(x, y) for x in ig for y in ig])
    return {"garden": garden, "plaque": plaque, "icon": icon}


def _board_raw(s: _Sampler, profile: Profile) -> np.ndarray:
    """The board print's raw colour: the margin round the building zone (as the reader's white balance)."""
    b = profile.board
    lo, hi = b.frame_width + 2.5, b.grid_origin[0] - 3.0
    pts = [(t, u) for t in np.linspace(20, min(b.width, b.depth) - 20, 24) for u in np.linspace(lo, hi, 3)]
    xy = np.array([p for t, u in pts for p in ((t, u), (u, t), (t, b.depth - u))], float)
    px = s.at(np.column_stack([xy, np.zeros(len(xy))]), 0)
    return np.median(px, axis=0) if len(px) >= 10 else np.full(3, np.nan)


def sample_photo(
    lab: Labelled, reading: Reading, photo: Photo, profile: Profile, strict: bool = True
) -> PhotoSamples:
    """The colours of the labelled elements of one photo (see the module docstring); ``strict``: a
    labelled tile whose garden is not seen green is refused."""
    garden = lab.garden
    tiles = _placed(reading, garden, profile)
    surf = Surfaces(tiles, profile)
    s = _Sampler(photo, reading.camera, surf)
    out = PhotoSamples(lab.photo.name, _board_raw(s, profile))
    if not np.all(np.isfinite(out.board_raw)) or out.board_raw.min() <= 0.02:
        raise CalibrationError(f"{lab.photo.name}: the board's print is not seen (board)")
    occupied = {cell for d in garden.decorations for cell in d.cells}
    symbol = {(cell, t.level): t.symbol_at(cell) for t in garden.tiles for cell in t.cells}

    def keep(name: str, px: np.ndarray, dark: bool = False, least: int = MIN_PIXELS,
             off_green: bool = False) -> np.ndarray | None:
        if off_green:  # as the reader samples a band: its pixels that are not the garden's green
            grey = px / out.board_raw * out.board_raw.mean()
            px = px[~is_green(srgb_to_linear(np.clip(grey, 0, 1)))]
        if len(px) < least:
            return None
        if dark:  # the icon's ink: the darkest quarter of the icon box
            y = px.sum(axis=1)
            px = px[y <= np.percentile(y, 25)]
        ratio = np.median(px, axis=0) / out.board_raw
        out.elements[name].append(ratio)
        return ratio

    tl, fl = _tile_layout(profile), _field_layout(profile)
    green: dict[int, list[bool]] = {}  #: tile -> whether each of its garden samples is green
    for i, t in enumerate(tiles):
        for part, name in (("band", f"flower-{t.flower}"), ("path", "path")):
            pts = _local_to_board(surf, i, tl[part])
            band = part == "band"
            ratio = keep(name, s.at(pts[free_points(surf, pts, t.level, occupied)], t.level), off_green=band,
                         least=MIN_BAND_PIXELS if band else MIN_PIXELS)
            if band and ratio is not None:
                what = f"the {t.flower} tile at row {t.row} col {t.col} level {t.level}"
                out.bands.append((what, t.flower, ratio))
        for cell in ((t.row + a, t.col + b) for a in (0, 1) for b in (0, 1)):
            if not surf.seen(cell, t.level) or cell in occupied:
                continue
            centre = surf.field(cell, t.level)
            local = np.subtract(centre[:2], surf.pose(i)[:2])
            px = s.at(_local_to_board(surf, i, fl["garden"] + local), t.level)
            keep("garden", px)
            # judged as if the board's print were grey: the photo's light must not hide the green
            grey = px / out.board_raw * out.board_raw.mean()
            green[i] = green.get(i, []) + list(is_green(srgb_to_linear(np.clip(grey, 0, 1))))
            if symbol.get((cell, t.level)):
                keep("plaque", s.at(_local_to_board(surf, i, fl["plaque"] + local), t.level))
                keep("icon", s.at(_local_to_board(surf, i, fl["icon"] + local), t.level), dark=True)
    for i, g in green.items():
        t = tiles[i]
        if strict and len(g) >= MIN_GREEN_SAMPLES and np.mean(g) < MIN_GREEN:
            raise CalibrationError(f"{lab.photo.name}: the label does not match the photo: the label has a "
                                   f"tile at row {t.row} col {t.col} level {t.level} and the photo shows "
                                   "no tile's garden there (tiles)")
    _sample_board(s, profile, garden, out, keep)
    _sample_pieces(s, surf, profile, garden, keep)
    return out


def _sample_board(s: _Sampler, profile: Profile, garden: Garden, out: PhotoSamples,
                  keep: Callable[..., Any]) -> None:
    """The print of the empty cells: the cell's colour round its hole, the hole, the gaps between cells."""
    b = profile.board
    top = top_levels(garden)
    ang = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    for r in range(8):
        for c in range(8):
            if top[r][c]:
                continue
            cx, cy = profile.cell_centre(r, c)
            ring = (b.hole_diameter / 2 + b.cell_print / 2) / 2
            keep("cell", s.at(np.column_stack([cx + ring * np.cos(ang), cy + ring * np.sin(ang), 0 * ang]),
                              0))
            hole = np.column_stack([cx + 2.0 * np.cos(ang), cy + 2.0 * np.sin(ang), 0 * ang])
            keep("hole", s.at(hole, 0))
            if c + 1 < 8 and not top[r][c + 1]:
                y = np.linspace(cy - 9, cy + 9, 13)
                keep("gap", s.at(np.column_stack([np.full(13, cx + b.pitch / 2), y, np.zeros(13)]), 0))


def _sample_pieces(s: _Sampler, surf: Surfaces, profile: Profile, garden: Garden,
                   keep: Callable[..., Any]) -> None:
    """Each labelled decoration's parts, placed as the rules place the piece on the labelled tiles."""
    by_cells: dict[tuple[str, frozenset], Candidate] = {
        (c.kind, frozenset(zip(c.cells, c.levels, strict=True))): c for c in candidates(surf)
    }
    for d in garden.decorations:
        c = by_cells.get((d.kind, frozenset(d.cell_levels)))
        if c is None:
            continue
        for part in piece_parts(profile, c.kind, c.run, c.rise):
            if part.colour in PART_FIELDS and part.role in ("mean", "min"):
                px = s.at(_to_board(c, part.points), c.level)
                keep(f"piece-{part.colour}", px, least=min(MIN_PIXELS, len(part.points) // 2))


# ----------------------------------------------------------------------------------------- fitting


def _hex(bgr: np.ndarray) -> str:
    r, g, b = (int(round(float(np.clip(v, 0, 1)) * 255)) for v in bgr[::-1])
    return f"#{r:02X}{g:02X}{b:02X}"


def _lab(bgr: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(np.clip(bgr, 0, 1).astype(np.float32).reshape(1, 1, 3), cv2.COLOR_BGR2Lab).reshape(3)


def _flower_distance(a: np.ndarray, b: np.ndarray) -> float:
    """As :func:`vision.read.flowers.classify` compares colours: chroma weighs twice the lightness."""
    return float(np.linalg.norm((a - b) * [0.5, 1.0, 1.0]))


def board_colour(samples: Sequence[PhotoSamples]) -> np.ndarray:
    """The board print's colour (sRGB, BGR): the geometric mean of its colour in the photos, where each
    photo's light multiplies every channel by its own gain (a per-channel median would mix the
    channels of different photos and tint it)."""
    return np.exp(np.mean(np.log(np.array([s.board_raw for s in samples])), axis=0))


def pooled_colours(samples: Sequence[PhotoSamples]) -> tuple[np.ndarray, dict[str, str], dict[str, int]]:
    """The board print's colour (sRGB, BGR), each element's colour (the median over its examples,
    relative to the board print) and how many examples it had."""
    board = board_colour(samples)
    pooled: dict[str, list[np.ndarray]] = defaultdict(list)
    for s in samples:
        for k, v in s.elements.items():
            pooled[k] += v
    colours = {k: _hex(np.median(np.array(v), axis=0) * board) for k, v in pooled.items()}
    return board, colours, {k: len(v) for k, v in pooled.items()}


def fit_profile(samples: Sequence[PhotoSamples], base: Profile, name: str, strict: bool = True) -> Profile:
    """The profile whose colours are the samples' (:func:`pooled_colours`), after the labels' checks
    (``strict``): enough examples of each flower and piece, bands that look like their labelled flower.
    Not strict, what was not seen keeps the base profile's colour."""
    board, colour, counts = pooled_colours(samples)
    if strict:
        _check_counts(samples, base, colour, counts)
    t, b, d = base.tile, base.board, base.decoration
    tile = dataclasses.replace(t, **{f: colour[k] for k, f in (
        ("garden", "garden_colour"), ("path", "path_colour"), ("plaque", "plaque_colour"),
        ("icon", "icon_colour")) if k in colour})
    board_m = dataclasses.replace(b, colour=_hex(board), **{f: colour[k] for k, f in (
        ("cell", "cell_colour"), ("gap", "gap_colour"), ("hole", "hole_colour")) if k in colour})
    deco = dataclasses.replace(d, **{f: colour[f"piece-{p}"] for p, f in PART_FIELDS.items()
                                     if f"piece-{p}" in colour})
    flowers = {f: colour.get(f"flower-{f}", base.flowers[f]) for f in base.flowers}
    return dataclasses.replace(base, name=name, board=board_m, tile=tile, decoration=deco, flowers=flowers)


def _check_counts(
    samples: Sequence[PhotoSamples], base: Profile, colour: dict[str, str], counts: dict[str, int]
) -> None:
    """Wrong flowers first (a wrong label explains a missing flower), then too few examples."""
    check_flowers(samples, {f: colour[f"flower-{f}"] for f in base.flowers if f"flower-{f}" in colour})
    for flower in base.flowers:
        n = counts.get(f"flower-{flower}", 0)
        if n < MIN_FLOWER_TILES:
            raise CalibrationError(f"too few {flower} tiles: the band of {n} is seen, at least "
                                   f"{MIN_FLOWER_TILES} are needed (flower {flower})")
    for part, kind in PART_KIND.items():
        if counts.get(f"piece-{part}", 0) < MIN_PIECES:
            raise CalibrationError(f"too few {kind}s: none is seen well enough in the photos "
                                   f"(decoration {kind})")


def check_flowers(samples: Sequence[PhotoSamples], flowers: dict[str, str]) -> None:
    """Refuse a band labelled one flower that looks like another (a wrong label), and flowers that the
    photos show alike (they could not be told apart)."""
    board = board_colour(samples)
    refs = flower_lab(dataclasses.replace(REFERENCE, flowers=flowers))
    for s in samples:
        for what, flower, ratio in s.bands:
            lab = _lab(ratio * board)
            d = {f: _flower_distance(lab, r) for f, r in refs.items()}
            best = min(d, key=d.get)
            if best != flower and d[flower] > FLOWER_DOUBT * d[best] and d[flower] > 15.0:
                raise CalibrationError(f"{s.name}: {what} looks {best}, not {flower} as labelled "
                                       f"(flower {flower}: is the label right?)")
    names = list(refs)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if _flower_distance(refs[a], refs[b]) < 8.0:
                raise CalibrationError(f"the {a} and {b} flowers look alike in the photos (flower {a}, {b})")


# ------------------------------------------------------------------------------------------- driver


def calibrate(
    folder: Path, base: Profile = REFERENCE, name: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> Calibration:
    """Fit a profile from the labelled photos in ``folder`` and measure it on them.

    Two rounds: the base profile may read another edition's photos poorly, and the camera it finds
    with few tiles is less sure; the second round reads them with the first round's profile, and
    only then are the labels judged."""
    say = progress or (lambda _: None)
    labelled = labelled_photos(folder)
    photos = []
    for lab in labelled:
        try:
            photos.append(load_photo(lab.photo))
        except PhotoError as e:
            raise CalibrationError(f"{lab.photo.name}: {e} (photo)") from None
    profile = base
    for round_ in range(ROUNDS):
        strict = round_ == ROUNDS - 1
        samples = []
        for lab, photo in zip(labelled, photos, strict=True):
            say(f"round {round_ + 1} of {ROUNDS}: {lab.photo.name}")
            try:
                reading = read_photo(photo, profile)
            except PhotoError as e:  # NoBoardError
                raise CalibrationError(f"{lab.photo.name}: {e} (board)") from None
            if strict:
                check_label(lab.photo.name, lab.garden, reading.garden)
            samples.append(sample_photo(lab, reading, photo, base, strict))
        profile = fit_profile(samples, base, name or f"calibrated from {folder.name}", strict)
    results = []
    for lab, photo in zip(labelled, photos, strict=True):
        say(f"reading {lab.photo.name} with the profile")
        results.append(ev.compare(lab.photo.name, read_photo(photo, profile).garden, lab.garden))
    return Calibration(profile, ev.summarize(results), results)


__all__ = ["Calibration", "CalibrationError", "calibrate", "fit_profile", "labelled_photos", "sample_photo"]
