"""Stage 7: the symbols printed on the fields that no piece covers (work in progress)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.camera import Camera
from vision.profile import Profile
from vision.read.decorations import DecorationFind, TileLike

SymbolGrid = tuple[tuple[str | None, str | None], tuple[str | None, str | None]]


@dataclass(frozen=True)
class SymbolRead:
    row: int  #: the field's cell
    col: int
    level: int
    symbol: str | None
    score: float


def read_symbols(
    image_bgr: np.ndarray, cam: Camera, tiles: Sequence[TileLike], finds: Sequence[DecorationFind],
    profile: Profile, gain_srgb: np.ndarray,
) -> tuple[dict[tuple[int, int, int], SymbolGrid], list[SymbolRead]]:
    return {}, []
