"""Training the piece networks (:mod:`vision.read.piece_model`) on rendered photos with their truth.

Each photo's truth (its camera, garden and the tiles' placements) gives the patches a network learns
from, cut with the photo's true camera: for statues, every field seen from above, labelled by whether
a statue stands on it; for the other pieces, every place the rules allow one on the true tiles
with its fields seen from above (the decorations stage's candidates, not on a tile hidden under higher
ones), labelled by whether that piece stands there. Each is cut once more a millimetre or so off (the
reader's camera and tiles are a little off too). A small neural network (scikit-learn's multi-layer
perceptron, the ``train`` extra) on the standardised features gives the weights. The same photos give
the same network.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from scoring.garden import Garden, GardenError, garden_from_dict
from scoring.visibility import top_levels
from vision.camera import Camera
from vision.profile import Profile
from vision.read.decorations import Surfaces, candidates, piece_patch
from vision.read.evaluate import truth_of
from vision.read.load import load_photo
from vision.read.piece_model import (
    KINDS,
    PieceModel,
    patch_features,
    piece_colour,
    statue_patch,
)
from vision.read.pieces import truth_tiles
from vision.read.views import board_gain

JITTER_MM = 1.0  #: the patches cut off the true place are moved up to this far ...
JITTER_COPIES = 1  #: ... this many per place
#: the network: one hidden layer this wide, weights decayed this much (chosen on development photos
#: against a logistic regression on the same features: of 546 statues in sight of another set, 474 scored
#: 0.9 or more against 411, and no other field did against one of 6,689)
HIDDEN, ALPHA = 64, 1e-2


def _statue_patches(
    img: np.ndarray, cam: Camera, profile: Profile, truth: dict, garden: Garden, rng: np.random.Generator
) -> list[tuple[np.ndarray, int]]:
    """(patch, label) for every field seen from above, and its jittered copies."""
    statues = {(d.cells[0], d.level) for d in garden.decorations if d.kind == "statue"}
    out = []
    for (row, col), level in np.ndenumerate(np.array(top_levels(garden))):
        if not level:
            continue
        label = int(((row, col), level) in statues)
        offsets = [(0.0, 0.0)] + [
            tuple(rng.uniform(-JITTER_MM, JITTER_MM, 2) / profile.board.pitch) for _ in range(JITTER_COPIES)
        ]
        for dr, dc in offsets:
            out.append((statue_patch(img, cam, profile, (row + dr, col + dc), int(level)), label))
    return out


def _placed_patches(
    kind: str,
    img: np.ndarray,
    cam: Camera,
    profile: Profile,
    truth: dict,
    garden: Garden,
    rng: np.random.Generator,
) -> list[tuple[np.ndarray, int]]:
    """(patch, label) for every place the rules allow ``kind`` (stairs, a fountain, ...) on the true tiles,
    seen from above (the decorations stage's candidates not on a hidden tile), and its jittered copies."""
    if "pieces" not in truth:
        raise KeyError("pieces (the tiles' placements)")
    placed = {frozenset(d.cell_levels) for d in garden.decorations if d.kind == kind}
    out = []
    for c in candidates(Surfaces(truth_tiles(truth, profile), profile)):
        if c.kind != kind or c.hidden:
            continue
        label = int(frozenset(zip(c.cells, c.levels, strict=True)) in placed)  # a bridge's middle too
        offsets = [(0.0, 0.0)] + [tuple(rng.uniform(-JITTER_MM, JITTER_MM, 2)) for _ in range(JITTER_COPIES)]
        out += [(piece_patch(img, cam, profile, c, s), label) for s in offsets]
    return out


_PATCHES = {
    "statue": _statue_patches,
    "stairs": partial(_placed_patches, "stairs"),
    "fountain": partial(_placed_patches, "fountain"),
    "bridge": partial(_placed_patches, "bridge"),
    "belvedere": partial(_placed_patches, "belvedere"),
}


def truth_samples(
    photo: Path, profile: Profile, kind: str, seed: int = 0, colour: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Features (N, F) and labels (N,) of the ``kind`` patches of ``photo``, by the truth JSON beside
    it (its ``camera``, ``garden`` and, for stairs and fountains, the tiles' placements in ``pieces``);
    the gradients alone unless ``colour`` (:func:`vision.read.piece_model.patch_features`)."""
    truth = truth_of(photo)
    img = load_photo(photo).image
    try:
        cam_dict, garden = truth["camera"], garden_from_dict(truth["garden"])
        cam = Camera.from_dict(cam_dict).with_size(img.shape[1], img.shape[0])
        patches = _PATCHES[kind](img, cam, profile, truth, garden, np.random.default_rng(seed))
    except (TypeError, KeyError, GardenError) as e:
        raise ValueError(f"{photo.with_suffix('.json')}: no truth with a camera and a garden ({e})") from None
    if not patches:
        return np.zeros((0, 0), np.float32), np.zeros(0, int)
    gain = board_gain(img, cam, profile)
    features = np.stack([patch_features(p, gain, colour) for p, _ in patches])
    return features, np.array([y for _, y in patches], int)


def train(
    photos: list[Path],
    profile: Profile,
    kind: str,
    progress: Callable[[Path], None] | None = None,
    shape_only: bool = False,
) -> tuple[PieceModel, dict[str, int]]:
    """The ``kind`` network fitted on ``photos``, and how many patches of each label it saw; on the
    gradients alone with ``shape_only`` (asked about any edition's piece:
    :func:`vision.read.piece_model.model_for`)."""
    if kind not in KINDS:
        raise ValueError(f"no network for {kind!r}: one of {', '.join(KINDS)}")
    try:
        from sklearn.neural_network import MLPClassifier
    except ImportError:
        raise RuntimeError("training needs scikit-learn: pip install -e '.[train]'") from None
    xs, ys = [], []
    for i, photo in enumerate(photos):
        x, y = truth_samples(photo, profile, kind, seed=i, colour=not shape_only)
        if len(y):
            xs.append(x)
            ys.append(y)
        if progress:
            progress(photo)
    y = np.concatenate(ys) if ys else np.zeros(0, int)
    if y.sum() == 0 or y.sum() == len(y):
        raise ValueError(f"the photos need places with {kind} and places without")
    x = np.vstack(xs)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale > 1e-6, scale, 1.0)
    net = MLPClassifier((HIDDEN,), alpha=ALPHA, max_iter=500, random_state=0).fit((x - mean) / scale, y)
    (w1, w2), (b1, b2) = net.coefs_, net.intercepts_
    colour, features = ("", "shape") if shape_only else (piece_colour(profile, kind), "all")
    model = PieceModel(mean, scale, w1, b1, w2[:, 0], float(b2[0]), kind, colour, features)
    return model, {kind: int(y.sum()), "other": int(len(y) - y.sum())}
