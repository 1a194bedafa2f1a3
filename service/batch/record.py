"""One photo -> one result record: spec 4.3's object plus the file, its content hash and the error.

A record is plain JSON data, the same whether it was made by a local worker process or on a Dask
worker::

    {"file": "club/game1/alice.jpg", "sha256": "9f2c...", "score": {...spec 4.2...},
     "garden": {...babylon-garden/1...}, "warnings": [...], "confidence": 0.87, "error": null}

A photo that cannot be scored has ``score``, ``garden`` and ``confidence`` null, no warnings, and
``error`` = ``{"kind", "message"}``: kinds in :data:`PHOTO_FAULTS` are the photo's own fault (a
rerun gives the same answer, so it is final); the kinds in :data:`RETRY_KINDS` are not, and a rerun
of the batch tries those photos again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from pydantic import StringConstraints
from typing_extensions import TypedDict  # pydantic validates these only on Python 3.12+ otherwise

#: error kinds that describe the photo itself: final
PHOTO_FAULTS = ("unreadable", "too-large", "no-board")
#: error kinds that do not come from the photo: the file could not be read, the reader failed
#: unexpectedly (a bug), the worker process or Dask worker died. A rerun tries these photos again.
RETRY_KINDS = frozenset({"cannot-read", "reader-failed", "worker-lost"})

Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]


class PhotoFailure(TypedDict):
    kind: str
    message: str


class PhotoRecord(TypedDict):
    """One line of the results file (the keys in this order)."""

    file: str
    sha256: Sha256 | None
    score: dict[str, int] | None
    garden: dict[str, Any] | None
    warnings: list[dict[str, Any]]
    confidence: float | None
    error: PhotoFailure | None


#: a photo reader as ``vision.read.read_photo``: the file's bytes -> a Reading
Reader = Callable[[bytes], Any]


def content_hash(data: bytes) -> str:
    """The photo's identity in a batch: a renamed or copied photo has the same hash."""
    return hashlib.sha256(data).hexdigest()


def failure(file: str, sha256: str | None, kind: str, message: str) -> PhotoRecord:
    return {"file": file, "sha256": sha256, "score": None, "garden": None, "warnings": [],
            "confidence": None, "error": {"kind": kind, "message": one_line(message)}}


def one_line(message: str) -> str:
    lines = str(message).strip().splitlines()
    return lines[0] if lines else "no reason given"


def _reason(message: str) -> str:
    """The reader's message without its leading ``photo: `` (the record names the file)."""
    message = one_line(message)
    return message.removeprefix("photo: ")


def _kind(error: Exception) -> str:
    from vision.read import ImageTooLargeError, NoBoardError

    if isinstance(error, NoBoardError):
        return "no-board"
    if isinstance(error, ImageTooLargeError):
        return "too-large"
    return "unreadable"


def _default_reader(data: bytes, profile: Any = None) -> Any:
    from vision.profile import REFERENCE
    from vision.read import read_photo

    return read_photo(data, profile or REFERENCE)


def score_photo(
    file: str, data: bytes | None = None, overlay: bool = False, reader: Reader | None = None,
    profile: Any = None,
) -> tuple[PhotoRecord, bytes | None]:
    """Score one photo (read from ``file`` unless its ``data`` is given): its record, and the
    overlay as PNG bytes when ``overlay`` is asked for and the reader can draw one. The default
    reader reads with ``profile`` (a :class:`vision.profile.Profile`; None: the reference edition).

    Never raises for a bad photo or a failing reader: the record carries the error."""
    from vision.read import PhotoError

    if data is None:
        try:
            data = Path(file).read_bytes()
        except OSError as e:
            return failure(file, None, "cannot-read", f"cannot read the file ({e.strerror or e})"), None
    sha = content_hash(data)
    try:
        reading = reader(data) if reader is not None else _default_reader(data, profile)
    except PhotoError as e:
        return failure(file, sha, _kind(e), _reason(str(e))), None
    except Exception as e:  # noqa: BLE001 - a reader bug must not stop the batch; the record says so
        return failure(file, sha, "reader-failed", f"{type(e).__name__}: {one_line(str(e))}"), None
    try:
        from scoring import score_garden

        found = reading.to_dict()
        record: PhotoRecord = {
            "file": file, "sha256": sha, "score": score_garden(reading.garden).to_dict(),
            "garden": found["garden"], "warnings": found["warnings"], "confidence": found["confidence"],
            "error": None,
        }
    except Exception as e:  # noqa: BLE001 - as above
        return failure(file, sha, "reader-failed", f"{type(e).__name__}: {one_line(str(e))}"), None
    return record, (_draw_overlay(data, reading) if overlay else None)


def _draw_overlay(data: bytes, reading: Any) -> bytes | None:
    try:
        import cv2

        from vision.read import load_photo
        from vision.read.overlay import draw_overlay

        ok, png = cv2.imencode(".png", draw_overlay(load_photo(data).image, reading))
    except Exception:  # noqa: BLE001 - an overlay is a picture for people; the score stands without it
        return None
    return png.tobytes() if ok else None


def score_photo_record(path: str | Path, reader: Reader | None = None) -> PhotoRecord:
    """The result record of one photo file (see the module's docstring); never raises for a bad
    photo."""
    return score_photo(str(path), reader=reader)[0]
