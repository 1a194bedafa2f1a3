"""Loading, validating and saving babylon-garden/1."""

from __future__ import annotations

import json

import pytest
from builders import TOWER, deco, garden

from scoring.garden import Garden, GardenError, garden_from_dict, load, loads, save

SPEC_EXAMPLE = {
    "format": "babylon-garden/1",
    "board_flower": "pink",
    "tiles": [{"row": 2, "col": 3, "level": 1, "flower": "white",
               "symbols": [["statue", None], [None, "fountain"]]}],
    "decorations": [
        {"kind": "statue", "cells": [[2, 3]], "level": 1},
        {"kind": "fountain", "cells": [[2, 4], [2, 5]], "level": 1},
        {"kind": "bridge", "cells": [[4, 1], [4, 2], [4, 3]], "level": 2},
        {"kind": "stairs", "cells": [[3, 4], [3, 5]], "levels": [1, 2]},
        {"kind": "belvedere", "cells": [[2, 4]], "level": 1},
    ],
}


def test_spec_example_loads_and_round_trips():
    g = garden_from_dict(SPEC_EXAMPLE)
    assert g.tiles[0].symbol_at((2, 3)) == "statue"
    assert g.tiles[0].symbol_at((3, 4)) == "fountain"
    assert g.decorations[3].cell_levels == (((3, 4), 1), ((3, 5), 2))
    assert g.to_dict() == SPEC_EXAMPLE
    assert loads(g.to_json()) == g


def test_symbols_and_board_flower_are_optional():
    g = garden_from_dict({"format": "babylon-garden/1", "tiles": [
        {"row": 0, "col": 0, "level": 1, "flower": "blue"}]})
    assert g.board_flower is None and g.tiles[0].symbols is None
    assert "symbols" not in g.to_dict()["tiles"][0] and "board_flower" not in g.to_dict()


def _with(**change) -> dict:
    data = json.loads(json.dumps(SPEC_EXAMPLE))
    for path, value in change.items():
        *head, last = path.split("__")
        node = data
        for p in head:
            node = node[int(p)] if p.isdigit() else node[p]
        node[int(last) if last.isdigit() else last] = value
    return data


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (_with(tiles__0__col=7), "tiles[0].col"),
        (_with(tiles__0__row=-1), "tiles[0].row"),
        (_with(tiles__0__level=0), "tiles[0].level"),
        (_with(tiles__0__flower="rose"), "rose"),
        (_with(tiles__0__symbols=[["tree", None], [None, None]]), "tree"),
        (_with(decorations__0__kind="tower"), "tower"),
        (_with(decorations__3__cells=[[3, 4]]), "stairs stands on 2 cell(s), got 1"),
        (_with(decorations__0__cells=[[2, 8]]), "[2, 8]"),
        (_with(decorations__3__level=1), "stairs give 'levels'"),
        (_with(format="babylon-garden/2"), "format"),
        (_with(tiles__0__levle=2), "levle"),
        ([1, 2], "JSON object"),
    ],
)
def test_malformed_gardens_name_the_field_and_value(data, expected):
    with pytest.raises(GardenError) as info:
        garden_from_dict(data)
    assert expected in str(info.value)


def test_not_json_is_a_garden_error():
    with pytest.raises(GardenError, match="not valid JSON"):
        loads("{tiles: [")


def test_load_accepts_a_truth_file_wrapping_the_garden(tmp_path):
    p = tmp_path / "truth.json"
    p.write_text(json.dumps({"garden": SPEC_EXAMPLE, "score": {}}))
    assert load(p) == garden_from_dict(SPEC_EXAMPLE)


def test_missing_file_is_a_garden_error(tmp_path):
    with pytest.raises(GardenError, match="cannot read"):
        load(tmp_path / "nope.json")


def test_save_is_atomic_and_loadable(tmp_path):
    g = garden(TOWER, [deco("statue", [(0, 0)], 3)])
    p = tmp_path / "g.json"
    save(g, p)
    assert load(p) == g
    assert [x.name for x in tmp_path.iterdir()] == ["g.json"]


def test_models_are_immutable():
    g = Garden()
    with pytest.raises(Exception):  # noqa: B017 - pydantic's frozen error type varies
        g.tiles = ()


def test_hostile_input_is_a_clear_error(tmp_path):
    with pytest.raises(GardenError, match="nested too deeply"):
        loads("[" * 100_000 + "]" * 100_000)
    with pytest.raises(GardenError, match="too big"):
        loads(" " * (6 * 2**20))
    with pytest.raises(GardenError, match="cannot read"):
        load(tmp_path)  # a folder
    with pytest.raises(GardenError, match="not valid JSON"):
        loads(b"\xff\xfe garbage")
