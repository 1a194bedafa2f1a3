"""Small file helpers shared by the scoring engine and the vision code."""

from __future__ import annotations

import os
from pathlib import Path


def atomic_write(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: a temporary name beside it, then renamed, so a crash
    never leaves a half-written file behind."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
