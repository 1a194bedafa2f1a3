"""The physical model of the pieces: one appearance profile serves the renderer and the reader.

Every size is in millimetres in the *board frame*: origin at the board's top-left outer corner,
x to the right, y towards the player, z up from the board surface. Colours are sRGB hex strings
as in the spec; :func:`rgb` turns them into floats. The default profile is the reference
edition (spec section 2); a person with a printed copy can calibrate their own (spec section 5),
so code must take a :class:`Profile` rather than read module constants.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


def rgb(hex_colour: str) -> np.ndarray:
    """'#RRGGBB' -> float32 array (r, g, b) in 0..1 (sRGB, not linear)."""
    h = hex_colour.lstrip("#")
    return np.array([int(h[i : i + 2], 16) / 255.0 for i in (0, 2, 4)], dtype=np.float32)


def srgb_to_linear(c: np.ndarray, dtype: type = np.float32) -> np.ndarray:
    """sRGB (0..1) -> linear light, computed in ``dtype``."""
    c = np.asarray(c, dtype=dtype)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4).astype(dtype)


def chroma(lin: np.ndarray) -> np.ndarray:
    """Chromaticity: each channel over the sum of the three, of linear colours (..., 3), in their own
    channel order. A shadow scales all three alike and leaves it unchanged."""
    s = np.maximum(lin.sum(axis=-1, keepdims=True), 1e-4)
    return lin / s


def linear_to_srgb(c: np.ndarray) -> np.ndarray:
    c = np.clip(np.asarray(c, dtype=np.float32), 0.0, 1.0)
    return np.where(c <= 0.0031308, c * 12.92, 1.055 * np.power(c, 1 / 2.4) - 0.055).astype(
        np.float32
    )


@dataclass(frozen=True)
class BoardModel:
    width: float = 330.0
    depth: float = 270.0
    thickness: float = 4.0
    colour: str = "#D2B48C"
    frame_colour: str = "#6B4E2E"
    frame_width: float = 4.0
    grid_origin: tuple[float, float] = (15.0, 15.0)  #: top-left corner of cell (0, 0)
    pitch: float = 30.0
    cell_print: float = 28.0
    cell_colour: str = "#E3CFA5"
    gap_colour: str = "#B89868"
    hole_diameter: float = 11.0
    hole_colour: str = "#2B1D12"
    edge_colour: str = "#9C7F58"  #: the cut cardboard sides of the board (not in the spec; rendering only)
    emblem_centre: tuple[float, float] = (292.0, 33.0)
    emblem_diameter: float = 36.0
    emblem_colour: str = "#2F5E2F"
    emblem_centre_diameter: float = 8.0
    emblem_centre_colour: str = "#E0A030"
    recess: tuple[float, float, float, float] = (262.0, 60.0, 322.0, 120.0)  #: x0, y0, x1, y1
    recess_colour: str = "#A88A5E"
    recess_line: float = 1.5
    pillar_slots: tuple[tuple[float, float], ...] = (
        (277.0, 150.0), (307.0, 150.0), (277.0, 190.0), (307.0, 190.0), (277.0, 230.0), (307.0, 230.0)
    )

    @property
    def corners(self) -> np.ndarray:
        """Outer corners on the board surface (z = 0): top-left, top-right, bottom-right,
        bottom-left, as a (4, 3) array."""
        w, d = self.width, self.depth
        return np.array([[0, 0, 0], [w, 0, 0], [w, d, 0], [0, d, 0]], dtype=np.float64)


@dataclass(frozen=True)
class TileModel:
    size: float = 58.0
    thickness: float = 2.5
    field_size: float = 28.0
    path_width: float = 2.0
    path_colour: str = "#CDB88A"
    garden_colour: str = "#5E8C3A"
    band_width: float = 3.0
    edge_colour: str = "#6E5A40"
    underside: dict[str, str] = field(
        default_factory=lambda: {"clay": "#8B5A2B", "granite": "#8A8A8A", "basalt": "#2E2E2E"}
    )
    plaque_diameter: float = 20.0
    plaque_colour: str = "#F0E6C8"
    icon_box: float = 14.0
    icon_colour: str = "#3A2A1A"
    #: which set of icon drawings the edition prints (renderer only: the reader classifies icons by
    #: what spec 2.3 says they show, not by their drawing): "reference" or "variant"
    icon_style: str = "reference"
    blank_flower_diameter: float = 6.0
    blank_flower_centre: str = "#F2C12E"  #: the centre of the flowers printed on a blank field
    blank_flower_centre_on_yellow: str = "#C2571F"  #: ... on a yellow tile
    placement_offset: float = 1.5  #: hand placement: centre off by up to this many mm
    placement_turn_deg: float = 3.0  #: ... and turned by up to this many degrees


@dataclass(frozen=True)
class PillarModel:
    diameter: float = 10.0
    colour: str = "#CDBA94"
    cap_colour: str = "#A8966F"  #: "a darker top cap" (spec 2.4)
    groove_colour: str = "#8F7E5C"
    single_height: float = 20.0
    double_height: float = 42.5
    groove: tuple[float, float] = (20.0, 22.5)  #: darker band on a double pillar, z range
    placement_offset: float = 0.6  #: hand placement: centre off by up to this many mm


@dataclass(frozen=True)
class DecorationModel:
    placement_offset: float = 2.0
    placement_turn_deg: float = 5.0
    statue_base: tuple[float, float] = (12.0, 3.0)  #: diameter, height
    statue_body: tuple[float, float] = (8.0, 5.0)  #: width at the bottom, at the top
    statue_head: float = 6.0
    statue_height: float = 20.0
    statue_colour: str = "#B08D57"
    fountain_basin: tuple[float, float, float] = (48.0, 20.0, 7.0)  #: length, width, height
    fountain_rim_colour: str = "#E8E0D0"
    fountain_water_colour: str = "#3D8FD1"
    fountain_inset: float = 3.0
    fountain_spout: tuple[float, float] = (4.0, 10.0)  #: diameter, height
    bridge_deck: tuple[float, float] = (80.0, 16.0)  #: length, width
    bridge_end_thickness: float = 2.0
    bridge_rise: float = 12.0
    bridge_colour: str = "#B5653A"
    bridge_rail_colour: str = "#8A4A2A"
    bridge_rail_width: float = 2.0
    bridge_rail_lift: float = 1.5  #: the rails stand this far above the deck
    stairs_width: float = 16.0
    stairs_steps: int = 5
    stairs_colour: str = "#9A9A92"
    belvedere_base: float = 14.0
    belvedere_dome: float = 14.0
    belvedere_height: float = 18.0
    belvedere_slab: float = 2.0  #: thickness of the base slab
    belvedere_post: float = 2.2  #: width of the four square posts
    belvedere_post_inset: float = 1.6  #: from the base's edge to a post's centre
    belvedere_roof: float = 1.0  #: thickness of the roof slab under the dome
    belvedere_post_colour: str = "#EEE7D5"
    belvedere_dome_colour: str = "#2F8F8A"


@dataclass(frozen=True)
class CardModel:
    """Playing cards lying beside the board as clutter (never scored)."""

    size: tuple[float, float] = (63.0, 88.0)
    thickness: float = 0.4
    back_colour: str = "#B22A2E"
    back_pattern_colour: str = "#D9545A"
    border_colour: str = "#F4F1EA"
    border: float = 4.0


@dataclass(frozen=True)
class Profile:
    """Colours, artwork and geometry of one edition of the game (spec sections 2 and 5)."""

    name: str = "reference"
    board: BoardModel = field(default_factory=BoardModel)
    tile: TileModel = field(default_factory=TileModel)
    pillar: PillarModel = field(default_factory=PillarModel)
    decoration: DecorationModel = field(default_factory=DecorationModel)
    card: CardModel = field(default_factory=CardModel)
    flowers: dict[str, str] = field(
        default_factory=lambda: {
            "white": "#F4F1EA", "pink": "#E86A9A", "yellow": "#F2C12E", "blue": "#4A6FD1"
        }
    )
    level_height: float = 22.5  #: a level-k tile's top face is at z = level_height * k

    def tile_top_z(self, level: int) -> float:
        return self.level_height * level

    def cell_centre(self, row: float, col: float) -> tuple[float, float]:
        """Board-frame (x, y) of the centre of cell (row, col); fractional cells allowed."""
        ox, oy = self.board.grid_origin
        p = self.board.pitch
        return (ox + (col + 0.5) * p, oy + (row + 0.5) * p)

    def block_centre(self, row: int, col: int) -> tuple[float, float]:
        """Board-frame (x, y) of the centre of the 2 x 2 block whose top-left cell is (row, col),
        i.e. where a tile named (row, col) is centred."""
        return self.cell_centre(row + 0.5, col + 0.5)


REFERENCE = Profile()

#: A second edition for testing calibration: every appearance property differs from the reference
#: (flower inks, board print, tile garden and plaques, icon drawings, pillar and piece colours),
#: the geometry is the spec's. The flowers keep their names (the rules' four kinds) but are printed
#: ivory, magenta, orange and violet; the garden stays a green (bluer and darker), as every edition's.
VARIANT = Profile(
    name="variant",
    board=BoardModel(
        colour="#C4BFB2", frame_colour="#3B4652", cell_colour="#D9D4C6", gap_colour="#A39C8C",
        hole_colour="#1C1A1A", edge_colour="#8E887C", emblem_colour="#2E5A4A",
        emblem_centre_colour="#D8D0C0", recess_colour="#A8A294",
    ),
    tile=TileModel(
        path_colour="#C2BCA6", garden_colour="#3E7A4A", edge_colour="#4E4A44",
        underside={"clay": "#7A4A3A", "granite": "#9A9AA2", "basalt": "#26282C"},
        plaque_colour="#E9E6F2", icon_colour="#202C4A", blank_flower_centre="#FFF4D0",
        blank_flower_centre_on_yellow="#8A2A1A", icon_style="variant",
    ),
    pillar=PillarModel(colour="#B8B4AE", cap_colour="#8F8A84", groove_colour="#77736C"),
    decoration=DecorationModel(
        statue_colour="#8A6A86", fountain_rim_colour="#D8DCE4", fountain_water_colour="#2FA8B8",
        bridge_colour="#A8443E", bridge_rail_colour="#6E2A26", stairs_colour="#8A949E",
        belvedere_post_colour="#EDE2DA", belvedere_dome_colour="#3A5FA8",
    ),
    card=CardModel(back_colour="#2A4E8A", back_pattern_colour="#5A7EBA", border_colour="#F0F0F0"),
    flowers={"white": "#EDE3C4", "pink": "#C23B8E", "yellow": "#EE8A24", "blue": "#7B55C7"},
)

#: the built-in editions by name (``--profile reference``, ``babylon synth --profile variant``)
BUILT_IN: dict[str, Profile] = {p.name: p for p in (REFERENCE, VARIANT)}
