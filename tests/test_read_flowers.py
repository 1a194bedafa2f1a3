"""Flower colours of the bands (vision.read.flowers.classify): washed-out bands keep their flower."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scoring.garden import Garden, Tile
from vision.camera import Camera
from vision.profile import REFERENCE
from vision.read import flowers, pipeline, tilefit, tiles, views
from vision.read.flowers import MAX_FADE, Band, classify, classify_colour, flower_lab, washed_bands
from vision.read.pieces import truth_tiles
from vision.read.pipeline import band_lab, read_flowers
from vision.read.tiles import TileFind
from vision.read.views import board_gain, print_gain
from vision.render.photo import render_photo


def _washed(name: str, keep: float, lighter: float = 15.0) -> np.ndarray:
    """Band pixels of flower ``name`` with only ``keep`` of its chroma left, a little lighter (glare)."""
    L, a, b = flower_lab(REFERENCE)[name]
    return np.tile(np.array([[min(L + lighter, 100.0), a * keep, b * keep]], np.float32), (50, 1))


@pytest.mark.parametrize("name", ["pink", "yellow", "blue"])
@pytest.mark.parametrize("keep", [1.0, 0.6, 1.0 / MAX_FADE])
def test_a_washed_out_band_keeps_its_flower(name, keep):
    assert classify(_washed(name, keep), REFERENCE)[0] == name


@pytest.mark.parametrize("tint", [(0.0, 0.0), (3.0, 6.0), (-2.0, -6.0), (5.0, -1.0)])
def test_a_white_band_with_a_faint_tint_is_white(tint):
    px = np.tile(np.array([[88.0, *tint]], np.float32), (50, 1))
    flower, scores = classify(px, REFERENCE)
    assert flower == "white"
    assert scores["white"] == max(scores.values()) and abs(sum(scores.values()) - 1.0) < 1e-6


@pytest.mark.parametrize("name", ["pink", "blue"])
def test_a_band_sampled_half_on_the_board_past_its_edge_keeps_its_flower(name):
    """A ring sampled a hair off a tile mostly hidden lies on the board's sand on one side: the median
    of a blue or pink band and the sand, half and half, has little chroma and would read white. The samples
    that pass for the print round the band are left out, and the band is the rest."""
    sand = flowers.print_lab(REFERENCE)[0]
    mixed = np.vstack([_washed(name, 0.8, lighter=0.0), np.tile(sand, (60, 1)).astype(np.float32)])
    assert classify_colour(np.median(mixed, axis=0), REFERENCE)[0] != name
    assert classify(mixed, REFERENCE)[0] == name


def test_a_band_close_to_the_boards_colour_is_taken_whole():
    """A white band in a warm light comes near the sand itself: its samples, some passing for the print
    and some not, are one colour, and the band is their median."""
    warm = np.array([82.0, 2.0, 14.0], np.float32) + np.random.default_rng(1).normal(0, 4, (120, 3))
    assert np.allclose(flowers.band_colour(warm, REFERENCE), np.median(warm, axis=0))
    assert classify(warm, REFERENCE)[0] == "white"


def test_glare_at_the_sensors_white_does_not_make_a_band_white():
    """A yellow band under a lamp's glare: its paler samples pass for the sand round it and are left
    out, and of the rest, deep yellow and glare clipped at the sensor's white, the glare tells no
    colour (:data:`flowers.GLARE_L`): the band is its deep yellow."""
    yellow = flower_lab(REFERENCE)["yellow"]
    pale = np.array([80.0, 3.0, 26.0], np.float32)  # within PRINT_NEAR of the sand
    glare = np.array([100.0, 0.0, 0.0], np.float32)
    px = np.vstack([np.tile(yellow, (40, 1)), np.tile(pale, (50, 1)), np.tile(glare, (60, 1))])
    assert classify(px.astype(np.float32), REFERENCE)[0] == "yellow"


@pytest.mark.parametrize("name", ["pink", "blue"])
def test_a_band_half_clipped_by_glare_is_told_by_the_rest(name):
    """A glare spot clips half a pink band to the sensor's white and pales the rest: their median has
    too little chroma left to read pink, but the samples below the white are the band. A white band
    half clipped stays white."""
    glare = np.tile(np.array([100.0, 0.0, 0.0], np.float32), (60, 1))
    px = np.vstack([_washed(name, 0.55, lighter=12.0), glare])
    assert classify_colour(np.median(px, axis=0), REFERENCE)[0] == "white"
    assert classify(px, REFERENCE)[0] == name
    white = np.vstack([np.tile(np.array([92.0, 1.0, 3.0], np.float32), (50, 1)), glare])
    assert classify(white, REFERENCE)[0] == "white"


def test_no_pixels_no_flower():
    assert classify(np.zeros((0, 3), np.float32), REFERENCE) == ("", {})


TILES = Garden(
    board_flower="pink",
    tiles=(
        Tile(row=2, col=1, level=1, flower="white"),
        Tile(row=2, col=4, level=1, flower="yellow"),
        Tile(row=4, col=2, level=1, flower="white"),
    ),
)


def _shot(garden: Garden) -> tuple[np.ndarray, Camera, list[TileFind]]:
    """A photo of ``garden``, its camera, and its tiles as read where they truly stand."""
    photo = render_photo(garden, 5, size=(1200, 900), height_mm=430, tilt_deg=10)
    cam = Camera.from_dict(photo.truth["camera"])
    finds = [
        TileFind(t.row, t.col, t.level, 0.0, {}, 20, t.placement) for t in truth_tiles(photo.truth, REFERENCE)
    ]
    return photo.image, cam, finds


@pytest.fixture(scope="module")
def tiles_shot():
    return _shot(TILES)


def _flowers(lab: flowers.BandLab, image: np.ndarray, cam: Camera, finds: list[TileFind]) -> list[str]:
    read_flowers(lab, tilefit.not_green(image), cam, REFERENCE, finds)
    return [f.flower for f in finds]


def test_tiles_in_a_warmer_light_than_the_boards_margin_keep_their_white(tiles_shot) -> None:
    """Balanced on the board's margin only, white bands in a warmer light than the margin's read as
    yellow; balanced again on the tiles' own plaques, they read white (and yellow stays yellow)."""
    image, cam, finds = tiles_shot
    gain = board_gain(image, cam, REFERENCE)  # the margin, in the photo's own light
    warm = np.clip(image.astype(np.float32) * [0.78, 0.97, 1.08], 0, 255).astype(np.uint8)
    lut = np.clip(np.arange(256, dtype=np.float32)[:, None] * (gain / 255.0)[None, :], 0, 1)
    on_board = flowers.BandLab(warm, lut.astype(np.float32))
    assert _flowers(on_board, warm, cam, finds).count("yellow") == 3  # the failure the plaques mend
    right = ["white", "yellow", "white"]
    assert _flowers(band_lab(warm, cam, REFERENCE, finds, gain), warm, cam, finds) == right
    # in the photo's own light the plaques change nothing that matters
    assert _flowers(band_lab(image, cam, REFERENCE, finds, gain), image, cam, finds) == right
    # the plaques measure the tiles' light: the gain's blue over red rises by the warm light's red over blue
    fields = [(r, c, f.level) for f in finds for r, c in f.cells]
    own, warmer = (print_gain(img, cam, REFERENCE, fields, gain) for img in (image, warm))
    assert (warmer[0] / warmer[2]) / (own[0] / own[2]) == pytest.approx(1.08 / 0.78, rel=0.08)


def test_a_tint_within_the_dead_zone_leaves_the_bands_as_the_board_balanced_them(
    tiles_shot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plaques' own print and the light's spread differ by a few percent from photo to photo: a
    correction that small is no correction (it only narrowed the margin of pale blue bands)."""
    image, cam, finds = tiles_shot
    gain = board_gain(image, cam, REFERENCE)
    fields = [(r, c, f.level) for f in finds for r, c in f.cells]

    def tinted(by) -> np.ndarray:
        return np.clip(image.astype(np.float32) * by, 0, 255).astype(np.uint8)

    with monkeypatch.context() as m:
        m.setattr(views, "PRINT_DEAD_ZONE", 0.0)
        raw = print_gain(image, cam, REFERENCE, fields, gain)  # what the plaques alone ask for
    nominal = raw / raw.mean()  # the photo with its plaques at their nominal hue ...
    for slight in ([1.0, 1.0, 1.0], [0.99, 1.0, 1.01], [1.015, 1.0, 0.985]):  # ... and a little off it
        assert np.allclose(print_gain(tinted(nominal * slight), cam, REFERENCE, fields, gain), 1.0)
    beyond = print_gain(tinted(nominal * [0.85, 1.0, 1.15]), cam, REFERENCE, fields, gain)
    assert beyond[0] > 1.05 and beyond[2] < 0.95  # beyond it, the blue is raised and the red lowered


def test_a_piece_over_a_band_is_left_out_of_its_flower(tiles_shot) -> None:
    """Grey stairs standing over most of a yellow tile's band hide its flower; told where the piece
    stands, the reader takes the band where it is in sight past it."""
    image, cam, finds = tiles_shot
    gain = board_gain(image, cam, REFERENCE)
    yellow = next(f for f in finds if (f.row, f.col) == (2, 4))
    p = tiles.tile_polygon(cam, REFERENCE, yellow.row, yellow.col, yellow.level, yellow.placement)[:4]
    piece = np.array([p[0], p[1], p[1] + 0.75 * (p[2] - p[1]), p[0] + 0.75 * (p[3] - p[0])])
    covered = image.copy()
    cv2.fillConvexPoly(covered, np.round(piece).astype(np.int32), (128, 128, 128))
    lab = band_lab(covered, cam, REFERENCE, finds, gain)
    assert _flowers(lab, covered, cam, finds)[1] != "yellow"
    read_flowers(lab, tilefit.not_green(covered), cam, REFERENCE, finds, [(yellow.level, piece)])
    assert [f.flower for f in finds] == ["white", "yellow", "white"]
    # a piece two levels down stands under the band: it is not left out
    read_flowers(lab, tilefit.not_green(covered), cam, REFERENCE, finds, [(yellow.level - 2, piece)])
    assert yellow.flower != "yellow"


def _band(flower: str, lab: tuple[float, float, float], score: float = 0.95, pixels: int = 400) -> Band:
    return (flower, score, pixels, np.array(lab, float))


#: white bands as a photo with a warm cast shows them, and a blue band a glare has paled to a bluish
#: white (as measured on a development photo: the classifier, on the print's colours, reads it white)
WHITES = [_band("white", (86.2, -1.8, 10.8)), _band("white", (87.0, -2.3, 10.5))]
PALED_BLUE = (79.4, -2.4, -1.5)
GLARE = 0.7  #: the share of white a glare adds over the blue tile in the photo below


def test_a_blue_band_paled_to_white_is_told_by_the_photos_own_whites() -> None:
    assert classify_colour(np.array(PALED_BLUE), REFERENCE)[0] == "white"
    bands = [*WHITES, _band("white", PALED_BLUE)]
    assert washed_bands(bands, REFERENCE) == {2: "blue"}
    # one sure white band tells the photo's white (the paled band, read white less surely, is not one);
    # with none, a white read unsurely or on few pixels, the photo's white is not known: nothing changes
    paled = _band("white", PALED_BLUE, score=0.7)
    assert washed_bands([WHITES[0], paled], REFERENCE) == {1: "blue"}
    assert washed_bands([_band("white", WHITES[1][3], score=0.6), paled], REFERENCE) == {}
    assert washed_bands([_band("white", WHITES[1][3], pixels=60), paled], REFERENCE) == {}


@pytest.mark.parametrize(
    "lab",
    [
        (84.0, -1.0, 4.0),  # a white a little cooler than the others
        (60.0, -2.0, -8.0),  # a white in a higher tile's deep shadow: darker, with the shadow's cool tint
        (80.0, -10.0, 8.0),  # tinted towards green, off every flower's hue
        # a white in a light shade, tinted towards yellow: a flower printed nearly as light as white is
        # not told from it (measured on a development photo, moved to these whites)
        (66.6, 3.9, 32.8),
    ],
)
def test_a_white_band_a_little_off_the_photos_whites_stays_white(lab) -> None:
    assert washed_bands([*WHITES, _band("white", lab)], REFERENCE) == {}


def test_a_washed_blue_band_in_a_shade_is_told_by_how_far_it_leans() -> None:
    """A band darker than the photo's whites may be a white in a shadow's cool tint: it is read blue
    only where it leans past that tint (dev seed 42030's washed blue band, 29 darker than its whites and
    23 towards the blue, moved to these whites; the shadowed white of the test above leans 18)."""
    white = np.median([b[3] for b in WHITES], axis=0)
    shaded_blue = tuple(white + np.array([-29.4, 5.8, -21.8]))
    assert classify_colour(np.array(shaded_blue), REFERENCE)[0] == "white"
    assert washed_bands([*WHITES, _band("white", shaded_blue)], REFERENCE) == {2: "blue"}


def test_a_pink_band_paled_to_white_is_told_by_the_photos_own_whites() -> None:
    """A pink band washed out as a development photo showed one (11 towards pink from its whites, a
    little darker), moved to these whites: read white on the print's colours, pink beside the whites."""
    paled = (80.2, 9.1, 5.9)
    assert classify_colour(np.array(paled), REFERENCE)[0] == "white"
    assert washed_bands([*WHITES, _band("white", paled)], REFERENCE) == {2: "pink"}


def test_a_band_leans_less_far_across_the_white_balances_axis_to_be_a_flower_washed_out() -> None:
    """The photo's whites spread along Lab b* (the white balance, a shade's cool tint), hardly along a*:
    a band leaning 7.5 towards the pink (along a*) from them is a pink one washed out (development 56199:
    8.5, read white before); leaning as far towards the blue (along -b*), it is a cooler white."""
    white = np.median([b[3] for b in WHITES], axis=0)
    refs = flower_lab(REFERENCE)
    leaned = {}
    for name in ("pink", "blue"):
        way = refs[name][1:] - refs["white"][1:]
        way /= np.linalg.norm(way)
        leaned[name] = tuple(white + np.array([-4.0, *(7.5 * way)]))
        assert classify_colour(np.array(leaned[name]), REFERENCE)[0] == "white"
    assert washed_bands([*WHITES, _band("white", leaned["pink"])], REFERENCE) == {2: "pink"}
    assert washed_bands([*WHITES, _band("white", leaned["blue"])], REFERENCE) == {}


def test_read_flowers_reads_a_paled_blue_band_blue(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a photo, a glare over a blue tile pales its band to nearly white; beside two white tiles in
    the photo's own light, the reader reads it blue."""
    blue_tile = Tile(row=2, col=4, level=1, flower="blue")  # in the place of the yellow one
    photo, cam, finds = _shot(TILES.model_copy(update={"tiles": (TILES.tiles[0], blue_tile, TILES.tiles[2])}))
    blue = next(f for f in finds if (f.row, f.col) == (2, 4))
    mask = np.zeros(photo.shape[:2], np.uint8)
    tiles.hide(mask, tiles.tile_polygon(cam, REFERENCE, blue.row, blue.col, blue.level, blue.placement))
    glare = photo.astype(np.float32)
    glare[mask > 0] = glare[mask > 0] * (1 - GLARE) + 255.0 * GLARE
    image = glare.astype(np.uint8)
    lab = band_lab(image, cam, REFERENCE, finds, board_gain(image, cam, REFERENCE))
    with monkeypatch.context() as m:
        m.setattr(flowers, "WASHED_MIN", np.inf)  # compared with the print's white only
        assert _flowers(lab, image, cam, finds) == ["white", "white", "white"]
    assert _flowers(lab, image, cam, finds) == ["white", "blue", "white"]
    assert blue.flower_scores["blue"] < 0.9  # a doubt


def test_band_lab_converts_the_pixels_asked_for_as_the_whole_photo_would() -> None:
    """BandLab converts only the pixels sampled: the same Lab as the whole balanced photo's, and none
    for none (a band wholly hidden)."""
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (40, 60, 3), dtype=np.uint8)
    lut = np.clip(np.arange(256, dtype=np.float32)[:, None] * (np.array([1.1, 0.9, 1.3]) / 255.0), 0, 1)
    lab = flowers.BandLab(img, lut.astype(np.float32))
    whole = cv2.cvtColor(cv2.LUT(img, lut.astype(np.float32).reshape(256, 1, 3)), cv2.COLOR_BGR2Lab)
    v, u = rng.integers(0, 40, 200), rng.integers(0, 60, 200)
    assert np.array_equal(lab.at(v, u), whole[v, u])
    assert lab.at(np.zeros(0, int), np.zeros(0, int)).shape == (0, 3)
    assert lab.shape == (40, 60)


def test_a_white_band_the_tiles_balance_tints_green_is_still_read_by_its_own_balance(tiles_shot) -> None:
    """The garden green beside a band is left out of its samples, judged on the edge search's green
    map; a map balanced to push green (the tiles' gain, unlike the bands') can take a white band for
    garden green. Left out only where the band's own balance shows green too, the whites stay white."""
    image, cam, finds = tiles_shot
    lab = band_lab(image, cam, REFERENCE, finds, board_gain(image, cam, REFERENCE))
    greener = np.clip(image.astype(np.float32) * [0.8, 1.2, 0.8], 0, 255).astype(np.uint8)
    read_flowers(lab, tilefit.not_green(greener), cam, REFERENCE, finds)
    assert [f.flower for f in finds] == ["white", "yellow", "white"]


def test_a_white_band_the_green_map_leaves_a_few_samples_of_is_read_by_its_own_balance(tiles_shot) -> None:
    """As above, with the tile placed 2 mm off: the green map leaves only the samples that fall past
    the band (its cut edge), enough to read a flower by, and they read yellow; left out of fewer than
    half the samples its own balance leaves, the band is read from those, white."""
    image, cam, finds = tiles_shot
    lab = band_lab(image, cam, REFERENCE, finds, board_gain(image, cam, REFERENCE))
    greener = tilefit.not_green(np.clip(image.astype(np.float32) * [0.8, 1.2, 0.8], 0, 255).astype(np.uint8))
    w = finds[0]
    off = TileFind(w.row, w.col, w.level, 0.0, {}, 20, (w.placement[0] + 2.0, *w.placement[1:]))
    where = (off.row, off.col, off.level, off.placement)
    left, own = flowers.band_pixels(lab, greener, cam, REFERENCE, *where)
    assert pipeline.MIN_BAND_PX <= len(left) < pipeline.MAP_GREEN_LEFT * len(own)
    assert classify(left, REFERENCE)[0] == "yellow"
    read_flowers(lab, greener, cam, REFERENCE, [off])
    assert off.flower == "white"


def test_a_tile_in_a_tinted_shade_is_balanced_on_its_own_plaques(tiles_shot) -> None:
    """A tile lit by a cooler lamp than the rest (the shade of higher tiles under a cool fill) shows
    its band that light's tint, which the photo's balance leaves; balanced again on its own plaques
    (:func:`vision.read.pipeline.own_light`) its band shows the colour it shows in the common light,
    and a tile in that light is left nearly as it was."""
    image, cam, finds = tiles_shot
    white = next(f for f in finds if (f.row, f.col) == (4, 2))
    where = (white.row, white.col, white.level, white.placement)
    fields = [(r, c, white.level) for r, c in white.cells]
    shade = np.zeros(image.shape[:2], np.uint8)
    tiles.hide(shade, tiles.tile_polygon(cam, REFERENCE, *where))
    cool = image.astype(np.float32)
    cool[shade > 0] *= [1.2, 1.0, 0.83]
    cool = np.clip(cool, 0, 255).astype(np.uint8)
    gain = board_gain(image, cam, REFERENCE)
    nothing = np.zeros(image.shape[:2], np.uint8)

    def band(lab: flowers.BandLab, img: np.ndarray) -> np.ndarray:
        px, _ = flowers.band_pixels(lab, tilefit.not_green(img), cam, REFERENCE, *where)
        return flowers.band_colour(px, REFERENCE)

    lit = band_lab(image, cam, REFERENCE, finds, gain)
    shaded = band_lab(cool, cam, REFERENCE, finds, gain)
    want = band(lit, image)
    off = np.linalg.norm(band(shaded, cool)[1:] - want[1:])
    assert off > 8.0  # the tint, in Lab a* b*
    own = pipeline.own_light(shaded, tilefit.not_green(cool), cam, REFERENCE, fields, nothing)
    assert np.linalg.norm(band(own, cool)[1:] - want[1:]) < off / 2  # all but the dead zone (3% a channel)
    again = pipeline.own_light(lit, tilefit.not_green(image), cam, REFERENCE, fields, nothing)
    assert np.allclose(band(again, image), want, atol=3.0)
