"""The summary printed at the end of a batch: counts, failures with their reasons, doubtful
readings, the time taken, and the ranking of each game."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from service.batch.record import RETRY_KINDS
from service.batch.runner import DOUBTFUL_BELOW, Outcome, doubtful

LIST_AT_MOST = 20  #: photos listed per heading; the rest are in the results file


def _shown(file: str) -> str:
    """A file name that is not UTF-8 (surrogate escapes) with its odd bytes as \\xNN."""
    return file.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _duration(seconds: float) -> str:
    m, s = divmod(round(seconds), 60)
    return f"{m}m {s:02d}s" if m else f"{seconds:.1f}s"


def _listed(lines: list[str], total: int) -> list[str]:
    more = [f"    ... and {total - LIST_AT_MOST} more (see the results file)"] if total > LIST_AT_MOST else []
    return lines[:LIST_AT_MOST] + more


def summary_lines(
    outcome: Outcome, below: float = DOUBTFUL_BELOW, games: list[dict[str, Any]] | None = None
) -> list[str]:
    plan = outcome.plan
    n = len(plan.photos)
    done = [(f, outcome.records[f]) for f, _ in plan.photos if f in outcome.records]
    scored = [(f, r) for f, r in done if r["error"] is None]
    failed = [(f, r) for f, r in done if r["error"] is not None]
    shaky = [(f, r) for f, r in scored if doubtful(r, below)]
    earlier = sum(1 for f, sha in plan.photos if sha in plan.earlier and f not in plan.same_as)
    parts = [f"{outcome.new} read now"]
    if earlier:
        parts.append(f"{earlier} from an earlier run")
    if plan.same_as:
        parts.append(f"{len(plan.same_as)} with the same content as another")
    rate = f", {outcome.new / outcome.seconds:.2f} photos/s" if outcome.new and outcome.seconds > 0 else ""
    lines = [f"{n} photo(s): {', '.join(parts)}; {_duration(outcome.seconds)}{rate}"]
    lines.append(f"  scored:   {len(scored)}")
    lines.append(f"  failed:   {len(failed)}")
    lines += _listed([f"    {_shown(f)}: {r['error']['kind']}: {r['error']['message']}"  # type: ignore[index]
                      for f, r in failed], len(failed))
    lines.append(f"  doubtful: {len(shaky)} (confidence below {below:.2f})")
    lines += _listed([f"    {_shown(f)}: confidence {r['confidence']:.2f}, total {r['score']['total']}"  # type: ignore[index]
                      for f, r in shaky], len(shaky))
    retry = [f for f, r in failed if r["error"]["kind"] in RETRY_KINDS]  # type: ignore[index]
    if retry:
        lines.append(f"  {len(retry)} failure(s) not caused by the photo: a rerun tries them again")
    missing = n - len(done)
    if missing:
        lines.append(f"  not done: {missing} (interrupted: run the same command again to go on)")
    opened = plan.opened
    if opened.torn_bytes:
        lines.append(f"  the results file ended in a torn line ({opened.torn_bytes} bytes), cut off")
    if opened.bad_lines:
        lines.append(f"  {opened.bad_lines} unreadable line(s) in the results file were left as they are")
    lines += [f"  note: {note}" for note in outcome.notes]
    for g in games or []:
        lines.append(f"game {_shown(g['game']) or '.'}:")
        lines += [f"  {e['place']}. {_shown(e['file'])}: {e['total']} points, "
                  f"{e['tiebreak_visible_holes']} visible holes" for e in g["ranking"]]
        lines += [f"  -  {_shown(e['file'])}: not ranked ({e['error']})" for e in g["unscored"]]
    return lines


def _rate(task: Task) -> float | None:
    """Photos per second so far: photos take seconds each, so the mean since the start is the
    steadiest estimate."""
    elapsed = task.finished_time if task.finished else task.elapsed
    return task.completed / elapsed if task.completed and elapsed else None


class RateColumn(ProgressColumn):
    """Photos per second."""

    def render(self, task: Task) -> Text:
        rate = _rate(task)
        return Text(f"{rate:.2f} photos/s" if rate else "- photos/s", style="progress.data.speed")


class LeftColumn(ProgressColumn):
    """Time left at the rate so far."""

    def render(self, task: Task) -> Text:
        rate = _rate(task)
        if task.finished or not rate or task.total is None:
            return Text("", style="progress.remaining")
        m, s = divmod(round((task.total - task.completed) / rate), 60)
        h, m = divmod(m, 60)
        return Text(f"{h}:{m:02d}:{s:02d} left", style="progress.remaining")


def progress_bar(console: Console) -> Progress:
    """Photos done of all, photos per second, time taken, time left."""
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), RateColumn(),
                    TimeElapsedColumn(), LeftColumn(), console=console)
