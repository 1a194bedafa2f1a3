"""Profile files (vision.profile_io), the variant edition, and --profile on the command line."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from test_cli import babylon

from vision.profile import BUILT_IN, REFERENCE, VARIANT
from vision.profile_io import (
    FORMAT,
    ProfileError,
    load_profile,
    profile_from_dict,
    resolve_profile,
    save_profile,
)
from vision.render.textures import _Canvas, draw_icon

SAMPLES = Path(__file__).resolve().parent.parent / "sample_images"
SAMPLE = str(SAMPLES / "15-one-tile.jpg")


@pytest.mark.parametrize("profile", [REFERENCE, VARIANT])
def test_a_profile_survives_a_round_trip_through_its_file(tmp_path, profile):
    path = tmp_path / "copy.profile"
    save_profile(profile, path, notes="a test")
    assert load_profile(path) == profile
    doc = json.loads(path.read_text())
    assert doc["format"] == FORMAT and doc["notes"] == "a test"


def test_a_partial_profile_keeps_the_rest_of_its_base():
    flowers = {"white": "#FFFFFF", "pink": "#FF00FF", "yellow": "#FF9900", "blue": "#6600CC"}
    p = profile_from_dict({"format": FORMAT, "name": "mine", "tile": {"plaque_colour": "#EEEEEE"},
                           "flowers": flowers})
    assert p.flowers["pink"] == "#FF00FF" and p.tile.plaque_colour == "#EEEEEE"
    assert p.tile.size == REFERENCE.tile.size and p.board == REFERENCE.board
    assert profile_from_dict({"format": FORMAT, "based_on": "variant"}).board == VARIANT.board


@pytest.mark.parametrize(("doc", "field"), [
    ({"format": "babylon-profile/9"}, "format"),
    ({"format": FORMAT, "board": {"colour": "tan"}}, "board.colour"),
    ({"format": FORMAT, "tile": {"size": "big"}}, "tile.size"),
    ({"format": FORMAT, "tile": {"size": -1}}, "tile.size"),
    ({"format": FORMAT, "pillar": {"shine": 1}}, "pillar.shine"),
    ({"format": FORMAT, "flowers": {"white": "#FFFFFF"}}, "flowers"),
    ({"format": FORMAT,
      "flowers": {"white": "#FFFFFF", "pink": "#FF00FF", "yellow": "#FF9900", "blue": "blue"}},
     "flowers.blue"),
    ({"format": FORMAT, "decoration": {"statue_base": [12.0]}}, "decoration.statue_base"),
    ({"format": FORMAT, "based_on": "deluxe"}, "based_on"),
    ({"format": FORMAT, "level_height": 0}, "level_height"),
    ({"format": FORMAT, "tiles": {}}, "tiles"),
])
def test_a_malformed_profile_is_refused_naming_the_field(tmp_path, doc, field):
    path = tmp_path / "bad.profile"
    path.write_text(json.dumps(doc))
    with pytest.raises(ProfileError) as e:
        load_profile(path)
    msg = str(e.value)
    assert "\n" not in msg and str(path) in msg and f"{field}:" in msg


def test_a_profile_that_is_not_json_is_refused(tmp_path):
    path = tmp_path / "bad.profile"
    path.write_text("{nope")
    with pytest.raises(ProfileError, match="not JSON"):
        load_profile(path)
    with pytest.raises(ProfileError, match="cannot read"):
        load_profile(tmp_path / "missing.profile")


def test_built_in_profiles_by_name():
    assert resolve_profile(None) is REFERENCE
    assert resolve_profile("variant") is VARIANT
    assert set(BUILT_IN) == {"reference", "variant"}


def _colours(model) -> dict[str, str]:
    return {f.name: getattr(model, f.name) for f in dataclasses.fields(model)
            if f.name.endswith("colour") and f.name not in ("recess_colour",)}


def test_the_variant_edition_differs_from_the_reference_in_every_look():
    for sec in ("board", "tile", "pillar", "decoration", "card"):
        ref, var = _colours(getattr(REFERENCE, sec)), _colours(getattr(VARIANT, sec))
        same = [k for k in ref if ref[k] == var[k]]
        assert not same, f"{sec}: {same}"
    assert all(REFERENCE.flowers[f] != VARIANT.flowers[f] for f in REFERENCE.flowers)
    assert VARIANT.tile.icon_style != REFERENCE.tile.icon_style
    assert dataclasses.replace(VARIANT.board, colour=REFERENCE.board.colour, frame_colour="", cell_colour="",
                               gap_colour="", hole_colour="", edge_colour="", emblem_colour="",
                               emblem_centre_colour="", recess_colour="") == dataclasses.replace(
        REFERENCE.board, frame_colour="", cell_colour="", gap_colour="", hole_colour="", edge_colour="",
        emblem_colour="", emblem_centre_colour="", recess_colour="")  # the geometry is the spec's


@pytest.mark.parametrize("kind", ["statue", "fountain", "bridge", "stairs"])
def test_the_variant_icons_are_other_drawings_the_reader_still_tells_apart(kind):
    import cv2

    from vision.read.symbols import CROP_PPM, classify_icon, icon_shape

    def ink(variant: int) -> np.ndarray:
        cv = _Canvas(24.0, 24.0, CROP_PPM * 4, "#FFFFFF")
        draw_icon(cv, kind, 12.0, 12.0, REFERENCE.tile.icon_box, "#000000", 0, variant)
        grey = cv2.resize(cv2.cvtColor(cv.img, cv2.COLOR_BGR2GRAY), (48, 48), interpolation=cv2.INTER_AREA)
        return grey < 128

    for v in range(4):
        ref, var = ink(v), ink(v + 4)
        assert (ref != var).mean() > 0.02  # another drawing
        assert classify_icon(icon_shape(var))[0] == kind


def test_profile_option_refuses_a_bad_profile_with_one_line(tmp_path):
    bad = tmp_path / "bad.profile"
    bad.write_text(json.dumps({"format": FORMAT, "board": {"colour": "#12"}}))
    for cmd in (["read", SAMPLE], ["score", SAMPLE], ["eval", str(SAMPLES)], ["batch", SAMPLE], ["serve"],
                ["synth", "1", "--out", str(tmp_path / "out")]):
        r = babylon(*cmd, "--profile", str(bad))
        assert r.returncode == 2, (cmd, r.stderr)
        assert "board.colour" in r.stderr and "Traceback" not in r.stderr


def test_read_and_score_take_a_profile(tmp_path):
    path = tmp_path / "ref.profile"
    save_profile(REFERENCE, path)
    plain = babylon("read", SAMPLE, "--json")
    with_file = babylon("read", SAMPLE, "--json", "--profile", str(path))
    assert plain.returncode == 0 and with_file.returncode == 0, with_file.stderr
    assert json.loads(plain.stdout)["garden"] == json.loads(with_file.stdout)["garden"]
    r = babylon("score", SAMPLE, "--json", "--profile", "reference")
    assert r.returncode == 0 and "score" in json.loads(r.stdout)


def test_the_service_settings_carry_the_profile_and_the_labels_folder(tmp_path):
    from service.api.settings import Settings

    s = Settings(profile="variant", labels_dir=tmp_path / "labels")
    assert Settings.from_env(s.to_env()) == s
    assert Settings.from_env({}).profile is None and Settings.from_env({}).labels_dir is None


def test_synth_renders_the_variant_edition(tmp_path):
    import cv2

    for name in ("reference", "variant"):
        r = babylon("synth", "1", "--out", str(tmp_path / name), "--seed", "700001", "--size", "640x480",
                    "--format", "png", "--profile", name)
        assert r.returncode == 0, r.stderr
    ref, var = (cv2.imread(str(tmp_path / n / "synth_00700001.png")).astype(float)
                for n in ("reference", "variant"))
    assert ref.shape == var.shape and np.abs(ref - var).mean() > 3.0  # same scene, other inks
