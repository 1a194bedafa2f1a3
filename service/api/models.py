"""The typed request and response bodies of the `/v1` API (they make the OpenAPI schema at /docs)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from scoring.garden import FORMAT, Decoration, Garden, Tile

MAX_TILES = 52  #: the game's 48 terrace tiles and 4 start tiles (spec 2.3)
MAX_DECORATIONS = 4 * MAX_TILES  #: one piece per field at most
MAX_PLAYERS = 8
Cell = tuple[int, int]


class GardenIn(Garden):
    """A `babylon-garden/1` garden (spec 4.1), as sent: ``format`` is required and the piece counts
    are bounded by the game's supply."""

    format: Literal["babylon-garden/1"] = Field(description=f"always {FORMAT!r}")
    tiles: tuple[Tile, ...] = Field(default=(), max_length=MAX_TILES)
    decorations: tuple[Decoration, ...] = Field(default=(), max_length=MAX_DECORATIONS)

    def as_garden(self) -> Garden:
        return Garden.model_validate(self.model_dump())


class ScoreOut(BaseModel):
    """The score object of spec 4.2: points per category of the score pad, the total and the
    tie-break (visible board holes; fewer wins a tie)."""

    statues: int
    fountains: int
    bridges: int
    stairs: int
    decoration_sets: int
    flower_sets: int
    belvederes: int
    highest_level: int
    total: int
    tiebreak_visible_holes: int


class FindingOut(BaseModel):
    """A broken rule of the legality checker (an error), or a placement the game allows only with a
    round marker (a warning)."""

    rule: str
    severity: Literal["error", "warning"]
    cells: list[Cell]
    message: str


class GardenScoreOut(BaseModel):
    score: ScoreOut
    findings: list[FindingOut]


class ReadWarningOut(BaseModel):
    """Something the photo reader is unsure of."""

    code: str
    message: str
    cells: list[Cell] = []


class OverlayOut(BaseModel):
    """The photo with what was read drawn on it, and where the board's grid lies in that picture so
    that a client can tell which cell (at which level) a point of the picture shows."""

    png: str = Field(description="the overlay picture: a PNG, base64")
    width: int
    height: int
    grid: list[list[list[tuple[float, float]]]] = Field(
        description="grid[level][i][j]: the picture's pixel (x, y) of the corner between cells at row i "
        "and column j (0..8) on the top face of a tile of that level (level 0: the board surface)"
    )


class PhotoScoreOut(BaseModel):
    """Spec 4.3: the score, the garden read from the photo, the reader's warnings and confidence;
    with the legality findings of that garden, and the overlay when asked for."""

    score: ScoreOut
    garden: Garden
    warnings: list[ReadWarningOut]
    confidence: float = Field(ge=0.0, le=1.0)
    findings: list[FindingOut]
    overlay: OverlayOut | None = None


class PlayerIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=40)
    garden: GardenIn


class RankIn(BaseModel):
    """The gardens of the players of one game."""

    model_config = ConfigDict(extra="forbid")

    players: list[PlayerIn] = Field(min_length=1, max_length=MAX_PLAYERS)


class StandingOut(BaseModel):
    place: int = Field(description="1 = winner; tied players (same total, same visible holes) share a place")
    name: str
    score: ScoreOut
    findings: list[FindingOut]
    garden: Garden
    warnings: list[ReadWarningOut] = []
    confidence: float | None = Field(default=None, description="for a photo: the reader's confidence")


class RankOut(BaseModel):
    ranking: list[StandingOut]


class HealthOut(BaseModel):
    status: Literal["ok"] = "ok"


class LabelsOut(BaseModel):
    enabled: bool  #: the service keeps labelled photos (``babylon serve --labels DIR``)
    count: int  #: labels in its folder


class LabelSavedOut(BaseModel):
    saved: str  #: the label's file stem (photo and garden JSON)
    count: int


class VersionOut(BaseModel):
    name: str
    version: str
    api: str
    garden_format: str


class ErrorOut(BaseModel):
    """Every error: a one-line reason."""

    detail: str
