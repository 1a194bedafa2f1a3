"""Which photos a batch scores: the paths given, folders recursed, globs expanded."""

from __future__ import annotations

import glob
from collections.abc import Iterable
from pathlib import Path

#: photo files taken from folders and patterns (a file named explicitly is taken whatever its name)
PHOTO_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif"})


class InputError(Exception):
    """A path argument that names nothing; the message is one line."""


def _hidden(path: Path, root: Path) -> bool:
    """Dot files and folders under ``root`` (macOS ``._IMG.jpg`` companions, ``.thumbnails``)."""
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def _in_folder(root: Path, skip: Iterable[Path]) -> list[Path]:
    skip = [s.resolve() for s in skip]
    found = []
    for p in root.rglob("*"):
        if p.suffix.lower() not in PHOTO_SUFFIXES or _hidden(p, root) or not p.is_file():
            continue
        resolved = p.resolve()
        if any(resolved == s or s in resolved.parents for s in skip):
            continue
        found.append(p)
    return sorted(found)


def find_photos(paths: Iterable[str], skip: Iterable[Path] = ()) -> list[Path]:
    """Every photo under ``paths`` (files, folders recursed, glob patterns), each file once, in
    the order given (folders sorted). ``skip``: files and folders never taken from a folder (the
    batch's own outputs). Raises :class:`InputError` for a path or pattern that names nothing."""
    skip = list(skip)
    out: list[Path] = []
    seen: set[Path] = set()
    for arg in paths:
        literal = Path(arg).exists()
        if literal:
            matches = [Path(arg)]
        elif glob.has_magic(arg):
            matches = [Path(m) for m in sorted(glob.glob(arg, recursive=True))]
            if not matches:
                raise InputError(f"{arg}: no file matches")
        else:
            raise InputError(f"{arg}: no such file or folder")
        for m in matches:
            if not (m.is_dir() or literal or m.suffix.lower() in PHOTO_SUFFIXES):
                continue  # a pattern such as game/* takes the photos, not the notes beside them
            for p in _in_folder(m, skip) if m.is_dir() else [m]:
                key = p.resolve()
                if key not in seen:
                    seen.add(key)
                    out.append(p)
    return out


def game_of(path: str | Path) -> str:
    """The game a photo belongs to: its folder."""
    return Path(path).parent.as_posix()
