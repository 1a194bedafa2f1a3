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
import select
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from service.batch.record import PhotoRecord, failure, one_line, score_photo

Outcome = tuple[str, PhotoRecord, bytes | None]
Job = Callable[[str, bool], tuple[PhotoRecord, bytes | None]]
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


def _end_with(pid: int) -> None:
    """End this worker as soon as the batch process ``pid`` ends (``kill -9``, a crash): a worker
    of the forkserver is not its child, holds the pool's pipes, and would otherwise wait for work
    forever. Linux: a pidfd that becomes readable when the process ends; elsewhere, a poll."""
    try:
        fd: int | None = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None

    def watch() -> None:
        if fd is not None:
            select.select([fd], [], [])
        else:
            while True:
                time.sleep(1.0)
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                except PermissionError:
                    continue
        os._exit(1)

    threading.Thread(target=watch, name="end-with-the-batch", daemon=True).start()


def _init_worker(batch_pid: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _end_with(batch_pid)
    import cv2

    cv2.setNumThreads(1)


@contextmanager
def _interrupt_afterwards() -> Iterator[None]:
    """Hold Ctrl-C while worker processes start (submitting may start one, and waits for the
    forkserver's imports): a start cut short leaves a half-made worker that prints a traceback. The
    interrupt is raised once the block is done."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def local_job(file: str, overlay: bool, profile: Any = None) -> tuple[PhotoRecord, bytes | None]:
    return score_photo(file, overlay=overlay, profile=profile)


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
    return ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker, initargs=(os.getpid(),))


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop the workers now, mid-photo (Python 3.11 has no public call for it), and wait for the
    pool's manager thread to see them gone: left running, it races the interpreter's exit (a
    'Bad file descriptor' traceback from concurrent.futures at exit)."""
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        proc.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


def run_local(
    photos: Iterable[tuple[str, str | None]], workers: int, overlays: bool, job: Job = local_job
) -> Iterator[Outcome]:
    """Score ``photos`` in ``workers`` processes (``job(file, overlays)`` in each, a module-level
    function). When a worker dies (a crash in native code, the
    OOM killer) every photo in flight fails with the pool: a new pool tries each of them again
    alone, and the one that kills its worker alone too is reported as lost; the others go on."""
    queue = list(photos)[::-1]  # pop() from the end takes them in order
    workers = max(1, min(workers, len(queue)))
    suspects: set[str] = set()
    pool = _pool(workers)
    running: dict[Future, tuple[str, str | None]] = {}
    try:
        while queue or running:
            with _interrupt_afterwards():
                while queue and len(running) < workers * IN_FLIGHT_PER_WORKER:
                    alone = queue[-1][0] in suspects
                    if (alone and running) or any(f in suspects for f, _ in running.values()):
                        break
                    file, sha = queue.pop()
                    running[pool.submit(job, file, overlays)] = (file, sha)
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
    except BaseException:  # interrupted (the generator closed, Ctrl-C): stop mid-photo
        _terminate(pool)
        raise
    pool.shutdown(wait=True)


def connect(address: str, timeout_s: float = 10.0) -> Any:
    """A ``distributed.Client`` of the scheduler at ``address``; :class:`ClusterError` if Dask is
    not installed or the scheduler does not answer."""
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError("--dask needs Dask: pip install 'babylon-scorer[dask]'") from None
    try:
        return Client(address, timeout=f"{timeout_s}s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {one_line(str(e))}") from None


def run_dask(
    photos: Iterable[tuple[str, str | None]], client: Any, overlays: bool, profile: Any = None
) -> Iterator[Outcome]:
    """Score ``photos`` on the Dask cluster of ``client`` (see :func:`connect`). The photo's bytes
    (and the reader's ``profile``) travel with the task, so the workers need the package installed but
    not this file system."""
    from distributed import as_completed

    running: dict = {}  # future -> (file, sha256)
    finished = as_completed(loop=client.loop)
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
                fut = client.submit(score_photo, file, data, overlays, profile=profile, pure=False)
                running[fut] = (file, sha)
                finished.add(fut)
            if not running:
                continue
            fut = next(finished)
            file, sha = running.pop(fut)
            try:
                record, png = fut.result()
            except Exception as e:  # noqa: BLE001 - a lost worker, a cancelled task: this photo only
                why = f"{type(e).__name__}: {one_line(str(e))}"
                yield file, failure(file, sha, "worker-lost", why), None
                continue
            yield file, record, png
    finally:
        if running:
            client.cancel(list(running), force=True)
