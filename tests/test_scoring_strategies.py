"""Hypothesis over gardens built cell by cell, not by the generator: any garden (illegal ones
included) against a scorer restated here from the spec's table, and legal gardens built by the
rules against the checker."""

from __future__ import annotations

from builders import FLOWERS, KINDS, examples, spec_score
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.garden import Decoration, Garden, Tile
from scoring.rules import RULES, check, is_legal
from scoring.score import score_garden

SETTINGS = settings(max_examples=examples(120), deadline=None)

cells = st.tuples(st.integers(0, 7), st.integers(0, 7))
symbol = st.sampled_from([None, "statue", "fountain", "bridge", "stairs"])
symbols = st.none() | st.tuples(st.tuples(symbol, symbol), st.tuples(symbol, symbol))
tiles = st.builds(Tile, row=st.integers(0, 6), col=st.integers(0, 6), level=st.integers(1, 5),
                  flower=st.sampled_from(FLOWERS), symbols=symbols)


@st.composite
def decorations(draw: st.DrawFn) -> Decoration:
    kind = draw(st.sampled_from(KINDS))
    n = {"statue": 1, "fountain": 2, "bridge": 3, "stairs": 2, "belvedere": 1}[kind]
    where = tuple(draw(st.lists(cells, min_size=n, max_size=n, unique=True)))
    if kind == "stairs":
        return Decoration(kind=kind, cells=where, levels=(draw(st.integers(1, 5)), draw(st.integers(1, 5))))
    return Decoration(kind=kind, cells=where, level=draw(st.integers(1, 5)))


any_garden = st.builds(
    Garden, board_flower=st.none() | st.sampled_from(FLOWERS),
    tiles=st.lists(tiles, max_size=12).map(tuple),
    decorations=st.lists(decorations(), max_size=10).map(tuple),
)


@SETTINGS
@given(any_garden)
def test_any_garden_scores_as_the_table_says(g):
    assert score_garden(g).to_dict() == spec_score(g)


@SETTINGS
@given(any_garden)
def test_findings_of_any_garden_are_well_formed_and_ordered(g):
    findings = check(g)
    for f in findings:
        assert f.rule in RULES and f.message
        assert f.severity == ("warning" if f.rule == "symbol-mismatch" else "error")
        assert f.cells and list(f.cells) == sorted(set(f.cells))
        assert all(0 <= r < 8 and 0 <= c < 8 for r, c in f.cells)
    keys = [(f.severity != "error", f.rule, f.cells) for f in findings]
    assert keys == sorted(keys)
    assert is_legal(g) == all(f.severity == "warning" for f in findings)


@SETTINGS
@given(any_garden, st.data())
def test_a_tile_laid_twice_overlaps_itself(g, data):
    if not g.tiles:
        return
    t = data.draw(st.sampled_from(g.tiles))
    twice = g.model_copy(update={"tiles": (*g.tiles, t)})
    assert any(f.rule == "tile-overlap" and f.cells == t.cells for f in check(twice))


@SETTINGS
@given(any_garden, tiles)
def test_a_tile_over_everything_hides_what_it_covers(g, cover):
    on_top = cover.model_copy(update={"level": g.max_level + 1})
    before, after = score_garden(g), score_garden(g.model_copy(update={"tiles": (*g.tiles, on_top)}))
    assert after.highest_level == 2 * on_top.level
    assert after.tiebreak_visible_holes == before.tiebreak_visible_holes - sum(
        not any(c in t.cells for t in g.tiles) for c in on_top.cells)
    for row in ("statues", "fountains", "bridges", "stairs", "belvederes"):
        assert getattr(after, row) <= getattr(before, row)


# --- legal gardens, built the way the rules allow -----------------------------------------------


@st.composite
def legal_gardens(draw: st.DrawFn) -> Garden:
    """Tiles level by level, each on 3 or 4 single or double pillars (a belvedere on the open
    corner of 3), never straight over a tile of the same footprint one level down, at most 12 of a
    flower; then
    decorations on free top fields by their placement rules (statues in line with an earlier one,
    fountains and bridges between two tiles of one level, stairs one level apart)."""
    deck = [f for f in FLOWERS for _ in range(12)]
    top = [[0] * 8 for _ in range(8)]
    owner: dict[tuple[int, int], int] = {}  #: the top tile of each covered cell
    laid: list[Tile] = []
    footprints: set[tuple[int, int, int]] = set()
    belvederes: list[Decoration] = []
    belvedere_at: dict[tuple[int, int], int] = {}
    for level in range(1, draw(st.integers(1, 4)) + 1):

        def pillar(x: int, y: int, level: int = level) -> bool:  # 1 or 2 levels up, no belvedere on it
            return level - top[x][y] in (1, 2) and belvedere_at.get((x, y)) != top[x][y]

        spots = [(r, c) for r in range(7) for c in range(7) if (level - 1, r, c) not in footprints
                 and sum(pillar(r + dr, c + dc) for dr in (0, 1) for dc in (0, 1)) >= 3]
        if not spots:
            break
        for r, c in draw(st.lists(st.sampled_from(spots), min_size=1, max_size=6, unique=True)):
            block = [(r + dr, c + dc) for dr in (0, 1) for dc in (0, 1)]
            if any(top[x][y] >= level for x, y in block):
                continue  # overlaps a tile laid on this level already
            open_field = [(x, y) for x, y in block if not pillar(x, y)]
            if len(open_field) > 1:
                continue
            flower = deck.pop(draw(st.integers(0, len(deck) - 1)))
            laid.append(Tile(row=r, col=c, level=level, flower=flower))
            footprints.add((level, r, c))
            for x, y in block:
                top[x][y] = level
                owner[(x, y)] = len(laid) - 1
            if open_field:  # three supports: the belvedere goes on the open corner at once
                belvederes.append(Decoration(kind="belvedere", cells=(open_field[0],), level=level))
                belvedere_at[open_field[0]] = level
    used = {cell for cell, lv in belvedere_at.items() if top[cell[0]][cell[1]] == lv}
    decos = [*belvederes]

    def free(cell) -> bool:
        return top[cell[0]][cell[1]] > 0 and cell not in used

    def tile_of(cell) -> int:
        return owner[cell]

    pairs = [((r, c), (r + dr, c + dc)) for r in range(8) for c in range(8) for dr, dc in ((0, 1), (1, 0))
             if r + dr < 8 and c + dc < 8]
    statues: list[tuple[int, int]] = []
    for kind in draw(st.lists(st.sampled_from(KINDS[:4]), max_size=10)):
        options: list[tuple[tuple[int, int], ...]] = []
        if kind == "statue":
            options = [(cell,) for cell in owner if free(cell)
                       and (not statues or any(cell[0] == s[0] or cell[1] == s[1] for s in statues))]
        elif kind == "fountain":
            options = [(a, b) for a, b in pairs if free(a) and free(b) and top[a[0]][a[1]] == top[b[0]][b[1]]
                       and tile_of(a) != tile_of(b)]
        elif kind == "stairs":
            options = [(a, b) for a, b in pairs if free(a) and free(b)
                       and abs(top[a[0]][a[1]] - top[b[0]][b[1]]) == 1]
        else:
            for a, _ in pairs:
                for d in ((0, 1), (1, 0)):
                    m, b = (a[0] + d[0], a[1] + d[1]), (a[0] + 2 * d[0], a[1] + 2 * d[1])
                    if b[0] < 8 and b[1] < 8 and free(a) and free(b) and m not in used:
                        lv = top[a[0]][a[1]]
                        if top[b[0]][b[1]] == lv and top[m[0]][m[1]] < lv:
                            options.append((a, m, b))
        if not options:
            continue
        where = draw(st.sampled_from(options))
        used.update(where)
        if kind == "stairs":
            decos.append(Decoration(kind=kind, cells=where, levels=tuple(top[x][y] for x, y in where)))
        else:
            decos.append(Decoration(kind=kind, cells=where, level=top[where[0][0]][where[0][1]]))
        if kind == "statue":
            statues.append(where[0])
    return Garden(tiles=tuple(laid), decorations=tuple(decos))


@SETTINGS
@given(legal_gardens())
def test_gardens_built_by_the_rules_are_legal(g):
    assert check(g) == []
    assert score_garden(g).to_dict() == spec_score(g)


@SETTINGS
@given(legal_gardens(), st.sampled_from(FLOWERS))
def test_any_board_may_hold_twelve_tiles_of_each_other_flower(g, board):
    assert check(g.model_copy(update={"board_flower": board})) == []
