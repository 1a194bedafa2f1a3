"""Learned second opinions on the decorations: how the piece's shape looks in a patch of
the photo.

The decorations stage judges a piece by its colours (a statue's bronze over the plaque's middle, the
cream round it; the stairs' grey stone over the lower field; a fountain's water in its basin). A piece
in an odd light, dark or glossy (water mirroring the lamp, white), fails that test though its shape is
plain to see, and grey or bronze that is not a piece (glare on a plaque, a pillar, a bronze-like icon)
may pass it. This module cuts a small patch of the photo in a frame the piece fixes, so that it looks
alike from any camera:

- a statue's (:func:`statue_patch`): round its field, on the plane halfway up the statue, its rows
  down the projected vertical (the statue stands upright in it) and scaled so that the field spans it
  whatever the distance;
- stairs' (:func:`stairs_patch`): the board seen from above on the plane halfway up the stairs, its
  rows along their run from the foot to the top (the treads cross it), the whole run and a margin;
- a fountain's (:func:`fountain_patch`): seen from above on the plane of its basin's rim, its rows
  along the basin's length (from one field to the other), the basin and a margin;
- a bridge's (:func:`bridge_patch`): seen from above on the plane halfway up its arch, its rows along
  the deck from one end to the other, the deck and a margin;
- a belvedere's: a statue's (a belvedere stands 18 mm tall on one field, a statue 20).

A patch is described by its gradients (a histogram of oriented gradients of the lightness) and its
colour on a coarse grid (:func:`patch_features`), and a small neural network per kind, trained on
rendered photos with their truth (:mod:`vision.read.piece_train`, ``babylon train``), gives the
probability that the piece stands there. The weights (NumPy arrays, 0.1-0.3 MB per kind) ship in the
package; running a network is two matrix products.

A network learns the reference edition's piece: it is asked only with a profile whose piece has the
colour it was trained on (:func:`model_for`). Another edition's piece has the same shape (the spec's
geometry) in other colours and beside other icons: for it a network trained on the gradients alone
(``features="shape"``, ``babylon train --shape-only``), on the same reference photos, is asked instead
where one ships (``KIND_shape.npz``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from skimage.feature import hog

from vision.camera import Camera
from vision.profile import REFERENCE, Profile

KINDS = ("statue", "stairs", "fountain", "bridge", "belvedere")  #: the pieces a network is trained for
#: ... of which the reader asks only the shape networks (:func:`model_for`) about these: no colour network
SHAPE_ONLY = ("bridge", "belvedere")
STATUE_PX = 32  #: a statue patch's side, pixels ...
STATUE_MM = 12.0  #: ... and half its side, mm at the statue's mid-height (a field is 30 mm, a plaque 20)
MID_MM = 10.0  #: the height (over the tile) a statue patch is cut at: a statue stands 20 mm tall
STAIRS_PX = 48  #: a stairs patch's side, pixels ...
STAIRS_MARGIN = 8.0  #: ... and the margin round the run, mm (the patch spans run + 2 margins each way)
FOUNTAIN_PX = (48, 32)  #: a fountain patch's size along and across the basin, pixels ...
FOUNTAIN_MARGIN = 6.0  #: ... spanning the basin (48 x 20 mm) and this margin each way, 1.25 mm a pixel
BRIDGE_PX = (64, 24)  #: a bridge patch's size along and across the deck, pixels ...
BRIDGE_MARGIN = 6.0  #: ... spanning the deck (80 x 16 mm) and this margin each way, about 1.4 mm a pixel
COLOUR_GRID = 6  #: the colour is described in this many cells across
MODELS = Path(__file__).resolve().parent / "models"


def _remap(image_bgr: np.ndarray, uv: np.ndarray) -> np.ndarray:
    uv = uv.astype(np.float32)
    return cv2.remap(image_bgr, uv[..., 0], uv[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _oriented_patch(
    image_bgr: np.ndarray,
    cam: Camera,
    origin: tuple[float, ...],
    offset: tuple[float, float],
    z: float,
    angle_deg: float,
    half_mm: tuple[float, float],
    size_px: tuple[int, int],
) -> np.ndarray:
    """The photo on the plane at height ``z``, its rows along ``angle_deg`` (``half_mm[0]`` each way,
    ``size_px[0]`` rows), its columns across (``half_mm[1]``, ``size_px[1]``), round the point
    ``offset`` (along, across, mm) from ``origin`` (board mm)."""
    a = math.radians(angle_deg)
    along = np.array([math.cos(a), math.sin(a)])
    across = np.array([-along[1], along[0]])
    centre = np.asarray(origin[:2], float) + along * offset[0] + across * offset[1]
    ga, gc = np.meshgrid(
        np.linspace(-half_mm[0], half_mm[0], size_px[0]), np.linspace(-half_mm[1], half_mm[1], size_px[1]),
        indexing="ij",
    )
    xy = (centre + ga[..., None] * along + gc[..., None] * across).reshape(-1, 2)
    xyz = np.column_stack([xy, np.full(len(xy), z)])
    return _remap(image_bgr, cam.project(xyz).reshape(size_px[0], size_px[1], 2))


def statue_patch(
    image_bgr: np.ndarray, cam: Camera, profile: Profile, cell: tuple[float, float], level: int
) -> np.ndarray:
    """(STATUE_PX, STATUE_PX, 3) uint8: the photo round the field ``cell`` of a tile on ``level``, cut on
    the plane :data:`MID_MM` over the tile, its rows running down the projected vertical (a statue
    stands upright in it from any camera) and :data:`STATUE_MM` each side of the field's centre."""
    x, y = profile.cell_centre(*cell)
    z = profile.tile_top_z(level)
    zm = z + MID_MM
    base, top, mid, *across = cam.project(
        np.array(
            [[x, y, z], [x, y, z + 2 * MID_MM], [x, y, zm], [x - 1, y, zm], [x + 1, y, zm], [x, y - 1, zm],
             [x, y + 1, zm]],
            float,
        )
    )
    down = base - top
    n = float(np.linalg.norm(down))
    # straight down the camera's axis the vertical projects to a point: any turn will do there
    down = down / n if n > 1e-6 else np.array([0.0, 1.0])
    right = np.array([-down[1], down[0]])
    px_per_mm = (np.linalg.norm(across[1] - across[0]) + np.linalg.norm(across[3] - across[2])) / 4
    g = np.linspace(-STATUE_MM, STATUE_MM, STATUE_PX) * px_per_mm
    gx, gy = np.meshgrid(g, g)
    return _remap(image_bgr, mid[None, None, :] + gx[..., None] * right + gy[..., None] * down)


def stairs_patch(
    image_bgr: np.ndarray,
    cam: Camera,
    foot: tuple[float, float, float],
    angle_deg: float,
    run: float,
    rise: float,
    shift: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """(STAIRS_PX, STAIRS_PX, 3) uint8: the photo over stairs whose first step's front edge is centred at
    ``foot`` (board mm, on the lower tile's top), climbing ``rise`` over ``run`` towards ``angle_deg``:
    the board plane halfway up, its rows along the run (foot first), its columns across, the run and
    :data:`STAIRS_MARGIN` each side in both directions; ``shift`` (along, across, mm) moves it."""
    half, size = (run / 2 + STAIRS_MARGIN,) * 2, (STAIRS_PX,) * 2
    offset = (run / 2 + shift[0], shift[1])
    return _oriented_patch(image_bgr, cam, foot, offset, foot[2] + rise / 2, angle_deg, half, size)


def fountain_patch(
    image_bgr: np.ndarray,
    cam: Camera,
    profile: Profile,
    centre: tuple[float, float, float],
    angle_deg: float,
    shift: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """(FOUNTAIN_PX, 3) uint8: the photo over a fountain whose basin is centred at ``centre`` (board mm,
    on its tile's top) and runs along ``angle_deg``: the plane of the basin's rim, its rows along the
    basin, the basin and :data:`FOUNTAIN_MARGIN` each way; ``shift`` (along, across, mm) moves it."""
    length, width, height = profile.decoration.fountain_basin
    half = (length / 2 + FOUNTAIN_MARGIN, width / 2 + FOUNTAIN_MARGIN)
    return _oriented_patch(image_bgr, cam, centre, shift, centre[2] + height, angle_deg, half, FOUNTAIN_PX)


def bridge_patch(
    image_bgr: np.ndarray,
    cam: Camera,
    profile: Profile,
    centre: tuple[float, float, float],
    angle_deg: float,
    shift: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """(BRIDGE_PX, 3) uint8: the photo over a bridge whose deck is centred at ``centre`` (board mm, on
    its ends' tiles' top) and runs along ``angle_deg``: the plane halfway up its arch, its rows along
    the deck, the deck and :data:`BRIDGE_MARGIN` each way; ``shift`` (along, across, mm) moves it."""
    d = profile.decoration
    length, width = d.bridge_deck
    half = (length / 2 + BRIDGE_MARGIN, width / 2 + BRIDGE_MARGIN)
    z = centre[2] + d.bridge_rise / 2
    return _oriented_patch(image_bgr, cam, centre, shift, z, angle_deg, half, BRIDGE_PX)


def patch_features(patch_bgr: np.ndarray, gain: np.ndarray, colour: bool = True) -> np.ndarray:
    """A patch's description: the histogram of oriented gradients of its lightness (stretched to its
    full range: the light's strength does not matter), then (unless not ``colour``) its white-balanced
    (``gain``, B G R) colour (Lab a and b) averaged over a coarse grid."""
    balanced = np.clip(patch_bgr.astype(np.float32) / 255.0 * np.asarray(gain, np.float32)[:3], 0.0, 1.0)
    lab = cv2.cvtColor(balanced, cv2.COLOR_BGR2Lab)
    light = cv2.normalize(lab[..., 0], None, 0.0, 1.0, cv2.NORM_MINMAX)
    shape = hog(light, orientations=9, pixels_per_cell=(8, 8), cells_per_block=(2, 2), feature_vector=True)
    if not colour:
        return shape.astype(np.float32)
    ab = cv2.resize(lab[..., 1:], (COLOUR_GRID, COLOUR_GRID), interpolation=cv2.INTER_AREA) / 30.0
    return np.concatenate([shape, ab.ravel()]).astype(np.float32)


@dataclass(frozen=True)
class PieceModel:
    """A small neural network (one hidden layer of rectified units, a logistic output) over
    standardised features (:func:`patch_features`) of one kind's patches."""

    mean: np.ndarray  #: (F,)
    scale: np.ndarray  #: (F,)
    hidden_w: np.ndarray  #: (F, H)
    hidden_b: np.ndarray  #: (H,)
    out_w: np.ndarray  #: (H,)
    out_b: float
    kind: str  #: one of :data:`KINDS`
    colour: str  #: the profile's colour of that piece it was trained on
    #: "all": gradients and colour (:func:`patch_features`), asked about the piece of its colour only;
    #: "shape": gradients alone, asked about any edition's piece
    features: str = "all"

    def probability(self, features: np.ndarray) -> np.ndarray:
        """The probability (N,) that the piece stands on each patch described by ``features`` (N, F)."""
        x = (np.atleast_2d(features) - self.mean) / self.scale
        z = np.maximum(x @ self.hidden_w + self.hidden_b, 0.0) @ self.out_w + self.out_b
        return 1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0)))

    def on_patches(self, patches: list[np.ndarray], gain: np.ndarray) -> np.ndarray:
        """The probability (N,) for each of ``patches`` (white-balanced by ``gain``)."""
        if not patches:
            return np.zeros(0)
        colour = self.features != "shape"
        return self.probability(np.stack([patch_features(p, gain, colour) for p in patches]))

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".part")
        arrays = {k: np.asarray(getattr(self, k), np.float32) for k in _ARRAYS}
        with open(tmp, "wb") as fh:
            named = {k: np.array(getattr(self, k)) for k in ("kind", "colour", "features")}
            np.savez_compressed(fh, **arrays, **named)
        tmp.replace(path)


_ARRAYS = ("mean", "scale", "hidden_w", "hidden_b", "out_w", "out_b")
FEATURES = ("all", "shape")


def load(path: Path) -> PieceModel:
    """A model saved by :meth:`PieceModel.save` (ValueError for a file that is not one)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            a = {k: z[k] for k in _ARRAYS}
            named = {"out_b": float(a["out_b"]), "kind": str(z["kind"]), "colour": str(z["colour"])}
            named["features"] = str(z["features"]) if "features" in z.files else "all"
            model = PieceModel(**a | named)
    except (OSError, KeyError, ValueError, TypeError) as e:
        raise ValueError(f"{path}: not a piece model ({e})") from None
    f, h = model.hidden_w.shape if model.hidden_w.ndim == 2 else (-1, -1)
    shapes = (model.mean.shape, model.scale.shape, model.hidden_b.shape, model.out_w.shape)
    if shapes != ((f,), (f,), (h,), (h,)) or model.kind not in KINDS or model.features not in FEATURES:
        raise ValueError(f"{path}: not a piece model (its arrays, kind or features do not match)")
    return model


_COLOUR_OF = {"fountain": "fountain_water_colour", "belvedere": "belvedere_dome_colour"}


def piece_colour(profile: Profile, kind: str) -> str:
    """The profile's colour of ``kind`` (a network is asked only about the colour it learned; a
    fountain's is its water's, a belvedere's its dome's)."""
    return getattr(profile.decoration, _COLOUR_OF.get(kind, f"{kind}_colour"))


@lru_cache(maxsize=8)
def _cached(path: str) -> PieceModel | None:
    return load(Path(path)) if Path(path).exists() else None


def model_for(kind: str, profile: Profile, path: Path | None = None) -> PieceModel | None:
    """The shipped network for ``kind`` (or the one at ``path``) when ``profile``'s piece is the one it
    learned; else, for another edition's piece (a colour other than the reference's), the shipped
    shape network for ``kind`` (``features == "shape"``) where there is one; else None."""
    model = _cached(str(path or MODELS / f"{kind}.npz"))
    own = piece_colour(profile, kind).lower()
    if model is not None and model.kind == kind and model.colour.lower() == own:
        return model
    if path is not None or own == piece_colour(REFERENCE, kind).lower():
        return None  # the reference's own piece: its colour network, or none
    return shape_model(kind)


def shape_model(kind: str) -> PieceModel | None:
    """The shipped network of ``kind``'s shape alone (``features == "shape"``), if one ships."""
    shape = _cached(str(MODELS / f"{kind}_shape.npz"))
    return shape if shape is not None and shape.kind == kind and shape.features == "shape" else None
