"""Stages 6 and 7 in one call for the pipeline: the decorations and the symbols of the empty fields,
in the shapes of ``babylon-garden/1``."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from scoring.garden import Cell, Decoration
from vision.camera import Camera
from vision.profile import Profile
from vision.read.decorations import DecorationFind, PieceKey, PlacedTile, Surfaces, TileLike, read_decorations
from vision.read.decorations.sight import out_of_sight
from vision.read.symbols import SymbolGrid, SymbolRead, read_fields, symbol_grids
from vision.read.views import board_gain, tile_gain

if TYPE_CHECKING:
    from vision.read.tilefit import Glare

__all__ = ["PiecesReading", "read_pieces", "truth_tiles"]


@dataclass
class PiecesReading:
    decorations: list[Decoration]  #: the pieces as the garden lists them
    finds: list[DecorationFind]  #: the same with their evidence and image position
    #: (row, col, level) -> the tile's 2 x 2 symbols in board orientation; None = a blank field,
    #: "?" = not read (covered by a higher tile, or a piece stands on it)
    symbols: dict[tuple[int, int, int], SymbolGrid]
    symbol_reads: list[SymbolRead] = field(default_factory=list)  #: per field, with its evidence
    #: fields seen from above, no piece read on them, that the photo does not show
    #: (:func:`vision.read.decorations.sight.out_of_sight`)
    unseen: list[tuple[tuple[int, int], int]] = field(default_factory=list)

    def garden_symbols(self, key: tuple[int, int, int]) -> tuple[tuple[Any, Any], tuple[Any, Any]] | None:
        """The tile's symbols for ``scoring.garden.Tile.symbols``: fields not read are taken as blank
        only when every other field was read; with any field unread, None (unknown)."""
        g = self.symbols.get(key)
        if g is None or any(v == "?" for row in g for v in row):
            return None
        return ((g[0][0], g[0][1]), (g[1][0], g[1][1]))


def read_pieces(
    image_bgr: np.ndarray,
    cam: Camera,
    tiles: Sequence[TileLike],
    profile: Profile,
    gain_srgb: np.ndarray | None = None,
    print_gain_srgb: np.ndarray | None = None,
    glimpsed: Collection[tuple[Cell, int]] = (),
    glare: Glare | None = None,
    refused: Collection[PieceKey] = (),
) -> PiecesReading:
    """Decorations and symbols from the working image, its camera and the tiles read. The fields'
    symbols are read first: where the photo leaves a piece's direction open (which way stairs climb),
    the symbols printed where it stands decide (spec 1.3). ``gain_srgb`` is the board's white balance
    (:func:`~vision.read.views.board_gain`), ``print_gain_srgb`` the one the tiles' print is read with
    (:func:`~vision.read.views.tile_gain`); each is computed when not given. ``glimpsed``: fields of
    tiles not read whose lines show round a piece (:func:`vision.read.tiles.glimpsed`); ``glare`` the photo's
    glare spots (:func:`~vision.read.tilefit.glare_spots`); ``refused``: pieces not to take
    (:func:`~vision.read.decorations.read_decorations`)."""
    if gain_srgb is None:
        gain_srgb = board_gain(image_bgr, cam, profile)
    if print_gain_srgb is None:
        print_gain_srgb = tile_gain(image_bgr, cam, profile)
    # the green of a blank field against a plaque's cream: an over-exposed board's gain turns it grey
    reads = read_fields(image_bgr, cam, tiles, profile, print_gain_srgb)
    symbols = {key: (r.symbol, r.score) for key, r in reads.items()}
    finds = read_decorations(image_bgr, cam, tiles, profile, gain_srgb, symbols, glimpsed, glare, refused)
    grids = symbol_grids(tiles, reads, finds)
    taken = {f for d in finds for f in d.fields}
    unseen = [f for f in out_of_sight(cam, Surfaces(tiles, profile)) if f not in taken]
    return PiecesReading([f.to_decoration() for f in finds], finds, grids, list(reads.values()), unseen)


def truth_tiles(truth: dict[str, Any], profile: Profile) -> list[PlacedTile]:
    """The tiles of a rendered photo's truth file (``pieces.tiles``) with their hand placement, as the
    structure reader would give them."""
    out = []
    for t in truth["pieces"]["tiles"]:
        bx, by = profile.block_centre(t["row"], t["col"])
        cx, cy = t["centre_board_mm"]
        out.append(
            PlacedTile(
                int(t["row"]),
                int(t["col"]),
                int(t["level"]),
                (cx - bx, cy - by, float(t["rotation_deg"])),
                str(t.get("flower", "")),
            )
        )
    return out
