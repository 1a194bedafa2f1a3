"""A batch from start to end: find the photos, skip those already in the results file (by content),
score the rest in parallel, write each record as it comes, and sum up."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from service.batch.execute import local_job, run_dask, run_local
from service.batch.record import PhotoRecord, failure
from service.batch.results import Opened, ResultsFile

#: a photo read with less confidence than this is listed as doubtful (0..1)
DOUBTFUL_BELOW = 0.5


@dataclass
class Plan:
    """The photos of this batch and what is known of them before any is scored."""

    photos: list[tuple[str, str | None]]  #: (file, sha256) of every input, in order (None: unreadable)
    todo: list[tuple[str, str | None]]  #: one per content not in the results file yet
    earlier: dict[str, PhotoRecord]  #: sha256 -> record from an earlier run, for inputs only
    unreadable: list[PhotoRecord]  #: files that could not even be read to hash them
    same_as: dict[str, str] = field(default_factory=dict)  #: duplicate file -> the file with that content
    opened: Opened = field(default_factory=Opened)


@dataclass
class Outcome:
    """A batch's result: every input's record, and what this run did."""

    plan: Plan
    records: dict[str, PhotoRecord]  #: file -> its record (a copy's is its twin's); unfinished: absent
    new: int  #: records written by this run
    seconds: float
    interrupted: bool = False
    notes: list[str] = field(default_factory=list)  #: things that went wrong beside the photos

    def of(self, file: str) -> PhotoRecord | None:
        return self.records.get(file)


def _hash_file(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def plan_batch(files: list[Path], opened: Opened) -> Plan:
    """Hash every input and decide what is to score: contents already in the results file are done
    (a renamed or copied photo included), and each content is scored once."""
    done = {r["sha256"]: r for r in opened.records if r["sha256"]}
    photos: list[tuple[str, str | None]] = []
    todo: list[tuple[str, str | None]] = []
    earlier: dict[str, PhotoRecord] = {}
    unreadable: list[PhotoRecord] = []
    first: dict[str, str] = {}
    same_as: dict[str, str] = {}
    for p in files:
        file = p.as_posix()
        try:
            sha = _hash_file(p)
        except OSError as e:
            photos.append((file, None))
            unreadable.append(failure(file, None, "cannot-read", f"cannot read the file ({e.strerror or e})"))
            continue
        photos.append((file, sha))
        if sha in first:
            same_as[file] = first[sha]
            continue
        first[sha] = file
        if sha in done:
            earlier[sha] = done[sha]
        else:
            todo.append((file, sha))
    return Plan(photos, todo, earlier, unreadable, same_as, opened)


def run_batch(
    files: list[Path],
    out: Path,
    workers: int = 1,
    overlays_dir: Path | None = None,
    dask: Any = None,
    on_plan: Callable[[Plan], None] | None = None,
    on_record: Callable[[PhotoRecord], None] | None = None,
    profile: Any = None,
) -> Outcome:
    """Score ``files`` into the results file ``out`` (created, or resumed), in ``workers`` local
    processes or on the Dask cluster of the client ``dask`` (``execute.connect``). ``on_plan``
    hears what is to do before the work starts, ``on_record`` each record once it is on disk. A
    KeyboardInterrupt stops the work; the records written so far stay, and the outcome says
    ``interrupted``. Photos are read with ``profile`` (a :class:`vision.profile.Profile`; None: the
    reference edition).

    Raises :class:`~service.batch.results.ResultsFileError` (a one-line message) for a results file
    that cannot be used or written."""
    t0 = time.perf_counter()
    new = 0
    written: dict[str, PhotoRecord] = {}  # sha256 or file (unhashable) -> record of this run
    interrupted = False
    notes: set[str] = set()
    with ResultsFile(out) as results:
        plan = plan_batch(files, results.open())
        if on_plan:
            on_plan(plan)

        def save(record: PhotoRecord, png: bytes | None) -> None:
            nonlocal new
            if png is not None and overlays_dir is not None:
                try:
                    _save_overlay(overlays_dir, record, png)
                except OSError as e:
                    notes.add(f"overlays: cannot write to {overlays_dir}: {e.strerror or e}")
            results.append(record)  # fsync'd: from here on the photo is done
            written[record["sha256"] or record["file"]] = record
            new += 1
            if on_record:
                on_record(record)

        want_overlays = overlays_dir is not None
        work: Iterator[tuple[str, PhotoRecord, bytes | None]] | None = None
        try:
            for record in plan.unreadable:
                save(record, None)
            if plan.todo:
                job = partial(local_job, profile=profile)
                work = (run_dask(plan.todo, dask, want_overlays, profile) if dask is not None
                        else run_local(plan.todo, workers, want_overlays, job))
                for _file, record, png in work:
                    save(record, png)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if work is not None:
                work.close()
    records: dict[str, PhotoRecord] = {}
    for file, sha in plan.photos:
        key = sha if sha is not None else file
        rec = written.get(key) or (plan.earlier.get(sha) if sha else None)  # a copy: its twin's
        if rec is not None:
            records[file] = rec
    return Outcome(plan, records, new, time.perf_counter() - t0, interrupted, sorted(notes))


def _save_overlay(folder: Path, record: PhotoRecord, png: bytes) -> None:
    """``folder/<name>.<first 12 of the hash>.png``, written under a temporary name and renamed."""
    name = f"{Path(record['file']).stem}.{(record['sha256'] or 'nohash')[:12]}.png"
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{name}.tmp"
    tmp.write_bytes(png)
    tmp.replace(folder / name)


def doubtful(record: PhotoRecord, below: float = DOUBTFUL_BELOW) -> bool:
    return record["error"] is None and record["confidence"] is not None and record["confidence"] < below
