"""The colours of the pieces and of what they stand on: the profile's palette in linear light, each
pixel's nearest colour by chromaticity (:class:`Classifier`), garden green, the photo's colours at
projected points (:class:`ColourSampler`), and which palette colours count as each part's colour."""

from __future__ import annotations

import math

import numpy as np

from vision.camera import Camera
from vision.profile import Profile, chroma, rgb, srgb_to_linear


def palette(profile: Profile) -> dict[str, np.ndarray]:
    """Linear-light colours (B, G, R) of the pieces and of what they stand on, by name."""
    d, t = profile.decoration, profile.tile
    hexes = {
        "bronze": d.statue_colour,
        "teal": d.belvedere_dome_colour,
        "ivory": d.belvedere_post_colour,
        "water": d.fountain_water_colour,
        "rim": d.fountain_rim_colour,
        "terracotta": d.bridge_colour,
        "grey": d.stairs_colour,
        "green": t.garden_colour,
        "plaque": t.plaque_colour,
        "ink": t.icon_colour,
        "path": t.path_colour,
        "sand": profile.board.colour,
        "pillar": profile.pillar.colour,
        "edge": t.edge_colour,
        "hole": profile.board.hole_colour,
        "gap": profile.board.gap_colour,
        "cell": profile.board.cell_colour,
    }
    hexes.update({f"flower-{k}": v for k, v in profile.flowers.items()})
    return {k: srgb_to_linear(rgb(v))[::-1].astype(np.float32) for k, v in hexes.items()}


#: the part colours a piece is tested for; every other palette entry is what might show instead
PIECE_COLOURS = ("bronze", "teal", "ivory", "water", "rim", "terracotta", "grey")
LUM_RANGE = (-2.8, 0.8)  #: log2 of a surface's brightness over its lit reference: shadow .. glare
LUM_WEIGHT = 0.04  #: chromaticity distance per stop of brightness outside that range
MAX_CHROMA_DIST = 0.2  #: a pixel farther than this from every colour is nothing known
NEUTRAL = np.full(3, 1 / 3, np.float32)  #: the chromaticity of white and grey
#: a glossy piece's colour washed towards white by a highlight keeps its hue: a pixel at least this far
#: from neutral towards the colour (as a share of the colour's own distance), within a cone of this
#: half-width (perpendicular over along), still shows it (the fountain's water, white where it mirrors
#: the light, is cyan-white on its way there)
WASH_MIN = 0.2
WASH_MAX = 1.2  #: ... and no more saturated than this share past it
WASH_CONE = 0.35
#: ... and at least this share of the colour's lit brightness (a highlight adds light; in a washed-out
#: photo the water pales a quarter of the way to white at 0.9 of it: on 420 development photos, 1
#: fountain more read at 0.85 than at 1.0, none wrongly)
WASH_BRIGHT = 0.85
#: a pixel this far towards the colour shows it at any brightness its own colour allows (a washed-out
#: photo pales the water without a highlight; a shadow's blue tint on a white never gets this far)
WASH_DEEP = 0.35
#: in the deep shade under a higher tile the water darkens towards a purer blue than its own: a pixel past
#: the colour on its way from white (more saturated, within :data:`WASH_CONE`) and at least this share of
#: its lit brightness shows it (dev 45065: a basin's end under a level-3 tile's overhang, pure navy at
#: 0.11-0.12 of the water's lit brightness, below the water's floor in :data:`REL_LUM`, kept a fountain
#: from being read: each end of a basin must show water)
DEEPENED = 0.05
#: where the water mirrors a lamp it is all but white: a trace of its hue (at least GLARE_LEAN along the
#: line from neutral to the colour, at most GLARE_PERP off it, in chromaticity) and far brighter than
#: the lit colour (GLARE_BRIGHT times: the rim's white, as bright, leans warm, away from the water).
#: Such glare over one end of a basin kept 3 fountains of 420 development photos from being read
#: (each end must show water); counted as water, they were, and none wrongly
GLARE_LEAN = 0.01
GLARE_PERP = 0.05
GLARE_BRIGHT = 1.6


class Classifier:
    """Each pixel -> the nearest palette colour by chromaticity, brightness breaking ties between colours
    of one chromaticity (the icon's ink and bronze, grey stairs and white rims); brightness is then
    judged against the light falling on the tile (:func:`local_light`)."""

    def __init__(self, profile: Profile) -> None:
        pal = palette(profile)
        self.names = list(pal)
        refs = np.array([pal[k] for k in self.names])
        self.chroma = chroma(refs)
        self.logy = np.log2(refs.sum(axis=1))
        self.index = {k: i for i, k in enumerate(self.names)}
        #: the palette as a photo with less colour shows it (:meth:`fade`), or None
        self.faded: np.ndarray | None = None

    def fade(self, share: float) -> None:
        """Know each colour also as it shows ``share`` as far from the board's sand as its own: a photo
        with less colour (a camera's muted processing, haze), balanced on the sand, shows every colour
        pulled towards the sand's. A pixel is then the colour it lies nearest to in either palette, so
        that a colour shown in full is still itself: the garden green :func:`colour_share` measures
        pales under a glossy tile print's sheen too, where the pieces keep their colour (development
        photos 41160, 43168: their domes, faded alone, were lost)."""
        sand = self.chroma[self.index["sand"]]
        self.faded = (sand + (self.chroma - sand) * np.float32(share)).astype(np.float32)

    def classify(self, lin: np.ndarray) -> np.ndarray:
        """Palette index per pixel (N,), -1 for a pixel like none of them."""
        if not len(lin):
            return np.zeros(0, int)
        # (the sums over three channels written out: numpy's reductions over a short last axis are slow)
        s = np.maximum(lin[:, 0] + lin[:, 1] + lin[:, 2], 1e-4)
        c = lin / s[:, None]
        ly = np.log2(s)
        dc = _distances(c, self.chroma)
        if self.faded is not None:
            dc = np.minimum(dc, _distances(c, self.faded))
        rel = ly[:, None] - self.logy[None]
        out = np.maximum(LUM_RANGE[0] - rel, 0) + np.maximum(rel - LUM_RANGE[1], 0)
        cost = dc + LUM_WEIGHT * out
        k = np.argmin(cost, axis=1)
        k[dc[np.arange(len(k)), k] > MAX_CHROMA_DIST] = -1
        return k

    def glare(self, lin: np.ndarray, name: str) -> np.ndarray:
        """Pixels (N,) all but white with a trace of colour ``name`` (a glossy surface of that colour
        mirroring a light): within :data:`GLARE_PERP` of the line from neutral to the colour's
        chromaticity, at least :data:`GLARE_LEAN` along it. (Their brightness is judged by the caller.)
        None in an edition with another colour there (a white as cool as the glare: a variant's rim)."""
        if self._near_white(self._others(name), name).any():
            return np.zeros(len(lin), bool)
        return self._near_white(chroma(lin), name)

    def _others(self, name: str) -> np.ndarray:
        """The chromaticities (N - 1, 3) of the palette's colours other than ``name``."""
        return np.delete(self.chroma, self.index[name], axis=0)

    def _near_white(self, chromas: np.ndarray, name: str) -> np.ndarray:
        along, perp = self._from_white(chromas, name)
        return (along >= GLARE_LEAN) & (perp <= GLARE_PERP)

    def washed(self, lin: np.ndarray, name: str, least: float = WASH_MIN) -> np.ndarray:
        """Pixels (N,) that show colour ``name`` washed out towards white (a gloss highlight, glare): their
        chromaticity lies between neutral and the colour's, in the colour's own direction, at least
        ``least`` of the way (:data:`WASH_MIN` unless told) and not past :data:`WASH_MAX`."""
        return self._washed(chroma(lin), name, least)

    def _washed(self, chromas: np.ndarray, name: str, least: float = WASH_MIN) -> np.ndarray:
        t, in_cone = self._way_to(chromas, name)
        return (t >= least) & (t <= WASH_MAX) & in_cone

    def deepened(self, lin: np.ndarray, name: str) -> np.ndarray:
        """Pixels (N,) that show colour ``name`` purer than itself (a shade's deepening): their
        chromaticity lies past :data:`WASH_MAX` of the colour's way from neutral, within its cone."""
        t, in_cone = self._way_to(chroma(lin), name)
        return (t > WASH_MAX) & in_cone

    def _way_to(self, chromas: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
        """How far chromaticities (N, 3) lie from neutral towards colour ``name``'s, as a share of the
        colour's own way, and whether they lie within :data:`WASH_CONE` of that way."""
        along, perp = self._from_white(chromas, name)
        t = along / float(np.linalg.norm(self.chroma[self.index[name]] - NEUTRAL))
        return t, perp <= WASH_CONE * along

    def washed_alone(self, lin: np.ndarray, name: str) -> np.ndarray:
        """:meth:`washed` (at least :data:`WASH_MIN` of the way), in an edition where no other palette
        colour lies on that way from white to colour ``name`` (none there where one does: the reference
        statue's bronze washes out to its own plaques' cream, sand and paths)."""
        if self._washed(self._others(name), name).any():
            return np.zeros(len(lin), bool)
        return self._washed(chroma(lin), name)

    def _from_white(self, chromas: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
        """How far chromaticities (N, 3) lie from neutral along the line to colour ``name``'s, and off it."""
        d = self.chroma[self.index[name]] - NEUTRAL
        d = d / float(np.linalg.norm(d))
        off = chromas - NEUTRAL
        along = off @ d
        return along, np.linalg.norm(off - along[:, None] * d[None], axis=1)


def _distances(c: np.ndarray, refs: np.ndarray) -> np.ndarray:
    """Chromaticity distances (N, K) from pixels ``c`` (N, 3) to colours ``refs`` (K, 3)."""
    d0, d1, d2 = (c[:, i : i + 1] - refs[None, :, i] for i in range(3))
    return np.sqrt(d0 * d0 + d1 * d1 + d2 * d2)


#: how far a typical photo's garden green leads red and blue, from where the board's sand stands, as a
#: share of the palette's own green (the median of 40 development photos: 0.27 over the reference
#: green's 0.36, the sand at -0.14). A photo whose green shows less is read as one with less colour
#: (:meth:`Classifier.fade`), faded no further than :data:`FADED_FLOOR`. A camera that mutes the
#: saturation to 0.7 (HSV) leaves the green 0.66 of the typical (the median of 100 development photos so
#: changed, ``benchmarks/robustness.py``), a vivid photo so muted up to 0.84; the palest tenth of the
#: development photos as rendered lie under 0.75 (a glossy print, a haze). Faded below 0.75 only, the
#: 100 muted photos read 69 right; below 1, 79 (86 unchanged), and the 600 development photos one
#: less (42064: a statue seen by 16% of its points, not there)
TYPICAL_GREEN = 0.82
FADED_FLOOR = 0.3


def colour_share(own_lead: float, classifier: Classifier) -> float:
    """How much colour a photo shows, as a share of a typical photo's: how far its garden green leads red
    and blue (``own_lead``, :func:`green_lead`), from where the board's sand stands (the white balance
    holds the sand, so a photo with less colour pulls every colour towards it), over how far a typical
    photo's does (:data:`TYPICAL_GREEN`)."""
    sand, green = (float(green_lead(classifier.chroma[classifier.index[k]])) for k in ("sand", "green"))
    return (own_lead - sand) / (TYPICAL_GREEN * (green - sand))


GREEN_DOMINANCE = 0.06  #: garden green: its green chromaticity exceeds red's and blue's by this much
#: ... or, in a washed-out photo (low saturation, haze), by this share of the lead the photo's own
#: garden green shows (:attr:`Scorer.lead`), not less than GREEN_FLOOR: there the green leads by
#: 0.03-0.07 only, and every field would look covered
GREEN_SHARE = 0.35
GREEN_FLOOR = 0.02
OWN_GREEN = 0.03  #: a ring round a field whose lead is less than this shows no garden green at all


def green_lead(lin: np.ndarray) -> np.ndarray:
    """How far green leads red and blue in the chromaticity of linear BGR colours (..., 3)."""
    c = chroma(lin)
    return c[..., 1] - np.maximum(c[..., 0], c[..., 2])


def is_green(lin: np.ndarray, lead: float = GREEN_DOMINANCE) -> np.ndarray:
    """Garden-green pixels (..., 3 linear BGR): green clearly the strongest channel, which no other print
    of the game shows and which survives white balance and saturation (chromaticity keeps its order)."""
    return green_lead(lin) > lead


_LUT = srgb_to_linear(np.arange(256) / 255.0)


class ColourSampler:
    """Linear-light, board-white-balanced colours of the photo at projected points."""

    def __init__(self, image: np.ndarray, cam: Camera, gain_srgb: np.ndarray) -> None:
        self.image = image
        self.cam = cam
        # a per-channel gain on sRGB values is (nearly) a gain of its 2.4th power on linear light
        self.gain = np.asarray(gain_srgb, np.float32) ** 2.4
        self.h, self.w = image.shape[:2]

    def pixels(self, pts: np.ndarray) -> np.ndarray:
        """Board points (N, 3) -> pixel coordinates (N, 2) in the working image."""
        return self.cam.project(pts)

    def sample(self, uv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Linear colours (N, 3) at pixels ``uv`` (nearest pixel) and which of them are in the image."""
        j = np.round(uv[:, 0]).astype(int)
        i = np.round(uv[:, 1]).astype(int)
        ok = (i >= 0) & (j >= 0) & (i < self.h) & (j < self.w)
        px = self.image[np.clip(i, 0, self.h - 1), np.clip(j, 0, self.w - 1)]
        return _LUT[px] * self.gain, ok


#: which palette colours count as each part's colour: the neutrals (grey stairs, white rims, ivory
#: posts, white flowers) share one chromaticity, bronze and terracotta nearly so; brightness and the
#: piece's shape tell them apart. A glossy statue, lit from the side, shows its bronze desaturated
#: towards the pale print's tan (path, cell): those count as bronze too; the plaque's cream round it
#: and the gate part keep an empty plaque from passing for a statue
GROUPS: dict[str, tuple[str, ...]] = {
    "bronze": ("bronze", "terracotta", "sand", "gap", "edge", "pillar", "path", "cell"),
    "clear": (),  #: judged by the plaque's cream and the green (:meth:`Scorer.evidence`)
    "terracotta": ("terracotta", "bronze"),
    "teal": ("teal", "water"),  # teal and water swap places under some lights: shapes tell them apart
    "water": ("water", "flower-blue", "teal"),
    "nocyan": (),  #: judged in :meth:`Scorer.evidence`
    "grey": ("grey", "flower-white", "rim", "ivory"),
    "stone": ("grey", "flower-white", "rim", "ivory", "plaque", "pillar", "path", "cell"),
    "rim": ("grey", "flower-white", "rim", "ivory", "plaque"),
    "ivory": ("grey", "flower-white", "rim", "ivory", "plaque"),
}
#: another piece's colour counts in a part's group (bronze and terracotta, teal and water) only where
#: the profile gives the two chromaticities this near: in the reference edition they lie 0.23 and 0.29
#: apart (a bridge's terracotta and a statue's bronze are one warm brown in a photo); another edition's
#: bridge may be another colour than its statues (the variant's red against mauve, 0.43-0.49 apart;
#: brown against slate, 0.32, in an edition made to test this), and its bridges' ends then read as
#: statues
PIECE_NEAR = 0.3


def groups(classifier: Classifier) -> dict[str, tuple[str, ...]]:
    """:data:`GROUPS` for the classifier's profile: another piece's colour is left out of a part's
    group where the profile puts them farther apart than :data:`PIECE_NEAR`."""
    ix, ch = classifier.index, classifier.chroma

    def near(part: str, other: str) -> bool:
        if part == other or other not in PIECE_COLOURS or part not in ix:
            return True
        return float(np.linalg.norm(ch[ix[part]] - ch[ix[other]])) <= PIECE_NEAR

    return {part: tuple(m for m in members if near(part, m)) for part, members in GROUPS.items()}


#: the palette colour whose brightness a group is judged against
REF_OF = {"stone": "grey", "clear": "plaque", "nocyan": "plaque"}
#: brightness of a part's pixels over its colour's lit brightness on that tile (:func:`local_light`):
#: the icon's ink is far darker than a bronze statue in the same light, white far brighter than grey
REL_LUM: dict[str, tuple[float, float]] = {
    "bronze": (0.16, 3.0),
    "clear": (0.0, math.inf),
    "nocyan": (0.0, math.inf),
    "terracotta": (0.15, 3.0),
    "teal": (0.12, 4.0),
    "water": (0.15, 4.0),
    "grey": (0.15, 1.9),
    "stone": (0.1, 2.0),  #: brighter than twice lit grey, it is glare on a pale print, not stone
    "rim": (0.1, 4.0),
    "ivory": (0.1, 4.0),
}
