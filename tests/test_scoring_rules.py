"""Each legality rule (spec 1.1-1.3) at its edges: the garden that just passes and the one that just
fails, with the finding's cells and message written out by hand."""

from __future__ import annotations

import pytest
from builders import TOWER, deco, garden, tile

from scoring.garden import Garden
from scoring.rules import RULES, Finding, check, in_line, is_legal, statue_groups
from scoring.support import GardenIndex, field_support

S = "statue"


def found(g: Garden) -> list[tuple[str, tuple, str]]:
    return [(f.rule, f.cells, f.message) for f in check(g)]


def rules(g: Garden) -> list[str]:
    return [f.rule for f in check(g)]


# --- how a field is carried (spec 1.1) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "surface", "blockers", "kind"),
    [
        (1, 0, (), "single"), (3, 2, (), "single"),
        (2, 0, (), "double"), (4, 2, (), "double"),
        (3, 0, (), "none"), (5, 1, (), "none"),
        (2, 1, ("statue",), "statue"),
        (3, 1, ("statue",), "none"),  # a statue two levels down is no pillar
        (2, 1, ("fountain",), "none"), (2, 1, ("belvedere",), "none"), (3, 1, ("bridge",), "none"),
        (2, 1, ("statue", "statue"), "none"),
        (2, 1, ("fountain", "statue"), "none"),
    ],
)
def test_field_support(level, surface, blockers, kind):
    assert field_support(level, surface, blockers) == kind


def test_supports_read_the_garden():
    # L1 at (0,0) with a statue on (1,1) and a fountain... ; L2 at (0,1) over it
    g = garden([tile(0, 0, 1), tile(0, 2, 1), tile(0, 1, 2)], [deco(S, [(1, 1)], 1)])
    ix = GardenIndex(g)
    assert [(s.cell, s.surface, s.kind) for s in ix.supports(g.tiles[2])] == [
        ((0, 1), 1, "single"), ((0, 2), 1, "single"), ((1, 1), 1, "statue"), ((1, 2), 1, "single")]
    assert ix.surface((1, 1), 2) == 1 and ix.surface((1, 1), 1) == 0 and ix.surface((1, 1), 3) == 2
    assert ix.surface((7, 7), 5) == 0


def test_a_piece_under_a_lower_tile_does_not_block_the_pillar_above_it():
    # a statue on (1,1) L1 carries the L2 tile at (1,1); the L3 tile at (0,0) stands on that L2 tile
    # at (1,1) (single) and on double pillars over the L1 tile elsewhere: the statue below is no blocker
    tiles = [tile(0, 0, 1), tile(2, 0, 1), tile(0, 2, 1), tile(2, 2, 1), tile(1, 1, 2), tile(0, 0, 3)]
    g = garden(tiles, [deco(S, [(1, 1)], 1)])
    ix = GardenIndex(g)
    assert [s.kind for s in ix.supports(tiles[-1])] == ["double", "double", "double", "single"]
    assert ix.support(tiles[4], (1, 1)).kind == "statue"
    assert check(g) == []


def test_a_statue_two_levels_down_is_no_pillar():
    # L3 at (0,0) over the L1 tile at (0,0) and the L2 tile at (0,1): its field (0,0) is over a
    # statue two levels down, so that field is unsupported and needs a belvedere
    tiles = [tile(0, 0, 1), tile(0, 2, 1), tile(0, 1, 2), tile(0, 0, 3)]
    g = garden(tiles, [deco(S, [(0, 0)], 1)])
    assert found(g) == [("missing-belvedere", ((0, 0),),
                         "pink tile at (0, 0) level 3 rests on 3 supports; its unsupported field (0, 0) "
                         "needs a belvedere")]
    assert check(garden(tiles, [deco(S, [(0, 0)], 1), deco("belvedere", [(0, 0)], 3)])) == []


# --- tiles (spec 1.1, 1.2) ----------------------------------------------------------------------


def test_tile_overlap_names_the_shared_cells():
    assert found(garden([tile(0, 0, 1), tile(1, 1, 1)])) == [
        ("tile-overlap", ((1, 1),),
         "pink tile at (0, 0) level 1 and pink tile at (1, 1) level 1 overlap on level 1")]
    assert rules(garden([tile(0, 0, 1), tile(0, 1, 1)])) == ["tile-overlap"]
    assert check(garden([tile(0, 0, 1), tile(0, 2, 1)])) == []


def test_full_overlap_only_one_level_apart():
    hi_first = garden([tile(0, 0, 2, "blue"), tile(0, 0, 1), tile(2, 0, 1)])
    assert found(hi_first) == [("full-overlap", ((0, 0), (0, 1), (1, 0), (1, 1)),
                                "blue tile at (0, 0) level 2 covers pink tile at (0, 0) level 1 completely, "
                                "one level apart")]
    assert check(garden(TOWER)) == []  # levels 1 and 3 on one footprint
    assert rules(garden([tile(0, 0, 1), tile(0, 0, 1)])) == ["tile-overlap"]


def test_level_gap():
    assert found(garden([tile(3, 3, 2)])) == [
        ("level-gap", ((3, 3), (3, 4), (4, 3), (4, 4)), "pink tile at (3, 3) level 2 has no tile on level 1 "
         "to build on")]
    assert check(garden([tile(0, 0, 1), tile(3, 3, 2)])) == []  # levels need not touch


def test_unsupported_from_two_fields_on():
    # L2 at (1,1) over the L1 tile at (0,0): (1,1) single; (1,2), (2,1), (2,2) double over the board
    base = [tile(0, 0, 1)]
    assert check(garden([*base, tile(1, 1, 2)])) == []
    # at L3 (with an L2 elsewhere): (1,1) double, the board three levels down under the other three
    three = garden([*base, tile(4, 4, 1), tile(4, 4, 3), tile(4, 5, 2), tile(1, 1, 3)])
    (f,) = [f for f in check(three) if f.cells[0][0] < 4]
    assert (f.rule, f.cells) == ("unsupported", ((1, 2), (2, 1), (2, 2)))
    assert f.message == "pink tile at (1, 1) level 3 can stand on pillars at only 1 of its 4 fields"
    # two unreachable fields are already too many
    two = garden([tile(0, 0, 1), tile(0, 2, 1), tile(0, 1, 2), tile(0, 3, 3)])
    assert found(two) == [("unsupported", ((0, 4), (1, 4)),
                           "pink tile at (0, 3) level 3 can stand on pillars at only 2 of its 4 fields")]


def test_belvederes_on_tiles():
    one = garden([tile(0, 0, 1)], [deco("belvedere", [(1, 0)], 1)])
    assert check(one) == []  # a player may set a supportable tile on 3 pillars
    two = garden([tile(0, 0, 1)], [deco("belvedere", [(0, 0)], 1), deco("belvedere", [(1, 1)], 1)])
    assert found(two) == [("extra-belvedere", ((0, 0), (1, 1)),
                           "pink tile at (0, 0) level 1 carries 2 belvederes; a tile has at most one "
                           "unsupported field")]
    other_level = garden([tile(0, 0, 1), tile(0, 1, 2)], [deco("belvedere", [(0, 1)], 1)])
    # a belvedere under the L2 tile blocks its pillar at (0,1): the L2 tile needs its own belvedere
    assert rules(other_level) == ["missing-belvedere"]


# --- decorations (spec 1.3) ---------------------------------------------------------------------


def test_off_tile_names_each_field():
    g = garden([tile(0, 0, 1)], [deco("fountain", [(1, 1), (1, 2)], 1)])
    assert found(g) == [
        ("off-tile", ((1, 2),), "fountain on (1, 1), (1, 2) level 1: no tile on level 1 at (1, 2)")]
    nowhere = garden([], [deco("fountain", [(1, 1), (1, 2)], 1)])
    assert rules(nowhere) == ["off-tile", "off-tile"]  # not also "same tile": there is no tile


def test_fountain_geometry():
    two = [tile(0, 0, 1), tile(0, 2, 1)]
    assert check(garden(two, [deco("fountain", [(0, 1), (0, 2)], 1)])) == []
    assert check(garden([tile(0, 0, 1), tile(2, 0, 1)], [deco("fountain", [(1, 0), (2, 0)], 1)])) == []
    assert found(garden(two, [deco("fountain", [(0, 0), (0, 2)], 1)])) == [
        ("fountain-geometry", ((0, 0), (0, 2)), "fountain on (0, 0), (0, 2) level 1: its two fields are not "
         "side by side")]
    assert rules(garden(two, [deco("fountain", [(1, 1), (0, 2)], 1)])) == ["fountain-geometry"]  # diagonal
    assert found(garden(two, [deco("fountain", [(0, 2), (0, 3)], 1)])) == [
        ("fountain-geometry", ((0, 2), (0, 3)), "fountain on (0, 2), (0, 3) level 1: both fields are on the "
         "same tile")]


def test_stairs_geometry():
    low_high = [tile(0, 0, 1), tile(0, 2, 1), tile(0, 3, 2)]  # L2 at (0,3) rests on the L1 at (0,2)
    assert check(garden(low_high, [deco("stairs", [(0, 2), (0, 3)], (1, 2))])) == []
    assert check(garden(low_high, [deco("stairs", [(1, 3), (1, 2)], (2, 1))])) == []
    assert found(garden(low_high, [deco("stairs", [(0, 1), (0, 3)], (1, 2))])) == [
        ("stairs-geometry", ((0, 1), (0, 3)), "stairs on (0, 1), (0, 3) levels 1-2: its two fields are not "
         "side by side")]
    assert found(garden(low_high, [deco("stairs", [(1, 1), (1, 2)], (1, 1))])) == [
        ("stairs-geometry", ((1, 1), (1, 2)), "stairs on (1, 1), (1, 2) levels 1-1: the levels it joins must "
         "differ by exactly 1")]
    # levels 1 and 3: a geometry error, not also "blocked" by the L2 tile over (1,2) (the stairs' foot
    # is off any tile and stands in the way of that tile's pillar)
    tower = garden(TOWER, [deco("stairs", [(1, 2), (1, 1)], (1, 3))])
    assert sorted(rules(tower)) == ["missing-belvedere", "off-tile", "stairs-geometry"]


def test_bridge_geometry():
    ends = [tile(0, 0, 1), tile(0, 3, 1), tile(3, 0, 1)]
    assert check(garden(ends, [deco("bridge", [(1, 3), (1, 2), (1, 1)], 1)])) == []  # any order
    assert check(garden(ends, [deco("bridge", [(1, 1), (2, 1), (3, 1)], 1)])) == []  # down a column
    bent_shapes = (
        [(1, 1), (1, 2), (2, 2)], [(0, 0), (1, 1), (2, 2)], [(1, 0), (1, 1), (1, 3)],
        [(0, 1), (1, 1), (3, 1)], [(1, 0), (1, 1), (2, 2)], [(0, 1), (1, 1), (2, 2)],
        [(0, 0), (1, 1), (1, 2)], [(0, 0), (1, 1), (2, 1)],
    )
    for bent in bent_shapes:
        g = garden(ends, [deco("bridge", bent, 1)])
        (f,) = check(g)
        assert (f.rule, f.cells) == ("bridge-geometry", tuple(sorted(bent)))
        assert f.message.endswith("its 3 cells are not a straight line")
    over_tile = garden([*ends, tile(2, 2, 1)], [deco("bridge", [(1, 1), (2, 1), (3, 1)], 1)])
    assert check(over_tile) == []  # the middle (2,1) is over the board
    blocked = garden([tile(0, 0, 1), tile(0, 2, 1), tile(0, 4, 1)],
                     [deco("bridge", [(1, 1), (1, 2), (1, 3)], 1)])
    assert found(blocked) == [("bridge-geometry", ((1, 2),), "bridge on (1, 1), (1, 2), (1, 3) level 1: the "
                               "middle cell (1, 2) holds a tile on level 1; a bridge spans a gap")]
    lower = [tile(0, 0, 1), tile(0, 2, 1), tile(0, 4, 1), tile(0, 0, 2), tile(0, 3, 2)]
    assert "bridge-geometry" not in rules(garden(lower, [deco("bridge", [(1, 1), (1, 2), (1, 3)], 2)]))


def test_a_bridge_stands_only_on_its_two_ends():
    g = garden([tile(0, 0, 1), tile(0, 3, 1)], [deco("bridge", [(0, 1), (0, 2), (0, 3)], 1)])
    assert check(g) == []
    tiles = [tile(0, 0, 1, symbols=((None, "bridge"), (None, S))),
             tile(0, 3, 1, symbols=(("bridge", None), (None, S)))]
    assert check(garden(tiles, [deco("bridge", [(0, 1), (0, 2), (0, 3)], 1)])) == []


def test_symbol_mismatch_messages():
    t = tile(0, 0, 1, symbols=(("fountain", None), (None, S)))
    assert found(garden([t], [deco(S, [(0, 0)], 1)])) == [
        ("symbol-mismatch", ((0, 0),), "statue on (0, 0) level 1: the field at (0, 0) shows a fountain "
         "symbol "
         "(allowed only with a round marker)")]
    assert found(garden([t], [deco(S, [(0, 1)], 1)])) == [
        ("symbol-mismatch", ((0, 1),), "statue on (0, 1) level 1: the field at (0, 1) shows a blank field "
         "(allowed only with a round marker)")]
    assert check(garden([t], [deco("belvedere", [(0, 1)], 1)])) == []  # belvederes carry no symbol
    assert check(garden([tile(0, 0, 1)], [deco(S, [(0, 1)], 1)])) == []  # symbols unknown
    # the first field's tile has unknown symbols, the second's shows the wrong one
    mixed = garden([tile(0, 0, 1), tile(0, 2, 1, symbols=((S, S), (None, None)))],
                   [deco("fountain", [(0, 1), (0, 2)], 1)])
    assert [(f.rule, f.cells) for f in check(mixed)] == [("symbol-mismatch", ((0, 2),))]
    (f,) = check(garden([t], [deco(S, [(0, 0)], 1)]))
    assert f.severity == "warning" and is_legal(garden([t], [deco(S, [(0, 0)], 1)]))


def test_field_occupied():
    g = garden([tile(0, 0, 1), tile(0, 2, 1)], [deco(S, [(0, 1)], 1), deco("fountain", [(0, 1), (0, 2)], 1)])
    assert found(g) == [("field-occupied", ((0, 1),), "statue on (0, 1) level 1 and fountain on (0, 1), "
                         "(0, 2) "
                         "level 1 share the field (0, 1) on level 1")]


def test_stairs_blocked_whichever_cell_is_listed_first():
    tiles = [tile(1, 0, 1), tile(1, 2, 2), tile(0, 0, 2)]
    for cells, levels in (([(1, 1), (1, 2)], (1, 2)), ([(1, 2), (1, 1)], (2, 1))):
        g = garden(tiles, [deco("belvedere", [(1, 1)], 2), deco("stairs", cells, levels)])
        assert found(g) == [("stairs-blocked", ((1, 1),), f"{g.decorations[1]}: pink tile at (0, 0) level 2 "
                             "rests where the stairs rise to level 2")]
    # mirrored: the lower field (1,6) comes after the upper one (1,5) in board order
    mirrored = garden([tile(1, 6, 1), tile(1, 4, 2), tile(0, 6, 2)],
                      [deco("belvedere", [(1, 6)], 2), deco("stairs", [(1, 5), (1, 6)], (2, 1))])
    assert [(f.rule, f.cells) for f in check(mirrored)] == [("stairs-blocked", ((1, 6),))]
    # a tile two levels up over the lower field is fine
    high = [tile(1, 0, 1), tile(1, 2, 2), tile(4, 4, 2), tile(0, 0, 3)]
    assert "stairs-blocked" not in rules(garden(high, [deco("stairs", [(1, 1), (1, 2)], (1, 2))]))


# --- statues in line (spec 1.3) -----------------------------------------------------------------


def test_statue_groups():
    assert in_line((0, 0), (0, 7)) and in_line((0, 3), (6, 3)) and not in_line((0, 0), (1, 1))
    assert statue_groups([]) == []
    assert statue_groups([(0, 0), (5, 5), (0, 5)]) == [[(0, 5), (0, 0), (5, 5)]]  # (0,5) links the two
    assert statue_groups([(0, 0), (5, 5)]) == [[(0, 0)], [(5, 5)]]
    assert statue_groups([(0, 0), (1, 1), (2, 2), (0, 1)]) == [[(2, 2)], [(0, 1), (0, 0), (1, 1)]]


def test_statue_line_flags_every_group_but_the_largest():
    tiles = [tile(0, 0, 1), tile(2, 2, 1), tile(4, 4, 1), tile(6, 6, 1)]
    decos = [deco(S, [(3, 3)], 1), deco(S, [(0, 0)], 1), deco(S, [(0, 1)], 1), deco(S, [(7, 7)], 1)]
    assert found(garden(tiles, decos)) == [
        ("statue-line", ((3, 3),), "statue(s) at (3, 3) share no row or column with the other statues"),
        ("statue-line", ((7, 7),), "statue(s) at (7, 7) share no row or column with the other statues"),
    ]
    assert check(garden(tiles, decos[:1])) == []  # one statue is always fine
    pairs = [deco(S, [(0, 0)], 1), deco(S, [(0, 1)], 1), deco(S, [(7, 6)], 1), deco(S, [(7, 7)], 1),
             deco(S, [(6, 6)], 1)]
    assert found(garden(tiles, pairs)) == [
        ("statue-line", ((0, 0), (0, 1)), "statue(s) at (0, 0), (0, 1) share no row or column with the other "
         "statues")]


def test_a_statue_serving_as_a_pillar_still_links_the_others():
    # statue A (1,1) L1 carries the L2 tile; B (1,5) and C (5,1) are each in line with A only
    tiles = [tile(0, 0, 1), tile(0, 2, 1), tile(0, 1, 2), tile(0, 4, 1), tile(4, 0, 1)]
    decos = [deco(S, [(1, 1)], 1), deco(S, [(1, 5)], 1), deco(S, [(5, 1)], 1)]
    assert check(garden(tiles, decos)) == []


# --- the box (spec 2.3) -------------------------------------------------------------------------


def _sym(n: int):
    fields = [S] * n + [None] * (4 - n)
    return ((fields[0], fields[1]), (fields[2], fields[3]))


def _tiles(flower: str, n_symbols: int | None, count: int, start: int = 0):
    """``count`` tiles of one flower with ``n_symbols`` symbols each, stacked anywhere (only the
    supply is looked at)."""
    return [tile(2 * ((start + i) // 4 % 4), 2 * ((start + i) % 4), 1 + (start + i) // 16, flower,
                 None if n_symbols is None else _sym(n_symbols)) for i in range(count)]


def supply(tiles, board=None) -> list[tuple[tuple, str]]:
    g = Garden(board_flower=board, tiles=tuple(tiles))
    return [(f.cells, f.message) for f in check(g) if f.rule == "tile-supply"]


def test_four_tiles_of_each_material_per_flower():
    for n in (2, 3, 4):
        assert supply(_tiles("blue", n, 4), board="pink") == []
        ((cells, message),) = supply(_tiles("blue", n, 5), board="pink")
        assert len(cells) == 20
        assert message == (f"5 blue tiles with {n} symbol(s); the game has 4 besides the blue start tile, "
                           "and this is a pink board")


def test_the_start_tile_goes_with_the_board():
    assert supply(_tiles("blue", 2, 5), board="blue") == []
    assert supply(_tiles("blue", 2, 4) + _tiles("blue", 1, 1, 4), board="blue") == []
    ((_, message),) = supply(_tiles("blue", 2, 6), board="blue")
    assert message == "6 blue tiles with 2 symbol(s); the game has 5"
    ((_, message),) = supply(_tiles("blue", 1, 2), board="blue")
    assert message == "2 blue tiles with 1 symbol(s); the game has 1"
    ((_, message),) = supply(_tiles("blue", 1, 1), board="pink")
    assert message == ("1 blue tiles with 1 symbol(s); the game has 0 besides the blue start tile, "
                       "and this is a pink board")


def test_the_audit_garden_needs_two_start_tiles():
    # 5 blue two-symbol tiles and a blue one-symbol tile: two start tiles, on any board
    tiles = _tiles("blue", 2, 5) + _tiles("blue", 1, 1, 5)
    ((cells, message),) = supply(tiles, board="blue")
    assert message == "blue tiles with 1 and 2 symbols both need the blue start tile; there is one"
    assert len(cells) == 24
    assert len(supply(tiles, board="pink")) == 2
    assert len(supply(tiles)) == 1


def test_one_start_tile_when_the_board_is_unknown():
    assert supply(_tiles("blue", 1, 1) + _tiles("pink", 3, 4, 1)) == []
    assert supply(_tiles("blue", 2, 5) + _tiles("pink", 3, 4, 5)) == []
    ((cells, message),) = supply(_tiles("blue", 1, 1) + _tiles("pink", 2, 5, 1))
    assert message == "blue and pink tiles each need their flower's start tile; a garden has one, its board's"
    assert len(cells) == 24
    ((cells, message),) = supply(_tiles("blue", None, 13) + _tiles("white", None, 13, 13))
    assert message.startswith("blue and white tiles each need") and len(cells) == 64
    assert supply(_tiles("blue", None, 13) + _tiles("white", None, 12, 13)) == []


def test_thirteen_tiles_of_a_flower_at_most():
    assert supply(_tiles("white", None, 13)) == []
    assert supply(_tiles("white", None, 13), board="white") == []
    ((cells, message),) = supply(_tiles("white", None, 14))
    assert (len(cells), message) == (56, "14 white tiles; the game has 13")
    ((_, message),) = supply(_tiles("white", None, 13), board="pink")
    assert message == "13 white tiles; the game has 12 besides the white start tile, and this is a pink board"
    assert supply(_tiles("white", None, 12), board="pink") == []


def test_each_flower_is_checked_after_one_over_its_total():
    tiles = _tiles("blue", None, 14) + _tiles("white", 4, 5, 14)
    assert [m for _, m in supply(tiles)] == ["14 blue tiles; the game has 13",
                                             "5 white tiles with 4 symbol(s); the game has 4"]


def test_no_tile_of_the_game_is_blank():
    ((cells, message),) = supply(_tiles("yellow", 0, 1), board="yellow")
    assert cells == ((0, 0), (0, 1), (1, 0), (1, 1))
    assert message == "1 yellow tiles with 0 symbol(s); the game has 0"


# --- the findings as a whole --------------------------------------------------------------------


def test_findings_come_errors_first_then_by_rule_and_cells():
    t = tile(0, 0, 1, symbols=(("fountain", None), (None, S)))
    decos = [deco("belvedere", [(7, 7)], 1), deco(S, [(0, 0)], 1), deco(S, [(4, 5)], 1),
             deco("belvedere", [(0, 1)], 3), deco(S, [(4, 4)], 1)]
    g = garden([t, tile(4, 4, 1), tile(3, 3, 1)], decos)
    assert [(f.rule, f.severity, f.cells) for f in check(g)] == [
        ("off-tile", "error", ((0, 1),)),
        ("off-tile", "error", ((7, 7),)),
        ("statue-line", "error", ((0, 0),)),
        ("tile-overlap", "error", ((4, 4),)),
        ("symbol-mismatch", "warning", ((0, 0),)),
    ]
    assert not is_legal(g)


def test_every_rule_is_described():
    assert set(RULES) == {
        "tile-overlap", "level-gap", "full-overlap", "unsupported", "missing-belvedere", "extra-belvedere",
        "off-tile", "fountain-geometry", "bridge-geometry", "stairs-geometry", "statue-line",
        "stairs-blocked",
        "tile-supply", "field-occupied", "symbol-mismatch"}
    assert RULES["tile-supply"] == ("the game has 13 tiles of each flower: 4 each of 2, 3 and 4 symbols, and "
                                    "a start tile of 1 or 2 symbols that only the board of its flower gets")


def test_finding_to_dict():
    f = Finding("off-tile", "error", ((0, 0), (1, 2)), "m")
    assert f.to_dict() == {"rule": "off-tile", "severity": "error", "cells": [[0, 0], [1, 2]], "message": "m"}
