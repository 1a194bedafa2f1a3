"""The garden generator: deterministic, round-trips, legal, and distributed like real end games."""

from __future__ import annotations

import json
import os
import random
import statistics
from collections import Counter

import numpy as np
import pytest
from builders import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.facts import TILES_PER_MATERIAL
from scoring.garden import Garden, garden_from_dict
from scoring.generate import MAX_DECORATIONS, MAX_TILES, _Builder, _Tile, generate_garden
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
    with pytest.raises(ValueError):
        generate_garden(1, n_tiles=17)
    with pytest.raises(ValueError):
        generate_garden(1, max_level=0)
    with pytest.raises(ValueError):
        generate_garden(1, board_flower="green")
    with pytest.raises(TypeError):
        generate_garden("1")  # type: ignore[arg-type]


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
