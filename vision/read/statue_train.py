"""Training the statue model (:mod:`vision.read.statue_model`) on rendered photos with their truth.

Every field seen from above in a photo (the top tile's, from the truth garden) gives a patch, cut
with the photo's true camera, labelled by whether a statue stands on it; a few more are cut a
millimetre or so off (the reader's camera is a little off too). A small neural network (scikit-learn's
multi-layer perceptron, the ``train`` extra) on the standardised features gives the weights. The same
photos give the same model.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from scoring.garden import GardenError, garden_from_dict
from scoring.visibility import top_levels
from vision.camera import Camera
from vision.profile import Profile
from vision.read.evaluate import truth_of
from vision.read.load import load_photo
from vision.read.statue_model import StatueModel, patch_features, upright_patch
from vision.read.views import board_gain

JITTER_MM = 1.0  #: the patches cut off the true field's centre are moved up to this far ...
JITTER_COPIES = 1  #: ... this many per field
#: the network: one hidden layer this wide, weights decayed this much (chosen on development photos
#: against a logistic regression on the same features: of 546 statues in sight of another set, 474 scored
#: 0.9 or more against 411, and no other field did against one of 6,689)
HIDDEN, ALPHA = 64, 1e-2


def truth_samples(photo: Path, profile: Profile, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Features (N, F) and labels (N,) of every field seen from above in ``photo``, by the truth JSON
    beside it (its ``camera`` and ``garden``)."""
    truth = truth_of(photo)
    try:
        cam_dict, garden = truth["camera"], garden_from_dict(truth["garden"])
    except (TypeError, KeyError, GardenError) as e:
        raise ValueError(f"{photo.with_suffix('.json')}: no truth with a camera and a garden ({e})") from None
    img = load_photo(photo).image
    cam = Camera.from_dict(cam_dict).with_size(img.shape[1], img.shape[0])
    gain = board_gain(img, cam, profile)
    statues = {(d.cells[0], d.level) for d in garden.decorations if d.kind == "statue"}
    rng = np.random.default_rng(seed)
    feats, labels = [], []
    for (row, col), level in np.ndenumerate(np.array(top_levels(garden))):
        if not level:
            continue
        label = int(((row, col), level) in statues)
        offsets = [(0.0, 0.0)] + [
            tuple(rng.uniform(-JITTER_MM, JITTER_MM, 2) / profile.board.pitch) for _ in range(JITTER_COPIES)
        ]
        for dr, dc in offsets:
            patch = upright_patch(img, cam, profile, (row + dr, col + dc), int(level))
            feats.append(patch_features(patch, gain))
            labels.append(label)
    return np.array(feats, np.float32).reshape(len(labels), -1), np.array(labels, int)


def train(
    photos: list[Path], profile: Profile, progress: Callable[[Path], None] | None = None
) -> tuple[StatueModel, dict[str, int]]:
    """The model fitted on every field of ``photos``, and how many patches of each label it saw."""
    try:
        from sklearn.neural_network import MLPClassifier
    except ImportError:
        raise RuntimeError("training needs scikit-learn: pip install -e '.[train]'") from None
    xs, ys = [], []
    for i, photo in enumerate(photos):
        x, y = truth_samples(photo, profile, seed=i)
        xs.append(x)
        ys.append(y)
        if progress:
            progress(photo)
    x, y = np.vstack(xs), np.concatenate(ys)
    if y.sum() == 0 or y.sum() == len(y):
        raise ValueError("the photos need fields with a statue and fields without one")
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale > 1e-6, scale, 1.0)
    net = MLPClassifier((HIDDEN,), alpha=ALPHA, max_iter=500, random_state=0).fit((x - mean) / scale, y)
    (w1, w2), (b1, b2) = net.coefs_, net.intercepts_
    model = StatueModel(mean, scale, w1, b1, w2[:, 0], float(b2[0]), profile.decoration.statue_colour)
    return model, {"statue": int(y.sum()), "other": int(len(y) - y.sum())}
