"""Labelled photos for calibration: the correction page saves a photo with its corrected garden.

A label is ``<name>-<hash>.<format>`` (the photo's bytes as uploaded) and ``<name>-<hash>.json``
(``{"garden": babylon-garden/1}``) in the operator's ``--labels`` folder, the layout that
``babylon calibrate`` reads. File names are made here (the upload's name reduced to letters, digits,
``-`` and ``_``, and the content hash), never taken from the client; both files are written
atomically, the photo first, so a half-saved label is never seen as one.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from scoring.files import atomic_write

MAX_LABELS = 10_000  #: a folder holding this many labels takes no more
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


class LabelsFull(Exception):
    """The labels folder holds :data:`MAX_LABELS` already."""


def label_stem(filename: str, data: bytes) -> str:
    """A safe, unique file stem for an upload: its name's safe characters and its content hash."""
    base = _UNSAFE.sub("_", Path(filename).stem)[:40].strip("_") or "photo"
    return f"{base}-{hashlib.sha256(data).hexdigest()[:12]}"


def count_labels(folder: Path) -> int:
    return sum(1 for _ in folder.glob("*.json")) if folder.is_dir() else 0


def save_label(folder: Path, filename: str, data: bytes, photo_format: str, garden: dict[str, Any]) -> str:
    """Write the photo and its garden into ``folder``; returns the label's stem. The same photo saved
    again replaces its garden (the latest correction wins)."""
    stem = label_stem(filename, data)
    folder.mkdir(parents=True, exist_ok=True)
    side = folder / f"{stem}.json"
    if not side.exists() and count_labels(folder) >= MAX_LABELS:
        raise LabelsFull(f"the labels folder holds {MAX_LABELS} labels already")
    atomic_write(folder / f"{stem}.{photo_format}", data)
    atomic_write(side, (json.dumps({"garden": garden}, indent=1) + "\n").encode())
    return stem
