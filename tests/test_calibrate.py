"""Calibration from labelled photos (vision.calibrate, `babylon calibrate`) and the labels the web
page saves for it (POST /v1/labels). The photos are small renders of the variant edition."""

from __future__ import annotations

import json
import shutil

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from test_cli import babylon

from vision.calibrate import (
    CalibrationError,
    calibrate,
    free_points,
    labelled_photos,
    pooled_colours,
    sample_photo,
)
from vision.profile import REFERENCE, VARIANT
from vision.read.decorations import PlacedTile, Surfaces
from vision.read.flowers import flower_lab
from vision.read.load import load_photo
from vision.read.reading import read_photo
from vision.render.synth import synth_photo

RICH, SMALL = 700000, 700001  #: variant gardens: 12 tiles of the four flowers, no belvedere; 4 tiles


@pytest.fixture(scope="session")
def variant_photos(tmp_path_factory):
    """Two photos of the variant edition, 1600 x 1200, with their truth (whose garden is the label)."""
    folder = tmp_path_factory.mktemp("variant")
    return {seed: synth_photo(seed, folder, "jpeg", profile=VARIANT, size=(1600, 1200))
            for seed in (RICH, SMALL)}


def _labelled(folder, photo, label_of, edit=None):
    """``photo`` copied into ``folder`` with the garden of ``label_of``'s truth beside it (``edit``ed)."""
    folder.mkdir(exist_ok=True)
    shutil.copy(photo, folder / photo.name)
    garden = json.loads(label_of.with_suffix(".json").read_text())["garden"]
    if edit:
        edit(garden)
    (folder / photo.with_suffix(".json").name).write_text(json.dumps(garden))  # the garden at the top level
    return folder / photo.name


def test_labels_are_read_at_the_top_level_or_under_garden(tmp_path, variant_photos):
    _labelled(tmp_path, variant_photos[RICH], variant_photos[RICH])
    shutil.copy(variant_photos[SMALL], tmp_path)
    shutil.copy(variant_photos[SMALL].with_suffix(".json"), tmp_path)  # a truth file: {"garden": ...}
    found = labelled_photos(tmp_path)
    assert [len(x.garden.tiles) for x in found] == [12, 4]


def test_a_label_of_another_garden_is_refused_naming_the_photo(tmp_path, variant_photos):
    photo = _labelled(tmp_path / "set", variant_photos[RICH], variant_photos[SMALL])
    with pytest.raises(CalibrationError, match=rf"^{photo.name}: the label does not match the photo"):
        calibrate(tmp_path / "set")


def test_a_tile_labelled_with_the_wrong_flower_is_refused(tmp_path, variant_photos):
    def yellow_as_white(garden):
        tile = next(t for t in garden["tiles"] if t["flower"] == "yellow")
        tile["flower"] = "white"

    photo = _labelled(tmp_path / "set", variant_photos[RICH], variant_photos[RICH], yellow_as_white)
    wrong = rf"^{photo.name}: the white tile at .* looks yellow, not white"
    with pytest.raises(CalibrationError, match=wrong):
        calibrate(tmp_path / "set")


def test_too_few_examples_of_a_flower_or_a_kind_are_refused(tmp_path, variant_photos):
    _labelled(tmp_path / "set", variant_photos[RICH], variant_photos[RICH])  # one photo, no belvedere
    too_few = r"^too few (\w+ tiles|belvederes): .*\((flower|decoration) \w+\)$"
    with pytest.raises(CalibrationError, match=too_few):
        calibrate(tmp_path / "set")


def test_the_sampled_flower_colours_are_the_editions(variant_photos):
    """White-balanced as the reader does it (on the board's print), the bands sampled where the label
    says they are show the variant's flower inks: each nearest its own ink of the variant's four, and
    of its hue rather than the reference edition's (a band 3 mm wide is seen a little washed out)."""
    (lab,) = labelled_photos(variant_photos[RICH].parent)[:1]
    photo = load_photo(lab.photo)
    samples = sample_photo(lab, read_photo(photo), photo, VARIANT)
    _, colours, counts = pooled_colours([samples])
    board = np.array([int(VARIANT.board.colour[i:i + 2], 16) for i in (5, 3, 1)]) / 255.0
    inks, ref_inks = flower_lab(VARIANT), flower_lab(REFERENCE)

    def hue_gap(a: np.ndarray, b: np.ndarray) -> float:
        return abs(float(np.angle(complex(a[1], a[2]) / complex(b[1], b[2]))))

    for flower in VARIANT.flowers:
        assert counts[f"flower-{flower}"] >= 1
        ratio = np.median([r for _, f, r in samples.bands if f == flower], axis=0)
        got = cv2.cvtColor(np.clip(ratio * board, 0, 1).astype(np.float32).reshape(1, 1, 3),
                           cv2.COLOR_BGR2Lab).reshape(3)
        nearest = min(inks, key=lambda k: np.linalg.norm((got - inks[k])[1:]))
        assert nearest == flower, (flower, got, nearest)
        if flower != "white":  # the whites have hardly any hue
            assert hue_gap(got, inks[flower]) < hue_gap(got, ref_inks[flower]), (flower, got)
    assert set(colours) >= {"garden", "plaque", "path", "cell", "icon"}


def test_calibrate_command_refuses_bad_labels_without_writing_a_profile(tmp_path, variant_photos):
    photo = _labelled(tmp_path / "set", variant_photos[RICH], variant_photos[SMALL])
    out = tmp_path / "copy.profile"
    r = babylon("calibrate", str(tmp_path / "set"), "-o", str(out))
    assert r.returncode == 2, r.stderr
    assert photo.name in r.stderr and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not out.exists() and not list(tmp_path.glob(".copy.profile*"))


def test_calibrate_command_refuses_a_folder_without_labels(tmp_path):
    r = babylon("calibrate", str(tmp_path), "-o", str(tmp_path / "x.profile"))
    assert r.returncode == 2 and "no photos with a garden JSON" in r.stderr


# ------------------------------------------------------------------------------------ labels (web)


def _client(tmp_path, labels_dir):
    from service.api.app import create_app
    from service.api.settings import Settings

    return TestClient(create_app(Settings(labels_dir=labels_dir), reader=lambda photo: None))


def _png() -> bytes:
    return cv2.imencode(".png", np.full((80, 120, 3), 200, np.uint8))[1].tobytes()


def test_the_page_saves_a_photo_with_its_corrected_garden_as_a_label(tmp_path, variant_photos):
    client = _client(tmp_path, tmp_path / "labels")
    assert client.get("/v1/labels").json() == {"enabled": True, "count": 0}
    garden = json.loads(variant_photos[SMALL].with_suffix(".json").read_text())["garden"]
    data = variant_photos[SMALL].read_bytes()
    r = client.post("/v1/labels", files={"photo": ("../../evil name.jpg", data, "image/jpeg")},
                    data={"garden": json.dumps(garden)})
    assert r.status_code == 200, r.text
    stem = r.json()["saved"]
    assert "/" not in stem and ".." not in stem and stem.startswith("evil_name-")
    saved = sorted(p.name for p in (tmp_path / "labels").iterdir())
    assert saved == [f"{stem}.jpeg", f"{stem}.json"]
    assert (tmp_path / "labels" / f"{stem}.jpeg").read_bytes() == data
    (found,) = labelled_photos(tmp_path / "labels")
    assert len(found.garden.tiles) == 4 and client.get("/v1/labels").json()["count"] == 1


def test_labels_are_refused_when_off_or_malformed(tmp_path):
    off = _client(tmp_path, None)
    assert off.get("/v1/labels").json() == {"enabled": False, "count": 0}
    r = off.post("/v1/labels", files={"photo": ("a.png", _png(), "image/png")}, data={"garden": "{}"})
    assert r.status_code == 404
    on = _client(tmp_path, tmp_path / "labels")
    r = on.post("/v1/labels", files={"photo": ("a.png", _png(), "image/png")},
                data={"garden": '{"tiles": 3}'})
    assert r.status_code == 422 and "\n" not in r.json()["detail"]
    r = on.post("/v1/labels", files={"photo": ("a.png", b"not an image", "image/png")},
                data={"garden": json.dumps({"format": "babylon-garden/1", "tiles": [], "decorations": []})})
    assert r.status_code == 415
    assert not (tmp_path / "labels").exists() or not list((tmp_path / "labels").iterdir())


def test_a_tile_reaching_past_the_grid_is_sampled_on_the_board_only():
    """A tile on the last row and column placed a little outwards (by hand): its band's points past the
    grid lie over no cell, and are left out, not looked up off the board (a third edition's calibration
    photo once ended in an IndexError there); points over a cell with a piece are left out too."""
    surf = Surfaces([PlacedTile(6, 6, 1, (2.0, 2.0, 0.0), "pink")], REFERENCE)
    o, pitch = REFERENCE.board.grid_origin, REFERENCE.board.pitch
    edge = o[0] + 8 * pitch  # the grid's far edge, x and y alike (a square grid)
    pts = np.array([[edge + 1.0, edge - 10.0, 22.5],  # past the last column
                    [edge - 10.0, edge + 1.5, 22.5],  # past the last row
                    [edge - 10.0, edge - 10.0, 22.5],  # over cell (7, 7), seen
                    [edge - 40.0, edge - 40.0, 22.5]])  # over cell (6, 6), a statue on it
    assert free_points(surf, pts, 1, {(6, 6)}).tolist() == [False, False, True, False]
    assert free_points(surf, pts, 1, set()).tolist() == [False, False, True, True]
