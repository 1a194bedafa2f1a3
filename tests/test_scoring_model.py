"""The garden model, its validation messages, the game's facts and the atomic file write, each
checked against values written out by hand from the spec (sections 2.3, 4.1 and 4.2)."""

from __future__ import annotations

import json
import os

import pytest
from builders import deco, garden, tile

from scoring import facts
from scoring.files import atomic_write
from scoring.garden import MAX_BYTES, GardenError, garden_from_dict, load, loads, save

BASE = {"format": "babylon-garden/1"}


def _error(data) -> str:
    with pytest.raises(GardenError) as info:
        garden_from_dict(data)
    return str(info.value)


# --- the facts of the box and the score pad (spec 2.3, 1.4) ------------------------------------


def test_the_box_holds_48_terrace_tiles_and_4_start_tiles():
    per_flower = sum(facts.MATERIAL_SUPPLY.values())
    assert per_flower * len(facts.FLOWERS) == 48
    assert facts.MATERIAL_SUPPLY == {2: 4, 3: 4, 4: 4}
    assert facts.MATERIAL_SYMBOLS == {"clay": 2, "granite": 3, "basalt": 4}
    assert facts.TILES_PER_FLOWER == 13
    assert facts.START_TILE_SYMBOLS == (1, 2)


def test_pieces_and_their_cells():
    assert facts.SYMBOLS == ("statue", "fountain", "bridge", "stairs")
    assert facts.DECORATION_KINDS == (*facts.SYMBOLS, "belvedere")
    assert facts.CELLS_PER_KIND == {"statue": 1, "fountain": 2, "bridge": 3, "stairs": 2, "belvedere": 1}
    assert facts.FLOWERS == ("white", "pink", "yellow", "blue")


def test_score_card_labels_state_the_points_table():
    assert facts.ROW_LABELS == {
        "statues": "Statues (1 x level)",
        "fountains": "Fountains (3 x level)",
        "bridges": "Bridges (3 x level)",
        "stairs": "Stairs (sum of levels)",
        "decoration_sets": "Decoration sets (4 each)",
        "flower_sets": "Flower sets (4 each)",
        "belvederes": "Belvederes (1 each)",
        "highest_level": "Highest level (2 x level)",
    }
    assert list(facts.ROW_LABELS) == list(facts.CATEGORIES)


# --- tiles and decorations ----------------------------------------------------------------------


def test_a_tile_knows_its_cells_and_symbols():
    t = tile(2, 3, 4, "blue", (("statue", None), (None, "bridge")))
    assert t.cells == ((2, 3), (2, 4), (3, 3), (3, 4))
    assert [t.covers(c) for c in [(2, 3), (3, 4), (1, 3), (4, 4), (2, 2), (2, 5)]] == [
        True, True, False, False, False, False]
    assert (t.symbol_at((2, 3)), t.symbol_at((3, 4)), t.symbol_at((2, 4)), t.symbol_at((3, 3))) == (
        "statue", "bridge", None, None)
    assert t.symbol_at((1, 3)) is None and t.symbol_at((4, 4)) is None  # not on the tile
    assert tile(2, 3, 4).symbol_at((2, 3)) is None  # symbols unknown
    assert str(t) == "blue tile at (2, 3) level 4"


def test_garden_lookups():
    low, high = tile(0, 0, 1), tile(1, 1, 2)
    g = garden([low, high])
    assert list(g.tiles_at((1, 1))) == [low, high]
    assert list(g.tiles_at((0, 0))) == [low]
    assert list(g.tiles_at((2, 2))) == [high]
    assert list(g.tiles_at((5, 5))) == []
    assert g.max_level == 2 and garden([]).max_level == 0


def test_decorations_describe_themselves():
    assert str(deco("stairs", [(1, 1), (1, 2)], (1, 2))) == "stairs on (1, 1), (1, 2) levels 1-2"
    assert str(deco("bridge", [(1, 1), (1, 2), (1, 3)], 2)) == "bridge on (1, 1), (1, 2), (1, 3) level 2"
    assert deco("fountain", [(0, 0), (0, 1)], 3).cell_levels == (((0, 0), 3), ((0, 1), 3))


# --- the JSON format (spec 4.1) -----------------------------------------------------------------


def test_to_dict_writes_the_spec_shape():
    t = tile(2, 3, 4, "blue", (("statue", None), (None, "bridge")))
    g = garden([t, tile(0, 0, 1, "white")], [deco("stairs", [(3, 4), (3, 5)], (4, 3))])
    assert g.to_dict() == {
        "format": "babylon-garden/1",
        "tiles": [
            {"row": 2, "col": 3, "level": 4, "flower": "blue",
             "symbols": [["statue", None], [None, "bridge"]]},
            {"row": 0, "col": 0, "level": 1, "flower": "white"},
        ],
        "decorations": [{"kind": "stairs", "cells": [[3, 4], [3, 5]], "levels": [4, 3]}],
    }
    with_board = g.model_copy(update={"board_flower": "yellow"})
    assert with_board.to_dict()["board_flower"] == "yellow"
    assert json.loads(g.to_json()) == g.to_dict()
    assert g.to_json().startswith('{\n  "format"')  # indented by 2 unless told
    assert "\n" not in g.to_json(None)


def test_messages_name_the_field_and_the_value():
    assert _error({**BASE, "tiles": [{"row": 0, "col": 7, "level": 1, "flower": "pink"}]}) == (
        "tiles[0].col: Input should be less than or equal to 6 (got 7)")
    assert _error({**BASE, "tiles": [{"row": 0, "col": 0, "level": 1}]}) == "tiles[0].flower: Field required"
    assert _error({**BASE, "tiles": [{"row": 0, "col": 7, "level": 0, "flower": "pink"}]}) == (
        "tiles[0].col: Input should be less than or equal to 6 (got 7) [+1 more problem(s)]")
    assert _error({**BASE, "board_flower": "green"}) == (
        "board_flower: Input should be 'white', 'pink', 'yellow' or 'blue' (got \"green\")")
    assert _error({**BASE, "tiles": {"a": 1}}) == "tiles: Input should be a valid tuple"
    long = _error({**BASE, "tiles": [{"row": 0, "col": 0, "level": 1, "flower": "x" * 200}]})
    assert long.endswith('(got "' + "x" * 79 + ")")
    assert _error(None) == "a garden is a JSON object, got NoneType"
    assert _error([1]) == "a garden is a JSON object, got list"
    assert _error({"format": None}) == "format: expected 'babylon-garden/1' (got null)"
    assert _error({"format": "babylon-garden/2"}) == (
        "format: expected 'babylon-garden/1' (got \"babylon-garden/2\")")
    assert _error({}) == "format: expected 'babylon-garden/1' (got null)"


@pytest.mark.parametrize(
    ("decoration", "expected"),
    [
        ({"kind": "stairs", "cells": [[0, 0], [0, 1]], "levels": [1, 13]},
         "decorations[0].levels: level 13 is outside 1..12 (got [1, 13])"),
        ({"kind": "stairs", "cells": [[0, 0], [0, 1]], "levels": [0, 1]},
         "decorations[0].levels: level 0 is outside 1..12 (got [0, 1])"),
        ({"kind": "stairs", "cells": [[0, 0], [0, 0]], "levels": [1, 2]},
         "decorations[0]: a stairs lists the same cell twice: [[0, 0], [0, 0]]"),
        ({"kind": "statue", "cells": [[0, 0]], "level": 1, "levels": [1, 2]},
         "decorations[0]: a statue gives 'level', not 'levels'"),
        ({"kind": "statue", "cells": [[0, 0]]}, "decorations[0]: a statue gives 'level', not 'levels'"),
        ({"kind": "stairs", "cells": [[0, 0], [0, 1]], "levels": [1, 2], "level": 1},
         "decorations[0]: stairs give 'levels' (one per cell), not 'level'"),
        ({"kind": "stairs", "cells": [[0, 0], [0, 1]]},
         "decorations[0]: stairs give 'levels' (one per cell), not 'level'"),
        ({"kind": "bridge", "cells": [[0, 0], [0, 1]], "level": 1},
         "decorations[0]: a bridge stands on 3 cell(s), got 2"),
        ({"kind": "statue", "cells": [[8, 0]], "level": 1},
         "decorations[0].cells: cell [8, 0] is outside the 8 x 8 building zone (rows and columns 0..7) "
         "(got [[8, 0]])"),
        ({"kind": "statue", "cells": [[0, -1]], "level": 1},
         "decorations[0].cells: cell [0, -1] is outside the 8 x 8 building zone (rows and columns 0..7) "
         "(got [[0, -1]])"),
    ],
)
def test_decoration_shapes_are_checked(decoration, expected):
    assert _error({**BASE, "decorations": [decoration]}) == expected


def test_the_edges_of_the_zone_and_the_levels_are_accepted():
    g = garden_from_dict({**BASE, "tiles": [{"row": 6, "col": 6, "level": 12, "flower": "pink"}],
                          "decorations": [{"kind": "stairs", "cells": [[7, 7], [7, 6]], "levels": [12, 1]},
                                          {"kind": "statue", "cells": [[0, 0]], "level": 1}]})
    assert g.decorations[0].levels == (12, 1) and g.tiles[0].cells[-1] == (7, 7)


# --- files --------------------------------------------------------------------------------------


def test_load_unwraps_only_a_garden_under_a_garden_key(tmp_path):
    p = tmp_path / "truth.json"
    inner = {**BASE, "tiles": [{"row": 1, "col": 1, "level": 1, "flower": "pink"}]}
    p.write_text(json.dumps({"garden": inner, "score": {}}))
    assert load(p).tiles[0].row == 1
    p.write_text(json.dumps({"garden": "not a garden"}))
    with pytest.raises(GardenError, match="format"):
        load(p)
    p.write_text(json.dumps({**inner, "garden": inner}))  # a garden file is read as it is
    with pytest.raises(GardenError, match="^garden: Extra inputs are not permitted"):
        load(p)


def test_sizes_at_the_limit(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_BYTES + 1))
    with pytest.raises(GardenError, match="far too big"):
        load(big)
    with pytest.raises(GardenError, match="far too big"):
        loads(b" " * (MAX_BYTES + 1))
    # exactly at the limit it is parsed (and found not to be JSON)
    with pytest.raises(GardenError, match="not valid JSON"):
        loads(b" " * MAX_BYTES)
    big.write_bytes(b" " * MAX_BYTES)
    with pytest.raises(GardenError, match="not valid JSON"):
        load(big)


def test_read_errors_in_one_line(tmp_path):
    with pytest.raises(GardenError) as info:
        load(tmp_path / "nope.json")
    assert str(info.value) == "cannot read: No such file or directory"
    with pytest.raises(GardenError) as info:
        loads("[" * 100_000 + "]" * 100_000)
    assert str(info.value) == "not valid JSON: nested too deeply"
    with pytest.raises(GardenError) as info:
        loads("{tiles")
    assert str(info.value).startswith("not valid JSON: Expecting property name enclosed in double quotes")


def test_save_writes_the_json_and_a_final_newline(tmp_path):
    g = garden([tile(0, 0, 1)])
    save(g, tmp_path / "g.json")
    assert (tmp_path / "g.json").read_text() == g.to_json() + "\n"


def test_atomic_write_replaces_the_file_instead_of_writing_into_it(tmp_path):
    target = tmp_path / "out.json"
    target.write_bytes(b"old")
    reader = tmp_path / "old-link"
    os.link(target, reader)  # a second name for the old file, like a reader holding it open
    atomic_write(target, b"new")
    assert target.read_bytes() == b"new"
    assert reader.read_bytes() == b"old"  # written in place, the old file would have changed too
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old-link", "out.json"]

