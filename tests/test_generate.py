"""The garden generator: deterministic, round-trips, legal, and distributed like real end games."""

from __future__ import annotations

import json
import os
import random
import re
import statistics
from collections import Counter

import numpy as np
import pytest
from builders import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.facts import TILES_PER_MATERIAL
from scoring.garden import MAX_LEVEL, Garden, garden_from_dict
from scoring.generate import (
    MAX_DECORATIONS,
    MAX_TILES,
    VOLUNTARY_BELVEDERE,
    _Builder,
    _Candidate,
    _Piece,
    _Tile,
    generate_garden,
)
from scoring.rules import check
from scoring.visibility import decoration_visible, top_levels

SEEDS = range(500)


_SAMPLES: dict[str, tuple[Garden, ...]] = {}


def sample() -> tuple[Garden, ...]:
    """The gardens of SEEDS, made once per process; while mutmut runs the tests (tools/mutation_score.py)
    once per mutant, so that each mutant's own gardens are tested, and for every test in its first
    pass, so that it sees which tests use the generator."""
    key = os.environ.get("MUTANT_UNDER_TEST", "")
    if key == "stats" or key not in _SAMPLES:
        _SAMPLES[key] = tuple(generate_garden(s) for s in SEEDS)
    return _SAMPLES[key]


def _errors(garden: Garden) -> list[str]:
    return [f"{f.rule}: {f.message}" for f in check(garden) if f.severity == "error"]


def _belvedere_tiles(g: Garden) -> int:
    """Tiles resting on 3 supports: those carrying a belvedere on one of their fields."""
    spots = {(c, d.level) for d in g.decorations if d.kind == "belvedere" for c in d.cells}
    return sum(any((c, t.level) in spots for c in t.cells) for t in g.tiles)


def _covered_by(g: Garden, cell: tuple[int, int], level: int) -> list[int]:
    return sorted(t.level for t in g.tiles_at(cell) if t.level > level)


# --- determinism and the file format -------------------------------------------------------------


def test_same_seed_same_garden() -> None:
    for seed in (0, 1, 42, -7, 2**40):
        assert generate_garden(seed) == generate_garden(seed)
        assert generate_garden(seed).to_json() == generate_garden(seed).to_json()


def test_seeds_give_different_gardens() -> None:
    assert len({generate_garden(s).to_json() for s in range(50)}) == 50
    assert generate_garden(5) != generate_garden(-5)


def test_numpy_generator_and_numpy_ints() -> None:
    a = generate_garden(np.random.default_rng(3))
    assert a == generate_garden(np.random.default_rng(3))
    assert generate_garden(np.int64(9)) == generate_garden(9)


def test_round_trip_through_dict_and_json() -> None:
    for g in sample()[:300]:
        assert garden_from_dict(g.to_dict()) == g
        assert garden_from_dict(json.loads(g.to_json())) == g


def test_bad_arguments() -> None:
    """Each refusal says what is allowed and what was given."""
    with pytest.raises(ValueError, match=re.escape("n_tiles must be in 0..16, got 17")):
        generate_garden(1, n_tiles=17)
    with pytest.raises(ValueError, match=re.escape("max_level must be in 1..12, got 0")):
        generate_garden(1, max_level=0)
    with pytest.raises(ValueError, match=re.escape("max_level must be in 1..12, got 13")):
        generate_garden(1, max_level=MAX_LEVEL + 1)
    flowers = "board_flower must be one of white, pink, yellow, blue, got 'green'"
    with pytest.raises(ValueError, match=re.escape(flowers)):
        generate_garden(1, board_flower="green")
    with pytest.raises(TypeError, match=re.escape("seed must be an int or a numpy Generator, got str")):
        generate_garden("1")  # type: ignore[arg-type]


def test_the_highest_level_cap_is_accepted() -> None:
    g = generate_garden(3, n_tiles=16, max_level=MAX_LEVEL)
    assert len(g.tiles) == 16 and not _errors(g)


def test_a_tile_count_that_cannot_be_built_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """After its tries, generate_garden says which count and cap it could not build (games in which
    no tile fits, made here by a stand-in for one game)."""
    import scoring.generate as gen

    def no_tile_fits(rng: random.Random, target: int, max_level: int, flower: str, *, tidy: bool) -> _Builder:
        return _Builder(rng, max_level, flower, tidy)

    monkeypatch.setattr(gen, "_build", no_tile_fits)
    with pytest.raises(ValueError, match=re.escape("could not build 5 tiles with levels up to 3")):
        generate_garden(1, n_tiles=5, max_level=3)
    assert generate_garden(1, n_tiles=0, max_level=3).tiles == ()


# --- the knobs -----------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 5, 12, 16])
def test_n_tiles_honoured(n: int) -> None:
    for seed in range(20):
        assert len(generate_garden(seed, n_tiles=n).tiles) == n


def test_sixteen_tiles_on_one_level() -> None:
    for seed in range(5):
        g = generate_garden(seed, n_tiles=16, max_level=1)
        assert len(g.tiles) == 16 and g.max_level == 1
        assert not _errors(g)


@pytest.mark.parametrize("max_level", [1, 2, 3, 6])
def test_max_level_honoured(max_level: int) -> None:
    levels = {generate_garden(s, max_level=max_level, n_tiles=16).max_level for s in range(40)}
    assert max(levels) == max_level


def test_board_flower() -> None:
    for seed in range(30):
        g = generate_garden(seed, board_flower="yellow")
        assert g.board_flower == "yellow"
    assert {generate_garden(s).board_flower for s in range(40)} == {"white", "pink", "yellow", "blue"}


# --- legality ------------------------------------------------------------------------------------


def test_sample_is_legal() -> None:
    bad = {s: e for s, g in zip(SEEDS, sample(), strict=True) if (e := _errors(g))}
    assert not bad


@settings(max_examples=examples(150), deadline=None)
@given(st.integers())
def test_any_seed_is_legal(seed: int) -> None:
    assert not _errors(generate_garden(seed))


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(0, 2**32), st.integers(0, MAX_TILES), st.integers(1, 7))
def test_any_knobs_are_legal(seed: int, n_tiles: int, max_level: int) -> None:
    g = generate_garden(seed, n_tiles=n_tiles, max_level=max_level)
    assert len(g.tiles) == n_tiles and g.max_level <= max_level
    assert not _errors(g)


def test_physical_conservatism() -> None:
    """What the generator promises beyond the checker: stairs never have a tile one level above their
    top over their lower cell; a statue under a tile one level up is always its pillar (never under
    the belvedere); the tile supply (4 per flower and material, one start tile) is respected."""
    for g in sample():
        belvederes = {(c, d.level) for d in g.decorations if d.kind == "belvedere" for c in d.cells}
        for d in g.decorations:
            if d.kind == "stairs":
                assert d.levels is not None
                lo_cell, lo = min(zip(d.cells, d.levels, strict=True), key=lambda x: x[1])
                assert lo + 1 not in _covered_by(g, lo_cell, lo)
            if d.kind == "statue":
                assert d.level is not None
                assert (d.cells[0], d.level + 1) not in belvederes
        flowers = Counter(t.flower for t in g.tiles)
        for flower, n in flowers.items():
            assert n <= 3 * TILES_PER_MATERIAL + (flower == g.board_flower)
        assert len(g.decorations) <= MAX_DECORATIONS


def test_statues_form_one_line_network() -> None:
    """Each statue after the first was placed in line with an earlier one, so all statues (pillars
    included) are linked by shared rows and columns: stronger than the final-state rule."""
    for g in sample():
        cells = [d.cells[0] for d in g.decorations if d.kind == "statue"]
        if not cells:
            continue
        linked, todo = {cells[0]}, set(cells[1:])
        while grown := {c for c in todo if any(c[0] == o[0] or c[1] == o[1] for o in linked)}:
            linked |= grown
            todo -= grown
        assert not todo


def test_standing_statues_pass_the_spec_final_state_check() -> None:
    """Beyond the checker's linked group: the statues still standing (not serving as pillars under a
    tile one level up) pass the spec's literal final-state check, each in line with another; and
    gardens with several standing statues are common (a third of them have 4 or more)."""
    several = 0
    for g in sample():
        standing = [d.cells[0] for d in g.decorations if d.kind == "statue" and d.level is not None
                    and d.level + 1 not in _covered_by(g, d.cells[0], d.level)]
        if len(standing) >= 2:
            assert all(any(o != s and (o[0] == s[0] or o[1] == s[1]) for o in standing) for s in standing)
        several += len(standing) >= 4
    assert several > len(SEEDS) // 4


# --- the distribution ----------------------------------------------------------------------------


def test_tile_counts_look_like_end_games() -> None:
    counts = [len(g.tiles) for g in sample()]
    assert 1 <= min(counts) <= 2 and max(counts) == MAX_TILES
    typical = sum(8 <= n <= 14 for n in counts) / len(counts)
    assert typical > 0.6


def test_levels_look_like_end_games() -> None:
    levels = Counter(g.max_level for g in sample())
    assert set(levels) == {1, 2, 3, 4, 5}
    assert sum(levels[k] for k in (2, 3, 4)) / len(sample()) > 0.6
    assert levels[5] >= 20


def test_decoration_counts_look_like_end_games() -> None:
    counts = [len(g.decorations) for g in sample()]
    assert min(counts) == 0 and max(counts) >= 18 and max(counts) <= MAX_DECORATIONS
    assert 3 <= statistics.median(counts) <= 12
    kinds = Counter(d.kind for g in sample() for d in g.decorations)
    assert all(kinds[k] >= 100 for k in ("statue", "fountain", "bridge", "stairs", "belvedere"))


def test_three_support_tiles_and_belvederes_occur() -> None:
    with_belvedere = sum(_belvedere_tiles(g) > 0 for g in sample())
    assert 0.3 < with_belvedere / len(sample()) < 0.95


def test_hidden_pieces_occur() -> None:
    hidden, partly, pillars = Counter(), 0, 0
    for g in sample():
        top = top_levels(g)
        for d in g.decorations:
            covered = [top[r][c] > lv for (r, c), lv in d.cell_levels]
            if not decoration_visible(d, top):
                hidden[d.kind] += 1
            elif any(covered):
                partly += 1
            if d.kind == "statue" and d.level is not None:
                pillars += d.level + 1 in _covered_by(g, d.cells[0], d.level)
    assert hidden["belvedere"] >= 20 and hidden["statue"] >= 20
    assert partly >= 20 and pillars >= 10


def test_symbols_match_materials() -> None:
    """Every tile shows 1 to 4 symbols; decorations sit on matching symbols nearly always."""
    mismatched = placed = 0
    for g in sample():
        for t in g.tiles:
            assert t.symbols is not None
            assert 1 <= sum(s is not None for row in t.symbols for s in row) <= 4
        warnings = [f for f in check(g) if f.rule == "symbol-mismatch"]
        mismatched += len(warnings)
        placed += sum(d.kind != "belvedere" for d in g.decorations)
    assert 0.02 < mismatched / placed < 0.04  # drawn at MISMATCH_RATE = 3% (a few land on a match)


def test_a_tile_offers_a_field_for_a_piece_only_if_its_symbol_can_be_there() -> None:
    t = _Tile(2, 4, 1, "pink", n_symbols=2, fields=["", "statue", None, None])
    assert [t.accepts(i, "statue") for i in (2 * 8 + 4, 2 * 8 + 5, 3 * 8 + 4, 3 * 8 + 5)] == [
        False, True, True, True]  # blank; the statue already; undecided with a symbol slot left
    assert not t.accepts(2 * 8 + 5, "fountain")
    full = _Tile(2, 4, 1, "pink", n_symbols=1, fields=[None, "statue", None, None])
    assert not full.accepts(2 * 8 + 4, "fountain")  # its one symbol is decided


def test_a_mismatched_field_never_shows_the_pieces_symbol() -> None:
    builder = _Builder(random.Random(0), 5, "pink")
    shown = set()
    for seed in range(40):
        builder.rng = random.Random(seed)
        t = _Tile(0, 0, 1, "pink", n_symbols=2, fields=[None, "bridge", None, None])
        builder._mismatch_field(t, 0, "statue")
        assert t.fields[0] in ("", "fountain", "bridge", "stairs")
        shown.add(t.fields[0])
        full = _Tile(0, 0, 1, "pink", n_symbols=1, fields=[None, "bridge", None, None])
        builder._mismatch_field(full, 0, "statue")
        assert full.fields[0] == ""  # no symbol slot left: a blank field
    assert "" in shown and len(shown) >= 3
    decided = _Tile(0, 0, 1, "pink", n_symbols=2, fields=["statue", None, None, None])
    builder._mismatch_field(decided, 0, "fountain")
    assert decided.fields[0] == "statue"


# The generator's parts, one at a time: where a tile may stand and how it is weighed, which levels
# are tried, when a belvedere is made, where each decoration may go. Expected values are worked out by
# hand from the docstrings of scoring/generate.py and spec 1.1-1.3 (the board is 8 x 8; a cell is
# r * 8 + c). Fixtures are built with _Steady, a random source that always says 0.99: no start tile,
# no voluntary belvedere, so a hand-made garden holds exactly the pieces the test puts there.


class _Steady(random.Random):
    """random() is always 0.99 (choices and ranges are drawn from it too)."""

    def random(self) -> float:
        return 0.99


def _at(r: int, c: int) -> int:
    return r * 8 + c


def _builder(*tiles: tuple[int, int, int], max_level: int = 5, tidy: bool = False) -> _Builder:
    """A builder holding the given tiles (row, col, level), placed in order through evaluate/_place."""
    b = _Builder(_Steady(0), max_level, "pink", tidy)
    for r, c, k in tiles:
        cand = b.evaluate(r, c, k)
        assert cand is not None, (r, c, k)
        b._place(cand, k)
    assert not b.pieces
    return b


def _fill(b: _Builder, n: int) -> None:
    """Pieces elsewhere (not on any field the test looks at), up to ``n`` in all."""
    while len(b.pieces) < n:
        b.pieces.append(_Piece("belvedere", (_at(7, 7),), (1,)))


# --- the parts: tiles ----------------------------------------------------------------------------


def test_border_is_the_eight_cells_edge_to_edge_with_a_block() -> None:
    """The cells sharing an edge with the 2 x 2 block at (r, c), within the board; not the diagonals."""
    def border(r: int, c: int) -> list[int]:
        return sorted(_Builder._border(r, c))

    def cells(*rcs: tuple[int, int]) -> list[int]:
        return sorted(_at(*rc) for rc in rcs)

    assert border(3, 3) == cells((2, 3), (2, 4), (5, 3), (5, 4), (3, 2), (4, 2), (3, 5), (4, 5))
    assert border(1, 1) == cells((0, 1), (0, 2), (3, 1), (3, 2), (1, 0), (2, 0), (1, 3), (2, 3))
    assert border(0, 0) == cells((2, 0), (2, 1), (0, 2), (1, 2))
    assert border(6, 6) == cells((5, 6), (5, 7), (6, 5), (7, 5))
    assert border(0, 6) == cells((2, 6), (2, 7), (0, 5), (1, 5))


def test_evaluate_keeps_the_last_decoration_for_pieces_not_belvederes() -> None:
    """A tile needing a belvedere is refused once the garden holds MAX_DECORATIONS pieces; a tile on
    4 supports is not."""
    b = _builder((0, 0, 1))
    b._add_piece(_Piece("belvedere", (_at(1, 0),), (1,)))  # on the level-1 tile: no pillar there now
    # level 2 over (1,0): the belvedere's field, a level-1 field, two board fields
    assert b.evaluate(1, 0, 2) == _Candidate(1, 0, ("none", "single", "double", "double"))
    _fill(b, MAX_DECORATIONS - 1)
    assert b.evaluate(1, 0, 2) is not None
    _fill(b, MAX_DECORATIONS)
    assert b.evaluate(1, 0, 2) is None
    assert b.evaluate(0, 1, 2) == _Candidate(0, 1, ("single", "double", "single", "double"))


def test_position_weight() -> None:
    """Level 1: 4 next to a tile (edge to edge), 0.5 apart, 1 for the first tile. Higher: 4 on 4
    supports, 0.6 with a belvedere, plus 1 per field on a single pillar (surface one level down)."""
    empty = _builder()
    assert empty._position_weight(empty.evaluate(0, 0, 1), 1) == 1.0
    b = _builder((3, 3, 1))
    assert b._position_weight(b.evaluate(3, 5, 1), 1) == 4.0  # right beside it
    assert b._position_weight(b.evaluate(1, 3, 1), 1) == 4.0  # above it
    assert b._position_weight(b.evaluate(5, 5, 1), 1) == 0.5  # corner to corner only
    assert b._position_weight(b.evaluate(0, 0, 1), 1) == 0.5
    # level 2 at (2,2): fields (2,2) (2,3) (3,2) on the board, (3,3) on the level-1 tile
    assert b._position_weight(b.evaluate(2, 2, 2), 2) == 4.0 + 1
    assert b._position_weight(b.evaluate(3, 4, 2), 2) == 4.0 + 2
    b._add_piece(_Piece("belvedere", (_at(3, 3),), (1,)))
    cand = b.evaluate(2, 2, 2)
    assert cand.classes == ("double", "double", "double", "none")
    assert b._position_weight(cand, 2) == 0.6 + 1


def test_statue_pillars_ok() -> None:
    """Statues under a new tile become its pillars; the statues left standing must each share a row or
    column with another, if there are 2 or more of them."""
    b = _builder((0, 0, 1), (0, 4, 1))
    for rc in [(0, 1), (1, 5), (1, 1)]:  # (1,1) links (0,1) (column 1) and (1,5) (row 1)
        b._add_piece(_Piece("statue", (_at(*rc),), (1,)))
    over_link = b.evaluate(1, 1, 2)
    assert over_link.classes == ("statue", "double", "double", "double")
    assert not b.statue_pillars_ok(over_link)  # (0,1) and (1,5) would be left apart
    assert b.statue_pillars_ok(b.evaluate(1, 5, 2))  # (0,1) and (1,1) stay, in column 1
    both = b.evaluate(0, 1, 2)  # over (0,1) and (1,1): (1,5) is left alone, the only one standing
    assert both.classes == ("statue", "double", "statue", "double")
    assert b.statue_pillars_ok(both)
    assert b.statue_pillars_ok(b.evaluate(4, 4, 1))  # no statue under it


def test_level_order_is_every_level_up_to_one_above_the_highest() -> None:
    for max_built in range(6):
        for seed in range(30):
            b = _Builder(random.Random(seed), 5, "pink")
            b.max_built = max_built
            order = b.level_order(climb=0.3, spread=0.7)
            assert sorted(order) == list(range(1, min(max_built + 1, 5) + 1))


def test_level_order_prefers_a_level_already_built() -> None:
    """Not climbing (climb 0) with spread 0, the preferred level is always level 1; climbing for sure
    (climb 1), it is one above the highest, unless that is over the cap: then it is a built one."""
    firsts, eager, capped = set(), set(), set()
    for seed in range(40):
        b = _Builder(random.Random(seed), 5, "pink")
        b.max_built = 3
        firsts.add(b.level_order(climb=0.0, spread=0.0)[0])
        b.max_built = 2
        eager.add(b.level_order(climb=1.0, spread=1.0)[0])
        c = _Builder(random.Random(seed), 2, "pink")
        c.max_built = 2
        capped.add(c.level_order(climb=1.0, spread=0.0)[0])
    assert firsts == {1} and eager == {3} and capped == {1}
    assert _Builder(random.Random(0), 5, "pink").level_order(climb=1.0, spread=1.0) == [1]


def test_next_tile_goes_beside_the_garden_three_times_in_four() -> None:
    """One level-1 tile at (3,3) on a one-level board: 40 places are free, 12 of them edge to edge
    with it (weight 4) and 28 apart (weight 0.5): 48 / 62 = 77% beside it (30% if drawn evenly)."""
    beside = 0
    for seed in range(400):
        b = _builder((3, 3, 1), max_level=1)
        b.rng = random.Random(seed)
        assert b.place_next_tile(climb=0.3, spread=0.7)
        t = b.tiles[-1]
        beside += any(b.top_tile[j] == 0 for j in _Builder._border(t.row, t.col))
    assert 0.65 < beside / 400 < 0.9


def test_place_next_tile_says_when_nothing_fits() -> None:
    b = _Builder(random.Random(1), 1, "pink", tidy=True)  # level 1 only, on the even grid
    for _ in range(16):
        assert b.place_next_tile(climb=0.3, spread=0.7)
    assert not b.place_next_tile(climb=0.3, spread=0.7)
    assert len(b.tiles) == 16


def test_unsupported_field() -> None:
    """The forced field; otherwise now and then (VOLUNTARY_BELVEDERE) a pillar field, never a statue's,
    and never once the garden holds MAX_DECORATIONS pieces."""
    cells = (_at(2, 2), _at(2, 3), _at(3, 2), _at(3, 3))
    b = _Builder(random.Random(0), 5, "pink")
    assert b._unsupported_field(cells, ("single", "double", "none", "statue")) == cells[2]

    def drawn(classes: tuple[str, ...], pieces: int = 0) -> list[int | None]:
        out = []
        for seed in range(1000):
            b = _Builder(random.Random(seed), 5, "pink")
            _fill(b, pieces)
            out.append(b._unsupported_field(cells, classes))
        return out

    singles = drawn(("single",) * 4)
    assert set(singles) == {None, *cells}
    assert abs(sum(x is not None for x in singles) / 1000 - VOLUNTARY_BELVEDERE) < 0.03
    assert set(drawn(("double",) * 4)) == {None, *cells}
    assert set(drawn(("statue", "single", "statue", "double"))) == {None, cells[1], cells[3]}
    assert set(drawn(("statue",) * 4)) == {None}
    assert set(drawn(("single",) * 4, pieces=MAX_DECORATIONS)) == {None}


def test_only_a_statue_one_level_down_becomes_a_pillar() -> None:
    b = _builder((0, 0, 1))
    b._add_piece(_Piece("statue", (_at(0, 0),), (1,)))
    cand = b.evaluate(0, 0, 3)  # two levels up: the statue cannot carry it, a belvedere stands there
    assert cand.classes == ("none", "double", "double", "double")
    b._place(cand, 3)
    assert not b.pieces[0].pillar and b.statues() == [0]
    assert (b.pieces[1].kind, b.pieces[1].cells, b.pieces[1].levels) == ("belvedere", (_at(0, 0),), (3,))
    c = _builder((0, 0, 1))
    c._add_piece(_Piece("statue", (_at(0, 1),), (1,)))
    cand = c.evaluate(0, 1, 2)
    assert cand.classes == ("statue", "double", "single", "double")
    c._place(cand, 2)
    assert c.pieces[0].pillar and c.statues() == [] and len(c.pieces) == 1


# --- the parts: decorations ----------------------------------------------------------------------


def _blank(b: _Builder) -> _Builder:
    for t in b.tiles:
        t.fields = ["", "", "", ""]
    return b


def test_candidates_follow_the_symbols_unless_mismatched() -> None:
    """On tiles whose fields are all blank, nothing fits its symbol; with the round marker (mismatch)
    every place the pieces' shapes allow is offered."""
    one = _blank(_builder((0, 0, 1)))
    assert one.candidates("statue", False) == []
    assert one.candidates("statue", True) == [(0,), (1,), (8,), (9,)]
    two = _blank(_builder((0, 0, 1), (0, 2, 1)))  # side by side: fountains across the seam
    assert two.candidates("fountain", False) == []
    assert two.candidates("fountain", True) == [(1, 2), (9, 10)]
    gap = _blank(_builder((0, 0, 1), (0, 3, 1)))  # a board cell between: bridges over it
    assert gap.candidates("bridge", False) == []
    assert gap.candidates("bridge", True) == [(1, 2, 3), (9, 10, 11)]


def _steps() -> _Builder:
    """Level 2 at (0,0) and (0,4), level 1 at (0,2) and (2,0): stairs up and down, both directions."""
    return _builder((0, 0, 2), (0, 2, 1), (2, 0, 1), (0, 4, 2))


def test_stairs_are_listed_lower_field_first() -> None:
    expected = [(_at(0, 2), _at(0, 1)), (_at(1, 2), _at(1, 1)), (_at(2, 0), _at(1, 0)),
                (_at(2, 1), _at(1, 1)), (_at(0, 3), _at(0, 4)), (_at(1, 3), _at(1, 4))]
    assert sorted(_steps().candidates("stairs", False)) == sorted(expected)
    assert _blank(_steps()).candidates("stairs", False) == []
    assert sorted(_blank(_steps()).candidates("stairs", True)) == sorted(expected)


def test_a_bridge_needs_its_symbol_possible_at_both_ends() -> None:
    """Tile (0,0) shows its one symbol, a bridge, on (0,1); tile (0,3) on (1,3); their other fields
    can show nothing more: neither row offers a bridge, until (0,3) gets a second symbol slot."""
    b = _builder((0, 0, 1), (0, 3, 1))
    b.tiles[0].n_symbols, b.tiles[0].fields = 1, [None, "bridge", None, None]
    b.tiles[1].n_symbols, b.tiles[1].fields = 1, [None, None, "bridge", None]
    assert b.candidates("bridge", False) == []
    b.tiles[1].n_symbols = 2
    assert b.candidates("bridge", False) == [(1, 2, 3)]


def _deck() -> _Builder:
    """Level 2 at (0,0) and (0,3) with level 1 at (0,1) between: rows 0 and 1 read 2 2 1 2 2."""
    return _builder((0, 1, 1), (0, 0, 2), (0, 3, 2))


def test_no_bridge_over_a_piece() -> None:
    b = _deck()
    assert b.candidates("bridge", False) == [(1, 2, 3), (9, 10, 11)]
    b._add_piece(_Piece("statue", (_at(0, 2),), (1,)))  # the first piece, on the middle of row 0
    assert b.candidates("bridge", False) == [(9, 10, 11)]


def test_a_bridge_takes_symbols_at_its_ends_only() -> None:
    """The field under a bridge's deck is not the bridge's: the lower tile's symbols stay undecided."""
    bridges = 0
    for seed in range(60):
        b = _deck()
        b.rng = random.Random(seed)
        if not b.try_decoration() or b.pieces[-1].kind != "bridge":
            continue
        p = b.pieces[-1]
        bridges += 1
        assert p.levels == (2, 2, 2)  # the deck spans at its ends' level, over the middle too
        assert b.tiles[0].fields == [None, None, None, None]  # the level-1 tile under the deck
        for i in (p.cells[0], p.cells[2]):
            tile = b.tiles[b.top_tile[i]]
            assert tile.fields[tile.pos(i)] is not None  # "bridge" (or another, when mismatched)
    assert bridges >= 5


def test_try_decoration_stops_at_the_cap_and_when_nothing_fits() -> None:
    for seed in range(30):
        b = _builder((0, 0, 1), (0, 2, 1))
        b.rng = random.Random(seed)
        _fill(b, MAX_DECORATIONS)
        assert not b.try_decoration() and len(b.pieces) == MAX_DECORATIONS
        empty = _Builder(random.Random(seed), 5, "pink")
        assert not empty.try_decoration() and empty.pieces == []


def test_a_piece_goes_on_a_field_without_its_symbol_only_with_the_round_marker() -> None:
    """All fields blank: a piece is placed only when the mismatch is drawn (MISMATCH_RATE, 3%), and
    the blank fields stay blank."""
    placed = 0
    for seed in range(1000):
        b = _blank(_steps())
        b.rng = random.Random(seed)
        if b.try_decoration():
            placed += 1
            assert all(t.fields == ["", "", "", ""] for t in b.tiles)
    assert 5 <= placed <= 40  # 1.6% of 1000: 3% times the chance of a statue or stairs (5.5 / 10.5)


def test_a_mismatched_piece_shows_another_symbol_or_a_blank_on_its_first_field() -> None:
    """With the round marker, the first field of a fountain gets a blank or another symbol, never a
    fountain; the second field still takes the fountain."""
    shown = set()
    for seed in range(60):
        b = _builder((0, 0, 1))
        b.rng = random.Random(seed)
        b.tiles[0].n_symbols, b.tiles[0].fields = 2, [None, None, None, None]
        b._assign_symbols([_at(0, 0), _at(0, 1)], "fountain", mismatch=True)
        first, second = b.tiles[0].fields[:2]
        assert first in ("", "statue", "bridge", "stairs") and second == "fountain"
        shown.add(first)
    assert "" in shown and len(shown) >= 3


# --- the parts: the builder's bookkeeping --------------------------------------------------------


def test_look_ups_follow_each_step() -> None:
    """``top``: the highest tile's level per cell (0: the board); ``top_tile``: that tile's index (-1:
    the board); ``live``: the piece on the top field (-1: none). A statue covered by a tile one level
    up is its pillar and no longer on a top field."""
    b = _builder()
    assert b.top == [0] * 64 and b.top_tile == [-1] * 64 and b.live == [-1] * 64
    b = _builder((0, 0, 1))
    b._add_piece(_Piece("statue", (_at(0, 1),), (1,)))
    assert b.live == [0 if i == _at(0, 1) else -1 for i in range(64)]
    b._place(b.evaluate(0, 1, 2), 2)
    first, second = {_at(0, 0), _at(1, 0)}, {_at(0, 1), _at(0, 2), _at(1, 1), _at(1, 2)}
    assert b.top == [1 if i in first else 2 if i in second else 0 for i in range(64)]
    assert b.top_tile == [0 if i in first else 1 if i in second else -1 for i in range(64)]
    assert b.live == [-1] * 64
    assert b.footprints == {(1, 0, 0), (2, 0, 1)} and b.max_built == 2 and b.pieces[0].pillar


def test_only_tidy_builders_keep_level_1_on_the_even_grid() -> None:
    """A builder is untidy unless told (generate_garden asks for tidiness after 3 failed tries)."""
    untidy, tidy = set(), set()
    for seed in range(40):
        a = _Builder(random.Random(seed), 1, "pink")
        b = _Builder(random.Random(seed), 1, "pink", tidy=True)
        for _ in range(3):
            assert a.place_next_tile(climb=0.3, spread=0.7) and b.place_next_tile(climb=0.3, spread=0.7)
        untidy |= {(t.row % 2, t.col % 2) for t in a.tiles}
        tidy |= {(t.row % 2, t.col % 2) for t in b.tiles}
    assert tidy == {(0, 0)} and untidy == {(0, 0), (0, 1), (1, 0), (1, 1)}
