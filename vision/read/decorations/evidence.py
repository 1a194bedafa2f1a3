"""How the photo agrees with each candidate: the share of its parts' points that show their colours
(:class:`Scorer`), judged in the light on its fields, against the plaques' cream and the icons' ink;
and the white balance the plaques ask for where the board's is far off (:func:`cream_gain`)."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import numpy as np

from scoring.garden import Cell
from vision.camera import Camera
from vision.profile import Profile, chroma
from vision.read.decorations.colours import (
    DEEPENED,
    FADED_FLOOR,
    GLARE_BRIGHT,
    GREEN_DOMINANCE,
    GREEN_FLOOR,
    GREEN_SHARE,
    OWN_GREEN,
    REF_OF,
    REL_LUM,
    WASH_BRIGHT,
    WASH_DEEP,
    Classifier,
    ColourSampler,
    colour_share,
    green_lead,
    groups,
    is_green,
    palette,
)
from vision.read.decorations.parts import Part, _disc, _ring, _to_board, _to_board_shifted, piece_parts
from vision.read.decorations.sight import PRINT_GREEN, PRINT_UNKNOWN, Occluders, _sight_through, empty_print
from vision.read.decorations.surfaces import Candidate, Surfaces


@dataclass
class Evidence:
    """How the photo agrees with one candidate."""

    candidate: Candidate
    score: float  #: 0..1, the weighted share of the piece's visible points that show its colours
    visible: float  #: the share of its points not hidden by nearer things
    parts: dict[str, float] = field(default_factory=dict)  #: share per part colour
    shift: tuple[float, float] = (0.0, 0.0)
    outline_px: np.ndarray | None = None
    glimpsed: bool = False  #: seen by too little to judge by colour, the network read it (:func:`_glimpsed`)
    unjudged: bool = False  #: stairs on a tile not read judged without their cover part (see foot_unread)
    #: stairs whose foot stands where no tile was read that their network sees surely
    #: (:data:`vision.read.decorations.decisions.UNREAD_LOOKS`)
    network_sure: bool = False
    #: a statue whose colours passed surely but whose network doubted it mildly: its colour score (the
    #: score is then the network's; :data:`vision.read.decorations.decisions.DOUBTED_STATUE`), else 0
    doubted_colour: float = 0.0
    #: a part of it shows the colour that may mimic its own (:data:`MIMICS`) on more of its points in
    #: sight than its own
    mimicked: bool = False


#: a part's colour and the colour its group admits that may pass for it: teal and water swap places
#: under some lights (:data:`~vision.read.decorations.colours.GROUPS`), and a belvedere proposed over a
#: fountain's basin finds its dome's disc on the water. Whether the points show the second colour's class
#: more often than their own is kept (:attr:`Evidence.mimicked`) and judged against the photo's own
#: pieces of that kind by the decisions: every dome of another edition, judged by the reference's
#: colours, may pass for its water
MIMICS = {"teal": "water"}
PLAQUE_RING = _ring(8.4, 9.6)  #: on a plaque, outside a statue's base (6 mm and its hand placement)
MIN_PLAQUE = 12  #: fewer non-green pixels on that ring than this: a blank field
#: a statue's bronze is taken for icon ink when the brighter quarter of it lies below this share of the
#: geometric mean of the two colours' brightness over the plaque's, as this photo shows them
#: (:meth:`Scorer.measure_ink`): 0.064 of the plaque's in the reference edition in a clear photo, more
#: in a hazy one, whose veil lifts the ink. The brighter quarter, not the middle: a statue's shaded side
#: and the shadow round its base are as dark as ink, while its lit side is not, and an icon's ink is
#: dark all over. On 420 reference development photos read with their true tiles, the 31 statues and
#: icons whose middle fell under the line at 0.58 (the rule before): the 15 icons' brighter quarter
#: measured at most 1.01 times it, the statues' 1.64 and more (but 2 in a dim photo, 1.02-1.03);
#: 0.75 = 0.58 x 1.3 lies between, and no statue read before falls under it
INK_MARGIN = 0.75
#: the part of a piece on a plaque that ink may mimic, the margin below the line between the two, the
#: percentile of the part's brightness compared with it, and whether only its points that show its
#: colour count (a statue's: an icon drawn with thin strokes leaves the cream between them in sight,
#: which is no brighter bronze; the ink of the strokes has the bronze's hue). On variant photos read
#: with a calibrated profile, a belvedere's dome (lit from above) measured 0.22-0.31 of its plaque's
#: brightness, the dark blue icons 0.05-0.07, and the line lies at 0.12; no dome of the 200 development
#: photos (140 reference, 60 variant) fell under it
INKY_PART = {"statue": ("bronze", INK_MARGIN, 75, True), "belvedere": ("teal", 1.0, 50, False)}
#: the ink's chromaticity this near a piece's colour (twice the classifier's reach,
#: :data:`~vision.read.decorations.colours.MAX_CHROMA_DIST`: an ink pixel, dark, is a noisy colour) can
#: pass for it. The reference statue's bronze and its brown ink are of one hue (0.04 apart); its
#: belvedere's teal dome is far from the ink (0.63), and a dome in a dim, hazy photo is as dark against
#: its plaque as the ink that photo shows (dev 41154: 0.19 against a line at 0.22) where no icon is
#: teal; the variant's navy ink lies 0.10-0.20 from its dome, 0.19-0.37 from its statue
INK_HUE = 0.4
ICON_DISC = _disc(4.5, 0.8)  #: round a plaque's centre: the middle of its icon (a 14 mm box)
INK_SHARE = 10  #: a plaque's ink: this percentile of the brightness of its icon's middle
INK_FIELDS = 6  #: the photo's ink is measured on this many plaques at least (else the profile's holds)
CREAM_SHARE = 0.6  #: a pixel as bright as this share of its plaque's cream, and of its chromaticity ...
CREAM_CHROMA = 0.04  #: ... within this, shows the plaque


STAIRS_CLEAR = 0.75  #: share of the middle of stairs' lower field that must show neither cream nor green
GREEN_RING = _ring(11.0, 12.6)  #: around a field's centre: its garden green, beyond a plaque and a piece
MIN_GREEN = 6  #: fewer green pixels round a field than this: its light is not measured
#: the plaque's cream, over its print's brightness, is this share of the light its field's green ring
#: measures in a typical photo (the median over 200 development photos: 0.78). A haze or a flat phone
#: look brightens the green more than the near-white cream (0.3-0.5 in the most washed-out photos),
#: and the light measured on the green then leaves a statue's bronze too dark for bronze: a statue's
#: light is no more than its plaque's cream tells (on 420 development photos read with their true
#: tiles, 3 statues more found, 1 more read wrongly; applied to every piece, bridges and stairs lost)
PLAQUE_LIGHT = 0.775
#: stairs whose fields' green rings measure less light than this share of the photo's typical field
#: (:meth:`Scorer.typical_light`) are judged in that typical light: they rise out of the shade into the
#: light, and their grey, judged in the shade's light, is as bright as a plaque's cream. On 420
#: development photos read through the whole reader, the 2 stairs missed so had rings at 0.25 and 0.4
#: of the typical light; lifting every stairs' light to the typical made 3 wrong stairs more, with
#: rings at 0.51-0.9 of it
SHADE = 0.5


#: a "min" part with fewer visible points than this is not judged; but a piece none of whose "min"
#: parts shows its colour on a single point is no piece (a fountain seen by a glimpse under a
#: belvedere, by its rim alone: on the 600 development photos of seeds 41000-43199, 4 fountains so
#: read were false (41150, 42024, 43072, 43107), 1 true (43133))
MIN_PART = 5
MIN_COVER = 6  #: fewer points where the empty tile shows green than this: a cover part is not judged
#: stairs whose foot stands on a tile not read (:meth:`Scorer.foot_unread`), judged by their treads,
#: show stone's own colours (grey, white) on this share of them at least, not only the print's or the
#: pillars' tan that the treads' group takes in too: where no tile is, the board's cells show there
#: (development 49157 and 49164: 0.53 and 0.07, each implying a tile not there; 44175 and 46041 read
#: right so too). True stairs: 43067's 0.93, kept; 46137's 0.07-0.27, under a light that gives them
#: the board's colour, lost (of the 300 held-out photos, 900075 lost, 900174 gained)
OWN_STONE_MIN = 0.75
UNJUDGED_COVER = (
    0.0  #: a piece whose cover part cannot be judged is not read (stairs always cross some green)
)


def _shifts(c: Candidate, shifts: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The hand-placement shifts tried for a candidate: stairs only sideways (their run is fixed
    between the lower field's far edge and the upper tile); the diagonal ones only for statues, whose
    gate needs their base found closely."""
    if c.kind == "stairs":
        return [(0.0, y) for x, y in shifts if x == 0.0]
    if c.kind != "statue":
        return [(x, y) for x, y in shifts if x == 0.0 or y == 0.0]
    return list(shifts)


#: a piece the photo shows less of than this share of its points is not judged (by the decisions:
#: :data:`~vision.read.decorations.decisions.MIN_VISIBLE`), and of the hand's shifts tried for a
#: statue, one that leaves less of it in sight than this is kept only where none leaves more: a few
#: points past a higher tile's edge show its colours by chance (variant development photo 720081: a
#: statue seen by 25% of its points unshifted scored 0.8, shifted behind the tile 1.0 on 6% of them,
#: and was not read). Not for stairs and fountains, which a glimpse under a belvedere may show
#: (:data:`~vision.read.decorations.decisions.UNDER_BELVEDERE`): for them too on the 600 development
#: photos of seeds 41000-43199, 2 stairs so glimpsed were lost, nothing gained
MIN_SEEN = 0.15


class Scorer:
    """Tests candidates against one photo, many at once (one projection and one colour lookup for all
    their points)."""

    def __init__(
        self, image: np.ndarray, cam: Camera, surf: Surfaces, profile: Profile, gain_srgb: np.ndarray
    ) -> None:
        self.sampler = ColourSampler(image, cam, gain_srgb)
        self.classifier = Classifier(profile)
        self.occ = Occluders(cam, surf)
        self.surf, self.profile = surf, profile
        self._also: Scorer | None = None  #: a second balance candidates are judged under (judge_also_under)
        names = self.classifier.names
        self.group_of = {
            k: np.array([n in v for n in names] + [False]) for k, v in groups(self.classifier).items()
        }
        self._light: dict[tuple[Cell, int], float] = {}
        self._lead: dict[tuple[Cell, int], float] = {}
        #: how far green must lead for a pixel where stairs would stand to show a field's garden green
        #: (their cover part, :func:`~vision.read.decorations.parts.piece_parts`): no less than
        #: :data:`GREEN_SHARE` of the lead round the field, where the field's own green leads further
        #: than :attr:`lead` allows for. Grey stone tinted towards green by a light or a print stays far
        #: less green than the garden it stands in: dev 46119's treads led by 0.074, past the photo's
        #: 0.06, where the green round them led by 0.37 (on 1,200 development photos only 46119 read
        #: otherwise, gained)
        self._cover_lead: dict[tuple[Cell, int], float] = {}
        self._classes = np.full(image.shape[0] * image.shape[1], -2, np.int8)  #: -2: not classified yet
        self._cream: dict[tuple[Cell, int], tuple[float, np.ndarray]] = {}
        self._cream_ref: tuple[float, np.ndarray] | None = None
        self._typical: float | None = None
        #: the plaque's brightness in the profile (what a plaque's cream is measured against)
        self._plaque_y = float(np.exp2(self.classifier.logy[self.classifier.index["plaque"]]))
        self.ink: float | None = None  #: the icons' ink over their plaques' cream (:meth:`measure_ink`)
        #: palette class (and -1, none) -> the print code of :func:`empty_print` it shows
        self.print_of_class = np.full(len(names) + 1, PRINT_UNKNOWN)
        for fi, f in enumerate(profile.flowers):
            self.print_of_class[self.classifier.index[f"flower-{f}"]] = fi
        #: the fields seen from above (of the tiles read, not covered by a higher one)
        self.fields_seen = sorted(f for f in surf.at if surf.seen(*f))
        own = self.own_green()
        if own is not None and (share := colour_share(own, self.classifier)) < 1.0:
            self.classifier.fade(max(share, FADED_FLOOR))
        #: how far green must lead red and blue for a pixel to show garden green in this photo (see
        #: :data:`GREEN_SHARE`)
        self.lead = GREEN_DOMINANCE
        if own is not None:
            self.lead = float(np.clip(GREEN_SHARE * own, GREEN_FLOOR, GREEN_DOMINANCE))

    def own_green(self) -> float | None:
        """How far the photo's garden green leads red and blue: the upper quartile round every field seen
        from above (None: too few such points in sight)."""
        if not self.fields_seen:
            return None
        lin, ok = self._ring_colours(self.fields_seen, GREEN_RING)
        if ok.sum() < MIN_GREEN:
            return None
        return float(np.percentile(green_lead(lin[ok]), 75))

    def classes(self, uv: np.ndarray, lin: np.ndarray) -> np.ndarray:
        """:meth:`Classifier.classify` of the pixels at ``uv`` (whose colours are ``lin``), each pixel
        classified once per photo (the pieces' points and their shifts fall on the same pixels)."""
        s = self.sampler
        j = np.clip(np.round(uv[:, 0]).astype(int), 0, s.w - 1)
        i = np.clip(np.round(uv[:, 1]).astype(int), 0, s.h - 1)
        idx = i * s.w + j
        have = self._classes[idx]
        new = have == -2
        if new.any():
            todo, first = np.unique(idx[new], return_index=True)
            self._classes[todo] = self.classifier.classify(lin[new][first])
            have = self._classes[idx]
        return have.astype(int)

    def _ring_colours(
        self, fields: Sequence[tuple[Cell, int]], ring: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The linear colours on ``ring`` (mm, round each field's centre) of every field, field after
        field, and which of them are in sight (in the photo, not hidden by tiles above the field)."""
        n = len(ring)
        pts = np.vstack(
            [
                np.column_stack([ring + p[:2], np.full(n, p[2])])
                for p in (self.surf.field(c, lv) for c, lv in fields)
            ]
        )
        levels = np.repeat([lv for _, lv in fields], n)
        uv = self.sampler.pixels(pts)
        lin, ok = self.sampler.sample(uv)
        for lv in np.unique(levels):
            m = levels == lv
            ok[m] &= ~self.occ.hidden(uv[m], int(lv))
        return lin, ok

    def green_seen(self, field: tuple[Cell, int]) -> int:
        """How many points of the ring round a field, in sight, show garden green."""
        lin, ok = self._ring_colours([field], GREEN_RING)
        return int((is_green(lin, self.leads([field])[0]) & ok).sum())

    def lights(self, fields: Sequence[tuple[Cell, int]]) -> np.ndarray:
        """The light on each field: the brightness of its garden green over the green's lit reference
        (the 70th percentile over a ring round the field, so a piece's own shadow does not count);
        1.0 where too little green shows."""
        todo = sorted({f for f in fields if f not in self._light})
        if todo:
            n = len(GREEN_RING)
            lin, ok = self._ring_colours(todo, GREEN_RING)
            g = self.classifier.index["green"]
            lead = green_lead(lin)
            y = lin.sum(axis=1) / np.exp2(self.classifier.logy[g])
            for i, f in enumerate(todo):
                sl = slice(i * n, (i + 1) * n)
                seen = lead[sl][ok[sl]]
                own = float(np.percentile(seen, 75)) if len(seen) >= MIN_GREEN else 0.0
                # no green round the field at all (a bare cell, pieces): the photo's lead holds
                mine = min(max(GREEN_SHARE * own, GREEN_FLOOR), self.lead)
                self._lead[f] = self.lead if own < OWN_GREEN else mine
                self._cover_lead[f] = max(self._lead[f], GREEN_SHARE * own)
                yi = y[sl][ok[sl] & (lead[sl] > self._lead[f])]
                self._light[f] = float(np.percentile(yi, 70)) if len(yi) >= MIN_GREEN else 1.0
        return np.array([self._light[f] for f in fields])

    def _piece_light(self, c: Candidate) -> float:
        """The light on a candidate's fields (:meth:`lights`, measured first); stairs', no less than the
        photo's typical field's where their fields lie in a deep shade (:data:`SHADE`); a statue's, no
        more than its plaque's cream tells (:data:`PLAQUE_LIGHT`)."""
        light = float(np.mean([self._light[f] for f in c.fields]))
        if c.kind == "stairs" and light < SHADE * self.typical_light():
            light = self.typical_light()
        if c.kind == "statue":
            cream = self._cream[c.fields[0]][0]
            if math.isfinite(cream):
                light = min(light, cream / self._plaque_y / PLAQUE_LIGHT)
        return light

    def leads(self, fields: Sequence[tuple[Cell, int]]) -> np.ndarray:
        """How far green must lead for a pixel to show each field's garden green: :data:`GREEN_SHARE` of
        the lead round the field (a haze or a highlight washes out part of a photo), no more than the
        photo's (:attr:`lead`)."""
        self.lights(fields)
        return np.array([self._lead[f] for f in fields])

    def cream_levels(self, fields: Sequence[tuple[Cell, int]]) -> list[tuple[float, np.ndarray]]:
        """The brightness and chromaticity of each field's plaque (its cream, on a ring round the middle
        that a statue leaves free); infinite brightness on a blank field (no plaque: green there)."""
        todo = sorted({f for f in fields if f not in self._cream})
        if todo:
            n = len(PLAQUE_RING)
            lin, ok = self._ring_colours(todo, PLAQUE_RING)
            ok &= ~(green_lead(lin) > np.repeat(self.leads(todo), n))
            y = lin.sum(axis=1)
            ch = chroma(lin)
            for i, f in enumerate(todo):
                sl = slice(i * n, (i + 1) * n)
                yi = y[sl][ok[sl]]
                if len(yi) >= MIN_PLAQUE:
                    self._cream[f] = (float(np.percentile(yi, 85)), np.median(ch[sl][ok[sl]], axis=0))
                else:
                    self._cream[f] = (math.inf, np.zeros(3))
        return [self._cream[f] for f in fields]

    def typical_light(self) -> float:
        """The median light over the fields seen from above (:meth:`lights`)."""
        if self._typical is None:
            self._typical = float(np.median(self.lights(self.fields_seen))) if self.fields_seen else 1.0
        return self._typical

    def cream_reference(self) -> tuple[float, np.ndarray]:
        """The plaques' cream in this photo: brightness over the light on its field, and chromaticity
        (medians over every field of the tiles read whose plaque shows)."""
        if self._cream_ref is None:
            levels = self.cream_levels(self.fields_seen)
            lights = self.lights(self.fields_seen)
            ok = [i for i, (y, _) in enumerate(levels) if math.isfinite(y)]
            if ok:
                ratio = float(np.median([levels[i][0] / lights[i] for i in ok]))
                tint = np.median(np.array([levels[i][1] for i in ok]), axis=0)
            else:
                pal = palette(self.profile)
                ratio, tint = float(pal["plaque"].sum()), chroma(pal["plaque"])
            self._cream_ref = (ratio, tint)
        return self._cream_ref

    def measure_ink(self, exclude: Collection[tuple[Cell, int]] = ()) -> float | None:
        """The icons' ink in this photo, as a share of their plaques' cream: the lower quartile, over
        the plaques in sight (but those in ``exclude``: fields that may hold a statue, whose bronze
        would pass for pale ink), of the darkest tenth of each icon's middle. A hazy photo's veil of
        light lifts it above the printed ink's share; None with too few plaques to tell."""
        fields = [f for f in self.fields_seen if f not in exclude]
        if not fields:
            return None
        creams = self.cream_levels(fields)
        lin, ok = self._ring_colours(fields, ICON_DISC)
        y = lin.sum(axis=1)
        n = len(ICON_DISC)
        shares = [
            float(np.percentile(y[i * n : (i + 1) * n][ok[i * n : (i + 1) * n]], INK_SHARE)) / cream
            for i, (cream, _) in enumerate(creams)
            if math.isfinite(cream) and ok[i * n : (i + 1) * n].sum() >= n // 2
        ]
        self.ink = float(np.percentile(shares, 25)) if len(shares) >= INK_FIELDS else None
        if self._also is not None:
            self._also.measure_ink(exclude)
        return self.ink

    def _inky(
        self,
        cands: Sequence[Candidate],
        owners: list[int],
        seg_parts: list[Part],
        bounds: np.ndarray,
        lin: np.ndarray,
        ok: np.ndarray,
        hit: np.ndarray,
    ) -> np.ndarray:
        """Per segment: whether it is the main part of a piece that stands on a plaque (a statue's bronze,
        a belvedere's dome) whose pixels are as dark, against the field's plaque, as the icon's ink
        rather than the piece (a bold icon drawing on an empty plaque covers its middle; an edition may
        print its icons in nearly the dome's hue). The line between the two is the geometric mean of
        their brightness over the plaque's, lowered by the piece's margin, and a percentile of the part's
        brightness (of its points in sight, or of those that show its colour, ``hit``) is held against it
        (:data:`INKY_PART`). A hazy photo adds a veil of light to every colour: the ink measured in the
        photo (:attr:`ink`) tells how much, and the piece's colour is lifted by as much."""
        out = np.zeros(len(owners), bool)
        logy, ix = self.classifier.logy, self.classifier.index
        if "ink" not in ix:
            return out
        plaque = logy[ix["plaque"]]
        printed = 2.0 ** (logy[ix["ink"]] - plaque)
        ink = min(max(self.ink or 0.0, printed), 0.9)
        veil = (ink - printed) / (1.0 - ink)  #: (ink + veil) / (1 + veil) = the ink measured
        line = {
            kind: margin * math.sqrt(ink * (2.0 ** (logy[ix[colour]] - plaque) + veil) / (1.0 + veil))
            for kind, (colour, margin, _, _) in INKY_PART.items()
            if ink_like(self.classifier, colour)
        }
        y = lin.sum(axis=1)
        for si, ci in enumerate(owners):
            c = cands[ci]
            if c.kind not in line or seg_parts[si].colour != INKY_PART[c.kind][0]:
                continue
            cream = self._cream[c.fields[0]][0]
            a, b = bounds[si], bounds[si + 1]
            _, _, percentile, of_colour = INKY_PART[c.kind]
            seen = y[a:b][ok[a:b] & hit[a:b]] if of_colour else y[a:b][ok[a:b]]
            if math.isfinite(cream) and len(seen) >= MIN_PART:
                out[si] = float(np.percentile(seen, percentile)) < line[c.kind] * cream
        return out

    def _mimicked(
        self, seg_parts: list[Part], seg_id: np.ndarray, k: np.ndarray, ok: np.ndarray, seg: int
    ) -> np.ndarray:
        """Per segment: whether it is a part of a colour in :data:`MIMICS` whose points in sight are
        classed as the colour that may mimic it more often than as its own."""
        out = np.zeros(seg, bool)
        ix = self.classifier.index
        for own, other in MIMICS.items():
            m = np.array([p.colour == own for p in seg_parts])[seg_id] & ok
            if own not in ix or other not in ix or not m.any():
                continue
            n_own = np.bincount(seg_id[m], weights=k[m] == ix[own], minlength=seg)
            n_other = np.bincount(seg_id[m], weights=k[m] == ix[other], minlength=seg)
            out |= n_other > n_own
        return out

    def foot_hidden(self, c: Candidate) -> bool:
        """Whether ``c`` is stairs whose foot stands under a higher tile (on a tile read or not)."""
        return c.kind == "stairs" and not self.surf.seen(*c.fields[0])

    def top_hidden(self, c: Candidate) -> bool:
        """Whether ``c`` is stairs whose upper field stands under a higher tile. The treads climb into
        that tile's overhang, and in the photo's perspective it and its band hide the fields' green round
        them (the cover part then has too few points to judge); the treads alone tell, in stone's own
        colours (:data:`OWN_STONE_MIN`). On the 600 development photos of seeds 43000-43199,
        53000-53199 and 55000-55199 it gained 55103 and 55174 (true stairs in full view, their treads
        all stone, their cover part judged on 0-5 points) and lost none."""
        return c.kind == "stairs" and not self.surf.seen(*c.fields[1])

    def foot_unread(self, c: Candidate) -> bool:
        """Whether ``c`` is stairs whose foot stands in sight on a tile not read, or read only from a piece
        on it (its print unknown either way), over no tile read one level lower (whose field would be
        what shows there: on development photos, without this, 42077 and 43063 read stairs on a tile
        over the one the true stairs rose from)."""
        (cell, level) = c.fields[0]
        surf = self.surf
        return (
            c.kind == "stairs"
            and (surf.unread(cell, level) or (cell, level) in surf.inferred)
            and not surf.has(cell, level - 1)
        )

    def judge_also_under(self, other: Scorer) -> None:
        """Judge every candidate under ``other``'s white balance too, keeping the better evidence of the
        two (:meth:`evidence`): ``other`` sees the pieces found as this scorer does and measures its own
        ink. (:func:`~vision.read.decorations.decisions.read_decorations`: the board's balance beside
        the plaques', where the plaques' is taken.)"""
        other.occ = self.occ
        self._also = other

    def evidence(
        self, cands: Sequence[Candidate], shifts: Sequence[tuple[float, float]] = ((0.0, 0.0),)
    ) -> list[Evidence]:
        """For each candidate, the share of its visible points that show its colours at the best of
        ``shifts`` (mm; the pieces are placed by hand); hidden points (by tiles above the candidate's
        level and the pieces found so far) are left out. Under the better of two balances where a second
        is given (:meth:`judge_also_under`)."""
        out = self._judged(cands, shifts)
        if self._also is None:
            return out
        also = self._also._judged(cands, shifts)
        return [b if b.score > a.score else a for a, b in zip(out, also, strict=True)]

    def _judged(self, cands: Sequence[Candidate], shifts: Sequence[tuple[float, float]]) -> list[Evidence]:
        """:meth:`evidence` under this scorer's balance."""
        if not cands:
            return []
        pts, seg_parts, owners, shift_of, sizes = [], [], [], [], []
        seg = 0
        for ci, c in enumerate(cands):
            parts = piece_parts(self.profile, c.kind, c.run, c.rise)
            tried = _shifts(c, shifts)
            pts.append(_to_board_shifted(c, np.vstack([part.points for part in parts]), tried))
            for sh in tried:
                for part in parts:
                    seg_parts.append(part)
                    owners.append(ci)
                    shift_of.append(sh)
                    sizes.append(len(part.points))
                    seg += 1
        sizes = np.array(sizes)
        seg_id = np.repeat(np.arange(seg), sizes)
        bounds = np.concatenate([[0], np.cumsum(sizes)])  #: segment si's points: bounds[si]:bounds[si + 1]
        allp = np.vstack(pts)
        uv = self.sampler.pixels(allp)
        lin, ok = self.sampler.sample(uv)
        levels = np.array([cands[o].level for o in owners])[seg_id]
        for lv in np.unique(levels):
            m = levels == lv
            ok[m] &= ~self.occ.hidden(uv[m], int(lv))
        k = self.classes(uv, lin)
        self.lights(sorted({f for c in cands for f in c.fields}))  # all at once, then cached
        self.cream_levels(sorted({c.fields[0] for c in cands if c.kind in INKY_PART}))
        light = np.array([self._piece_light(c) for c in cands])
        colours = sorted({p.colour for p in seg_parts})
        hit = np.zeros(len(allp), bool)
        seg_colour = np.array([p.colour for p in seg_parts])[seg_id]
        y = lin.sum(axis=1) / light[np.array(owners)][seg_id]
        role = np.array([p.role for p in seg_parts])[seg_id]
        cover_seg = role == "cover"
        expect = np.full(len(allp), PRINT_UNKNOWN)
        if cover_seg.any():
            expect[cover_seg] = empty_print(self.surf, self.sampler.cam, uv[cover_seg], allp[cover_seg, 2])
            ok[cover_seg] &= expect[cover_seg] != PRINT_UNKNOWN
        body = np.array([p.own_body is not None for p in seg_parts])[seg_id]
        if body.any():
            for si in np.unique(seg_id[body]):
                m = slice(bounds[si], bounds[si + 1])
                c = cands[owners[si]]
                radius, height = seg_parts[si].own_body
                axis = _to_board(c, np.zeros((1, 3)), shift_of[si])[0]
                ok[m] &= ~_sight_through(self.sampler.cam.position, allp[m], axis, radius, height)
        lead = np.array([min(self._lead[f] for f in c.fields) for c in cands])  # (lights measured them)
        leads = green_lead(lin)
        green = leads > lead[np.array(owners)][seg_id]
        if cover_seg.any():
            cover_lead = np.array([min(self._cover_lead[f] for f in c.fields) for c in cands])
            green[cover_seg] = leads[cover_seg] > cover_lead[np.array(owners)][seg_id][cover_seg]
        for col in colours:
            m = seg_colour == col
            ref = np.exp2(self.classifier.logy[self.classifier.index[REF_OF.get(col, col)]])
            lo, hi = REL_LUM[col]
            rel = y[m] / ref
            hit[m] = self.group_of[col][k[m]] & (rel >= lo) & (rel <= hi)
            if col == "bronze":  # a glossy statue in a bright light pales towards white
                hit[m] |= self.classifier.washed_alone(lin[m], "bronze") & (rel >= WASH_BRIGHT)
            if col == "water":  # a highlight washes it out and brightens it: a pale, dim blue is a shadow
                hit[m] |= self.classifier.washed(lin[m], "water") & (rel >= WASH_BRIGHT)
                hit[m] |= self.classifier.washed(lin[m], "water", WASH_DEEP) & (rel >= lo)
                hit[m] |= self.classifier.glare(lin[m], "water") & (rel >= GLARE_BRIGHT)  # a lamp mirrored
                hit[m] |= self.classifier.deepened(lin[m], "water") & (rel >= DEEPENED)  # a deep shade
        # the treads of stairs whose foot stands under a higher tile, judged without their cover part,
        # are grey or white stone only (under a tile the board's print and the pillars show, in shade)
        under = np.array([self.foot_hidden(c) for c in cands])[np.array(owners)][seg_id] & (role == "mean")
        hit[under] &= self.group_of["rim"][k[under]]
        # ... and where the foot stands on a tile not read, mostly so (:data:`OWN_STONE_MIN`)
        n_own = np.bincount(seg_id, weights=ok & hit & self.group_of["rim"][k], minlength=seg)
        # a cover point is a hit where the photo does not show the print the empty tile would
        shown = np.where(green, PRINT_GREEN, self.print_of_class[k])
        hit[cover_seg] = (shown != expect)[cover_seg]
        cyan = seg_colour == "nocyan"
        if cyan.any():
            hit[cyan] = ~(self.group_of["water"][k[cyan]] | self.classifier.washed(lin[cyan], "water"))
        clear = seg_colour == "clear"
        if clear.any():
            level = np.full(len(allp), math.inf)
            tint = np.zeros((len(allp), 3))
            for si in np.unique(seg_id[clear]):
                m = slice(bounds[si], bounds[si + 1])
                c = cands[owners[si]]
                if c.kind == "stairs":  # its own field's plaque is under it: the photo's plaques tell
                    share, tint[m] = self.cream_reference()
                    level[m] = share * self.lights(c.fields[:1])[0]
                else:
                    level[m], tint[m] = self._cream[c.fields[0]]
            lc = lin[clear]
            creamy = (lc.sum(axis=1) >= CREAM_SHARE * level[clear]) & (
                np.linalg.norm(chroma(lc) - tint[clear], axis=1) < CREAM_CHROMA
            )
            hit[clear] = ~(creamy | green[clear])
        n_vis = np.bincount(seg_id, weights=ok, minlength=seg)
        n_hit = np.bincount(seg_id, weights=ok & hit, minlength=seg)
        inky = self._inky(cands, owners, seg_parts, bounds, lin, ok, hit)
        mimicked = self._mimicked(seg_parts, seg_id, k, ok, seg)
        out = []
        j = 0
        for c in cands:
            n_parts = len(piece_parts(self.profile, c.kind, c.run, c.rise))
            unread_foot = self.foot_unread(c)
            top_hidden = self.top_hidden(c)
            # the cover part not judged: see below
            treads_tell = unread_foot or self.foot_hidden(c) or top_hidden
            best: Evidence | None = None
            for sh in _shifts(c, shifts):
                num = den = tot = 0.0
                shares: dict[str, float] = {}
                gates: list[bool] = []
                caps: list[float] = []
                least: list[float] = []  #: the points of the "min" parts that show their colour
                own: list[float] = []  #: on an unread foot, the parts' shares of stone's own colours
                for i in range(n_parts):
                    part = seg_parts[j]
                    share = float(n_hit[j] / n_vis[j]) if n_vis[j] else 0.0
                    shares[f"{part.colour}{i}"] = share
                    if part.role == "cover":  # not judged where too little green shows
                        caps.append(share if n_vis[j] >= MIN_COVER else -1.0)
                    elif part.role == "gate":
                        gates.append(share >= part.gate)
                    else:
                        if part.role == "min":
                            least.append(float(n_hit[j]))
                            if n_vis[j] >= MIN_PART:
                                caps.append(share)
                        if (unread_foot or top_hidden) and n_vis[j]:
                            own.append(float(n_own[j] / n_vis[j]))
                        num += part.weight * n_hit[j]
                        den += part.weight * n_vis[j]
                        tot += part.weight * sizes[j]
                    j += 1
                score = num / den if den else 0.0
                cover_unjudged = bool(caps) and min(caps) < 0
                if caps and not cover_unjudged:
                    score = min(score, *caps)
                elif cover_unjudged and not treads_tell:
                    # a cover part not judged: the colours alone count, less; but where the foot of
                    # stairs stands under a higher tile, that tile hides what the cover part tests, and
                    # the treads alone tell (in stone's own colours, and surer: ON_HIDDEN_MIN); so too on
                    # a tile not read, whose print is not known (there the stairs must also climb to a
                    # field showing their symbol: Evidence.unjudged, read_decorations); and where their
                    # upper field stands under a higher tile, whose overhang hides the green round the
                    # treads, by stone's own colours on OWN_STONE_MIN of them (see top_hidden)
                    score *= UNJUDGED_COVER
                stone_told = unread_foot or (top_hidden and cover_unjudged)
                if stone_told and min(own, default=0.0) < OWN_STONE_MIN:
                    # the treads show the board's or a tile's print where no tile was read, or not
                    # stone's own colours where nothing but the treads tells
                    score = 0.0
                if not all(gates) or inky[j - n_parts : j].any() or (least and not any(least)):
                    # (no point of a fountain's water showing water: its rim alone, in sight past a
                    # higher tile, is as ivory as a belvedere's posts or a plaque; see MIN_PART)
                    score = 0.0
                seen = float(den / tot) if tot else 0.0
                unjudged = cover_unjudged and unread_foot
                ev = Evidence(
                    c,
                    float(score),
                    seen,
                    shares,
                    sh,
                    unjudged=unjudged,
                    mimicked=bool(mimicked[j - n_parts : j].any()),
                )
                if best is None or _better(ev, best):
                    best = ev
            assert best is not None
            out.append(best)
        return out


def ink_like(classifier: Classifier, colour: str) -> bool:
    """Whether the icons' ink is near enough palette colour ``colour`` in chromaticity for an ink pixel
    to pass for it (:data:`INK_HUE`): only then can an icon pass for that piece, and only then is the
    piece's part held against the ink (:meth:`Scorer._inky`)."""
    gap = classifier.chroma[classifier.index["ink"]] - classifier.chroma[classifier.index[colour]]
    return float(np.linalg.norm(gap)) <= INK_HUE


def _better(a: Evidence, b: Evidence) -> bool:
    """Whether shift ``a`` of a candidate explains the photo better than ``b``: it scores more, unless
    (for a statue) only one of them leaves :data:`MIN_SEEN` of the piece in sight."""
    if a.candidate.kind != "statue":
        return a.score > b.score
    return (a.visible >= MIN_SEEN, a.score) > (b.visible >= MIN_SEEN, b.score)


#: the plaques' cream, balanced on the board's sand, this far (chromaticity) from its own colour: the
#: board's print does not show the light the pieces stand in (a sheen pales it, or it has a cast of its
#: own), and the plaques balance the pieces instead. On 320 development photos the cream lay 0.03 from
#: its colour (median); balanced on the plaques, the 15 photos beyond 0.08 gave 7 more stairs right (of
#: 23 missed) and 2 more wrong, 2 fewer statues wrong (of 9), with their true tiles
TINT_MAX = 0.08
TINT_FIELDS = 6  #: ... measured on this many plaques at least (a few are too easily a piece's colours)


def cream_gain(scorer: Scorer, profile: Profile) -> np.ndarray | None:
    """A further gain (sRGB, B G R) on the board's white balance that gives the plaques their cream's
    own chromaticity, where that balance leaves them farther from it than :data:`TINT_MAX` (else
    None). It keeps the cream's brightness. (The flower bands' :func:`vision.read.views.print_gain`
    corrects a small tint, within a quarter, on plaque pixels near the cream's hue; this one a balance
    that is far off, on the plaques in sight whatever their hue.)"""
    if sum(math.isfinite(y) for y, _ in scorer.cream_levels(scorer.fields_seen)) < TINT_FIELDS:
        return None
    _, tint = scorer.cream_reference()
    own = chroma(palette(profile)["plaque"])
    if np.linalg.norm(tint - own) <= TINT_MAX:
        return None
    return (own / np.maximum(tint, 1e-3)).astype(np.float32) ** (1 / 2.4)
