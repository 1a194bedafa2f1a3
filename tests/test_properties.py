"""Properties over generated gardens (hypothesis draws the generator's seeds); expected values come
from the spec's score table restated in tests/builders.py, never from the scorer's own helpers.
Gardens built cell by cell are in test_scoring_strategies.py."""

from __future__ import annotations

from builders import examples, spec_points, spec_score
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.garden import Garden, garden_from_dict, loads
from scoring.generate import generate_garden
from scoring.rules import check
from scoring.score import score_garden
from scoring.visibility import top_levels, view

seeds = st.integers(min_value=0, max_value=2**32 - 1)
SETTINGS = settings(max_examples=examples(150), deadline=None)


@SETTINGS
@given(seeds)
def test_every_generated_garden_is_legal(seed):
    errors = [f for f in check(generate_garden(seed)) if f.severity == "error"]
    assert errors == []


@SETTINGS
@given(seeds)
def test_generated_gardens_score_as_the_table_says(seed):
    g = generate_garden(seed)
    assert score_garden(g).to_dict() == spec_score(g)


@SETTINGS
@given(seeds)
def test_scores_survive_serialising_and_reloading(seed):
    g = generate_garden(seed)
    again = loads(g.to_json())
    assert again == g
    assert score_garden(again) == score_garden(g)
    assert score_garden(garden_from_dict(g.to_dict())) == score_garden(g)


def _without(g: Garden, i: int) -> Garden:
    return g.model_copy(update={"decorations": g.decorations[:i] + g.decorations[i + 1 :]})


@SETTINGS
@given(seeds, st.data())
def test_a_visible_piece_adds_exactly_its_points_to_its_row(seed, data):
    g = generate_garden(seed)
    seen = view(g).decorations
    visible = [i for i, d in enumerate(g.decorations) if d in seen]
    if not visible:
        return
    i = data.draw(st.sampled_from(visible))
    d = g.decorations[i]
    row = {"statue": "statues", "fountain": "fountains", "bridge": "bridges", "stairs": "stairs",
           "belvedere": "belvederes"}[d.kind]
    before, after = score_garden(g).to_dict(), score_garden(_without(g, i)).to_dict()
    assert before[row] - after[row] == spec_points(d)


@SETTINGS
@given(seeds, st.data())
def test_covering_a_piece_completely_removes_exactly_its_points(seed, data):
    g = generate_garden(seed)
    seen = view(g).decorations
    candidates = [i for i, d in enumerate(g.decorations) if d in seen and d.kind != "bridge"]
    if not candidates:
        return
    i = data.draw(st.sampled_from(candidates))
    d = g.decorations[i]
    # a tile one level above everything, over a 2 x 2 block holding all the piece's cells
    r0 = min(min(r for r, _ in d.cells), 6)
    c0 = min(min(c for _, c in d.cells), 6)
    cover = g.tiles[0].model_copy(update={"row": r0, "col": c0, "level": g.max_level + 1})
    covered = g.model_copy(update={"tiles": (*g.tiles, cover)})
    assert d not in view(covered).decorations
    # with the cover on, the piece is worth nothing: the garden scores as if it were not there
    assert score_garden(covered) == score_garden(_without(covered, i))


@SETTINGS
@given(seeds)
def test_visible_holes_are_the_cells_no_tile_covers(seed):
    g = generate_garden(seed)
    covered = {cell for t in g.tiles for cell in t.cells}
    assert score_garden(g).tiebreak_visible_holes == 64 - len(covered)
    top = top_levels(g)
    assert all(top[r][c] == max((t.level for t in g.tiles if t.covers((r, c))), default=0)
               for r in range(8) for c in range(8))
