"""Which candidates are read as pieces (:func:`read_decorations`): the thresholds, the order in which
kinds claim their fields, the piece networks' second opinion, and the rules that settle doubts."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import TYPE_CHECKING

import numpy as np

from scoring.garden import Cell, Decoration
from vision.camera import Camera, in_image
from vision.profile import Profile
from vision.read import piece_model
from vision.read.decorations.evidence import MIN_SEEN, Evidence, Scorer, cream_gain
from vision.read.decorations.parts import _to_board, piece_hull
from vision.read.decorations.surfaces import Candidate, OnFields, PieceKey, Surfaces, TileLike, candidates

if TYPE_CHECKING:
    from vision.read.tilefit import Glare


@dataclass(frozen=True)
class DecorationFind(OnFields):
    """A piece found on the garden."""

    kind: str
    cells: tuple[Cell, ...]
    levels: tuple[int, ...]  #: the level at each cell (a bridge's middle cell: the bridge's level)
    score: float  #: 0..1, the share of its visible points that show its colours
    visible: float  #: 0..1, the share of its points the photo shows
    centre_px: tuple[float, float]  #: in the working image
    #: (N, 2) working-image points whose convex hull holds the piece in the photo (:func:`piece_hull`)
    outline_px: np.ndarray | None = field(default=None, compare=False, repr=False)
    doubted: bool = False  #: a statue read by its colours that its network doubts (:data:`DOUBTED_STATUE`)
    #: stairs out of the photo's sight told by the garden round them (:func:`stairs_under_belvedere`)
    inferred: bool = False

    @property
    def confidence(self) -> float:
        """0..1: how far the evidence is above the acceptance threshold (for a piece inferred,
        :data:`INFERRED_CONFIDENCE`)."""
        if self.inferred:
            return INFERRED_CONFIDENCE
        t = THRESHOLDS[self.kind]
        return float(np.clip(0.5 + (self.score - t) / (2 * (1 - t)), 0.0, 1.0) * min(1.0, 2 * self.visible))

    def to_decoration(self) -> Decoration:
        """The piece in the ``babylon-garden/1`` model (stairs listed lower field first)."""
        if self.kind == "stairs":
            return Decoration(kind="stairs", cells=self.cells, levels=(self.levels[0], self.levels[1]))
        return Decoration(kind=self.kind, cells=self.cells, level=self.level)


THRESHOLDS: dict[str, float] = {
    "statue": 0.5,
    "fountain": 0.5,
    "bridge": 0.5,
    "stairs": 0.5,
    #: the dome is one solid colour over its whole disc from any camera, and nothing else on a field is
    #: that big and that colour: a print of its colour (an edition's dark blue icons under a blue
    #: dome) covers part of the disc only. On development photos the domes scored 0.87 and more, the
    #: icons and bands taken for one 0.52-0.79
    "belvedere": 0.8,
}
#: a piece seen by the half that stands on a tile read must look surely itself there: it implies a tile
#: hidden under higher ones for its other half (the wrong ones scored 0.5-0.62, the right ones 0.89-1)
ON_HIDDEN_MIN = 0.85
#: ... but a fountain or a bridge with a hidden field under a belvedere read above it needs only its
#: kind's threshold when the photo shows this share of it: the belvedere's corner stands on no pillar,
#: and a piece on the field below is what keeps one off it (spec 1.1). On 400 development photos, such
#: pieces in sight on 0.6 or more and scored 0.5-0.85: 2 fountains (0.55, 0.64; a belvedere was read on
#: their seen half instead) and 2 bridges (0.71, 0.79), all right; seen less, a dozen wrong ones
#: (0.41-1), and the wrong ones in sight scored 0.36 at most. Not stairs: wrong ones so placed scored up
#: to 0.93 in full view
BELOW_BELVEDERE_SEEN = {"fountain": 0.6, "bridge": 0.6}
#: (the smaller pieces, the share in sight, the score): a bridge or a fountain the photo shows less of
#: than this (the rest behind higher tiles), or that scores under this, is not read over a field where
#: one of those smaller pieces, seen well, looks surely itself. The bronze and terracotta of a statue's body
#: explain a bridge's glimpse (on development photos, 3 of the 4 bridges read so seen were a statue's
#: body; the right ones were seen by half their points and more, one by 16%); a dome's teal explains a
#: fountain's water (2 fountains seen by 35% and 41% of their points took a belvedere's field, the dome
#: seen whole; one seen by 51%, scored 0.51, with its water washed out). A bridge seen well but scored
#: barely over its threshold is a statue's body and the terracotta of a tile's band beside it (on the
#: 200 development photos of seeds 41000-41199, the 5 bridges scored 0.50-0.53 over a statue that looked
#: surely itself were all wrong, the statues right; the one right bridge over such a "statue" scored 1.0).
#: A bridge yields so to a belvedere too: variant development 720128, a bridge hidden under level-2
#: tiles but for its middle, read a level too high (0.57) over a belvedere seen whole (0.995)
GLIMPSE = {"bridge": (("statue", "belvedere"), 0.4, 0.6), "fountain": (("belvedere",), 0.5, 0.6)}
#: a piece's score and the share of it in sight for it to look surely itself
SURE = {"statue": (0.9, 0.5), "belvedere": (0.95, 0.8), "stairs": (0.97, 0.9)}
#: a statue scored under this leaves the fields of stairs that look surely themselves: its test
#: (something hides the plaque's middle, and brownish pixels above it) is met by the treads of stairs and
#: the edge of the tile they climb to (on development photos read with their true tiles, 2 statues scored
#: 0.69 and 0.75 took a field of such stairs; a right one, 0.88, stood where stairs scored 1.0 wrongly)
STATUE_UNDER_STAIRS = 0.8
#: stairs climbing to a field read as another symbol lose this much of their score: more than a sure
#: look leaves over the threshold, so in effect they are not read. A round marker allows such stairs,
#: rarely (3% of the generator's pieces), while grey stone is what so much else looks like (glare on a
#: plaque, a pillar, a shaded path): on 120 development photos read with their true tiles, 8 of the 10
#: stairs read wrongly climbed to another symbol's field, and none of the 108 right ones did. A field
#: read as blank counts as another symbol; a plaque whose icon could not be read at all (None at 0.0: a
#: washed-out photo) does not (of 58 such stairs on the 600 development photos of seeds 41000-43199, 2
#: true; with this, none of the 56 others was read, and 43186 gained)
SYMBOL_MISMATCH = 0.55
#: stairs climbing to a field that shows the stairs' symbol are judged before those that score up to this
#: much more: two ways up from one lower field often both look like stairs (the treads seen from above),
#: and the field they climb to, which they leave free, shows their symbol. On development photos read
#: with their true tiles, 3 of the 4 stairs read the wrong way from their lower field climbed to a field
#: whose symbol was not read, the right way (scored 0.98-1) to a clear stairs symbol
STAIRS_SIGN = 0.05
#: stairs with a field on a tile hidden under a higher one, climbing to a field that shows their symbol,
#: need only this score, not ON_HIDDEN_MIN: the free field they climb to says which way stairs stand
#: there (dev 42012: stairs up to a level-3 field whose stairs icon reads clearly scored 0.75, their foot
#: on a level-2 tile hidden but for the stairs' own field)
HIDDEN_SIGNED = 0.7
#: a piece standing with one field on a tile not read, in sight from above (:meth:`Surfaces.unread`),
#: implies that tile: the ring round that field must show its garden green on this many points (of 72)
#: at least (on the development photos, the right pieces showed 3-26; the wrong ones, mostly stairs
#: taken on a bare board cell, 0-2, and wrong stairs over a lower tile's green up to 27) ...
UNREAD_GREEN = 3
#: ... and stairs look surer than on a tile hidden (the wrong ones over green scored 0.87-0.93, the
#: right ones 0.93-1), unless the tile's own lines show round the piece on that field's level
#: (``glimpsed``): then the piece is judged as on a tile read (on the development photos, the stairs
#: whose foot stood on such a field scored 0.46-0.87; what else stood so, 0.36 and 0.8, was other ways up
#: from the same feet)
UNREAD_MIN = {"stairs": 0.95}
#: ... but stairs with their foot there that score this much by their colours (the first figure) and
#: that their network (:mod:`vision.read.piece_model`) is this sure of (the second) are read without
#: that green and that score: the foot of stairs covers most of a tile's one field in sight, and a
#: higher tile beside it in the photo's perspective the rest. On the 400 development photos of seeds
#: 42000-42199 and 43000-43199 (the network trained on others), of the stairs so proposed seen by half
#: their points or more, 2 true ones scored so (43097: 0.93 and 0.999; 43105: 1.0 and 0.998) and none
#: of the 6,100 others (5 at 0.91-0.98 by the network with colours of 0.9 and more). Asked again of the
#: stairs network of stop 51 (trained on more photos, none of these): both still read, and none of the
#: 6,120 others so proposed (6 at 0.92-0.988 by the network with colours of 0.9 and more)
UNREAD_LOOKS = (0.9, 0.99)
#: a fountain with a field on a tile not read needs no garden green round that field where it scores
#: this much: its basin (48 x 20 mm, 7 mm tall) covers the ring the green is looked for on along its
#: axis (11-12.6 mm round the field's centre) and hides most of the rest in the photo's perspective,
#: and its water is a colour no bare board cell shows (the green test is for stairs, grey like a
#: cell's hole). Only where the tile it implies needs no other tile not read: on level 1, or over a
#: tile read one level lower on that cell. On the 600 development photos of seeds 41000-43199, of the
#: fountains with a field on a tile not read scoring this much, 7 true ones failed the green test (0-2
#: points) and 1 wrong one (41084: a lamp's glare on the bare board beside a level-4 tile, taken for
#: washed-out water, implying a level-4 tile over nothing read). The same for a bridge, whose deck
#: (16 mm wide, its terracotta no board colour) covers the ring across its axis and whose end on a low
#: tile a higher tile in front often hides in the photo (dev 41011: a level-1 bridge scoring 1.0, 42%
#: of it in sight, its far end on a tile not read); at stop 54 this gained 41011 on the 500
#: development photos (41000-41099, 42000-43199) and lost none, and read none otherwise on 100 variant
#: development photos (720000-720099)
UNREAD_COVER = {"fountain": 0.95, "bridge": 0.95}
#: ... and a fountain whose fields not read are all on level 1 (a tile on the board, the likeliest to
#: be missed: low, under higher ones, seen by a sliver) this much. On the 1,500 development photos of
#: seeds 41000-41099 and 42000-48199, the fountains so placed scoring 0.85 to 0.95 were 3, all true
#: (48009, 48031, 48177, each with the level-1 tile under it missed); the wrong ones scoring so much
#: stood on levels 4 and 5 (41084, 47091, 48116)
UNREAD_COVER_LOW = {"fountain": 0.85}
MIN_VISIBLE = MIN_SEEN  #: a piece the photo shows less of than this is not judged ...
#: ... but stairs or a fountain with a field under a belvedere read above it, that look surely themselves
#: (this or more) on what little the photo shows: a piece on that field is what kept a pillar off it
#: (spec 1.1), and the tile's overhang hides all but a glimpse of the piece (nor does a glimpse of such
#: a fountain give way to a belvedere seen on its other field, :data:`GLIMPSE`). On development photos
#: read with their true tiles, stairs seen by less than 15% and scored 0.97 or more: 4 right and none
#: wrong under a belvedere, 1 right and 1 wrong elsewhere. Read through the whole reader, the 420 gained
#: 2 photos by stairs, then 3 by fountains (a fountain read wrongly more on a tile read wrongly: 1 lost)
UNDER_BELVEDERE = {"stairs": 0.97, "fountain": 0.97}
#: a piece scored under this on its (lower) field, whose icon reads as one of these symbols clearly
#: (:data:`ICON_CLEAR`), is that icon: a piece standing on the field would hide most of it.
#: A statue: the bridge's wide dark arch hides the plaque's middle as a statue's base does, in the
#: bronze's hue (on development photos read with their true tiles, the 4 statues so read that scored
#: 0.56-0.59 were the icon, the 5 right ones scored 0.88-1). Stairs: the grey treads seen from above
#: read as the fountain's or a statue's icon, more rarely a bridge's, but the stairs look surely
#: themselves (420 development photos: of the stairs scored under 0.7 and read, the 4 on a clear icon
#: were all wrong; the right ones on a clear icon scored 1.0 but one, 0.9)
ICON_DOUBT = {"statue": (0.75, ("bridge",)), "stairs": (0.7, ("statue", "fountain", "bridge"))}
ICON_CLEAR = 0.9
#: the order in which kinds claim their fields: a piece that spans more explains what a smaller one
#: standing on one of its fields would see (a bridge's end looks like a terracotta statue); stairs,
#: grey like so much else, come last
PRIORITY = ("bridge", "fountain", "belvedere", "statue", "stairs")
#: how sure a piece the photo does not show, inferred from the garden round it, is read
INFERRED_CONFIDENCE = 0.5
#: a fountain on two tiles read, seen by fewer of its points than MIN_VISIBLE but by this share at least
#: (the first figure), is read where they show its colours this surely (the second): its water is a
#: colour nothing else on a garden shows (variant development photo 720083: 9% of the fountain in sight
#: past a level-3 stack, scored 1.0). On the 550 development photos of seeds 43000-43199, 55000-55199
#: and 720000-720149 it read that fountain and no other piece
GLIMPSED_WATER = (0.05, 0.95)
SHIFTS_MM = (
    (0.0, 0.0),
    (1.5, 0.0),
    (-1.5, 0.0),
    (0.0, 1.5),
    (0.0, -1.5),
    (1.0, 1.0),
    (1.0, -1.0),
    (-1.0, 1.0),
    (-1.0, -1.0),
)


def _sure(evs: Sequence[Evidence]) -> dict[str, set[tuple[Cell, int]]]:
    """The fields of the pieces in ``evs`` that look surely themselves (:data:`SURE`), by kind."""
    return {
        kind: {
            f
            for e in evs
            if e.candidate.kind == kind and e.score >= SURE[kind][0] and e.visible >= SURE[kind][1]
            for f in e.candidate.fields
        }
        for kind in SURE
    }


#: the piece networks' second opinion (:mod:`vision.read.piece_model`) on statues, stairs and fountains
#: seen by this share of their points and more, on tiles read: a piece whose colours fail its test
#: (under its threshold) is read when its shape looks the piece's this surely, and then scores that
#: probability ...
LOOKS_VISIBLE, LOOKS_SURE = 0.5, 0.9
#: ... and one whose colours pass, but score under the second figure, is not read when its shape looks
#: the piece's this little (the first figure; the score drops to it).
#: Statues: on the 420 development photos read through the whole reader (each set with the network
#: trained on the other), it raised 13 statues, all true (dark or glossy bronze, colour scores 0-0.47),
#: and dropped 303 candidates whose colours passed: 299 not statues (a bridge's arch, a piece's
#: terracotta, bronze-like icons: most given way to another piece anyway), 4 statues (a steep view, a
#: statue at a tile's edge; 0.0002-0.017).
#: Stairs: grey stone that looks surely like stairs (:data:`SURE`) is not doubted: on the development
#: photos read with their true tiles (each set with the network trained on the others), of the stairs
#: scored 0.97 or more, 3 of 382 true ones and 5 of 13 wrong ones scored 0.02 or less. Of those scored
#: 0.5-0.97, the 22 true ones all scored over 0.002, and 78 of the 118 wrong ones 0.002 or less.
#: Fountains: water mirroring the lamp is white, or pale past the washed-out colour's reach, yet the
#: basin's oval is plain. On the development photos read with their true tiles (each set with the
#: network trained on the other), of the fountains seen by half their points or more, 8 true ones
#: failed their colours and 7 of them scored 0.9 or more (and 1 of 2,173 other places); the 4 wrong
#: ones scored 0.5-0.9 by colour all scored 0.002 or less, no true one (of 505) under 0.02.
LOOKS_NOT = {"statue": (0.02, math.inf), "stairs": (0.002, SURE["stairs"][0]), "fountain": (0.02, 0.9)}
#: ... and stairs passing their colours in a glare spot (:func:`vision.read.tilefit.glare_spots`: at
#: least the first figure of a spot's share where the stairs stand) score what their network gives them
#: where that is under the second: the lamp's reflection washes a field out to the neutral grey of the
#: stairs' stone, and the colours say nothing there (development 56127 and 56199: a glared field, its
#: flowers or its plaque, 1.0 by colour, 0.08 and 0.02 by the network, a spot's share of 1 on both)
GLARED = {"stairs": (0.5, 0.5)}
#: ... but a statue whose colours pass this surely (the first figure) and whose network doubts it only
#: mildly (over the second figure) is read last, once every other piece has claimed its fields, on a
#: field of a tile read that none claimed, with this confidence (the third). On the 600 development
#: photos of seeds 41000-43199, of the statues so doubted seen by half their points or more on fields
#: no other piece was read on, 6 were true (colour 0.88-1.0, network 0.00013-0.013, all on level 1)
#: and 1 wrong (43063: a level-3 plaque's print, colour 0.97, network 0.018); doubted more (0.0001 or
#: less), 4 more wrong ones at 0.85 and over, and no true one
DOUBTED_STATUE = (0.85, 1e-4, 0.5)
#: another edition's statue (whose colours the profile tells, :mod:`vision.calibrate`) scoring at least
#: the first figure by its colours scores what the shape network gives it where that is this sure of it
#: (the second), if more. On the 93 variant development photos (seeds 720000-720092, read with
#: the profile calibrated on 5 others), of the statues in sight on half their points or more, the 7
#: true ones scoring 0.1-0.5 by colour all scored 0.99 or more by shape, the 14 other places so scored
#: 0.01 or less; places of no colour at all (0.0) scored up to 0.999 (a pale icon's round shape).
#: Fountains need no colour: of the 102 true ones so seen all scored 0.99 or more by shape (one 0.0 by
#: its colours), and no other place over 0.22. Stairs need no colour but a surer shape: on those
#: photos 3 other places scored 0.93-0.98 by shape, with grey enough to score 0.4-0.6 by colour, as much
#: as the one true one missed (0.4, shape 0.998); on 60 photos of a third edition made to test this
#: (sandstone stairs, the board's print's colour), 26 true stairs of 56 were missed by colour, 22 of
#: them scored 0.99 or more by shape, no other place of either edition over 0.99 (3 at 0.91-0.99).
#: Bridges (the
#: reference's have no network): on the variant development photos the 53 true ones in sight scored
#: 0.99 or more by shape, the 3 other places over 0.5 (0.60-0.97) none by colour; on 60 photos of a
#: third edition made to test this (brown bridges among prints of that brown), the 12 true ones missed
#: scored 0.07-0.51 by colour and 0.96 or more by shape, no other place over 0.5.
#: Belvederes: on the variant development photos 5 true ones in sight were missed, 3 of them scoring
#: 0.99 or more by shape (two whose blue dome showed no colour at all, 0.02); of the 2,921 other places
#: in sight, 3 scored 0.97-0.98 by shape and none 0.99 (their colours 0.03-0.04, as low as the true
#: ones'); on the third edition's 60 photos every belvedere was read already and no other place scored
#: 0.99 by shape
SHAPE_SURE = {
    "statue": (0.1, 0.9),
    "fountain": (0.0, 0.9),
    "bridge": (0.05, 0.9),
    "stairs": (0.0, 0.99),
    "belvedere": (0.0, 0.99),
}
#: a statue on the field of a tile not read (:meth:`Surfaces.slivers`) is read where its network is this
#: sure of it, on the level it is surest of, and where the ring round the field shows garden green on
#: this many points (of 72) at least: the tile's one field in sight shows its own green round the
#: statue. On development photos (the 200 of seeds 41000-41199 and 40 rendered with such a statue,
#: `Surfaces.slivers`'s test) the right ones scored 0.78-1.0 with 12-44 points of green; the network
#: scored a printed icon by a bare cell at the board's edge 0.96, 6 points of green round it, and one
#: statue a level too high 0.89 against 0.87 on its own level
SLIVER_LOOKS, SLIVER_GREEN = 0.5, 10
#: a statue the photo shows less of than :data:`MIN_VISIBLE` (a taller stack beside it hides the rest in
#: the photo's perspective) is read where those few points score this or more and the network is this
#: sure of it. On the development photos of seeds 41000-41199, 4 statues so seen scored 0.9 or more: the
#: 3 right ones 0.80-0.98 by the network, the wrong one 0.000
GLIMPSED_STATUE = (0.9, 0.5)


def piece_patch(
    image_bgr: np.ndarray,
    cam: Camera,
    profile: Profile,
    c: Candidate,
    shift: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """The patch the piece network of ``c``'s kind looks at (:mod:`vision.read.piece_model`); stairs',
    a fountain's and a bridge's moved by ``shift`` (along, across, mm: their training's jittered
    copies), a statue's too (across and down the board, mm: :data:`STATUE_AROUND_MM`), a belvedere's
    never (its network learned it unmoved)."""
    if c.kind == "statue":
        (row, col), level = c.fields[0]
        at = (row + shift[1] / profile.board.pitch, col + shift[0] / profile.board.pitch)
        return piece_model.statue_patch(image_bgr, cam, profile, at, level)
    if c.kind == "belvedere":
        return piece_model.statue_patch(image_bgr, cam, profile, *c.fields[0])
    if c.kind == "fountain":
        return piece_model.fountain_patch(image_bgr, cam, profile, c.origin, c.angle_deg, shift)
    if c.kind == "bridge":
        return piece_model.bridge_patch(image_bgr, cam, profile, c.origin, c.angle_deg, shift)
    return piece_model.stairs_patch(image_bgr, cam, c.origin, c.angle_deg, c.run, c.rise, shift)


def _looks(
    kind: str,
    evidence: Sequence[Evidence],
    image_bgr: np.ndarray,
    cam: Camera,
    profile: Profile,
    gain: np.ndarray,
) -> np.ndarray | None:
    """How surely ``kind``'s network (:mod:`vision.read.piece_model`) sees that piece at each of
    ``evidence``'s candidates (0..1); None when the profile's piece is not the one it learned (only
    the shape network knows it: :func:`own_model`)."""
    model = own_model(kind, profile)
    if model is None:
        return None
    return _asked(model, evidence, image_bgr, cam, profile, gain)


def _asked(
    model: piece_model.PieceModel,
    evidence: Sequence[Evidence],
    image_bgr: np.ndarray,
    cam: Camera,
    profile: Profile,
    gain: np.ndarray,
) -> np.ndarray:
    """``model``'s probability of its piece at each of ``evidence``'s candidates (their patches)."""
    return model.on_patches([piece_patch(image_bgr, cam, profile, e.candidate) for e in evidence], gain)


def own_model(kind: str, profile: Profile) -> piece_model.PieceModel | None:
    """``kind``'s network when it learned the profile's piece, colours and all (not the shape network
    another edition's piece is asked about)."""
    model = piece_model.model_for(kind, profile)
    return model if model is not None and model.features != "shape" else None


def _second_opinion(
    evidence: list[Evidence],
    image_bgr: np.ndarray,
    cam: Camera,
    profile: Profile,
    gain: np.ndarray,
    glare: Glare | None = None,
) -> None:
    """Rescore (in place) the statues, stairs and fountains seen well by their networks (when the
    profile's piece is the one it learned): those failing their colour test whose shape is surely the
    piece's, those passing it whose shape surely is not (see :data:`LOOKS_SURE`; a statue only where it
    is not round its field's centre either, :data:`STATUE_AROUND_MM`; stairs in ``glare``'s spots whose
    shape is more likely not, :data:`GLARED`); a statue passing it whose shape surely is scores that
    (:data:`AGREED`). Another edition's pieces are asked of the shape networks
    (:func:`_shape_opinion`). A field's piece that passes its colour test keeps the field from the
    network's raise of the other one-field kind (:func:`_colours_first`)."""
    colour_scores = {id(e): e.score for e in evidence}
    for kind in piece_model.KINDS:
        seen = [
            e
            for e in evidence
            if e.candidate.kind == kind and e.visible >= LOOKS_VISIBLE and not e.candidate.hidden
        ]
        model = piece_model.model_for(kind, profile)
        if model is not None and model.features == "shape":
            _shape_opinion(kind, seen, image_bgr, cam, profile, gain, model)
            continue
        if kind in SHAPE_DOUBT and model is None:
            _shape_doubt(kind, seen, image_bgr, cam, profile, gain)
            continue
        if kind not in LOOKS_NOT:  # no network of the reference's colours (bridges)
            continue
        p = _looks(kind, seen, image_bgr, cam, profile, gain)
        if p is None:
            continue
        not_p, below = LOOKS_NOT[kind]
        glared = _glared(kind, seen, cam, glare)
        for e, pi, washed in zip(seen, p, glared, strict=True):
            passed = e.score >= THRESHOLDS[kind]
            doubt = passed and (pi <= not_p and e.score < below or washed and pi < GLARED[kind][1])
            if doubt and kind == "statue" and _statue_around(e, pi, image_bgr, cam, profile, gain) > not_p:
                continue
            if (not passed and pi >= LOOKS_SURE) or doubt:
                if kind == "statue" and e.score >= DOUBTED_STATUE[0] and pi > DOUBTED_STATUE[1]:
                    e.doubted_colour = e.score
                e.score = float(pi)
            elif kind in AGREED and passed and pi >= LOOKS_SURE:
                e.score = max(e.score, float(pi))
    _colours_first(evidence, colour_scores)


def _glared(kind: str, evidence: Sequence[Evidence], cam: Camera, glare: Glare | None) -> list[bool]:
    """Whether each of ``evidence``'s pieces of ``kind`` stands in a glare spot (:data:`GLARED`)."""
    if glare is None or kind not in GLARED or not evidence:
        return [False] * len(evidence)
    uv = np.round(cam.project(np.array([e.candidate.origin for e in evidence], float))).astype(int)
    inside = in_image(uv, glare.share.shape)
    share = np.zeros(len(evidence))
    share[inside] = glare.share[uv[inside, 1], uv[inside, 0]]
    return [bool(s >= GLARED[kind][0]) for s in share]


#: the kinds whose piece, passing its colour test, scores what its network gives it where that is
#: :data:`LOOKS_SURE` of it, if more: the two agree, and the piece is read as sure as the surer. A statue
#: of middling colour (a dim or glossy bronze) is then sure enough to stay out of line with the others
#: where a statue hidden from the camera would put it in line (:data:`vision.read.assemble.SURE_STATUE`;
#: development 56043: 0.72 by its colours, 1.0 by the network, left out as out of line). On the 200
#: development photos of seeds 56000-56199, 22 statues scored 0.5-0.9 by colour and 0.9 or more by the
#: network, all true
AGREED = ("statue",)
#: a statue's network doubts it only where it doubts it on average over its field's centre and these
#: shifts (mm, across and down the board) too: the hand stands a statue up to 3 mm off the centre its
#: patch is cut round, and the network's opinion swings with a millimetre or two (development 56060: a
#: statue seen whole, 1.0 by its colours and 2 mm off the centre, 0.00008 by the network, 0.94 a
#: field's twentieth up). The network's raise of a statue failing its colours stays on the centre alone.
#: On the 200 development photos of seeds 56000-56199, the 3 true statues the network dropped were all
#: kept so (2 photos gained; the third was read by :data:`DOUBTED_STATUE` anyway), and 3 of the 186
#: other places it dropped, no photo read wrongly for them
STATUE_AROUND_MM = ((1.5, 0.0), (-1.5, 0.0), (0.0, 1.5), (0.0, -1.5))


def _statue_around(
    e: Evidence, centre: float, image_bgr: np.ndarray, cam: Camera, profile: Profile, gain: np.ndarray
) -> float:
    """The statue network's mean probability of a statue on ``e``'s field, at its centre (``centre``,
    asked already) and shifted by :data:`STATUE_AROUND_MM`."""
    model = own_model("statue", profile)
    if model is None:
        return 0.0
    patches = [piece_patch(image_bgr, cam, profile, e.candidate, shift) for shift in STATUE_AROUND_MM]
    return float(np.mean([centre, *model.on_patches(patches, gain)]))


#: the kinds that stand on one field and never share it
ONE_FIELD = ("statue", "belvedere")


def _colours_first(evidence: list[Evidence], colour_scores: dict[int, float]) -> None:
    """Undo (in place) a network's raise of a statue or a belvedere (one that failed its colour test,
    ``colour_scores`` by ``id``) on a field where the other kind passes its own colour test. The
    networks learned the reference edition's shapes: another edition's statue can look like its
    belvedere (variant development 720125: a mauve statue, 1.0 by its colours, was read as a belvedere
    whose dome showed none of its blue, 0.999 by the shape network)."""
    passed = {
        (e.candidate.kind, e.candidate.fields[0])
        for e in evidence
        if e.candidate.kind in ONE_FIELD and colour_scores[id(e)] >= THRESHOLDS[e.candidate.kind]
    }
    for e in evidence:
        kind = e.candidate.kind
        if kind not in ONE_FIELD or not colour_scores[id(e)] < THRESHOLDS[kind] <= e.score:
            continue
        if any((other, e.candidate.fields[0]) in passed for other in ONE_FIELD if other != kind):
            e.score = colour_scores[id(e)]


def _shape_opinion(
    kind: str,
    seen: list[Evidence],
    image_bgr: np.ndarray,
    cam: Camera,
    profile: Profile,
    gain: np.ndarray,
    model: piece_model.PieceModel,
) -> None:
    """Raise (in place) another edition's pieces whose colours show some of the piece where the shape
    network (:mod:`vision.read.piece_model`, trained on the reference edition) is sure of the piece
    (:data:`SHAPE_SURE`; statues zeroed by a test of their field: :data:`STATUE_IN_PART`). It lowers
    none: it never learned the edition's icons and light, and its doubts fall on true pieces too (on the
    variant development photos, a true statue at 1e-7 where false ones read scored 1e-6 to 1e-9)."""
    if kind not in SHAPE_SURE:
        return
    least, sure = SHAPE_SURE[kind]
    some = [e for e in seen if e.score >= least or kind == "statue" and _statue_in_part(e)]
    p = _asked(model, some, image_bgr, cam, profile, gain)
    for e, pi in zip(some, p, strict=True):
        if pi >= sure:
            e.score = max(e.score, float(pi))


#: another edition's statue whose colours were set at nought by its clear ring or its ink test (the
#: middle of its field showing some plaque, or its plastic as dark as the icons' ink) is still asked of
#: the shape network (:data:`SHAPE_SURE`) where its own colour shows on this share of its points at
#: least and the middle of its field is clear on this share (the first and second figures): the
#: variant's grey-mauve plastic lit pale or dark passes for the plaque or the ink. On the variant
#: development photos of seeds 730000-730119 (read with the profile calibrated on 5 others), of the 118
#: places so zeroed with both shares, the 2 true statues scored 0.98 and 1.0 by shape, the others 0.48
#: or less (a third true statue, its colour on 31% of its points, is not asked); on seeds 720000-720119,
#: of 75 such places the one true statue (as dark as the ink, its middle clear) scored 1.0, the others
#: 0.0005 or less
STATUE_IN_PART = (0.5, 0.5)


def _statue_in_part(e: Evidence) -> bool:
    """Whether ``e`` is a statue whose colours scored nought, but its colour and clear ring show on
    :data:`STATUE_IN_PART` of their points."""
    colour, clear = STATUE_IN_PART
    return e.score == 0.0 and e.parts.get("bronze0", 0.0) >= colour and e.parts.get("clear1", 0.0) >= clear


#: a piece with no network of its colours (the reference's bridge) passing its colour test with a score
#: under the second figure is not read where the network of its shape alone gives it the first figure
#: or less (its score drops to that). On the 200 development photos of seeds 56000-56199, of the 83
#: bridges seen by half their points or more that passed their colours, the 82 true ones scored 0.986
#: or more by shape; the one wrong one (56028: the shade of a level-2 tile over the board between two
#: tiles, 0.54 by its terracotta) 0.0003
SHAPE_DOUBT = {"bridge": (0.02, 0.9)}


def _shape_doubt(
    kind: str, seen: list[Evidence], image_bgr: np.ndarray, cam: Camera, profile: Profile, gain: np.ndarray
) -> None:
    """Lower (in place) the pieces of ``kind`` in ``seen`` passing their colour test but not surely
    that its shape network doubts (:data:`SHAPE_DOUBT`)."""
    model = piece_model.shape_model(kind)
    not_p, below = SHAPE_DOUBT[kind]
    some = [e for e in seen if THRESHOLDS[kind] <= e.score < below]
    if model is None or not some:
        return
    for e, pi in zip(some, _asked(model, some, image_bgr, cam, profile, gain), strict=True):
        if pi <= not_p:
            e.score = float(pi)


def _unread_stairs(
    evidence: list[Evidence],
    surf: Surfaces,
    image_bgr: np.ndarray,
    cam: Camera,
    profile: Profile,
    gain: np.ndarray,
) -> None:
    """Mark (in place) the stairs with their foot on a field where no tile was read, seen by half their
    points or more, that look surely themselves by colour and network (:data:`UNREAD_LOOKS`)."""
    least, sure = UNREAD_LOOKS
    some = [
        e
        for e in evidence
        if e.candidate.kind == "stairs"
        and surf.unread(*e.candidate.fields[0])
        and e.visible >= LOOKS_VISIBLE
        and e.score >= least
    ]
    model = piece_model.model_for("stairs", profile)
    if not some or model is None:
        return
    p = _asked(model, some, image_bgr, cam, profile, gain)
    for e, pi in zip(some, p, strict=True):
        e.network_sure = bool(pi >= sure)


def _glimpsed(
    evidence: list[Evidence], image_bgr: np.ndarray, cam: Camera, profile: Profile, gain: np.ndarray
) -> None:
    """Mark (in place) the statues the photo shows less of than :data:`MIN_VISIBLE` whose few points show
    their colours surely and whose network sees a statue (:data:`GLIMPSED_STATUE`)."""
    few = [
        e
        for e in evidence
        if e.candidate.kind == "statue"
        and not e.candidate.hidden
        and 0 < e.visible < MIN_VISIBLE
        and e.score >= GLIMPSED_STATUE[0]
    ]
    p = _looks("statue", few, image_bgr, cam, profile, gain)
    if p is None:
        return
    for e, pi in zip(few, p, strict=True):
        e.glimpsed = bool(pi >= GLIMPSED_STATUE[1])


def _sliver_statues(
    sliver: Sequence[Evidence], scorer: Scorer, image_bgr: np.ndarray, gain: np.ndarray
) -> list[Candidate]:
    """Of the statues on fields of :meth:`Surfaces.slivers`, those to judge: on each cell, the level
    where the statue network is surest of a statue, if sure enough and the field shows its green
    (:data:`SLIVER_LOOKS`). The colours alone cannot tell: a statue judged a level too high or too low
    still shows its bronze where it is looked for, and a bare board cell's print or a piece on a tile
    beside it passes for one; the network's patch, cut on the plane the statue would stand on, is its
    own only on the right level. None without the network (another edition's statue)."""
    seen = [
        e
        for e in sliver
        if e.score >= THRESHOLDS["statue"]
        and e.visible >= LOOKS_VISIBLE
        and scorer.green_seen(e.candidate.fields[0]) >= SLIVER_GREEN
    ]
    p = _looks("statue", seen, image_bgr, scorer.sampler.cam, scorer.profile, gain)
    if p is None:
        return []
    best: dict[Cell, tuple[float, Candidate]] = {}
    for e, pi in zip(seen, p, strict=True):
        cell = e.candidate.cells[0]
        if pi >= SLIVER_LOOKS and pi > best.get(cell, (0.0, None))[0]:
            best[cell] = (float(pi), e.candidate)
    return [c for _, c in best.values()]


def stairs_under_belvedere(
    found: Sequence[DecorationFind],
    cands: Sequence[Candidate],
    surf: Surfaces,
    field_symbols: dict[tuple[Cell, int], tuple[str | None, float]],
    taken: set[tuple[Cell, int]],
) -> list[Candidate]:
    """Stairs the photo cannot show but the garden round them tells. No pillar stands on a piece (spec
    1.1), so a tile over a field holding stairs rests on three pillars and carries a belvedere over
    them; the field the stairs climb to is left free and shows their symbol (spec 1.3), and it, not the
    stairs hidden under the tile, makes them count from above (spec 1.4). So: under each belvedere read
    on level k + 2, stairs from its cell's field on level k (its tile read, or hidden under the higher
    tile: the self-correction allows a piece on a tile hidden there) up to the free neighbouring field
    of level k + 1 seen from above whose stairs symbol reads (the clearest, if several). Of the 3,000
    gardens of the generator's seeds 0-2,999, 113 showed such a free stairs symbol beside the field
    under a belvedere (no tile on level k + 1 there), and 94 of them had the stairs; in 10 of the others
    no tile stood on level k there."""
    out = []
    for b in found:
        if b.kind != "belvedere":
            continue
        cell, top = b.fields[0]
        low = (cell, top - 2)
        options = [
            (field_symbols[up][1], c)
            for c in cands
            if c.kind == "stairs"
            and c.fields[0] == low
            and (up := c.fields[1])[1] == top - 1
            and surf.seen(*up)
            and taken.isdisjoint(c.fields)
            and field_symbols.get(up, (None, 0.0))[0] == "stairs"
        ]
        if options:
            out.append(max(options, key=lambda o: o[0])[1])
    return out


def read_decorations(
    image_bgr: np.ndarray,
    cam: Camera,
    tiles: Sequence[TileLike],
    profile: Profile,
    gain_srgb: np.ndarray | None = None,
    field_symbols: dict[tuple[Cell, int], tuple[str | None, float]] | None = None,
    glimpsed: Collection[tuple[Cell, int]] = (),
    glare: Glare | None = None,
    refused: Collection[PieceKey] = (),
) -> list[DecorationFind]:
    """Every decoration standing on the tiles read (see the module's docstring). ``cam`` is the camera
    of ``image_bgr``'s pixels; ``gain_srgb`` the board white balance (computed when not given);
    ``field_symbols`` the symbols read on the fields, with how clearly (0..1;
    :func:`vision.read.symbols.read_fields`), when known: stairs are put on fields of their symbol (spec
    1.3), and the field they climb to, which they leave free, shows it. ``glimpsed``: fields of tiles
    not read whose lines show round a piece (:func:`vision.read.tiles.glimpsed`); a piece there is
    judged as on a tile read. ``glare``: the photo's glare spots (:func:`vision.read.tilefit.glare_spots`),
    where stairs are judged by their network (:data:`GLARED`). ``refused``: pieces (kind, cells, levels)
    not to take, whatever they look like (the rules left them out of an earlier reading: what else the
    photo shows on their fields is read instead)."""
    if gain_srgb is None:
        from vision.read.views import board_gain

        gain_srgb = board_gain(image_bgr, cam, profile)
    gain = np.asarray(gain_srgb, np.float32)
    surf = Surfaces(tiles, profile)
    scorer = Scorer(image_bgr, cam, surf, profile, gain_srgb)
    cream = cream_gain(scorer, profile)
    if cream is not None:
        # the plaques say the board's balance is off, but a light far from the camera's setting moves
        # each colour on the photo's tone curve, which no one gain undoes for all: every candidate is
        # judged under both balances, the better kept. Dev 46082 (a 2,850 K lamp): balanced on the
        # plaques, its bridges' terracotta came out near the pillars' colour and all three were missed;
        # on the board's balance they are read. On the 1,200 development photos of seeds 41000-41099,
        # 42000-46199 and 720000-720099 (calibrated) it gained 43041 (a tile implied by a piece so read)
        # and lost none; 46082 and 720039 read nearer, wrong either way
        board = scorer
        scorer = Scorer(image_bgr, cam, surf, profile, gain * cream)
        scorer.judge_also_under(board)
    cands = candidates(surf)

    def on_sliver(c: Candidate) -> bool:
        """A statue on a field of :meth:`Surfaces.slivers` (judged by :func:`_sliver_statues`)."""
        return c.kind == "statue" and c.fields[0] in surf.sliver_fields

    # the photo's ink, on the plaques where no statue may stand (its bronze would pass for pale ink;
    # each statue judged where it would stand unmoved: a hand's shift changes the ink by a hair)
    unmoved = scorer.evidence([c for c in cands if c.kind == "statue" and not on_sliver(c)])
    scorer.measure_ink({e.candidate.fields[0] for e in unmoved if e.score >= THRESHOLDS["statue"]})
    sliver = [c for c in cands if on_sliver(c)]
    keep = _sliver_statues(
        scorer.evidence(sliver, SHIFTS_MM), scorer, image_bgr, gain
    )
    cands = [c for c in cands if not on_sliver(c) or c in keep]
    found: list[DecorationFind] = []
    taken: set[tuple[Cell, int]] = set()
    spanned: set[Cell] = set()  #: the middle cells of the bridges read (levels go from high to low)
    belvedere_tiles: set[int] = set()
    shown_own: set[str] = set()  #: the kinds of the pieces read in their own colours (not mimicked)

    def take(ev: Evidence, inferred: bool = False) -> None:
        c = ev.candidate
        taken.update(c.fields)
        if not ev.mimicked:
            shown_own.add(c.kind)
        if c.kind == "bridge":
            spanned.add(c.cells[1])
        hull = piece_hull(profile, c)
        outline = cam.project(_to_board(c, hull, ev.shift))
        scorer.occ.add_piece(c.level, outline)
        # the piece's mark: the middle of its box (the hull's points lean to where they are many)
        box = np.array(list(product(*zip(hull.min(axis=0), hull.max(axis=0), strict=True))))
        centre = cam.project(_to_board(c, box, ev.shift)).mean(axis=0)
        found.append(
            DecorationFind(
                c.kind,
                c.cells,
                c.levels,
                round(ev.score, 4),
                round(ev.visible, 4),
                (float(centre[0]), float(centre[1])),
                outline,
                ev.doubted_colour > 0,
                inferred,
            )
        )

    def bare(f: tuple[Cell, int]) -> bool:
        """Whether ``f`` is a field where no tile was read that shows no garden green round it
        (:data:`UNREAD_GREEN`): no piece is read standing there."""
        return surf.unread(*f) and scorer.green_seen(f) < UNREAD_GREEN

    def stairs_sure(field: tuple[Cell, int], sure: dict[str, set[tuple[Cell, int]]]) -> bool:
        """Whether stairs on ``field`` look surely themselves (see :data:`SURE`): those on its level
        judged already, those climbing to it from a level below judged now, unless from a field where
        no tile was read that shows no garden green (:func:`bare`: they could not be read)."""
        if field in sure["stairs"]:
            return True
        below = [c for c in cands if c.kind == "stairs" and c.fields[1] == field and not bare(c.fields[0])]
        return field in _sure(scorer.evidence(below, SHIFTS_MM))["stairs"]

    def climbs_to_sign(c: Candidate) -> bool:
        """Whether ``c`` is stairs climbing to a field read as showing their symbol."""
        if c.kind != "stairs" or not field_symbols:
            return False
        return field_symbols.get((c.cells[-1], c.levels[-1]), (None, 0.0))[0] == "stairs"

    def signed(e: Evidence) -> float:
        """:data:`STAIRS_SIGN` for stairs climbing to a field read as showing their symbol, else 0."""
        return STAIRS_SIGN if climbs_to_sign(e.candidate) else 0.0

    def belvedere_over(cell: Cell, level: int) -> bool:
        """Whether a belvedere was read over ``cell`` on a tile above ``level``."""
        return any(f.kind == "belvedere" and f.cells[0] == cell and f.levels[0] > level for f in found)

    def below_belvedere(c: Candidate) -> bool:
        """Whether a belvedere was read on a tile above one of ``c``'s fields."""
        return any(belvedere_over(cell, level) for cell, level in c.fields)

    def carried_over(c: Candidate) -> bool:
        """Whether every cell of ``c`` under a higher tile read has a belvedere read over it. A piece
        is no pillar (spec 1.1), so the lowest tile over it rests on nothing there: that is its one
        unsupported corner, which carries a belvedere. (A statue may be a pillar, but statues, like
        belvederes, are only proposed on fields in sight from above: this holds for them always.)"""
        return all(
            surf.seen(cell, level) or belvedere_over(cell, level)
            for cell, level in zip(c.cells, c.levels, strict=True)
        )

    def under_belvedere(ev: Evidence) -> bool:
        """Whether ``ev``'s piece may be seen by a glimpse: a belvedere was read on a tile above one of
        its fields, and it looks surely itself (:data:`UNDER_BELVEDERE`)."""
        c = ev.candidate
        return c.kind in UNDER_BELVEDERE and ev.score >= UNDER_BELVEDERE[c.kind] and below_belvedere(c)

    def sure_enough_half_hidden(ev: Evidence) -> bool:
        """Whether ``ev``'s piece, with a field on a tile not read, looks enough itself to imply that
        tile: surely (:data:`ON_HIDDEN_MIN`), or on fields whose tile's lines show round it
        (``glimpsed``); or a fountain or bridge well in sight under a belvedere read above it
        (:data:`BELOW_BELVEDERE_SEEN`); or stairs up to their symbol (:data:`HIDDEN_SIGNED`)."""
        c = ev.candidate
        if ev.score >= ON_HIDDEN_MIN or on_glimpsed(ev):
            return True
        if c.kind in BELOW_BELVEDERE_SEEN and ev.visible >= BELOW_BELVEDERE_SEEN[c.kind]:
            return below_belvedere(c)
        return c.kind == "stairs" and ev.score >= HIDDEN_SIGNED and climbs_to_sign(c)

    def mimicked(kind: str, judged: Sequence[Evidence], sure: set[tuple[Cell, int]]) -> set[tuple[Cell, int]]:
        """The fields of the pieces of ``kind`` in ``judged`` whose colour passes for the colour that may
        mimic it (:attr:`Evidence.mimicked`), where a piece of that kind read, or sure (on ``sure``) in
        ``judged``, shows its own: the mimic's piece stands there. Dev 45047: a fountain's water seen
        past a higher tile passed for a belvedere's dome, while the photo's true dome showed teal; on
        the 1,200 development photos of seeds 41000-41099, 42000-46199 and 720000-720099 (variant,
        calibrated) it read no other photo otherwise."""
        ours = [e for e in judged if e.candidate.kind == kind]
        own = kind in shown_own or any(not e.mimicked and e.candidate.fields[0] in sure for e in ours)
        return {f for e in ours if e.mimicked for f in e.candidate.fields} if own else set()

    def outshone(ev: Evidence, judged: Sequence[Evidence]) -> bool:
        """Whether a piece of two fields or more, none on a tile hidden under a higher one, looking more
        itself than ``ev`` (a piece with such a field), claims a field of ``ev``'s in ``judged``: that
        piece is what the photo shows there, whatever kind claims its fields first (:data:`PRIORITY`).
        Dev 43096: stairs seen whole (1.0) were read as a fountain (0.86, 36% in sight) whose other
        half would stand on a tile under the tile the stairs climb to; at stop 54 the 500 development
        photos read only that one otherwise (its pieces right now, its total still wrong: a tile
        missed), and the 100 variant development photos none."""
        c = ev.candidate
        return any(
            o.candidate.kind != c.kind
            and len(o.candidate.fields) > 1
            and not o.candidate.hidden
            and o.score > ev.score
            and o.score >= THRESHOLDS[o.candidate.kind]
            and o.visible >= MIN_VISIBLE
            and set(o.candidate.fields) & set(c.fields)
            for o in judged
        )

    def water_glimpsed(ev: Evidence) -> bool:
        """Whether ``ev`` is a fountain on tiles read whose water a glimpse shows (:data:`GLIMPSED_WATER`)."""
        c = ev.candidate
        least, sure = GLIMPSED_WATER
        return c.kind == "fountain" and not c.hidden and ev.visible >= least and ev.score >= sure

    def on_glimpsed(ev: Evidence) -> bool:
        """Whether ``ev``'s piece stands on tiles read but for fields whose own lines show round it
        (``glimpsed``)."""
        unread = [f for f in ev.candidate.fields if surf.unread(*f)]
        return bool(unread) and set(unread) <= set(glimpsed)

    def sure_cover(ev: Evidence, unread: list[tuple[Cell, int]]) -> bool:
        """Whether ``ev`` is a fountain or a bridge surely itself (:data:`UNREAD_COVER`, on level 1
        :data:`UNREAD_COVER_LOW`) whose fields not read each lie on level 1 or over a tile read one level
        lower."""
        kind = ev.candidate.kind
        if kind not in UNREAD_COVER:
            return False
        if not all(level == 1 or surf.has(cell, level - 1) for cell, level in unread):
            return False
        low = all(level == 1 for _, level in unread)
        return ev.score >= (UNREAD_COVER_LOW.get(kind, UNREAD_COVER[kind]) if low else UNREAD_COVER[kind])

    #: the pieces found that imply a tile not read, with the cells of those tiles
    implying: dict[int, list[tuple[Cell, int]]] = {}
    doubted: list[Evidence] = []  #: statues the network doubted mildly (:data:`DOUBTED_STATUE`)
    for level in sorted({c.level for c in cands}, reverse=True):
        at_level = scorer.evidence([c for c in cands if c.level == level], SHIFTS_MM)
        # the networks judge first: stairs climbing to a field of another symbol are not raised by them
        _second_opinion(at_level, image_bgr, cam, profile, gain, glare)
        _glimpsed(at_level, image_bgr, cam, profile, gain)
        _unread_stairs(at_level, surf, image_bgr, cam, profile, gain)
        if field_symbols:
            for e in at_level:
                if e.candidate.kind != "stairs":
                    continue
                up = (e.candidate.cells[1], e.candidate.levels[1])
                sym, clear = field_symbols.get(up, ("stairs", 0.0))
                if sym != "stairs" and (sym is not None or clear > 0.0):  # (None, 0.0): no icon read
                    e.score = max(0.0, e.score - SYMBOL_MISMATCH)
        sure = _sure(at_level)
        doubted += [
            e
            for e in at_level
            if e.doubted_colour
            and not e.candidate.hidden
            and not surf.unread(*e.candidate.fields[0])
            and not stairs_sure(e.candidate.fields[0], sure)
        ]
        for kind in PRIORITY:
            evs = [e for e in at_level if e.candidate.kind == kind]
            evs.sort(key=lambda e: -e.score - signed(e))
            if kind in GLIMPSE:
                smaller, glimpse, least = GLIMPSE[kind]
                held = set().union(*(sure[sm] - mimicked(sm, at_level, sure[sm]) for sm in smaller))
                evs = [
                    e
                    for e in evs
                    if e.visible >= glimpse and e.score >= least
                    or not held & set(e.candidate.fields)
                    or under_belvedere(e)
                ]
            for ev in evs:
                c = ev.candidate
                if ev.score < THRESHOLDS[kind] or c.key in refused:
                    continue
                if c.hidden and not sure_enough_half_hidden(ev):
                    continue
                if set(c.fields) & taken or spanned.intersection(c.cells):
                    continue
                if ev.visible < MIN_VISIBLE and not (
                    ev.visible > 0 and under_belvedere(ev) or ev.glimpsed or water_glimpsed(ev)
                ):
                    continue
                if c.hidden and outshone(ev, at_level):
                    continue
                if not carried_over(c):
                    continue
                if kind == "statue" and ev.score < STATUE_UNDER_STAIRS and stairs_sure(c.fields[0], sure):
                    continue
                if kind in ICON_DOUBT and ev.score < ICON_DOUBT[kind][0] and field_symbols:
                    sym, clear = field_symbols.get(c.fields[0], (None, 0.0))
                    if sym in ICON_DOUBT[kind][1] and clear >= ICON_CLEAR:
                        continue
                # stairs judged by their treads alone on a tile not read (Scorer.foot_unread) climb to
                # a field showing their symbol. On the 600 development photos of seeds 41000-43199
                # such stairs gained 4 (41055, 43067, 43139, 43156), none lost; without the symbol,
                # 41118 read stairs up to a field no symbol was read on, implying a tile not there
                if ev.unjudged and not climbs_to_sign(c):
                    continue
                unread = [f for f in c.fields if surf.unread(*f)]
                if unread:
                    sure_enough = ev.network_sure or on_glimpsed(ev)
                    if ev.score < UNREAD_MIN.get(kind, ON_HIDDEN_MIN) and not sure_enough:
                        continue
                    if any(bare(f) for f in unread) and not (ev.network_sure or sure_cover(ev, unread)):
                        continue
                    implying[len(found)] = unread
                if kind == "belvedere":
                    ti = surf.at[c.fields[0]]
                    if ti in belvedere_tiles:
                        continue
                    belvedere_tiles.add(ti)
                take(ev)
    for ev in sorted(doubted, key=lambda e: -e.doubted_colour):
        if ev.candidate.fields[0] not in taken and ev.candidate.key not in refused:
            ev.score = DOUBTED_STATUE[2]
            take(ev)
    if field_symbols:
        hidden = stairs_under_belvedere(found, cands, surf, field_symbols, taken)
        for ev in scorer.evidence(hidden):
            # stairs the photo shows were judged by their looks, above
            c = ev.candidate
            if ev.visible < MIN_VISIBLE and taken.isdisjoint(c.fields) and c.key not in refused:
                take(ev, inferred=True)
    # the tile a piece implies would hide every piece read lower on its cell: such a piece is wrong
    return [
        f
        for i, f in enumerate(found)
        if not any(
            cell == c and lv < level
            for cell, level in implying.get(i, ())
            for g in found
            for c, lv in zip(g.cells, g.levels, strict=True)
        )
    ]
