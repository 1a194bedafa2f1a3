"""One garden per legality rule that breaks exactly that rule, and legal gardens that break none."""

from __future__ import annotations

import pytest
from builders import TOWER, deco, garden, tile

from scoring.rules import RULES, check, is_legal


def rules_broken(g) -> set[str]:
    return {f.rule for f in check(g)}


S = "statue"
CASES = {
    "tile-overlap": garden([tile(0, 0, 1), tile(1, 1, 1)]),
    # double pillars on the level-1 tile could carry it, but there is no level 2 at all
    "level-gap": garden([tile(0, 0, 1), tile(0, 0, 3)]),
    "full-overlap": garden([tile(0, 0, 1), tile(2, 0, 1), tile(0, 0, 2)]),
    # level 3 over the board at two fields: surface three levels down can't be reached
    "unsupported": garden([tile(0, 0, 1), tile(0, 1, 2), tile(0, 2, 3)]),
    # the level-3 tile at (1,2) reaches levels 2, 1, 2 below three fields, the board (too far)
    # below (2,3): three supports, so a belvedere belongs on (2,3)
    "missing-belvedere": garden(
        [tile(0, 0, 1), tile(0, 2, 1), tile(2, 0, 1), tile(1, 1, 2), tile(1, 2, 3)]
    ),
    "extra-belvedere": garden(
        [tile(0, 0, 1)], [deco("belvedere", [(0, 0)], 1), deco("belvedere", [(1, 1)], 1)]
    ),
    "off-tile": garden([tile(0, 0, 1)], [deco(S, [(0, 0)], 2)]),
    "fountain-geometry": garden([tile(0, 0, 1)], [deco("fountain", [(0, 0), (0, 1)], 1)]),
    "bridge-geometry": garden([tile(0, 0, 1), tile(0, 2, 1)], [deco("bridge", [(0, 1), (0, 2), (0, 3)], 1)]),
    "stairs-geometry": garden([tile(0, 0, 1), tile(0, 2, 1)], [deco("stairs", [(0, 1), (0, 2)], (1, 1))]),
    "statue-line": garden([tile(0, 0, 1), tile(2, 2, 1)], [deco(S, [(0, 0)], 1), deco(S, [(3, 3)], 1)]),
    # stairs (1,1) L1 -> (1,2) L2; the L2 tile at (0,0) would rest on the stairs' top at (1,1)
    "stairs-blocked": garden(
        [tile(1, 0, 1), tile(1, 2, 2), tile(0, 0, 2)],
        [deco("stairs", [(1, 1), (1, 2)], (1, 2)), deco("belvedere", [(1, 1)], 2)],
    ),
    "tile-supply": garden(
        [tile(2 * (i // 4), 2 * (i % 4), 1 + (i >= 16), "blue", (("statue",) * 2, (None, None)))
         for i in range(6)]
    ),
    "field-occupied": garden([tile(0, 0, 1)], [deco(S, [(0, 0)], 1), deco("belvedere", [(0, 0)], 1)]),
}


def test_every_rule_has_a_breaking_case():
    assert set(CASES) | {"symbol-mismatch"} == set(RULES)


@pytest.mark.parametrize("rule", sorted(CASES))
def test_garden_breaks_exactly_its_rule(rule):
    g = CASES[rule]
    findings = check(g)
    assert {f.rule for f in findings} == {rule}, [f.message for f in findings]
    assert all(f.severity == "error" for f in findings)
    assert not is_legal(g)
    assert all(f.cells and f.message for f in findings)


def test_findings_name_the_cells():
    (f,) = check(CASES["missing-belvedere"])
    # the level-3 tile at (1,2): (2,3) stands over the board, three levels down
    assert f.cells == ((2, 3),)
    assert "belvedere" in f.message
    (f,) = check(CASES["off-tile"])
    assert f.cells == ((0, 0),)


def test_unsupported_lists_every_unreachable_field():
    (f,) = check(CASES["unsupported"])
    assert f.cells == ((0, 3), (1, 3))


def test_symbol_mismatch_is_only_a_warning():
    t = tile(0, 0, 1, symbols=(("fountain", None), (None, "statue")))
    ok = garden([t], [deco(S, [(1, 1)], 1)])
    assert check(ok) == []
    odd = garden([t], [deco(S, [(0, 0)], 1)])
    (f,) = check(odd)
    assert (f.rule, f.severity, f.cells) == ("symbol-mismatch", "warning", ((0, 0),))
    assert is_legal(odd)


def test_belvedere_on_the_unsupported_field_makes_the_tile_legal():
    g = CASES["missing-belvedere"]
    fixed = garden(list(g.tiles), [deco("belvedere", [(2, 3)], 3)])
    assert check(fixed) == []


def test_belvedere_elsewhere_does_not_excuse_the_unsupported_field():
    g = CASES["missing-belvedere"]
    wrong = garden(list(g.tiles), [deco("belvedere", [(1, 2)], 3)])
    assert rules_broken(wrong) == {"missing-belvedere"}


def test_consecutive_levels_may_overlap_partly_and_two_apart_fully():
    assert check(garden(TOWER)) == []


def test_a_statue_can_carry_a_tile_but_other_pieces_cannot():
    tiles = [tile(0, 0, 1), tile(2, 0, 1), tile(1, 0, 2)]
    assert check(garden(tiles, [deco(S, [(1, 0)], 1)])) == []
    blocked = garden(tiles, [deco("fountain", [(1, 0), (2, 0)], 1)])
    # both fields of the L2 tile's left column hold the fountain: two unsupported fields
    assert rules_broken(blocked) == {"unsupported"}


def test_a_piece_under_the_gap_blocks_a_double_pillar():
    # the bridge deck spans (1,2) at level 1; an L2 tile there can't put a double pillar through it
    tiles = [tile(0, 0, 1), tile(0, 3, 1), tile(1, 2, 2)]
    g = garden(tiles, [deco("bridge", [(1, 1), (1, 2), (1, 3)], 1)])
    assert rules_broken(g) == {"unsupported"}


def test_bridge_middle_cell_must_be_a_gap_at_its_level():
    g = garden([tile(0, 0, 1), tile(0, 2, 1), tile(0, 4, 1)], [deco("bridge", [(1, 1), (1, 2), (1, 3)], 1)])
    assert "bridge-geometry" in rules_broken(g)


def test_statues_must_form_one_linked_group():
    # each statue shares a line with another, but the pair at row 0 and the pair at row 5 never
    # meet: whichever pair came second was not placed in line with an earlier statue
    tiles = [tile(0, 0, 1), tile(0, 2, 1), tile(4, 4, 1), tile(4, 6, 1)]
    decos = [deco(S, [(0, 0)], 1), deco(S, [(0, 3)], 1), deco(S, [(5, 5)], 1), deco(S, [(5, 6)], 1)]
    findings = check(garden(tiles, decos))
    assert [f.rule for f in findings] == ["statue-line"]
    assert findings[0].cells in (((0, 0), (0, 3)), ((5, 5), (5, 6)))
    bridged = decos + [deco(S, [(5, 0)], 1)]  # column 0 meets (0,0), row 5 meets (5,5)
    assert check(garden(tiles + [tile(4, 0, 1)], bridged)) == []


def test_tile_supply_counts_flowers_and_symbol_fields():
    blues = [tile(2 * (i // 4), 2 * (i % 4), 1, "blue") for i in range(16)]
    (f,) = check(garden(blues))  # 16 blue tiles: the game has 13
    assert f.rule == "tile-supply" and "16 blue" in f.message
    mixed = [t.model_copy(update={"flower": ("blue", "pink")[i % 2]}) for i, t in enumerate(blues)]
    assert check(garden(mixed)) == []


def test_statues_in_line_at_any_level_and_distance():
    tiles = TOWER + [tile(6, 0, 1)]
    g = garden(tiles, [deco(S, [(0, 0)], 3), deco(S, [(7, 0)], 1)])
    assert check(g) == []


def test_findings_serialise_to_the_cli_shape():
    (f,) = check(CASES["off-tile"])
    assert f.to_dict() == {
        "rule": "off-tile", "severity": "error", "cells": [[0, 0]], "message": f.message,
    }
