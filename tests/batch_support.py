"""Worker jobs for the batch's executor tests: module-level, so worker processes can import them."""

from __future__ import annotations

import os
from pathlib import Path

from service.batch.record import PhotoRecord, content_hash, failure


def crash_on_marked(file: str, overlay: bool) -> tuple[PhotoRecord, bytes | None]:
    """Dies like a crash in native code on a file whose content starts with b"crash"; otherwise a
    record naming the content (no photo reading: these tests are about the executor)."""
    data = Path(file).read_bytes()
    if data.startswith(b"crash"):
        os._exit(139)
    return failure(file, content_hash(data), "no-board", data.decode()), None
