"""The garden model: the `babylon-garden/1` interchange format as typed, immutable objects.

A garden is the final state of one player's building zone: terrace tiles (each a 2 x 2 block of
cells at some level) and decorations standing on them. The model only knows cells and levels;
nothing here knows about millimetres or pixels.

Loading validates the *shape* of the data (types, ranges, names, cell counts) and reports the
first problem with the field and the value. Whether a well-formed garden could have been built
by the rules is a separate question, answered by :mod:`scoring.rules`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from scoring.facts import CELLS_PER_KIND, GRID, DecorationKind, Flower, Symbol
from scoring.facts import DECORATION_KINDS as DECORATION_KINDS  # re-exported: the renderer's and tools' names
from scoring.facts import FLOWERS as FLOWERS
from scoring.facts import SYMBOLS as SYMBOLS
from scoring.files import atomic_write

FORMAT = "babylon-garden/1"
MAX_LEVEL = 12  #: far above anything the game's pillars can build; a sanity bound for input
MAX_BYTES = 5 * 2**20  #: a garden file is a few kB; anything this big is not one

Cell = tuple[int, int]


def block_cells(row: int, col: int) -> tuple[Cell, Cell, Cell, Cell]:
    """The four cells of the 2 x 2 block whose top-left cell is (row, col), row-major: top-left,
    top-right, bottom-left, bottom-right."""
    return ((row, col), (row, col + 1), (row + 1, col), (row + 1, col + 1))


class GardenError(ValueError):
    """A garden file or object that is not valid `babylon-garden/1`; the message says where."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def _check_cell(cell: tuple[int, int]) -> tuple[int, int]:
    r, c = cell
    if not (0 <= r < GRID and 0 <= c < GRID):
        raise ValueError(f"cell [{r}, {c}] is outside the 8 x 8 building zone (rows and columns 0..7)")
    return (r, c)


class Tile(_Frozen):
    """A terrace tile: top-left cell (row, col) of its 2 x 2 block, and its level (1 = on the board's
    pillars). ``symbols`` is the 2 x 2 grid of field symbols seen from above, or None if unknown."""

    row: int = Field(ge=0, le=GRID - 2)
    col: int = Field(ge=0, le=GRID - 2)
    level: int = Field(ge=1, le=MAX_LEVEL)
    flower: Flower
    symbols: tuple[tuple[Symbol | None, Symbol | None], tuple[Symbol | None, Symbol | None]] | None = None

    @property
    def cells(self) -> tuple[Cell, Cell, Cell, Cell]:
        """The four cells, row-major: top-left, top-right, bottom-left, bottom-right."""
        return block_cells(self.row, self.col)

    def covers(self, cell: Cell) -> bool:
        return self.row <= cell[0] <= self.row + 1 and self.col <= cell[1] <= self.col + 1

    def symbol_at(self, cell: Cell) -> str | None:
        """The symbol printed on the field over ``cell`` (None for a blank field or unknown symbols)."""
        if self.symbols is None or not self.covers(cell):
            return None
        return self.symbols[cell[0] - self.row][cell[1] - self.col]

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.level, self.row, self.col)

    def __str__(self) -> str:
        return f"{self.flower} tile at ({self.row}, {self.col}) level {self.level}"


class Decoration(_Frozen):
    """A decoration piece. ``level`` is the level of the tile it stands on; stairs instead give
    ``levels``, one per cell, in the order of ``cells``."""

    kind: DecorationKind
    cells: tuple[tuple[int, int], ...]
    level: int | None = Field(default=None, ge=1, le=MAX_LEVEL)
    levels: tuple[int, int] | None = None

    @field_validator("cells")
    @classmethod
    def _cells_on_board(cls, cells: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
        return tuple(_check_cell(c) for c in cells)

    @field_validator("levels")
    @classmethod
    def _levels_in_range(cls, levels: tuple[int, int] | None) -> tuple[int, int] | None:
        if levels is not None:
            for lv in levels:
                if not 1 <= lv <= MAX_LEVEL:
                    raise ValueError(f"level {lv} is outside 1..{MAX_LEVEL}")
        return levels

    @model_validator(mode="after")
    def _shape(self) -> Decoration:
        want = CELLS_PER_KIND[self.kind]
        if len(self.cells) != want:
            raise ValueError(f"a {self.kind} stands on {want} cell(s), got {len(self.cells)}")
        if len(set(self.cells)) != len(self.cells):
            raise ValueError(f"a {self.kind} lists the same cell twice: {list(map(list, self.cells))}")
        if self.kind == "stairs":
            if self.levels is None or self.level is not None:
                raise ValueError("stairs give 'levels' (one per cell), not 'level'")
        elif self.level is None or self.levels is not None:
            raise ValueError(f"a {self.kind} gives 'level', not 'levels'")
        return self

    @property
    def cell_levels(self) -> tuple[tuple[Cell, int], ...]:
        """Each cell the piece occupies with the level it stands at there."""
        if self.levels is not None:
            return tuple(zip(self.cells, self.levels, strict=True))
        assert self.level is not None
        return tuple((cell, self.level) for cell in self.cells)

    def __str__(self) -> str:
        where = ", ".join(f"({r}, {c})" for r, c in self.cells)
        if self.levels is not None:
            return f"stairs on {where} levels {self.levels[0]}-{self.levels[1]}"
        return f"{self.kind} on {where} level {self.level}"


class Garden(_Frozen):
    """One player's finished garden."""

    format: Literal["babylon-garden/1"] = FORMAT
    board_flower: Flower | None = None
    tiles: tuple[Tile, ...] = ()
    decorations: tuple[Decoration, ...] = ()

    def tiles_at(self, cell: Cell) -> Iterator[Tile]:
        return (t for t in self.tiles if t.covers(cell))

    @property
    def max_level(self) -> int:
        return max((t.level for t in self.tiles), default=0)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object, as in spec 4.1 (optional fields left out when unknown)."""
        return {
            "format": FORMAT,
            **({"board_flower": self.board_flower} if self.board_flower else {}),
            "tiles": [t.model_dump(exclude_none=True) | _symbols_json(t) for t in self.tiles],
            "decorations": [_decoration_json(d) for d in self.decorations],
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)


def _symbols_json(t: Tile) -> dict[str, Any]:
    return {"symbols": [list(row) for row in t.symbols]} if t.symbols is not None else {}


def _decoration_json(d: Decoration) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": d.kind, "cells": [list(c) for c in d.cells]}
    if d.levels is not None:
        out["levels"] = list(d.levels)
    else:
        out["level"] = d.level
    return out


def _format_error(err: ValidationError) -> str:
    first = err.errors()[0]
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"])[1:]  # a field first
    msg = first["msg"].removeprefix("Value error, ")
    value = first.get("input")
    shown = json.dumps(value)[:80] if not isinstance(value, dict) else None
    parts = [where, msg]
    if shown is not None:  # a missing field's input is the object around it, never shown
        parts.append(f"(got {shown})")
    more = f" [+{len(err.errors()) - 1} more problem(s)]" if len(err.errors()) > 1 else ""
    return f"{parts[0]}: {' '.join(parts[1:])}{more}"


def garden_from_dict(data: Any) -> Garden:
    """Build a garden from parsed JSON, raising :class:`GardenError` naming the bad field."""
    if not isinstance(data, dict):
        raise GardenError(f"a garden is a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise GardenError(f"format: expected {FORMAT!r} (got {json.dumps(data.get('format'))})")
    try:
        return Garden.model_validate(data)
    except ValidationError as err:
        raise GardenError(_format_error(err)) from None


def _parse(text: str | bytes) -> Any:
    if len(text) > MAX_BYTES:
        raise GardenError(f"{len(text):,} bytes is far too big for a garden (at most {MAX_BYTES:,})")
    try:
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise GardenError(f"not valid JSON: {err}") from None
    except RecursionError:
        raise GardenError("not valid JSON: nested too deeply") from None


def loads(text: str | bytes) -> Garden:
    return garden_from_dict(_parse(text))


def load(path: str | Path) -> Garden:
    """Read a `babylon-garden/1` file. Files that hold a garden under a ``"garden"`` key (the truth
    files beside rendered photos, a photo's reading as in spec 4.3) are accepted too."""
    try:
        path = Path(path)
        if path.is_file() and path.stat().st_size > MAX_BYTES:
            raise GardenError(f"{path.stat().st_size:,} bytes is far too big for a garden")
        text = path.read_bytes()
    except OSError as err:
        raise GardenError(f"cannot read: {err.strerror or err}") from None
    data = _parse(text)
    if isinstance(data, dict) and "format" not in data and isinstance(data.get("garden"), dict):
        data = data["garden"]
    return garden_from_dict(data)


def save(garden: Garden, path: str | Path) -> None:
    """Write atomically: a crash never leaves a half-written file behind."""
    atomic_write(path, (garden.to_json() + "\n").encode())
