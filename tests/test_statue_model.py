"""The statue model: the reader's learned second opinion on statues whose colours fail their test."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scoring.garden import Decoration, Garden, Tile
from vision.camera import Camera
from vision.profile import REFERENCE, VARIANT
from vision.read import decorations, statue_model
from vision.read.views import board_gain
from vision.render.photo import render_photo, save_photo

PLAIN = dict(size=(1600, 1200), optics={"k2": 0.0, "principal_offset": (0.0, 0.0)})


def _statue_garden() -> Garden:
    """Two tiles on level 1, a statue on one field of each."""
    return Garden(
        format="babylon-garden/1",
        board_flower="blue",
        tiles=[Tile(row=1, col=1, level=1, flower="pink"), Tile(row=4, col=4, level=1, flower="yellow")],
        decorations=[
            Decoration(kind="statue", cells=((1, 2),), level=1),
            Decoration(kind="statue", cells=((5, 4),), level=1),
        ],
    )


def _probabilities(photo, model) -> tuple[list[float], list[float]]:
    """The model's probability on the statues' fields and on the tiles' other fields, true camera."""
    cam = Camera.from_dict(photo.truth["camera"])
    gain = board_gain(photo.image, cam, REFERENCE)
    statues = [((1, 2), 1), ((5, 4), 1)]
    others = [((r, c), 1) for r, c in [(1, 1), (2, 1), (2, 2), (4, 4), (4, 5), (5, 5)]]
    p = statue_model.statue_probability(model, photo.image, cam, REFERENCE, gain, statues + others)
    return list(p[:2]), list(p[2:])


def test_the_shipped_model_tells_a_statue_from_the_fields_beside_it():
    photo = render_photo(_statue_garden(), 20_021, tilt_deg=12.0, **PLAIN)
    model = statue_model.model_for(REFERENCE)
    assert model is not None
    on, off = _probabilities(photo, model)
    assert min(on) >= decorations.LOOKS_SURE
    assert max(off) < 0.5


def test_the_model_is_only_asked_about_the_statue_it_learned():
    """Another edition's statue (the variant's purple resin) is the profile's to tell, not the model's."""
    assert statue_model.model_for(REFERENCE) is not None
    assert statue_model.model_for(VARIANT) is None


def test_a_model_round_trips_and_a_file_that_is_not_one_is_refused(tmp_path):
    model = statue_model.model_for(REFERENCE)
    path = tmp_path / "m.npz"
    model.save(path)
    again = statue_model.load(path)
    x = np.random.default_rng(0).normal(size=(5, len(model.mean))).astype(np.float32)
    assert np.allclose(again.probability(x), model.probability(x), atol=1e-6)
    assert again.statue_colour == model.statue_colour
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="not a statue model"):
        statue_model.load(bad)
    np.savez(tmp_path / "short.npz", mean=np.zeros(3), scale=np.ones(2), hidden_w=np.zeros((3, 4)),
             hidden_b=np.zeros(4), out_w=np.zeros(4), out_b=0.0, statue_colour=np.array("#B08D57"))
    with pytest.raises(ValueError, match="do not match"):
        statue_model.load(tmp_path / "short.npz")


def _evidence(score: float, visible: float = 1.0, hidden: bool = False) -> decorations.Evidence:
    c = decorations.Candidate("statue", ((3, 3),), (1,), (0.0, 0.0, 22.5), 0.0, hidden=hidden)
    return decorations.Evidence(c, score, visible)


def test_statues_seen_well_are_rescored_where_the_model_is_sure(monkeypatch):
    """A statue failing its colour test takes the model's probability as its score where the model is
    surely seeing a statue; one passing it, where the model surely is not; the rest keep their score,
    and statues seen little or on a hidden tile are not asked about."""
    asked = []

    def fake(model, image, cam, profile, gain, fields):
        asked.append(list(fields))
        return np.array([0.95, 0.6, 0.01, 0.3])

    monkeypatch.setattr(statue_model, "model_for", lambda profile: object())
    monkeypatch.setattr(statue_model, "statue_probability", fake)
    rescued, unsure, vetoed, kept = _evidence(0.3), _evidence(0.2), _evidence(0.8), _evidence(0.8)
    seen_little, on_hidden = _evidence(0.1, visible=0.3), _evidence(0.3, hidden=True)
    evidence = [rescued, unsure, seen_little, vetoed, on_hidden, kept]
    decorations._second_opinion(evidence, None, None, REFERENCE, None)
    assert len(asked) == 1 and len(asked[0]) == 4
    assert rescued.score == pytest.approx(0.95) and vetoed.score == pytest.approx(0.01)
    assert unsure.score == 0.2 and kept.score == 0.8
    assert seen_little.score == 0.1 and on_hidden.score == 0.3


def test_training_on_rendered_photos_learns_the_statue(tmp_path):
    """Two rendered photos with their truth: the patches are labelled from the truth garden (the statues'
    fields, and those alone, as statues), and the network fitted on them separates the two."""
    pytest.importorskip("sklearn")
    from vision.read import statue_train
    from vision.read.evaluate import photos_with_truth

    for i, seed in enumerate((20_022, 20_023)):
        photo = render_photo(_statue_garden(), seed, tilt_deg=8.0 + 8 * i, **PLAIN)
        save_photo(photo, tmp_path / f"p{i}.png")
    photos = photos_with_truth(tmp_path)
    assert [p.name for p in photos] == ["p0.png", "p1.png"]
    x, y = statue_train.truth_samples(photos[0], REFERENCE)
    # 8 fields seen from above, each cut once as it is and JITTER_COPIES times moved
    copies = 1 + statue_train.JITTER_COPIES
    assert len(y) == 8 * copies and y.sum() == 2 * copies
    # in the order of the fields (row, column): the statues stand on (1, 2) and (5, 4)
    fields = [(1, 1), (1, 2), (2, 1), (2, 2), (4, 4), (4, 5), (5, 4), (5, 5)]
    assert [f for i, f in enumerate(fields) if y[i * copies]] == [(1, 2), (5, 4)]
    model, counts = statue_train.train(photos, REFERENCE)
    assert counts == {"statue": 8, "other": 24}
    p = model.probability(x)
    assert p[y == 1].min() > p[y == 0].max()


def test_training_needs_truth_beside_each_photo(tmp_path):
    from vision.read import statue_train

    photo = tmp_path / "p.png"
    save_photo(render_photo(_statue_garden(), 20_025, **PLAIN), photo)
    photo.with_suffix(".json").write_text(json.dumps({"garden": {}}))
    with pytest.raises(ValueError, match="no truth with a camera"):
        statue_train.truth_samples(photo, REFERENCE)


def test_train_statues_renders_its_seeds_and_writes_a_model(tmp_path):
    pytest.importorskip("sklearn")
    from test_cli import babylon

    out = tmp_path / "statue.npz"
    r = babylon("train-statues", str(tmp_path / "photos"), "--seeds", "20030-20031", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "trained on 2 photo(s)" in r.stdout
    assert len(list((tmp_path / "photos").glob("*.json"))) == 2
    model = statue_model.load(out)
    assert model.statue_colour == REFERENCE.decoration.statue_colour


def test_train_statues_refuses_bad_arguments_with_exit_2(tmp_path):
    from test_cli import babylon

    (tmp_path / "empty").mkdir()
    for args in (
        [str(tmp_path / "empty"), "-o", str(tmp_path / "m.npz")],  # no photos with truth
        [str(tmp_path / "none"), "-o", str(tmp_path / "m.npz")],  # no such folder
        [str(tmp_path / "empty"), "--seeds", "9-3", "-o", str(tmp_path / "m.npz")],
        [str(tmp_path / "empty"), "-o", str(tmp_path / "nofolder" / "m.npz")],
    ):
        r = babylon("train-statues", *args)
        assert r.returncode == 2 and "Traceback" not in r.stderr and r.stderr.startswith("error:"), args
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]  # nothing written
