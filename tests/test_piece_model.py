"""The piece networks: the reader's learned second opinion on the decorations."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scoring.garden import Decoration, Garden, Tile
from vision.camera import Camera
from vision.profile import REFERENCE, VARIANT
from vision.read import decorations, piece_model
from vision.read.decorations import Surfaces, candidates
from vision.read.pieces import truth_tiles
from vision.read.views import board_gain
from vision.render.photo import render_photo, save_photo

PLAIN = dict(size=(1600, 1200), optics={"k2": 0.0, "principal_offset": (0.0, 0.0)})
COLOUR_KINDS = ("statue", "stairs", "fountain")  #: the kinds with a network of the reference's colours


def _two_tiles(kind: str, a: tuple[int, int], b: tuple[int, int]) -> Garden:
    """Two tiles on level 1 (blocks (1, 1) and (4, 4)), a ``kind`` on field ``a`` of one, ``b`` of the
    other."""
    return Garden(
        format="babylon-garden/1",
        board_flower="blue",
        tiles=[Tile(row=1, col=1, level=1, flower="pink"), Tile(row=4, col=4, level=1, flower="yellow")],
        decorations=[Decoration(kind=kind, cells=(a,), level=1), Decoration(kind=kind, cells=(b,), level=1)],
    )


def _statue_garden() -> Garden:
    return _two_tiles("statue", (1, 2), (5, 4))


def _stairs_garden() -> Garden:
    """Three tiles on level 1 round one on level 2, stairs up to it from two of them."""
    return Garden(
        format="babylon-garden/1",
        board_flower="blue",
        tiles=[
            Tile(row=2, col=2, level=1, flower="pink"),
            Tile(row=4, col=2, level=1, flower="white"),
            Tile(row=2, col=4, level=2, flower="yellow"),
            Tile(row=4, col=4, level=1, flower="yellow"),
        ],
        decorations=[
            Decoration(kind="stairs", cells=((2, 3), (2, 4)), levels=(1, 2)),
            Decoration(kind="stairs", cells=((4, 4), (3, 4)), levels=(1, 2)),
        ],
    )


def _fountain_garden() -> Garden:
    """Three tiles on level 1, a fountain across each of two gaps between them."""
    return Garden(
        format="babylon-garden/1",
        board_flower="blue",
        tiles=[
            Tile(row=2, col=2, level=1, flower="pink"),
            Tile(row=2, col=4, level=1, flower="yellow"),
            Tile(row=4, col=2, level=1, flower="white"),
        ],
        decorations=[
            Decoration(kind="fountain", cells=((2, 3), (2, 4)), level=1),
            Decoration(kind="fountain", cells=((3, 2), (4, 2)), level=1),
        ],
    )


def _bridge_garden() -> Garden:
    """Four tiles on level 1 in two rows, a bridge over the gap in each row."""
    return Garden(
        format="babylon-garden/1",
        board_flower="blue",
        tiles=[
            Tile(row=2, col=1, level=1, flower="pink"),
            Tile(row=2, col=4, level=1, flower="yellow"),
            Tile(row=5, col=1, level=1, flower="white"),
            Tile(row=5, col=4, level=1, flower="yellow"),
        ],
        decorations=[
            Decoration(kind="bridge", cells=((2, 2), (2, 3), (2, 4)), level=1),
            Decoration(kind="bridge", cells=((6, 2), (6, 3), (6, 4)), level=1),
        ],
    )


def test_the_shipped_statue_network_tells_a_statue_from_the_fields_beside_it():
    photo = render_photo(_statue_garden(), 20_021, tilt_deg=12.0, **PLAIN)
    model = piece_model.model_for("statue", REFERENCE)
    assert model is not None
    cam = Camera.from_dict(photo.truth["camera"])
    fields = [(1, 2), (5, 4)] + [(1, 1), (2, 1), (2, 2), (4, 4), (4, 5), (5, 5)]
    patches = [piece_model.statue_patch(photo.image, cam, REFERENCE, f, 1) for f in fields]
    p = model.on_patches(patches, board_gain(photo.image, cam, REFERENCE))
    assert p[:2].min() >= decorations.LOOKS_SURE
    assert p[2:].max() < 0.5


def test_the_shipped_stairs_network_tells_the_stairs_from_the_other_ways_up():
    """Every place the rules allow stairs on the true tiles, seen from above: the two that stand there
    look surely like stairs, none of the others does."""
    photo = render_photo(_stairs_garden(), 20_040, tilt_deg=10.0, **PLAIN)
    model = piece_model.model_for("stairs", REFERENCE)
    assert model is not None
    cam = Camera.from_dict(photo.truth["camera"])
    surf = Surfaces(truth_tiles(photo.truth, REFERENCE), REFERENCE)
    ways = [c for c in candidates(surf) if c.kind == "stairs"]
    truth = {frozenset(d.cell_levels) for d in _stairs_garden().decorations}
    patches = [piece_model.stairs_patch(photo.image, cam, c.origin, c.angle_deg, c.run, c.rise) for c in ways]
    p = model.on_patches(patches, board_gain(photo.image, cam, REFERENCE))
    there = np.array([frozenset(c.fields) in truth for c in ways])
    assert there.sum() == 2 and len(ways) > 2
    assert p[there].min() >= decorations.LOOKS_SURE
    assert p[~there].max() < 0.5


def test_the_shipped_fountain_network_tells_the_fountains_from_the_other_places():
    """Every place the rules allow a fountain on the true tiles: the two that stand there look surely
    like fountains, none of the others does."""
    photo = render_photo(_fountain_garden(), 20_050, tilt_deg=14.0, **PLAIN)
    model = piece_model.model_for("fountain", REFERENCE)
    assert model is not None
    cam = Camera.from_dict(photo.truth["camera"])
    surf = Surfaces(truth_tiles(photo.truth, REFERENCE), REFERENCE)
    places = [c for c in candidates(surf) if c.kind == "fountain" and not c.hidden]
    truth = {frozenset(d.cell_levels) for d in _fountain_garden().decorations}
    patches = [piece_model.fountain_patch(photo.image, cam, REFERENCE, c.origin, c.angle_deg) for c in places]
    p = model.on_patches(patches, board_gain(photo.image, cam, REFERENCE))
    there = np.array([frozenset(c.fields) in truth for c in places])
    assert there.sum() == 2 and len(places) > 2
    assert p[there].min() >= decorations.LOOKS_SURE
    assert p[~there].max() < 0.5


def test_a_network_is_only_asked_about_the_piece_it_learned():
    """Another edition's pieces (the variant's purple resin statue, its slate stairs, its teal water)
    are the profile's to tell, not the colour networks'; its statues, stairs, fountains and bridges are
    asked of the shape networks."""
    for kind in piece_model.KINDS:
        own = piece_model.model_for(kind, REFERENCE)
        if kind in COLOUR_KINDS:
            assert (own.kind, own.features) == (kind, "all")
        else:  # no colour network for the reference's bridge, and its shape network is for others
            assert own is None
        other = piece_model.model_for(kind, VARIANT)
        if kind in decorations.decisions.SHAPE_SURE:
            assert (other.kind, other.features) == (kind, "shape")
            assert decorations.decisions.own_model(kind, VARIANT) is None
        else:
            assert other is None


def test_the_shipped_shape_network_tells_another_editions_statue_from_the_fields_beside_it():
    """Trained on the reference edition's statues alone, by their shape: the variant's purple statues,
    on plaques with other icons, look surely like statues to it, the fields beside them do not."""
    photo = render_photo(_statue_garden(), 20_024, tilt_deg=12.0, profile=VARIANT, **PLAIN)
    model = piece_model.model_for("statue", VARIANT)
    cam = Camera.from_dict(photo.truth["camera"])
    fields = [(1, 2), (5, 4)] + [(1, 1), (2, 1), (2, 2), (4, 4), (4, 5), (5, 5)]
    patches = [piece_model.statue_patch(photo.image, cam, VARIANT, f, 1) for f in fields]
    p = model.on_patches(patches, board_gain(photo.image, cam, VARIANT))
    assert p[:2].min() >= decorations.decisions.SHAPE_SURE["statue"][1]
    assert p[2:].max() < 0.5


def _shape_network_on_variant(
    kind: str, garden: Garden, seed: int, tilt_deg: float
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """The shipped shape network's probability of ``kind`` at every place the rules allow one on the
    true tiles of ``garden`` rendered in the variant edition, seen from above; whether one stands
    there; the patches. The reference's own ``kind`` is asked of no network."""
    photo = render_photo(garden, seed, tilt_deg=tilt_deg, profile=VARIANT, **PLAIN)
    assert piece_model.model_for(kind, REFERENCE) is None
    cam = Camera.from_dict(photo.truth["camera"])
    surf = Surfaces(truth_tiles(photo.truth, VARIANT), VARIANT)
    places = [c for c in candidates(surf) if c.kind == kind and not c.hidden]
    truth = {frozenset(d.cell_levels) for d in garden.decorations}
    patches = [decorations.decisions.piece_patch(photo.image, cam, VARIANT, c) for c in places]
    p = piece_model.model_for(kind, VARIANT).on_patches(patches, board_gain(photo.image, cam, VARIANT))
    there = np.array([frozenset(zip(c.cells, c.levels, strict=True)) in truth for c in places])
    return p, there, patches


def test_the_shipped_bridge_shape_network_tells_another_editions_bridges_from_the_other_places():
    """Every place the rules allow a bridge on the true tiles of a rendered variant photo: the two that
    stand there look surely like bridges to the network trained on the reference's shape alone, none
    of the others does; the reference's own bridge is asked of no network."""
    p, there, patches = _shape_network_on_variant("bridge", _bridge_garden(), 20_060, 10.0)
    assert patches[0].shape == (*piece_model.BRIDGE_PX, 3)
    assert there.sum() == 2 and len(there) > 2
    assert p[there].min() >= decorations.decisions.SHAPE_SURE["bridge"][1]
    assert p[~there].max() < 0.5


def test_the_shipped_belvedere_shape_network_tells_another_editions_belvederes_from_the_fields():
    """Every field a belvedere may stand on in a rendered variant photo: the two with the variant's
    blue-domed belvederes look surely like belvederes to the network trained on the reference's
    shape alone (cut as a statue's patch), none of the others does; the reference's own belvedere is
    asked of no network."""
    garden = _two_tiles("belvedere", (2, 2), (4, 5))
    p, there, _ = _shape_network_on_variant("belvedere", garden, 20_070, 12.0)
    assert there.sum() == 2 and len(there) == 8
    assert p[there].min() >= decorations.decisions.SHAPE_SURE["belvedere"][1]
    assert p[~there].max() < 0.5


def test_another_editions_statue_is_raised_by_its_shape_and_none_is_lowered(monkeypatch):
    """With the shape network, a statue whose colours show some bronze takes the network's probability
    where that is sure (if more); one with no colour at all, or a network unsure, keeps its score, and
    one passing its colours is not lowered however the network doubts it."""
    fake = _Fake([0.99, 0.5, 0.001, 0.95])
    fake.features = "shape"
    monkeypatch.setattr(piece_model, "model_for", lambda k, profile: fake if k == "statue" else None)
    monkeypatch.setattr(decorations.decisions, "piece_patch", lambda *a: np.zeros((8, 8, 3), np.uint8))
    least = decorations.decisions.SHAPE_SURE["statue"][0]
    raised, unsure, doubted, passed = (_evidence("statue", s) for s in (least + 0.1, 0.3, 0.9, 0.6))
    colourless = _evidence("statue", least / 2)
    decorations._second_opinion([raised, colourless, unsure, doubted, passed], None, None, VARIANT, None)
    assert fake.asked == 4
    assert raised.score == pytest.approx(0.99) and passed.score == pytest.approx(0.95)
    assert (colourless.score, unsure.score, doubted.score) == (least / 2, 0.3, 0.9)


@pytest.mark.parametrize("raised", ["belvedere", "statue"])
def test_a_network_raise_gives_way_to_the_other_one_field_piece_passing_by_colour(monkeypatch, raised):
    """Another edition's statue can look like the reference's belvedere to the shape network (variant
    720125: 0.999, its dome's colour not there at all): where a statue passes its colour test on the
    field, the belvedere keeps its colour score, and the other way round; with nothing else on the
    field, the network's raise stands."""
    other = "statue" if raised == "belvedere" else "belvedere"
    fake = _Fake([0.999])
    fake.features = "shape"
    monkeypatch.setattr(piece_model, "model_for", lambda k, profile: fake if k == raised else None)
    monkeypatch.setattr(decorations.decisions, "piece_patch", lambda *a: np.zeros((8, 8, 3), np.uint8))
    shaped, coloured = _evidence(raised, 0.2), _evidence(other, 1.0)
    decorations._second_opinion([shaped, coloured], None, None, VARIANT, None)
    assert shaped.score == 0.2 and coloured.score == 1.0
    alone = _evidence(raised, 0.2)
    decorations._second_opinion([alone, _evidence(other, 0.3)], None, None, VARIANT, None)
    assert alone.score == pytest.approx(0.999)


def test_a_model_round_trips_and_a_file_that_is_not_one_is_refused(tmp_path):
    model = piece_model.model_for("stairs", REFERENCE)
    path = tmp_path / "m.npz"
    model.save(path)
    again = piece_model.load(path)
    x = np.random.default_rng(0).normal(size=(5, len(model.mean))).astype(np.float32)
    assert np.allclose(again.probability(x), model.probability(x), atol=1e-6)
    assert (again.kind, again.colour, again.features) == (model.kind, model.colour, "all")
    shape = piece_model.model_for("statue", VARIANT)
    shape.save(tmp_path / "shape.npz")
    assert piece_model.load(tmp_path / "shape.npz").features == "shape"
    # a model saved before shape networks were (no "features"): gradients and colour
    with np.load(path) as z:
        older = {k: z[k] for k in z.files if k != "features"}
    np.savez(tmp_path / "older.npz", **older)
    assert piece_model.load(tmp_path / "older.npz").features == "all"
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="not a piece model"):
        piece_model.load(bad)
    arrays = dict(mean=np.zeros(3), hidden_w=np.zeros((3, 4)), hidden_b=np.zeros(4), out_w=np.zeros(4))
    arrays |= dict(out_b=0.0, colour=np.array("#B08D57"))
    np.savez(tmp_path / "short.npz", **arrays, scale=np.ones(2), kind=np.array("statue"))
    np.savez(tmp_path / "kind.npz", **arrays, scale=np.ones(3), kind=np.array("pillar"))
    unknown = dict(kind=np.array("statue"), features=np.array("colourless"))
    np.savez(tmp_path / "features.npz", **arrays, scale=np.ones(3), **unknown)
    for name in ("short.npz", "kind.npz", "features.npz"):
        with pytest.raises(ValueError, match="do not match"):
            piece_model.load(tmp_path / name)


def _evidence(kind: str, score: float, visible: float = 1.0, hidden: bool = False) -> decorations.Evidence:
    cells, levels = {
        "statue": (((3, 3),), (1,)),
        "belvedere": (((3, 3),), (1,)),
        "stairs": (((3, 3), (3, 4)), (1, 2)),
        "fountain": (((3, 3), (3, 4)), (1, 1)),
    }[kind]
    c = decorations.Candidate(kind, cells, levels, (0.0, 0.0, 22.5), 0.0, 30.0, 22.5, hidden=hidden)
    return decorations.Evidence(c, score, visible)


class _Fake:
    """A network giving ``p`` for the patches it is asked about; given ``around``, only the first time,
    then that for each patch (a statue's field asked round its centre: ``decisions.STATUE_AROUND_MM``)."""

    features = "all"

    def __init__(self, p: list[float], around: float | None = None) -> None:
        self.p, self.around, self.asked, self.again = np.array(p), around, 0, 0

    def on_patches(self, patches, gain):
        if self.asked and self.around is not None:
            self.again += 1
            return np.full(len(patches), self.around)
        self.asked = len(patches)
        return self.p


@pytest.mark.parametrize("kind", COLOUR_KINDS)
def test_pieces_seen_well_are_rescored_where_their_network_is_sure(monkeypatch, kind):
    """A piece failing its colour test takes the network's probability as its score where the network
    is surely seeing the piece; one passing it, where the network surely is not (stairs and fountains
    whose colours look surely theirs excepted); the rest keep their score, and pieces seen little or
    standing on a tile not read are not asked about."""
    fake = _Fake([0.95, 0.6, 0.001, 0.3, 0.001], around=0.001)
    monkeypatch.setattr(piece_model, "model_for", lambda k, profile: fake if k == kind else None)
    monkeypatch.setattr(decorations.decisions, "piece_patch", lambda *a: np.zeros((8, 8, 3), np.uint8))
    rescued, unsure, vetoed, kept, sure = (_evidence(kind, s) for s in (0.3, 0.2, 0.8, 0.8, 0.99))
    seen_little, on_hidden = _evidence(kind, 0.1, visible=0.3), _evidence(kind, 0.3, hidden=True)
    evidence = [rescued, unsure, seen_little, vetoed, on_hidden, kept, sure]
    decorations._second_opinion(evidence, None, None, REFERENCE, None)
    assert fake.asked == 5
    assert rescued.score == pytest.approx(0.95) and vetoed.score == pytest.approx(0.001)
    assert unsure.score == 0.2 and kept.score == 0.8
    assert seen_little.score == 0.1 and on_hidden.score == 0.3
    assert sure.score == (0.99 if kind in ("stairs", "fountain") else pytest.approx(0.001))


def test_a_statue_is_doubted_only_where_its_network_doubts_it_round_its_field_too(monkeypatch):
    """The hand stands a statue a millimetre or three off its field's centre: a statue passing its
    colour test that the network doubts at the centre keeps its score where, asked at the centre and
    the shifts round it, the network's mean is over its doubt; it is doubted where that mean is not."""
    monkeypatch.setattr(decorations.decisions, "piece_patch", lambda *a: np.zeros((8, 8, 3), np.uint8))
    not_p = decorations.decisions.LOOKS_NOT["statue"][0]
    for around, score in ((0.5, 1.0), (not_p / 2, pytest.approx(0.001))):
        fake = _Fake([0.001], around=around)
        monkeypatch.setattr(piece_model, "model_for", lambda k, _p, f=fake: f if k == "statue" else None)
        statue = _evidence("statue", 1.0)
        decorations._second_opinion([statue], None, None, REFERENCE, None)
        assert fake.again == 1 and statue.score == score


def test_a_statue_passing_its_colours_that_its_network_is_sure_of_scores_the_network(monkeypatch):
    """Colours and network agree: a statue of middling colour scores the network's sureness (and is sure
    enough to stay out of line with the others where a hidden statue would put it in line); stairs and
    a statue the network is not sure of keep their colour score."""
    monkeypatch.setattr(decorations.decisions, "piece_patch", lambda *a: np.zeros((8, 8, 3), np.uint8))
    for kind, p, want in (("statue", 0.97, 0.97), ("statue", 0.6, 0.7), ("stairs", 0.97, 0.7)):
        fake = _Fake([p])
        monkeypatch.setattr(piece_model, "model_for", lambda k, _p, f=fake, w=kind: f if k == w else None)
        e = _evidence(kind, 0.7)
        decorations._second_opinion([e], None, None, REFERENCE, None)
        assert e.score == pytest.approx(want)


def test_a_reference_bridge_passing_its_colours_barely_is_doubted_by_its_shape_network(monkeypatch):
    """The reference's bridge has no network of its colours: one passing them under the sure score
    that the shape network doubts drops to its probability; one passing them surely, or not doubted,
    keeps its score."""
    fake = _Fake([0.0003, 0.99])
    fake.features = "shape"
    monkeypatch.setattr(piece_model, "shape_model", lambda k: fake if k == "bridge" else None)
    monkeypatch.setattr(decorations.decisions, "piece_patch", lambda *a: np.zeros((8, 8, 3), np.uint8))
    c = decorations.Candidate("bridge", ((3, 1), (3, 2), (3, 3)), (1, 1, 1), (0.0, 0.0, 22.5), 0.0)
    doubted, kept, sure = (decorations.Evidence(c, s, 1.0) for s in (0.54, 0.7, 0.95))
    decorations._second_opinion([doubted, kept, sure], None, None, REFERENCE, None)
    assert fake.asked == 2
    assert doubted.score == pytest.approx(0.0003) and (kept.score, sure.score) == (0.7, 0.95)


def test_stairs_passing_their_colours_in_a_glare_spot_are_told_by_their_network(monkeypatch):
    """A glare spot washes a field out to the stairs' grey: stairs standing in one that their network
    finds more likely not stairs score its probability; in one where it sees stairs, or out of any
    spot whatever it says (over its usual doubt), they keep their colours' score."""
    from vision.read.tilefit import Glare

    class _Flat:  # a camera seeing the board's millimetres as pixels
        def project(self, points):
            return np.asarray(points, float)[:, :2]

    share = np.zeros((100, 200), np.float32)
    share[:, 100:] = 1.0  # the right half of the photo is one glare spot
    glare = Glare(np.full(share.shape, 230, np.uint8), share)
    fake = _Fake([0.1, 0.8, 0.1])
    monkeypatch.setattr(piece_model, "model_for", lambda k, _p: fake if k == "stairs" else None)
    monkeypatch.setattr(decorations.decisions, "piece_patch", lambda *a: np.zeros((8, 8, 3), np.uint8))

    def stairs(x: float) -> decorations.Evidence:
        c = decorations.Candidate("stairs", ((3, 3), (3, 4)), (1, 2), (x, 50.0, 22.5), 0.0, 30.0, 22.5)
        return decorations.Evidence(c, 1.0, 1.0)

    washed, seen, dry = stairs(150.0), stairs(160.0), stairs(50.0)
    decorations._second_opinion([washed, seen, dry], None, _Flat(), REFERENCE, None, glare)
    assert washed.score == pytest.approx(0.1) and (seen.score, dry.score) == (1.0, 1.0)


def _rendered(tmp_path, garden: Garden, seeds: tuple[int, ...]) -> list:
    from vision.read.evaluate import photos_with_truth

    for i, seed in enumerate(seeds):
        photo = render_photo(garden, seed, tilt_deg=8.0 + 8 * i, **PLAIN)
        save_photo(photo, tmp_path / f"p{i}.png")
    return photos_with_truth(tmp_path)


def test_training_on_rendered_photos_learns_the_statue(tmp_path):
    """Two rendered photos with their truth: the patches are labelled from the truth garden (the statues'
    fields, and those alone, as statues), and the network fitted on them separates the two."""
    pytest.importorskip("sklearn")
    from vision.read import piece_train

    photos = _rendered(tmp_path, _statue_garden(), (20_022, 20_023))
    assert [p.name for p in photos] == ["p0.png", "p1.png"]
    x, y = piece_train.truth_samples(photos[0], REFERENCE, "statue")
    # 8 fields seen from above, each cut once as it is and JITTER_COPIES times moved
    copies = 1 + piece_train.JITTER_COPIES
    assert len(y) == 8 * copies and y.sum() == 2 * copies
    # in the order of the fields (row, column): the statues stand on (1, 2) and (5, 4)
    fields = [(1, 1), (1, 2), (2, 1), (2, 2), (4, 4), (4, 5), (5, 4), (5, 5)]
    assert [f for i, f in enumerate(fields) if y[i * copies]] == [(1, 2), (5, 4)]
    model, counts = piece_train.train(photos, REFERENCE, "statue")
    assert counts == {"statue": 8, "other": 24}
    p = model.probability(x)
    assert p[y == 1].min() > p[y == 0].max()
    # by the gradients alone (no colour grid): a shape network, asked about any edition's statue
    shape, _ = piece_train.train(photos, REFERENCE, "statue", shape_only=True)
    assert (shape.features, shape.colour) == ("shape", "")
    xs, _ = piece_train.truth_samples(photos[0], REFERENCE, "statue", colour=False)
    assert xs.shape == (len(y), x.shape[1] - 2 * piece_model.COLOUR_GRID**2)
    p = shape.probability(xs)
    assert p[y == 1].min() > p[y == 0].max()
    # the command line writes it: `babylon train statue DIR --shape-only -o FILE`
    from typer.testing import CliRunner

    from service.cli import app

    out = tmp_path / "statue_shape.npz"
    result = CliRunner().invoke(app, ["train", "statue", str(tmp_path), "--shape-only", "-o", str(out)])
    assert result.exit_code == 0, result.output
    written = piece_model.load(out)
    assert written.features == "shape"
    assert np.allclose(written.probability(xs), shape.probability(xs), atol=1e-5)


@pytest.mark.parametrize(
    ("kind", "garden", "seeds"),
    [
        ("stairs", _stairs_garden, (20_041, 20_042)),
        ("fountain", _fountain_garden, (20_051, 20_052)),
        ("bridge", _bridge_garden, (20_061, 20_062)),
    ],
)
def test_training_on_rendered_photos_learns_stairs_and_fountains(tmp_path, kind, garden, seeds):
    """Stairs, fountains and bridges are learned from every place the rules allow them on the true
    tiles, labelled by the truth (a bridge by its three cells, its middle too)."""
    pytest.importorskip("sklearn")
    from vision.read import piece_train

    photos = _rendered(tmp_path, garden(), seeds)
    x, y = piece_train.truth_samples(photos[0], REFERENCE, kind)
    copies = 1 + piece_train.JITTER_COPIES
    assert y.sum() == 2 * copies and len(y) > y.sum()
    model, counts = piece_train.train(photos, REFERENCE, kind)
    assert counts[kind] == 2 * 2 * copies and model.kind == kind
    assert model.colour == piece_model.piece_colour(REFERENCE, kind)
    p = model.probability(x)
    assert p[y == 1].min() > p[y == 0].max()


def test_training_needs_truth_beside_each_photo(tmp_path):
    from vision.read import piece_train

    photo = tmp_path / "p.png"
    save_photo(render_photo(_statue_garden(), 20_025, **PLAIN), photo)
    photo.with_suffix(".json").write_text(json.dumps({"garden": {}}))
    for kind in piece_model.KINDS:
        with pytest.raises(ValueError, match="no truth with a camera"):
            piece_train.truth_samples(photo, REFERENCE, kind)
    with pytest.raises(ValueError, match="no network for 'pillar'"):
        piece_train.train([photo], REFERENCE, "pillar")


def test_train_renders_its_seeds_and_writes_a_model(tmp_path):
    pytest.importorskip("sklearn")
    from test_cli import babylon

    out = tmp_path / "statue.npz"
    r = babylon("train", "statue", str(tmp_path / "photos"), "--seeds", "20030-20031", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "trained on 2 photo(s)" in r.stdout
    assert len(list((tmp_path / "photos").glob("*.json"))) == 2
    model = piece_model.load(out)
    assert (model.kind, model.colour) == ("statue", REFERENCE.decoration.statue_colour)


def test_train_refuses_bad_arguments_with_exit_2(tmp_path):
    from test_cli import babylon

    (tmp_path / "empty").mkdir()
    for args in (
        ["statue", str(tmp_path / "empty"), "-o", str(tmp_path / "m.npz")],  # no photos with truth
        ["stairs", str(tmp_path / "none"), "-o", str(tmp_path / "m.npz")],  # no such folder
        ["statue", str(tmp_path / "empty"), "--seeds", "9-3", "-o", str(tmp_path / "m.npz")],
        ["stairs", str(tmp_path / "empty"), "-o", str(tmp_path / "nofolder" / "m.npz")],
        ["pillar", str(tmp_path / "empty"), "-o", str(tmp_path / "m.npz")],  # no network for them
        ["bridge", str(tmp_path / "empty"), "-o", str(tmp_path / "m.npz")],  # bridges: by shape only
        ["belvedere", str(tmp_path / "empty"), "-o", str(tmp_path / "m.npz")],  # belvederes too
    ):
        r = babylon("train", *args)
        assert r.returncode == 2 and "Traceback" not in r.stderr, args
        assert r.stderr.startswith("error:") or args[0] == "pillar", args  # typer's usage error
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]  # nothing written
