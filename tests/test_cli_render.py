"""`babylon render` and `babylon synth` as a user runs them."""

from __future__ import annotations

import json

import cv2
from builders import TOWER, deco, garden
from test_cli import babylon

from scoring.garden import load, save
from scoring.generate import generate_garden
from scoring.score import score_garden


def test_render_writes_photo_and_truth(tmp_path):
    g = garden(TOWER, [deco("statue", [(0, 0)], 3)])
    save(g, tmp_path / "g.json")
    photo = tmp_path / "photo.png"
    r = babylon("render", str(tmp_path / "g.json"), "-o", str(photo), "--seed", "4", "--size", "640x480")
    assert r.returncode == 0, r.stderr
    img = cv2.imread(str(photo))
    assert img.shape == (480, 640, 3)
    truth = json.loads(photo.with_suffix(".json").read_text())
    shown = load(photo.with_suffix(".json"))
    # the photo had to show some board flower and some symbols; the truth says which
    assert shown.board_flower is not None and all(t.symbols is not None for t in shown.tiles)
    assert [t.model_copy(update={"symbols": None}) for t in shown.tiles] == list(g.tiles)
    assert shown.decorations == g.decorations
    assert truth["score"] == score_garden(g).to_dict()
    assert truth["seed"] == 4 and truth["camera"]["image_size"] == [640, 480]


def test_synth_makes_reproducible_resumable_batches(tmp_path):
    out = tmp_path / "batch"
    args = ("synth", "2", "--out", str(out), "--seed", "7", "--size", "320x240", "--format", "jpg")
    r = babylon(*args)
    assert r.returncode == 0, r.stderr
    images = sorted(out.glob("*.jpg"))
    assert [p.stem for p in images] == ["synth_00000007", "synth_00000008"]
    assert load(images[0].with_suffix(".json")) == generate_garden(7)
    first = images[0].read_bytes()
    images[1].with_suffix(".json").unlink()  # an interrupted run: the second truth is missing
    r = babylon(*args)
    assert "1 photo(s)" in r.stdout and "1 already there" in r.stdout
    assert images[0].read_bytes() == first and images[1].exists()


def test_render_rejects_bad_arguments_with_exit_2(tmp_path):
    save(garden(TOWER), tmp_path / "g.json")
    for args in (["-o", str(tmp_path / "x.gif")], ["-o", str(tmp_path / "x.jpg"), "--size", "big"],
                 ["-o", str(tmp_path / "x.jpg"), "--size", "64x4000"],
                 ["-o", str(tmp_path / "nofolder" / "x.jpg")]):
        r = babylon("render", str(tmp_path / "g.json"), *args)
        assert r.returncode == 2 and "Traceback" not in r.stderr and r.stderr.startswith("error:")
    assert list(tmp_path.iterdir()) == [tmp_path / "g.json"]  # nothing half-written


def test_synth_writes_the_format_drawn_with_each_photo(tmp_path):
    from vision.render.conditions import sample_conditions

    r = babylon("synth", "3", "--out", str(tmp_path), "--seed", "20", "--size", "320x240")
    assert r.returncode == 0, r.stderr
    for seed in (20, 21, 22):
        cond = sample_conditions(seed)
        suffix = {"jpeg": ".jpg", "heic": ".heic", "png": ".png", "webp": ".webp"}[cond.image_format]
        truth = json.loads((tmp_path / f"synth_{seed:08d}.json").read_text())
        assert (tmp_path / f"synth_{seed:08d}{suffix}").exists()
        assert truth["photo"]["image_format"] == cond.image_format
