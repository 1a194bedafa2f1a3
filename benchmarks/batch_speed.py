"""Photos per second of `babylon batch` with 1 and with 2 local workers, and their ratio.

Run: python benchmarks/batch_speed.py [--photos N] [--repeats R]. Not a test.

Each run scores the same N different sample photos (2000 x 1500 phone photos, the reader's real
work) into a fresh results file through :func:`service.batch.run_batch`, the code the command runs.
The worker processes are started from a warm forkserver before timing (a first batch of one broken
file), so neither count pays the one-time imports. Runs alternate 1, 2, 2, 1, ... workers so a
change in the machine's load hits both; the figure is the median per count. The machine's load
average is printed, and the CPU time the workers got: photos per second can only double when the
machine has two idle cores to give (on a shared machine it does not, and the ratio says little).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from service.batch import run_batch

SAMPLES = Path(__file__).resolve().parent.parent / "sample_images"


def photos(n: int) -> list[Path]:
    """The first ``n`` sample JPEGs of the usual phone size (not the 12 MP one)."""
    found = [p for p in sorted(SAMPLES.glob("[0-9][0-9]-*.jpg")) if "12mp" not in p.name]
    if n > len(found):
        raise SystemExit(f"only {len(found)} sample photos")
    return found[:n]


def workers_cpu_seconds() -> float | None:
    """CPU seconds of the ended worker processes so far (Linux): the workers are children of the
    multiprocessing forkserver, which reaps them, so their time adds to its children's time."""
    from multiprocessing import forkserver

    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)  # noqa: SLF001 - a benchmark's probe
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")  # cutime + cstime


def rate(files: list[Path], workers: int, folder: Path, tag: str) -> float:
    cpu0 = workers_cpu_seconds()
    out = run_batch(files, folder / f"{tag}.jsonl", workers=workers)
    cpu1 = workers_cpu_seconds()
    failed = sum(r["error"] is not None for r in out.records.values())
    if out.new != len(files):
        raise SystemExit(f"{tag}: {out.new} of {len(files)} photos done")
    note = f" ({failed} without a board read: the reader's time is counted all the same)" if failed else ""
    cpu = ""
    if cpu0 is not None and cpu1 is not None:
        used = cpu1 - cpu0
        cpu = (f"; workers' CPU {used / len(files):.2f} s per photo, {used / out.seconds:.2f} cores "
               "obtained on average")
    print(f"  {workers} worker(s): {len(files)} photos in {out.seconds:.1f} s = "
          f"{len(files) / out.seconds:.3f} photos/s{cpu}{note}", flush=True)
    return len(files) / out.seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=int, default=8, help="photos per run (default 8)")
    ap.add_argument("--repeats", type=int, default=1, help="runs per worker count (default 1)")
    args = ap.parse_args()
    files = photos(args.photos)
    print(f"{os.cpu_count()} cores; load average before: {os.getloadavg()[0]:.1f}", flush=True)
    rates: dict[int, list[float]] = {1: [], 2: []}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        warm = folder / "warm.jpg"
        warm.write_bytes(b"not a photo")
        run_batch([warm], folder / "warm.jsonl", workers=2)  # start the forkserver, import the reader
        order = [w for k in range(args.repeats) for w in ((1, 2) if k % 2 == 0 else (2, 1))]
        for i, workers in enumerate(order):
            rates[workers].append(rate(files, workers, folder, f"run{i}"))
    one, two = statistics.median(rates[1]), statistics.median(rates[2])
    print(f"1 worker:  {one:.3f} photos/s (median of {len(rates[1])} run(s) of {len(files)} photos)")
    print(f"2 workers: {two:.3f} photos/s (median of {len(rates[2])} run(s) of {len(files)} photos)")
    print(f"ratio 2/1: {two / one:.2f} (target: at least 1.85)")
    print(f"load average after: {os.getloadavg()[0]:.1f} (1 minute)")


if __name__ == "__main__":
    main()
