"""Stage 6: the decorations standing on the garden (statues, fountains, bridges, stairs, belvederes).

The tiles are known (their cells, levels and hand placement), and so is the camera, so every place a
piece may stand is known in 3-D before a pixel is looked at. The rules (spec 1.3) list the
candidates: a statue or a belvedere on any field seen from above; a fountain on two adjacent fields of
two tiles of one level; a bridge straight over a gap between two tiles of one level; stairs between
adjacent fields of tiles one level apart. A fountain, bridge or stairs seen on a field of a tile read
may also stand, with its other field, on a tile hidden under higher ones (none read there, a higher
tile over the cell); such a candidate must look surer to be taken (stairs whose foot stands there, the
higher tile hiding the field round it, by their treads' stone alone). A fountain or stairs may also stand
with one field on a tile in sight from above but not read (the tile reader misses a low tile whose one
field in sight holds the piece): taken only surer still (unless the tile's own lines show round the
piece on that level, :func:`vision.read.tiles.glimpsed`, which makes the field as good as read), where
that field shows garden green round the piece, and never over a piece read lower on that cell; it
implies the tile
(:func:`vision.read.tiles.implied_by_pieces`). Stairs wholly hidden under a higher tile, which then
carries a belvedere over them, are inferred from the free field they climb to that shows their symbol
(:func:`~vision.read.decorations.decisions.stairs_under_belvedere`). Each candidate is then tested
with the piece's own 3-D shape from the profile: points *inside* the solid (the axis of a statue,
the water of a fountain's basin, the middle of a bridge's deck, the treads of the stairs, the dome
of a belvedere) project onto pixels that show that solid, whatever the camera, unless something
nearer hides them. Tiles on higher
levels hide what stands below them, and pieces already found hide what lies under them; those pixels
are left out.

Colours are compared after white balance on the board's own sand, in linear light and by
chromaticity (a shadow scales all three channels alike, so it moves the brightness and not the
chromaticity): bronze is a saturated warm brown where the sand, the pillars and the printed path are
paler, the dome teal where the garden is yellow-green, the water cyan-blue, the bridge terracotta,
the stairs a neutral grey where the cream plaques are warm. References are the profile's colours, so
a calibrated profile reads another edition.
"""

from __future__ import annotations

from vision.read.decorations.colours import (
    _LUT,
    GREEN_DOMINANCE,
    NEUTRAL,
    Classifier,
    ColourSampler,
    green_lead,
    is_green,
    palette,
)
from vision.read.decorations.decisions import (
    LOOKS_SURE,
    ON_HIDDEN_MIN,
    SHIFTS_MM,
    THRESHOLDS,
    DecorationFind,
    _second_opinion,
    piece_patch,
    read_decorations,
)
from vision.read.decorations.evidence import Evidence, Scorer, cream_gain
from vision.read.decorations.parts import _to_board, piece_hull, piece_parts
from vision.read.decorations.sight import Occluders, ray_plane
from vision.read.decorations.surfaces import Candidate, PieceKey, PlacedTile, Surfaces, TileLike, candidates

#: what other modules and the tests take from here (a module-level constant is patched where it is read:
#: in its own module, e.g. ``vision.read.decorations.evidence.SHADE``)
__all__ = [
    "GREEN_DOMINANCE",
    "LOOKS_SURE",
    "NEUTRAL",
    "ON_HIDDEN_MIN",
    "SHIFTS_MM",
    "THRESHOLDS",
    "_LUT",
    "Candidate",
    "Classifier",
    "ColourSampler",
    "DecorationFind",
    "Evidence",
    "Occluders",
    "PieceKey",
    "PlacedTile",
    "Scorer",
    "Surfaces",
    "TileLike",
    "_second_opinion",
    "_to_board",
    "candidates",
    "cream_gain",
    "green_lead",
    "is_green",
    "palette",
    "piece_hull",
    "piece_parts",
    "piece_patch",
    "ray_plane",
    "read_decorations",
]
