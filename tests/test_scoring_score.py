"""Every row of the score pad on gardens worked out by hand from the rulebook (spec 1.4): the
expected numbers are written out, never computed by the scorer's own helpers."""

from __future__ import annotations

from builders import TOWER, deco, garden, tile
from rich.console import Console

from scoring.rules import check
from scoring.score import Score, decoration_points, rank, score_garden
from scoring.visibility import top_levels, view
from service.cli import _score_card


def errors(g):
    return [f for f in check(g) if f.severity == "error"]


# Two complete decoration sets on two levels (rows 0-1 and 3-4 built, row 2 a gap for bridges):
#   level 1: P(0,0) pink, Q(0,2) white, R(0,4) yellow, S(0,6) blue,
#            U(3,0) pink, V(3,2) white, W(3,4) yellow, X(3,6) blue
#   level 2: Y(0,1) pink on P and Q, Z(3,1) white on U and V (4 single pillars each)
LEVEL1 = [tile(0, 0, 1, "pink"), tile(0, 2, 1, "white"), tile(0, 4, 1, "yellow"), tile(0, 6, 1, "blue"),
          tile(3, 0, 1, "pink"), tile(3, 2, 1, "white"), tile(3, 4, 1, "yellow"), tile(3, 6, 1, "blue")]
TWO_SETS_TILES = [*LEVEL1, tile(0, 1, 2, "pink"), tile(3, 1, 2, "white")]
TWO_SETS_DECOS = [
    deco("statue", [(0, 1)], 2),  # 2 points
    deco("statue", [(0, 7)], 1),  # 1 point, in line with the first (row 0)
    deco("fountain", [(1, 5), (1, 6)], 1),  # R and S: 3
    deco("fountain", [(4, 5), (4, 6)], 1),  # W and X: 3
    deco("bridge", [(1, 3), (2, 3), (3, 3)], 1),  # Q over the gap to V: 3
    deco("bridge", [(1, 7), (2, 7), (3, 7)], 1),  # S over the gap to X: 3
    deco("stairs", [(1, 0), (1, 1)], (1, 2)),  # P up to Y: 1 + 2
    deco("stairs", [(4, 0), (4, 1)], (1, 2)),  # U up to Z: 1 + 2
]
TWO_SETS = garden(TWO_SETS_TILES, TWO_SETS_DECOS)


def test_two_complete_sets_every_row_by_hand():
    assert errors(TWO_SETS) == []
    assert score_garden(TWO_SETS) == Score(
        statues=2 + 1,
        fountains=3 + 3,
        bridges=3 + 3,
        stairs=3 + 3,
        decoration_sets=2 * 4,  # two of each kind
        flower_sets=2 * 4,  # pink 3, white 3, yellow 2, blue 2 visible
        belvederes=0,
        highest_level=2 * 2,
        total=41,
        tiebreak_visible_holes=64 - 32,  # rows 0, 1, 3 and 4 are covered
    )


def test_one_kind_short_of_a_second_set():
    without_bridge = garden(TWO_SETS_TILES, [d for d in TWO_SETS_DECOS if d.cells[0] != (1, 7)])
    s = score_garden(without_bridge)
    assert (s.bridges, s.decoration_sets, s.total) == (3, 4, 41 - 3 - 4)
    three_statues = garden(TWO_SETS_TILES, [*TWO_SETS_DECOS, deco("statue", [(0, 4)], 1)])
    s = score_garden(three_statues)
    assert (s.statues, s.decoration_sets, s.total) == (4, 8, 42)


def test_a_covered_piece_leaves_its_set():
    # a level-3 tile over (0,0)-(1,1) hides the statue on (0,1) L2 and the stairs P-Y ((1,0) L1,
    # (1,1) L2), and tile P completely (the garden can't be built so, but it scores so)
    covered = garden([*TWO_SETS_TILES, tile(0, 0, 3, "blue")], TWO_SETS_DECOS)
    s = score_garden(covered)
    assert (s.statues, s.stairs, s.decoration_sets, s.highest_level) == (1, 3, 4, 6)
    assert s.flower_sets == 8  # visible: pink U, Y; white Q, V, Z; yellow R, W; blue S, X and the new one
    assert s.total == 1 + 6 + 6 + 3 + 4 + 8 + 6


def test_statues_score_their_level_and_the_highest_tile_twice_its_level():
    g = garden([*TOWER, tile(6, 0, 1, "pink")], [deco("statue", [(0, 0)], 3), deco("statue", [(7, 0)], 1)])
    assert errors(g) == []
    # the level-1 tile at (0,0) is completely under the level-3 one: white, yellow, pink show
    assert score_garden(g) == Score(statues=3 + 1, highest_level=6, total=10, tiebreak_visible_holes=64 - 10)


def test_fountains_and_bridges_score_three_times_their_level():
    tiles = [tile(0, 0, 1), tile(0, 2, 1), tile(0, 1, 2), tile(2, 1, 2), tile(4, 0, 1), tile(4, 2, 1)]
    g = garden(tiles, [deco("fountain", [(1, 1), (2, 1)], 2), deco("fountain", [(4, 1), (4, 2)], 1)])
    assert errors(g) == []
    assert score_garden(g).fountains == 6 + 3
    level1 = [tile(0, 0, 1), tile(0, 3, 1), tile(2, 0, 1), tile(2, 3, 1)]
    bridged = garden([*level1, tile(1, 0, 2), tile(1, 3, 2)], [deco("bridge", [(1, 1), (1, 2), (1, 3)], 2)])
    assert errors(bridged) == []
    assert score_garden(bridged).bridges == 6


def test_stairs_score_the_sum_of_their_levels_in_either_order():
    g = garden(TOWER, [deco("stairs", [(1, 2), (1, 1)], (2, 3))])
    assert errors(g) == []
    assert score_garden(g).stairs == 5
    assert decoration_points(deco("stairs", [(1, 1), (1, 2)], (3, 2))) == 5


def test_belvederes_score_one_whatever_their_level():
    tiles = [*TOWER, tile(2, 0, 1), tile(2, 2, 1)]
    g = garden(tiles, [deco("belvedere", [(0, 0)], 3), deco("belvedere", [(3, 3)], 1)])
    assert errors(g) == []
    assert score_garden(g) == Score(belvederes=2, highest_level=6, total=8, tiebreak_visible_holes=64 - 14)


def test_a_bridge_shows_through_its_middle_cell():
    # the bridge's end fields (1,1) and (1,3) are under level-2 tiles (each resting on 3 pillars, a
    # belvedere on the field above the bridge's end); only its middle cell (1,2), over the board, shows
    tiles = [tile(0, 0, 1), tile(0, 3, 1), tile(1, 0, 2), tile(1, 3, 2)]
    decos = [deco("bridge", [(1, 1), (1, 2), (1, 3)], 1),
             deco("belvedere", [(1, 1)], 2), deco("belvedere", [(1, 3)], 2)]
    g = garden(tiles, decos)
    assert errors(g) == []
    assert score_garden(g) == Score(bridges=3, belvederes=2, highest_level=4, total=9,
                                    tiebreak_visible_holes=64 - 12)
    # cover the middle cell too (a level-2 tile over (1,2)-(2,3) would clash; use level 3 on top)
    hidden = garden([*tiles, tile(1, 1, 3)], decos)
    assert score_garden(hidden).bridges == 0


def test_a_partly_visible_tile_counts_for_flower_sets():
    flowers = ["pink", "white", "yellow", "blue"]
    tiles = [tile(0, 2 * i, 1, f) for i, f in enumerate(flowers)]
    half = garden([*tiles, tile(0, 5, 2, "pink")])  # covers the blue tile's left column only
    assert errors(half) == []
    assert score_garden(half).flower_sets == 4
    whole = garden([*tiles, tile(0, 5, 2, "pink"), tile(0, 6, 3, "pink")])
    assert score_garden(whole).flower_sets == 0


def test_flower_sets_take_the_rarest_flower():
    flowers = ["pink", "white", "yellow", "blue", "pink", "white", "yellow", "blue", "pink", "pink"]
    tiles = [tile(2 * (i // 4), 2 * (i % 4), 1, f) for i, f in enumerate(flowers[:8])]
    tiles += [tile(6, 0, 1, "pink"), tile(6, 2, 1, "pink")]
    assert score_garden(garden(tiles)).flower_sets == 8
    assert score_garden(garden(tiles[:7] + tiles[8:])).flower_sets == 4  # one blue left


def test_visible_holes_count_the_cells_no_tile_covers():
    assert score_garden(garden([tile(0, 0, 1), tile(0, 1, 2)])).tiebreak_visible_holes == 64 - 6
    assert score_garden(garden([])) == Score(tiebreak_visible_holes=64)


def test_view_from_above():
    g = garden([tile(0, 0, 1), tile(0, 1, 2), tile(0, 0, 3)], [deco("statue", [(1, 0)], 1)])
    top = top_levels(g)
    assert top[0][:4] == (3, 3, 2, 0) and top[1][:4] == (3, 3, 2, 0) and top[2] == (0,) * 8
    seen = view(g)
    assert seen.top == top
    assert seen.tiles == g.tiles[1:]  # the level-1 tile is completely under the level-3 one
    assert seen.decorations == ()
    assert seen.holes[:2] == ((0, 3), (0, 4)) and len(seen.holes) == 58


def test_ranking_orders_by_total_then_fewer_holes():
    a = Score(total=40, tiebreak_visible_holes=30)
    b = Score(total=40, tiebreak_visible_holes=20)
    c = Score(total=50, tiebreak_visible_holes=40)
    places = [(s.place, s.name) for s in rank([("a", a), ("b", b), ("c", c)])]
    assert places == [(1, "c"), (2, "b"), (3, "a")]
    assert [(s.place, s.name) for s in rank([("x", a), ("y", a)])] == [(1, "x"), (1, "y")]
    assert rank([]) == []


def test_score_card_rows_show_their_own_values():
    s = Score(statues=1, fountains=2, bridges=3, stairs=4, decoration_sets=5, flower_sets=6,
              belvederes=7, highest_level=8, total=36, tiebreak_visible_holes=50)
    console = Console(width=120, record=True)
    console.print(_score_card(["alice"], [s]))
    lines = console.export_text().splitlines()

    def value(label: str) -> str:
        (line,) = [ln for ln in lines if label in ln]
        return line.replace("│", " ").split()[-1]

    assert [value(lab) for lab in ("Statues (1 x level)", "Fountains (3 x level)", "Bridges (3 x level)",
                                   "Stairs (sum of levels)", "Decoration sets (4 each)",
                                   "Flower sets (4 each)", "Belvederes (1 each)",
                                   "Highest level (2 x level)", "TOTAL", "Visible holes")] == [
        "1", "2", "3", "4", "5", "6", "7", "8", "36", "50"]
