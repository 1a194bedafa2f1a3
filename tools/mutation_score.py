"""Mutation score of scoring/: mutmut changes the engine one small edit at a time and runs the
scoring tests against each change; a change no test notices is a surviving mutant.

    pip install -e '.[test,mutation]'
    python tools/mutation_score.py [--jobs N] [--report-only] [MUTANT_NAME_GLOB ...]

The mutants and the test selection are configured under ``[tool.mutmut]`` in pyproject.toml (the
scoring tests only). Results are kept in ``mutants/`` (git-ignored), so a second run only re-tests
what changed. Prints the counts, the score (killed / mutants that ran: timeouts count as killed,
mutmut's "skipped" and "not checked" do not count) and the names of the survivors; ``mutmut show
NAME`` prints the diff of one. Slow (minutes per hundred mutants); not run in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATS = ROOT / "mutants" / "mutmut-cicd-stats.json"


def _mutmut(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mutmut", *args], cwd=ROOT, text=True, capture_output=True)


def survivors() -> list[str]:
    """The names of the surviving mutants (``mutmut results`` lists those not killed)."""
    out = _mutmut("results").stdout
    return [line.split(":")[0].strip() for line in out.splitlines() if line.rstrip().endswith(": survived")]


def score(stats: dict[str, int]) -> tuple[int, int, float]:
    """Killed (timeouts included) and the mutants that ran, and their ratio in percent."""
    killed = stats["killed"] + stats["timeout"]
    ran = killed + stats["survived"] + stats["no_tests"] + stats["suspicious"] + stats.get("segfault", 0)
    return killed, ran, 100.0 * killed / ran if ran else 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=1, help="mutants tested at once (default 1)")
    ap.add_argument("--report-only", action="store_true", help="print the last run's figures, run nothing")
    ap.add_argument("names", nargs="*", help="only these mutants (globs such as 'scoring.rules*')")
    args = ap.parse_args()
    try:
        import mutmut  # noqa: F401
    except ImportError:
        print("error: mutmut is not installed: pip install -e '.[mutation]'", file=sys.stderr)
        return 2
    if not args.report_only:
        env = {**os.environ, "BABYLON_MUTATION_RUN": "1"}  # fewer hypothesis examples: tests/builders.py
        run = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(args.jobs),
                              *args.names], cwd=ROOT, env=env)
        if run.returncode != 0:
            print(f"error: mutmut run failed (exit code {run.returncode})", file=sys.stderr)
            return run.returncode
    _mutmut("export-cicd-stats")
    if not STATS.is_file():
        print("error: no mutation results yet: run without --report-only first", file=sys.stderr)
        return 2
    stats = json.loads(STATS.read_text())
    killed, ran, percent = score(stats)
    left = survivors()
    print(", ".join(f"{k} {v}" for k, v in stats.items() if isinstance(v, int) and not isinstance(v, bool)))
    left_out = stats["total"] - ran - stats["skipped"]
    print(f"mutation score of scoring/: {percent:.1f}% ({killed} of {ran} mutants killed"
          + (f"; {left_out} not run yet: run again to go on" if left_out else "") + ")")
    for name in left:
        print(f"  survived: {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
