"""A learned second opinion on statues: how a statue's shape looks in a patch of the photo.

The decorations stage judges a statue by its colours (bronze over the plaque's middle, the plaque's
cream round it). A statue in an odd light, dark or glossy, fails that test though its shape, a disc
with a body rising from it, is plain to see. This module cuts, for a field, a small patch of the photo
turned so that the camera's up (the projection of the vertical through the field) points up and scaled
so that the field spans it whatever the distance (:func:`upright_patch`), describes it by its
gradients (a histogram of oriented gradients, of the lightness) and its colour in a coarse grid
(:func:`patch_features`), and a small neural network trained on rendered photos with their truth
(:mod:`vision.read.statue_train`, ``babylon train-statues``) gives the probability that a statue
stands there. Its weights, about 100 kB of NumPy arrays, ship in the package; running it is two
matrix products.

The model learns the reference edition's statue: it is used only with a profile whose statue has the
colour it was trained on (:func:`model_for`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from skimage.feature import hog

from vision.camera import Camera
from vision.profile import Profile

PATCH_PX = 32  #: the patch's side, pixels
PATCH_MM = 12.0  #: half its side, mm at the statue's mid-height (a field is 30 mm, a plaque 20 mm)
MID_MM = 10.0  #: the height (over the tile) the patch is cut at: a statue stands 20 mm tall
COLOUR_GRID = 6  #: the colour is described in this many cells across
DEFAULT_PATH = Path(__file__).resolve().parent / "models" / "statue.npz"


def upright_patch(
    image_bgr: np.ndarray, cam: Camera, profile: Profile, cell: tuple[int, int], level: int
) -> np.ndarray:
    """(PATCH_PX, PATCH_PX, 3) uint8: the photo round the field ``cell`` of a tile on ``level``, cut on
    the plane :data:`MID_MM` over the tile, its rows running down the projected vertical (a statue
    stands upright in it from any camera) and :data:`PATCH_MM` each side of the field's centre."""
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
    g = np.linspace(-PATCH_MM, PATCH_MM, PATCH_PX) * px_per_mm
    gx, gy = np.meshgrid(g, g)
    uv = mid[None, None, :] + gx[..., None] * right + gy[..., None] * down
    uv = uv.astype(np.float32)
    return cv2.remap(image_bgr, uv[..., 0], uv[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def patch_features(patch_bgr: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """A patch's description: the histogram of oriented gradients of its lightness (stretched to its
    full range: the light's strength does not matter), then its white-balanced (``gain``, B G R) colour
    (Lab a and b) averaged over a coarse grid."""
    balanced = np.clip(patch_bgr.astype(np.float32) / 255.0 * np.asarray(gain, np.float32)[:3], 0.0, 1.0)
    lab = cv2.cvtColor(balanced, cv2.COLOR_BGR2Lab)
    light = cv2.normalize(lab[..., 0], None, 0.0, 1.0, cv2.NORM_MINMAX)
    shape = hog(light, orientations=9, pixels_per_cell=(8, 8), cells_per_block=(2, 2), feature_vector=True)
    ab = cv2.resize(lab[..., 1:], (COLOUR_GRID, COLOUR_GRID), interpolation=cv2.INTER_AREA) / 30.0
    return np.concatenate([shape, ab.ravel()]).astype(np.float32)


@dataclass(frozen=True)
class StatueModel:
    """A small neural network (one hidden layer of rectified units, a logistic output) over
    standardised features (:func:`patch_features`)."""

    mean: np.ndarray  #: (F,)
    scale: np.ndarray  #: (F,)
    hidden_w: np.ndarray  #: (F, H)
    hidden_b: np.ndarray  #: (H,)
    out_w: np.ndarray  #: (H,)
    out_b: float
    statue_colour: str  #: the profile's statue colour it was trained on

    def probability(self, features: np.ndarray) -> np.ndarray:
        """The probability (N,) that a statue stands on each patch described by ``features`` (N, F)."""
        x = (np.atleast_2d(features) - self.mean) / self.scale
        z = np.maximum(x @ self.hidden_w + self.hidden_b, 0.0) @ self.out_w + self.out_b
        return 1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0)))

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".part")
        arrays = {k: np.asarray(getattr(self, k), np.float32) for k in _ARRAYS}
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, **arrays, statue_colour=np.array(self.statue_colour))
        tmp.replace(path)


_ARRAYS = ("mean", "scale", "hidden_w", "hidden_b", "out_w", "out_b")


def load(path: Path) -> StatueModel:
    """A model saved by :meth:`StatueModel.save` (ValueError for a file that is not one)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            a = {k: z[k] for k in _ARRAYS}
            model = StatueModel(**a | {"out_b": float(a["out_b"])}, statue_colour=str(z["statue_colour"]))
    except (OSError, KeyError, ValueError, TypeError) as e:
        raise ValueError(f"{path}: not a statue model ({e})") from None
    f, h = model.hidden_w.shape if model.hidden_w.ndim == 2 else (-1, -1)
    shapes = (model.mean.shape, model.scale.shape, model.hidden_b.shape, model.out_w.shape)
    if shapes != ((f,), (f,), (h,), (h,)):
        raise ValueError(f"{path}: not a statue model (its arrays do not match)")
    return model


@lru_cache(maxsize=4)
def _cached(path: str) -> StatueModel | None:
    return load(Path(path)) if Path(path).exists() else None


def model_for(profile: Profile, path: Path | None = None) -> StatueModel | None:
    """The shipped model (or the one at ``path``) when ``profile``'s statue is the one it learned;
    None otherwise (another edition's statue: its colours and shape are the profile's to tell)."""
    model = _cached(str(path or DEFAULT_PATH))
    if model is None or model.statue_colour.lower() != profile.decoration.statue_colour.lower():
        return None
    return model


def statue_probability(
    model: StatueModel,
    image_bgr: np.ndarray,
    cam: Camera,
    profile: Profile,
    gain: np.ndarray,
    fields: list[tuple[tuple[int, int], int]],
) -> np.ndarray:
    """The model's probability (N,) of a statue on each of ``fields`` ((cell, level) each)."""
    if not fields:
        return np.zeros(0)
    feats = np.stack([patch_features(upright_patch(image_bgr, cam, profile, c, k), gain) for c, k in fields])
    return model.probability(feats)
