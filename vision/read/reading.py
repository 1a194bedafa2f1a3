"""The reader's pipeline and its result: a photo -> :class:`Reading`."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scoring.garden import Garden
from vision.camera import Camera
from vision.profile import REFERENCE, Profile
from vision.read.board import NoBoardError
from vision.read.load import Photo, load_photo

__all__ = ["DecorationReading", "NoBoardError", "ReadWarning", "Reading", "TileReading", "read_photo"]


@dataclass(frozen=True)
class ReadWarning:
    """Something the reader is unsure of, with the cells it concerns."""

    code: str  #: a short machine-readable kind, e.g. "level-doubt", "flower-doubt", "illegal"
    message: str
    cells: tuple[tuple[int, int], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "cells": [list(c) for c in self.cells]}


@dataclass(frozen=True)
class TileReading:
    """One visible terrace tile as read."""

    row: int
    col: int
    level: int
    flower: str
    confidence: float  #: 0..1: how sure the level and flower are
    corners_px: np.ndarray  #: (4, 2) top-face corners in the photo's pixels (full size, upright)
    visible_cells: tuple[tuple[int, int], ...]  #: the tile's cells seen from above
    level_scores: dict[int, float] = field(default_factory=dict)  #: evidence per candidate level
    flower_scores: dict[str, float] = field(default_factory=dict)  #: evidence per flower


@dataclass(frozen=True)
class DecorationReading:
    """One decoration read on the garden."""

    kind: str
    cells: tuple[tuple[int, int], ...]
    levels: tuple[int, ...]  #: the level at each cell
    confidence: float
    centre_px: tuple[float, float]  #: in the photo's pixels (full size, upright)


@dataclass
class Reading:
    """What the reader made of one photo."""

    garden: Garden
    confidence: float  #: 0..1 for the whole reading
    warnings: list[ReadWarning]
    camera: Camera  #: the photo's camera (full-size upright pixels)
    board_corners_px: (
        np.ndarray
    )  #: (4, 2) outer board corners: top-left, top-right, bottom-right, bottom-left
    tiles: list[TileReading]
    image_size: tuple[int, int]  #: (width, height) of the upright photo
    decorations: list[DecorationReading] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    debug: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """``{"garden", "confidence", "warnings"}`` as ``babylon read --json`` prints it."""
        return {
            "garden": self.garden.to_dict(),
            "confidence": round(float(self.confidence), 3),
            "warnings": [w.to_dict() for w in self.warnings],
        }


def read_photo(
    source: str | Path | bytes | Photo, profile: Profile = REFERENCE, debug_dir: str | Path | None = None
) -> Reading:
    """Read the garden in a photo (a path, the file's bytes, or a loaded :class:`Photo`).

    Raises :class:`vision.read.load.PhotoError` (one-line message) for a file that is not a readable
    image, and :class:`NoBoardError` for a photo without a readable board."""
    from vision.read.pipeline import run

    t0 = time.perf_counter()
    photo = source if isinstance(source, Photo) else load_photo(source)
    t1 = time.perf_counter()
    reading = run(photo, profile, Path(debug_dir) if debug_dir else None)
    reading.timings = {"load": t1 - t0, **reading.timings, "total": time.perf_counter() - t0}
    return reading
