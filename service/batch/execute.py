"""Where the photos are read: local worker processes, or the workers of a Dask cluster.

Both take the photos to score as ``(file, sha256)`` pairs and yield ``(file, record, overlay_png)``
as each photo is done, in the order they finish; the caller writes the results. At most a few
photos per worker are in flight, so a batch of thousands holds only those in memory. Closing the
generator (the batch is interrupted) stops the work: local workers are terminated, Dask futures
cancelled.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from service.batch.record import PhotoRecord, failure, one_line, score_photo

Outcome = tuple[str, PhotoRecord, bytes | None]
IN_FLIGHT_PER_WORKER = 2
#: a photo in flight when a worker process died this often is reported as lost (not retried here)
MAX_CRASHES = 2
#: thread pools of the numeric libraries: one thread per worker process, the processes are the
#: parallelism (set before the workers start, where the user has not set them)
THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


class ClusterError(Exception):
    """The Dask scheduler cannot be used; the message is one line."""


def default_workers() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _init_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    import cv2

    cv2.setNumThreads(1)


def _local_job(file: str, overlay: bool) -> tuple[PhotoRecord, bytes | None]:
    return score_photo(file, overlay=overlay)


def _pool(workers: int) -> ProcessPoolExecutor:
    for name in THREAD_ENV:
        os.environ.setdefault(name, "1")
    if "forkserver" in multiprocessing.get_all_start_methods():
        # a clean server process with the reader imported once: workers start fast, and without
        # the threads of the parent (rich's progress refresh) that fork would copy mid-flight
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["service.batch.record", "vision.read", "vision.read.pipeline"])
    else:
        ctx = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker)


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop the workers now, mid-photo (Python 3.11 has no public call for it)."""
    for proc in list(getattr(pool, "_processes", {}).values()):
        proc.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def run_local(photos: Iterable[tuple[str, str | None]], workers: int, overlays: bool) -> Iterator[Outcome]:
    """Score ``photos`` in ``workers`` processes. When a worker dies (a crash in native code, the
    OOM killer) every photo in flight fails with the pool: a new pool tries each of them again
    alone, and the one that kills its worker alone too is reported as lost; the others go on."""
    queue = list(photos)[::-1]  # pop() from the end takes them in order
    suspects: set[str] = set()
    pool = _pool(workers)
    running: dict[Future, tuple[str, str | None]] = {}
    try:
        while queue or running:
            while queue and len(running) < workers * IN_FLIGHT_PER_WORKER:
                alone = queue[-1][0] in suspects
                if (alone and running) or any(f in suspects for f, _ in running.values()):
                    break
                file, sha = queue.pop()
                running[pool.submit(_local_job, file, overlays)] = (file, sha)
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            broken = False
            for fut in done:
                file, sha = running.pop(fut)
                try:
                    record, png = fut.result()
                except BrokenProcessPool:
                    broken = True
                    if file in suspects:  # it was alone in flight: it is the one
                        yield file, failure(file, sha, "worker-lost",
                                            "the worker process died reading this photo"), None
                    else:
                        suspects.add(file)
                        queue.append((file, sha))
                    continue
                yield file, record, png
            if broken:  # the pool is unusable: the rest in flight go back too, a new pool goes on
                for file, sha in running.values():
                    suspects.add(file)
                    queue.append((file, sha))
                running.clear()
                _terminate(pool)
                pool = _pool(workers)
    finally:
        _terminate(pool)


def run_dask(photos: Iterable[tuple[str, str | None]], address: str, overlays: bool) -> Iterator[Outcome]:
    """Score ``photos`` on the Dask cluster whose scheduler is at ``address``. The photo's bytes
    travel with the task, so the workers need the package installed but not this file system."""
    try:
        from distributed import Client
        from distributed import wait as dask_wait
    except ImportError:
        raise ClusterError("--dask needs Dask: pip install 'babylon-scorer[dask]'") from None
    try:
        client = Client(address, timeout="15s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {one_line(str(e))}") from None
    running: dict = {}  # future -> (file, sha256)
    try:
        slots = max(sum(client.nthreads().values()), 1) * IN_FLIGHT_PER_WORKER
        queue = list(photos)[::-1]
        while queue or running:
            while queue and len(running) < slots:
                file, sha = queue.pop()
                try:
                    data = Path(file).read_bytes()
                except OSError as e:
                    why = f"cannot read the file ({e.strerror or e})"
                    yield file, failure(file, None, "cannot-read", why), None
                    continue
                running[client.submit(score_photo, file, data, overlays, pure=False)] = (file, sha)
            if not running:
                continue
            done, _ = dask_wait(list(running), return_when="FIRST_COMPLETED")
            for fut in done:
                file, sha = running.pop(fut)
                try:
                    record, png = fut.result()
                except Exception as e:  # noqa: BLE001 - a lost worker, a cancelled task: this photo only
                    why = f"{type(e).__name__}: {one_line(str(e))}"
                    yield file, failure(file, sha, "worker-lost", why), None
                    continue
                yield file, record, png
    finally:
        try:
            client.cancel(list(running), force=True)
        finally:
            client.close()
