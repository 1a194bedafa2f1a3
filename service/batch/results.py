"""The results file: one record per line, appended, flushed and fsync'd photo by photo.

JSONL (``.jsonl``) or CSV (``.csv``, a header line, then the same records flattened: the score's
columns, the garden and warnings as compact JSON). Both are line files, so the same rules hold:

- a line is written whole with one ``write`` and synced before the next photo is counted done;
- on opening, a torn last line (no newline, or not a record: a kill or power loss in the middle of
  a write can leave part of a line or zero bytes) is cut off; nothing before it is touched. An
  unreadable line in the middle (edited by hand) is left as it is and not counted;
- records whose error is not the photo's fault (:data:`~service.batch.record.RETRY_KINDS`) are
  taken out (the file is rewritten under a temporary name and renamed), so the batch tries those
  photos again and the file keeps one line per photo;
- a file that is not a results file of this kind is refused, never truncated;
- the file is locked while a batch writes to it: a second batch on the same file is refused.
"""

from __future__ import annotations

import csv
import fcntl
import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from pydantic import TypeAdapter, ValidationError

from scoring.score import CATEGORIES
from service.batch.record import RETRY_KINDS, PhotoRecord

_RECORD = TypeAdapter(PhotoRecord)
#: the score's keys in spec 4.2's order: the eight categories, total, tie-break
SCORE_KEYS = (*CATEGORIES, "total", "tiebreak_visible_holes")


class ResultsFileError(Exception):
    """The results file cannot be used; the message is one line."""


def check_record(obj: object) -> PhotoRecord | None:
    """``obj`` as a record, or None where it is not one (wrong keys or types, a score without a
    garden, an error with a score...)."""
    try:
        rec = _RECORD.validate_python(obj, strict=False)
    except ValidationError:
        return None
    parts = [rec["score"] is not None, rec["garden"] is not None, rec["confidence"] is not None]
    if rec["error"] is None and not (all(parts) and set(rec["score"]) == set(SCORE_KEYS)):
        return None
    if rec["error"] is not None and any(parts):
        return None
    if rec["sha256"] is None and (rec["error"] is None or rec["error"]["kind"] not in RETRY_KINDS):
        return None
    return {k: rec[k] for k in PhotoRecord.__annotations__}  # type: ignore[return-value]


class Codec(Protocol):
    header: bytes  #: written first in an empty file (b"" for none)
    signature: bytes  #: every file of this kind starts with these bytes

    def encode(self, record: PhotoRecord) -> bytes: ...
    def decode(self, line: bytes) -> PhotoRecord | None: ...


class JsonLines:
    header = b""
    signature = b'{"file":'

    def encode(self, record: PhotoRecord) -> bytes:
        # ASCII: a file name that is not UTF-8 (surrogate escapes) is written as \udcxx and read back
        return (json.dumps(record, separators=(",", ":")) + "\n").encode()

    def decode(self, line: bytes) -> PhotoRecord | None:
        try:
            return check_record(json.loads(line.decode()))
        except (UnicodeDecodeError, ValueError):
            return None


class CsvLines:
    """A row per record; the garden and warnings are compact JSON in their columns (one line)."""

    columns = ("file", "sha256", "error_kind", "error", "total", *CATEGORIES, "tiebreak_visible_holes",
               "confidence", "warnings", "garden")
    header = (",".join(columns) + "\n").encode()
    signature = header

    def encode(self, record: PhotoRecord) -> bytes:
        score = record["score"] or {}
        err = record["error"] or {"kind": "", "message": ""}
        row = {
            "file": record["file"].replace("\n", "\\n").replace("\r", "\\r"),  # one line per record
            "sha256": record["sha256"] or "", "error_kind": err["kind"],
            "error": err["message"], **{k: score.get(k, "") for k in SCORE_KEYS},
            "confidence": "" if record["confidence"] is None else repr(record["confidence"]),
            "warnings": json.dumps(record["warnings"], separators=(",", ":")),
            "garden": "" if record["garden"] is None else json.dumps(record["garden"], separators=(",", ":")),
        }
        buf = io.StringIO()
        csv.DictWriter(buf, self.columns, lineterminator="\n").writerow(row)
        return buf.getvalue().encode("utf-8", "surrogateescape")

    def decode(self, line: bytes) -> PhotoRecord | None:
        try:
            rows = list(csv.reader([line.decode("utf-8", "surrogateescape").rstrip("\n")]))
            if len(rows) != 1 or len(rows[0]) != len(self.columns):
                return None
            row = dict(zip(self.columns, rows[0], strict=True))
            scored = row["error_kind"] == ""
            return check_record({
                "file": row["file"], "sha256": row["sha256"] or None,
                "score": {k: int(row[k]) for k in SCORE_KEYS} if scored else None,
                "garden": json.loads(row["garden"]) if row["garden"] else None,
                "warnings": json.loads(row["warnings"]),
                "confidence": float(row["confidence"]) if row["confidence"] else None,
                "error": None if scored else {"kind": row["error_kind"], "message": row["error"]},
            })
        except (UnicodeDecodeError, ValueError, csv.Error):
            return None


def codec_for(path: Path) -> Codec:
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return JsonLines()
    if suffix == ".csv":
        return CsvLines()
    raise ResultsFileError(f"{path}: the results file must end in .jsonl or .csv")


@dataclass
class Opened:
    """What was found in an existing results file."""

    records: list[PhotoRecord] = field(default_factory=list)  #: the good records, in file order
    torn_bytes: int = 0  #: bytes cut off the end (a torn last line)
    bad_lines: int = 0  #: unreadable lines left in the middle of the file
    retried: int = 0  #: records taken out to be tried again (RETRY_KINDS)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class ResultsFile:
    """An open results file: ``open()`` reads and repairs it, ``append()`` adds one record."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.codec = codec_for(path)
        self._fd: int | None = None

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # also releases the lock
            self._fd = None

    def open(self) -> Opened:
        """Open (creating it), lock, repair the tail, take out retryable records; return the rest."""
        if self.path.exists() and not self.path.is_file():
            raise ResultsFileError(f"{self.path}: exists and is not a file")
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as e:
            raise ResultsFileError(f"{self.path}: cannot open: {e.strerror or e}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise ResultsFileError(f"{self.path}: another batch is writing to this file") from None
        self._fd = fd
        try:
            return self._load()
        except OSError as e:
            self.close()
            raise ResultsFileError(f"{self.path}: cannot read or write: {e.strerror or e}") from None

    def _load(self) -> Opened:
        assert self._fd is not None
        with open(self._fd, "rb", closefd=False) as f:
            data = f.read()
        sig = self.codec.signature
        if data[: len(sig)] != sig[: len(data)]:
            raise ResultsFileError(f"{self.path}: not a babylon batch results file of this kind "
                                   "(give another --out, or remove it)")
        opened = Opened()
        start = good_end = len(self.codec.header) if data.startswith(self.codec.header) else 0
        kept: list[bytes] = []
        pending_bad: list[bytes] = []  # unreadable lines, kept only if a good line follows them
        while start < len(data):
            nl = data.find(b"\n", start)
            end = len(data) if nl < 0 else nl + 1
            line = data[start:end]
            rec = self.codec.decode(line) if nl >= 0 else None
            if rec is None:
                pending_bad.append(line)
            else:
                opened.bad_lines += len(pending_bad)
                kept += pending_bad
                if rec["error"] is not None and rec["error"]["kind"] in RETRY_KINDS:
                    opened.retried += 1
                else:
                    kept.append(line)
                    opened.records.append(rec)
                pending_bad = []
                good_end = end
            start = end
        opened.torn_bytes = len(data) - good_end
        header = data[: len(self.codec.header)] if data.startswith(self.codec.header) else b""
        if opened.retried:
            self._replace(self.codec.header + b"".join(kept))
        elif not header and self.codec.header:
            self._replace(self.codec.header)  # new file, or a torn header
        elif opened.torn_bytes:
            os.ftruncate(self._fd, good_end)
            os.fsync(self._fd)
        elif not data:
            _fsync_dir(self.path)  # the new (empty) file's name is durable
        return opened

    def _replace(self, content: bytes) -> None:
        """Write ``content`` under a temporary name, sync it, rename it over the file, and keep the
        lock on the new file."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            _write_all(fd, content)
            os.fsync(fd)
            os.replace(tmp, self.path)
            _fsync_dir(self.path)
        except BaseException:
            os.close(fd)
            raise
        self.close()
        self._fd = fd

    def append(self, record: PhotoRecord) -> None:
        """Add one record as one line, on disk (fsync'd) when this returns."""
        if self._fd is None:
            raise ResultsFileError(f"{self.path}: not open")
        try:
            _write_all(self._fd, self.codec.encode(record))
            os.fsync(self._fd)
        except OSError as e:
            raise ResultsFileError(f"{self.path}: cannot write: {e.strerror or e}") from None
