"""Helpers for the batch tests: records as a batch writes them (from sample gardens, no photo
reading), and worker jobs for the executor tests (module-level, so worker processes import them)."""

from __future__ import annotations

import os
from pathlib import Path

from scoring import load, score_garden
from service.batch.record import PhotoRecord, content_hash, failure

SAMPLES = Path(__file__).resolve().parent.parent / "sample_images"


def scored_record(name: str, confidence: float = 0.8125) -> PhotoRecord:
    """A record as a batch writes it, from a sample's true garden (no photo reading involved)."""
    garden = load(SAMPLES / f"{name}.json")
    return {
        "file": f"club/game 1/{name}.jpg", "sha256": content_hash(name.encode()),
        "score": score_garden(garden).to_dict(), "garden": garden.to_dict(),
        "warnings": [{"code": "level-doubt", "message": "tile at row 2, col 3: level 2 is uncertain",
                      "cells": [[2, 3], [3, 3]]}],
        "confidence": confidence, "error": None,
    }


RECORDS: list[PhotoRecord] = [
    scored_record("05-level-3"),
    failure("club/game 1/notes, \"draft\".jpg", content_hash(b"x"), "unreadable", "not a readable image"),
    scored_record("08-all-decorations", 0.1),
    failure("club/game 2/dark.jpg", content_hash(b"y"), "no-board", "no Babylon player board found"),
]


def crash_on_marked(file: str, overlay: bool) -> tuple[PhotoRecord, bytes | None]:
    """Dies like a crash in native code on a file whose content starts with b"crash"; otherwise a
    record naming the content (no photo reading: these tests are about the executor)."""
    data = Path(file).read_bytes()
    if data.startswith(b"crash"):
        os._exit(139)
    return failure(file, content_hash(data), "no-board", data.decode()), None
