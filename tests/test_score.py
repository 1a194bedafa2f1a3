"""Every row of the score table on hand-computed gardens, and the rulebook's worked checks."""

from __future__ import annotations

from builders import TOWER, deco, garden, tile

from scoring.rules import check
from scoring.score import Score, rank, score_garden


def errors(g):
    return [f for f in check(g) if f.severity == "error"]


def test_empty_garden_scores_nothing_and_shows_every_hole():
    s = score_garden(garden([]))
    assert s == Score(total=0, tiebreak_visible_holes=64)


def test_worked_check_statue_on_level_3_and_highest_level_3():
    g = garden(TOWER, [deco("statue", [(0, 0)], 3)])
    assert errors(g) == []
    s = score_garden(g)
    assert s.statues == 3
    assert s.highest_level == 6
    assert s.total == 3 + 6
    # the tower covers cells (0..1, 0..2): 6 of 64
    assert s.tiebreak_visible_holes == 58


def test_worked_check_fountain_on_level_2():
    tiles = [tile(0, 0, 1), tile(0, 2, 1), tile(0, 1, 2), tile(2, 1, 2)]
    g = garden(tiles, [deco("fountain", [(1, 1), (2, 1)], 2)])
    assert errors(g) == []
    assert score_garden(g).fountains == 6


def test_worked_check_stairs_1_2_and_2_3():
    g = garden(TOWER, [deco("stairs", [(1, 2), (1, 1)], (2, 3))])
    assert errors(g) == []
    assert score_garden(g).stairs == 5
    low = garden(TOWER[:2], [deco("stairs", [(1, 0), (1, 1)], (1, 2))])
    assert errors(low) == []
    assert score_garden(low).stairs == 3


def test_bridge_scores_three_times_its_level():
    tiles = [tile(0, 0, 1), tile(0, 3, 1)]
    g = garden(tiles, [deco("bridge", [(1, 1), (1, 2), (1, 3)], 1)])
    assert errors(g) == []
    assert score_garden(g).bridges == 3


def test_belvederes_score_one_whatever_the_level():
    # both tiles could stand on 4 supports; a player may still choose 3 and take a belvedere
    tiles = TOWER + [tile(2, 0, 1), tile(2, 2, 1)]
    g = garden(tiles, [deco("belvedere", [(0, 0)], 3), deco("belvedere", [(3, 3)], 1)])
    assert errors(g) == []
    s = score_garden(g)
    assert s.belvederes == 2


def test_decoration_sets_count_each_piece_once():
    tiles = [tile(0, 0, 1), tile(0, 3, 1), tile(2, 0, 2), tile(3, 4, 1), tile(3, 6, 1), tile(5, 0, 1)]
    decos = [
        deco("statue", [(0, 0)], 1),
        deco("statue", [(5, 0)], 1),
        deco("fountain", [(4, 5), (4, 6)], 1),
        deco("bridge", [(1, 1), (1, 2), (1, 3)], 1),
        deco("stairs", [(1, 0), (2, 0)], (1, 2)),
    ]
    assert errors(garden(tiles, decos)) == []
    s = score_garden(garden(tiles, decos))
    assert (s.statues, s.fountains, s.bridges, s.stairs) == (2, 3, 3, 3)
    assert s.decoration_sets == 4  # one complete set; the second statue has no partners
    decos += [deco("fountain", [(3, 5), (3, 6)], 1), deco("stairs", [(2, 1), (1, 1)], (2, 1))]
    assert score_garden(garden(tiles, decos)).decoration_sets == 4  # still one bridge


def test_flower_sets_need_four_different_flowers_per_set():
    flowers = ["pink", "white", "yellow", "blue", "pink", "white", "yellow"]
    tiles = [tile(2 * (i // 4), 2 * (i % 4), 1, f) for i, f in enumerate(flowers)]
    assert score_garden(garden(tiles)).flower_sets == 4
    tiles.append(tile(6, 0, 1, "blue"))
    assert score_garden(garden(tiles)).flower_sets == 8


def test_hidden_pieces_score_nothing():
    # the statue at (1,0) on level 1 carries the level-2 tile: it is a pillar now, covered
    tiles = [tile(0, 0, 1), tile(2, 0, 1), tile(1, 0, 2, "blue")]
    g = garden(tiles, [deco("statue", [(1, 0)], 1)])
    assert errors(g) == []
    s = score_garden(g)
    assert s.statues == 0 and s.total == 4  # only the highest level counts


def test_completely_covered_tile_does_not_count_for_flower_sets():
    flowers = ["pink", "white", "yellow", "blue"]
    tiles = [tile(0, 2 * i, 1, f) for i, f in enumerate(flowers)]
    assert score_garden(garden(tiles)).flower_sets == 4
    # a level-2 tile at (0,5) half covers the blue tile; a level-3 tile on the blue tile's own
    # footprint (legal two levels up) hides the rest
    covered = garden(tiles + [tile(0, 5, 2, "pink"), tile(0, 6, 3, "pink")])
    assert errors(covered) == []
    assert score_garden(covered).flower_sets == 0


def test_partly_hidden_pieces_score():
    # the level-2 tile at (0,2) covers the fountain's field (1,2); its field (1,1) still shows.
    # The tile can't have a pillar on the fountain's field, so it rests on 3 with a belvedere.
    tiles = [tile(0, 0, 1), tile(1, 2, 1), tile(0, 2, 2, "blue")]
    decos = [deco("fountain", [(1, 1), (1, 2)], 1), deco("belvedere", [(1, 2)], 2)]
    g = garden(tiles, decos)
    assert errors(g) == []
    s = score_garden(g)
    assert (s.fountains, s.belvederes) == (3, 1)


def test_total_is_the_sum_of_rows():
    g = garden(TOWER, [deco("statue", [(0, 0)], 3), deco("stairs", [(1, 2), (1, 1)], (2, 3))])
    s = score_garden(g)
    assert s.total == 3 + 5 + 6
    rows = {k: v for k, v in s.to_dict().items() if k not in ("total", "tiebreak_visible_holes")}
    assert s.total == sum(rows.values())


def test_score_dict_has_exactly_the_spec_keys():
    keys = set(score_garden(garden(TOWER)).to_dict())
    assert keys == {
        "statues", "fountains", "bridges", "stairs", "decoration_sets", "flower_sets",
        "belvederes", "highest_level", "total", "tiebreak_visible_holes",
    }


def test_ranking_tie_break_fewer_visible_holes_wins_and_full_ties_share():
    a = Score(total=40, tiebreak_visible_holes=30)
    b = Score(total=40, tiebreak_visible_holes=20)
    c = Score(total=50, tiebreak_visible_holes=40)
    d = Score(total=40, tiebreak_visible_holes=20)
    standings = rank([("a", a), ("b", b), ("c", c), ("d", d)])
    assert [(s.place, s.name) for s in standings] == [(1, "c"), (2, "b"), (2, "d"), (4, "a")]
