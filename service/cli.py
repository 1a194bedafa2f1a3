"""The `babylon` command line: one entry point for scoring, rendering and (later) reading photos.

Heavy imports (OpenCV, the renderer) happen inside the commands that need them, so scoring a
garden file stays quick.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from scoring.garden import Garden, GardenError, load
from scoring.rules import Finding, check
from scoring.score import CATEGORIES, Score, rank, score_garden

app = typer.Typer(
    help="Score Babylon gardens: from garden files, and from photos of the board.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
out = Console()
err = Console(stderr=True)

EXIT_BAD_INPUT = 2


@app.callback()
def _root() -> None:
    """Score Babylon gardens: from garden files, and from photos of the board."""

#: the score pad's row labels
LABELS = {
    "statues": "Statues (1 x level)",
    "fountains": "Fountains (3 x level)",
    "bridges": "Bridges (3 x level)",
    "stairs": "Stairs (sum of levels)",
    "decoration_sets": "Decoration sets (4 each)",
    "flower_sets": "Flower sets (4 each)",
    "belvederes": "Belvederes (1 each)",
    "highest_level": "Highest level (2 x level)",
}


def fail(message: str) -> typer.Exit:
    """Print a one-line error on stderr; the caller raises the returned Exit (code 2)."""
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(EXIT_BAD_INPUT)


def _load_all(files: list[Path]) -> list[tuple[Path, Garden]]:
    loaded = []
    for f in files:
        try:
            loaded.append((f, load(f)))
        except GardenError as e:
            raise fail(f"{f}: {e}") from None
    return loaded


def _score_card(names: list[str], scores: list[Score]) -> Table:
    table = Table(title="Babylon - final scoring", show_lines=False)
    table.add_column("")
    for n in names:
        table.add_column(n, justify="right")
    for key in CATEGORIES:
        table.add_row(LABELS[key], *(str(getattr(s, key)) for s in scores))
    table.add_section()
    table.add_row("[bold]TOTAL[/]", *(f"[bold]{s.total}[/]" for s in scores))
    table.add_row("Visible holes (tie-break)", *(str(s.tiebreak_visible_holes) for s in scores))
    return table


def _print_findings(name: str, findings: list[Finding]) -> None:
    if not findings:
        out.print(f"{name}: [green]legal[/] - no rule broken")
        return
    for f in findings:
        colour = "red" if f.severity == "error" else "yellow"
        cells = " ".join(f"({r},{c})" for r, c in f.cells)
        line = f"{name}: [{colour}]{f.severity}[/] [{f.rule}] {f.message}  cells: {cells}"
        out.print(line, highlight=False)


@app.command("score-garden")
def score_garden_cmd(
    files: Annotated[list[Path], typer.Argument(help="babylon-garden/1 JSON files (one per player)")],
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of a score card")] = False,
) -> None:
    """Score garden files: a score card, the legality findings, and a ranking for several."""
    loaded = _load_all(files)
    results = [(f, score_garden(g), check(g)) for f, g in loaded]
    if as_json:
        def entry(s: Score, fs: list[Finding]) -> dict:
            return {"score": s.to_dict(), "findings": [x.to_dict() for x in fs]}

        if len(results) == 1:
            print(json.dumps(entry(*results[0][1:]), indent=2))
        else:
            by_name = {str(f): (s, fs) for f, s, fs in results}
            standings = rank([(str(f), s) for f, s, _ in results])
            print(json.dumps({"ranking": [
                {"place": st.place, "file": st.name, **entry(*by_name[st.name])} for st in standings
            ]}, indent=2))
        return
    names = [f.stem for f, _, _ in results]
    out.print(_score_card(names, [s for _, s, _ in results]))
    for (_, _, fs), name in zip(results, names, strict=True):
        _print_findings(name, fs)
    if len(results) > 1:
        out.print("[bold]Ranking[/] (most points; tie: fewer visible holes)")
        for st in rank([(n, s) for n, (_, s, _) in zip(names, results, strict=True)]):
            out.print(f"  {st.place}. {st.name}: {st.score.total} points, "
                      f"{st.score.tiebreak_visible_holes} visible holes", highlight=False)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
