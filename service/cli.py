"""The `babylon` command line: one entry point for scoring, rendering and (later) reading photos.

Heavy imports (OpenCV, the renderer) happen inside the commands that need them, so scoring a
garden file stays quick.
"""

from __future__ import annotations

import json
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from scoring.facts import ROW_LABELS
from scoring.garden import Garden, GardenError, load
from scoring.rules import Finding, check
from scoring.score import CATEGORIES, Score, rank, score_garden

app = typer.Typer(
    help="Score Babylon gardens: from garden files, and from photos of the board.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
out = Console(soft_wrap=True)
err = Console(stderr=True)

EXIT_BAD_INPUT = 2


@app.callback()
def _root() -> None:
    """Score Babylon gardens: from garden files, and from photos of the board."""

#: the score pad's row labels, with how each row counts (from the game's points table)
LABELS = ROW_LABELS


def fail(message: str) -> typer.Exit:
    """Print a one-line error on stderr; the caller raises the returned Exit (code 2)."""
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(EXIT_BAD_INPUT)


ProfileOption = Annotated[str | None, typer.Option(
    "--profile", help="the edition's look: a profile file from `babylon calibrate`, or a built-in one "
    "(reference, variant); default: reference")]


def _profile(spec: str | None):  # -> vision.profile.Profile
    from vision.profile_io import ProfileError, resolve_profile

    try:
        return resolve_profile(spec)
    except ProfileError as e:
        raise fail(f"--profile: {e}") from None


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


def _progress(transient: bool = False):  # -> rich.progress.Progress
    """A progress bar on stderr: what is done, the bar, done of all, time left."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    return Progress(*columns, console=err, transient=transient)


def _size_overrides(size: str | None) -> dict:
    if size is None:
        return {}
    try:
        w, h = (int(v) for v in size.lower().split("x"))
    except ValueError:
        raise fail(f"--size: expected WIDTHxHEIGHT such as 2000x1500, got {size!r}") from None
    if not (64 <= w <= 8192 and 64 <= h <= 8192):
        raise fail(f"--size: {w}x{h} is outside 64..8192 pixels a side")
    if max(w, h) / min(w, h) > 2.5:
        raise fail(f"--size: {w}x{h} is too narrow for a photo of the board (sides at most 2.5:1)")
    return {"size": (w, h)}


def _check_format(name: str, what: str) -> None:
    from vision.render.encode import photo_format

    try:
        photo_format(name)
    except ValueError as e:
        raise fail(f"{what}: {e}") from None


@app.command("render")
def render_cmd(
    garden_file: Annotated[Path, typer.Argument(help="a babylon-garden/1 JSON file")],
    output: Annotated[Path, typer.Option("-o", "--output", help="photo to write (.jpg .heic .png .webp)")],
    seed: Annotated[int, typer.Option(help="seed of the photo conditions (camera, light, table...)")] = 0,
    size: Annotated[str | None, typer.Option(help="image size WIDTHxHEIGHT (default: drawn)")] = None,
    profile: ProfileOption = None,
) -> None:
    """Render a garden as a synthetic phone photo; its ground truth goes beside it as .json."""
    edition = _profile(profile)
    _check_format(output.name, str(output))
    if not output.parent.is_dir():
        raise fail(f"{output.parent}: no such folder")
    ((_, garden),) = _load_all([garden_file])
    broken = [f for f in check(garden) if f.severity == "error"]
    if broken:
        err.print(f"warning: {garden_file} breaks {len(broken)} rule(s), e.g. {broken[0].message}; "
                  "the photo shows it as given", highlight=False, soft_wrap=True)
    from vision.render.photo import render_photo, save_photo

    try:
        photo = render_photo(garden, seed, edition, **_size_overrides(size))
    except ValueError as e:  # e.g. no camera in the photo range shows the whole board at that size
        raise fail(f"cannot render: {e}") from None
    try:
        save_photo(photo, output)
    except OSError as e:
        raise fail(f"{output}: cannot write: {e.strerror or e}") from None
    h, w = photo.image.shape[:2]
    out.print(f"wrote {output} ({w}x{h}) and {output.with_suffix('.json')}", highlight=False)


@app.command("synth")
def synth_cmd(
    n: Annotated[int, typer.Argument(min=1, help="how many photos")],
    out_dir: Annotated[Path, typer.Option("--out", help="folder for the photos and their truth")],
    seed: Annotated[int, typer.Option(min=0, help="first seed: photo k is garden k, conditions k")] = 0,
    size: Annotated[str | None, typer.Option(help="image size WIDTHxHEIGHT (default: drawn)")] = None,
    fmt: Annotated[
        str | None, typer.Option("--format", help="jpg, heic, png or webp (default: drawn per photo)")
    ] = None,
    overwrite: Annotated[bool, typer.Option(help="render again photos that already exist")] = False,
    profile: ProfileOption = None,
) -> None:
    """Generate legal gardens and render them; resumes where an interrupted run stopped."""
    edition = _profile(profile)
    from vision.render.synth import synth_batch

    if fmt is not None:
        _check_format(fmt, "--format")
    if out_dir.exists() and not out_dir.is_dir():
        raise fail(f"{out_dir}: exists and is not a folder")
    made = skipped = 0
    batch = synth_batch(seed, n, out_dir, fmt, overwrite, profile=edition, **_size_overrides(size))
    try:
        with _progress() as progress:
            task = progress.add_task("rendering", total=n)
            for _, _, rendered in batch:
                made += rendered
                skipped += not rendered
                progress.advance(task)
    except OSError as e:
        raise fail(f"{out_dir}: cannot write: {e.strerror or e} ({made} photo(s) written)") from None
    except ValueError as e:
        raise fail(f"cannot render: {e} ({made} photo(s) written)") from None
    note = f" ({skipped} already there, kept)" if skipped else ""
    out.print(f"{made} photo(s) with truth written to {out_dir}{note}", highlight=False)


@app.command("serve")
def serve_cmd(
    host: Annotated[str, typer.Option(help="address to listen on (0.0.0.0: every interface)")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="port to listen on")] = 8000,
    workers: Annotated[int, typer.Option(min=1, max=64, help="worker processes (uvicorn)")] = 1,
    max_upload_mb: Annotated[float, typer.Option(min=0.1, help="largest upload accepted, MB")] = 25.0,
    time_limit: Annotated[float, typer.Option(min=1.0, help="seconds a request may take")] = 30.0,
    save_dir: Annotated[
        Path | None, typer.Option(help="keep each uploaded photo and its reading here (default: none kept)")
    ] = None,
    proxy_headers: Annotated[
        bool, typer.Option(help="trust X-Forwarded-* from the reverse proxy at --forwarded-allow-ips")
    ] = False,
    forwarded_allow_ips: Annotated[str, typer.Option(help="proxies trusted for X-Forwarded-*")] = "127.0.0.1",
    profile: ProfileOption = None,
    labels: Annotated[Path | None, typer.Option(
        help="let the correction page save corrected readings with their photos here (a calibration set)")
    ] = None,
) -> None:
    """Run the HTTP service: the /v1 API (OpenAPI at /docs) and the web page at /."""
    import uvicorn

    from service.api.settings import MB, Settings

    for opt, folder in (("--save-dir", save_dir), ("--labels", labels)):
        if folder is not None and folder.exists() and not folder.is_dir():
            raise fail(f"{opt} {folder}: exists and is not a folder")
    _profile(profile)  # a bad profile is refused here, not in each worker
    profile_path = Path(profile).resolve() if profile is not None and Path(profile).exists() else profile
    settings = Settings(max_upload_bytes=int(max_upload_mb * MB), time_limit_s=time_limit,
                        save_dir=save_dir.resolve() if save_dir else None,
                        profile=str(profile_path) if profile_path else None,
                        labels_dir=labels.resolve() if labels else None)
    os.environ.update(settings.to_env())  # the worker processes build the app from these
    try:
        uvicorn.run("service.api:create_app_from_env", factory=True, host=host, port=port, workers=workers,
                    proxy_headers=proxy_headers, forwarded_allow_ips=forwarded_allow_ips, log_level="info")
    except OSError as e:
        raise fail(f"cannot listen on {host}:{port}: {e.strerror or e}") from None


@app.command("batch")
def batch_cmd(
    paths: Annotated[list[str], typer.Argument(help="photos, folders (recursed) or glob patterns")],
    out_file: Annotated[
        Path, typer.Option("--out", help="results file, .jsonl or .csv; run again with it to resume")
    ] = Path("results.jsonl"),
    workers: Annotated[
        int | None, typer.Option(min=1, max=512, help="worker processes (default: all cores)")
    ] = None,
    overlays: Annotated[
        Path | None, typer.Option(help="folder for the photos with the reading drawn on them")
    ] = None,
    games: Annotated[
        bool, typer.Option("--games", help="photos in one folder are one game: rank each game")
    ] = False,
    dask: Annotated[
        str | None, typer.Option(help="a Dask scheduler's address (tcp://HOST:8786) to send the work to")
    ] = None,
    doubtful_below: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="list readings less confident than this as doubtful")
    ] = 0.5,
    profile: ProfileOption = None,
) -> None:
    """Score every photo under PATHS in parallel, a result line per photo as it is done; a rerun with
    the same --out skips the photos already done (by content)."""
    from service.batch import Plan, run_batch
    from service.batch.execute import ClusterError, connect, default_workers
    from service.batch.games import games_path, rank_games, write_games
    from service.batch.inputs import InputError, find_photos
    from service.batch.report import progress_bar, summary_lines
    from service.batch.results import ResultsFileError, codec_for

    if dask and workers:
        raise fail("--workers and --dask exclude each other (the cluster has its own workers)")
    edition = _profile(profile)
    try:
        codec_for(out_file)
    except ResultsFileError as e:
        raise fail(str(e)) from None
    if out_file.parent and not out_file.parent.is_dir():
        raise fail(f"--out {out_file}: no folder {out_file.parent}")
    games_file = games_path(out_file) if games else None
    skip = [p for p in (out_file, games_file, overlays) if p is not None]
    if overlays is not None:
        if overlays.exists() and not overlays.is_dir():
            raise fail(f"--overlays {overlays}: exists and is not a folder")
    try:
        files = find_photos(paths, skip)
    except InputError as e:
        raise fail(str(e)) from None
    if not files:
        raise fail(f"no photos under {' '.join(paths)} (.jpg .jpeg .png .webp .heic)")
    try:
        client = connect(dask) if dask else None
    except ClusterError as e:
        raise fail(str(e)) from None
    progress = progress_bar(err)

    def on_plan(plan: Plan) -> None:
        progress.add_task("scoring", total=len(plan.todo) + len(plan.unreadable))

    try:
        with progress:
            outcome = run_batch(files, out_file, workers or default_workers(), overlays, client, on_plan,
                                lambda _: progress.advance(progress.task_ids[0]), edition)
    except ResultsFileError as e:
        raise fail(str(e)) from None
    finally:
        if client is not None:
            client.close()
    ranked = rank_games([(f, outcome.of(f)) for f, _ in outcome.plan.photos]) if games else None
    for line in summary_lines(outcome, doubtful_below, ranked):
        out.print(line, highlight=False, markup=False)
    if games_file is not None and ranked is not None:
        try:
            write_games(games_file, ranked)
        except OSError as e:
            raise fail(f"{games_file}: cannot write: {e.strerror or e}") from None
        out.print(f"games: {games_file}", highlight=False)
    out.print(f"results: {out_file}", highlight=False)
    if outcome.interrupted:
        err.print("interrupted: the results so far are kept; run the same command again to go on")
        raise typer.Exit(130)


def _read_or_fail(photo: Path, debug: Path | None = None, profile=None):  # -> vision.read.Reading
    from vision.read import PhotoError, read_photo

    try:
        return read_photo(photo, profile or _profile(None), debug_dir=debug)
    except PhotoError as e:
        raise fail(str(e)) from None


def _level_grid(reading) -> Table:  # reading: vision.read.Reading
    """The garden seen from above: each cell's top tile as its level and flower's initial."""
    from scoring.visibility import top_levels

    garden = reading.garden
    top = top_levels(garden)
    flower = {}
    for t in garden.tiles:
        for r, c in t.cells:
            if top[r][c] == t.level:
                flower[(r, c)] = t.flower
    doubt = {tuple(c) for w in reading.warnings for c in w.cells}
    table = Table(title="Seen from above: level and flower of each cell (row 0: the emblem's side)")
    table.add_column("")
    for c in range(8):
        table.add_column(str(c), justify="center")
    for r in range(8):
        cells = []
        for c in range(8):
            lv = top[r][c]
            text = f"{lv}{flower[(r, c)][0]}" if lv else "."
            cells.append(f"[yellow]{text}?[/]" if (r, c) in doubt else text)
        table.add_row(str(r), *cells)
    return table


@app.command("read")
def read_cmd(
    photo: Annotated[Path, typer.Argument(help="a photo of a finished garden (JPEG, PNG, WebP, HEIC)")],
    as_json: Annotated[bool, typer.Option("--json", help="print {garden, confidence, warnings}")] = False,
    debug: Annotated[Path | None, typer.Option("--debug", help="write one picture per stage here")] = None,
    profile: ProfileOption = None,
) -> None:
    """Read the garden in a photo: the board, the camera, every visible tile, its level and flower."""
    reading = _read_or_fail(photo, debug, _profile(profile))
    if as_json:
        print(json.dumps(reading.to_dict(), indent=2))
        return
    out.print(_level_grid(reading))
    g = reading.garden
    out.print(f"board flower: {g.board_flower or 'unknown'}; {len(g.tiles)} tiles; highest level "
              f"{g.max_level}; confidence {reading.confidence:.2f}", highlight=False)
    for w in reading.warnings:
        out.print(f"  [yellow]warning:[/] {w.message}", highlight=False)
    if debug:
        out.print(f"debug pictures: {debug}", highlight=False)


def _write_overlay(path: Path, photo, reading) -> None:  # photo: vision.read.load.Photo
    import cv2

    from scoring.files import atomic_write
    from vision.read.overlay import draw_overlay

    fmt = path.suffix.lower() if path.suffix.lower() in (".png", ".jpg", ".jpeg", ".webp") else ".png"
    ok, buf = cv2.imencode(fmt, draw_overlay(photo.image, reading))
    if not ok:
        raise fail(f"{path}: the overlay could not be encoded")
    try:
        atomic_write(path, buf.tobytes())
    except OSError as e:
        raise fail(f"{path}: cannot write the overlay ({e.strerror or e})") from None


@app.command("score")
def score_cmd(
    photos: Annotated[list[Path], typer.Argument(help="photos of finished gardens (one per player)")],
    as_json: Annotated[bool, typer.Option("--json", help="print JSON (spec 4.3 for one photo)")] = False,
    overlay: Annotated[Path | None, typer.Option(
        "--overlay", help="draw what was read over the photo into this PNG (a folder for several)")] = None,
    profile: ProfileOption = None,
) -> None:
    """Score photos: read each garden from its photo, then the score card, the warnings and, for
    several photos, the ranking (tie: fewer visible holes)."""
    from vision.read import PhotoError, load_photo, read_photo

    edition = _profile(profile)
    results = []
    for p in photos:
        try:
            photo = load_photo(p)
            reading = read_photo(photo, edition)
        except PhotoError as e:
            raise fail(str(e)) from None
        results.append((p, photo, reading, score_garden(reading.garden)))
        if overlay is not None:
            target = overlay if len(photos) == 1 else overlay / f"{p.stem}.png"
            if len(photos) > 1:
                overlay.mkdir(parents=True, exist_ok=True)
            _write_overlay(target, photo, reading)
    if as_json:
        def entry(reading, s: Score) -> dict:
            d = reading.to_dict()
            return {"score": s.to_dict(), "garden": d["garden"], "warnings": d["warnings"],
                    "confidence": d["confidence"]}

        if len(results) == 1:
            print(json.dumps(entry(results[0][2], results[0][3]), indent=2))
        else:
            by_name = {str(p): (r, s) for p, _, r, s in results}
            standings = rank([(str(p), s) for p, _, _, s in results])
            print(json.dumps({"ranking": [
                {"place": st.place, "file": st.name, **entry(*by_name[st.name])} for st in standings
            ]}, indent=2))
        return
    names = [p.stem for p, _, _, _ in results]
    out.print(_score_card(names, [s for _, _, _, s in results]))
    for name, (_, _, reading, _) in zip(names, results, strict=True):
        out.print(f"{name}: confidence {reading.confidence:.2f}", highlight=False)
        for w in reading.warnings:
            out.print(f"  [yellow]warning:[/] {w.message}", highlight=False)
    if len(results) > 1:
        out.print("[bold]Ranking[/] (most points; tie: fewer visible holes)")
        for st in rank([(n, s) for n, (_, _, _, s) in zip(names, results, strict=True)]):
            out.print(f"  {st.place}. {st.name}: {st.score.total} points, "
                      f"{st.score.tiebreak_visible_holes} visible holes", highlight=False)
    if overlay is not None:
        out.print(f"overlay: {overlay}", highlight=False)


@app.command("eval")
def eval_cmd(
    folder: Annotated[Path, typer.Argument(help="photos with their truth JSON beside them")],
    limit: Annotated[int, typer.Option(help="read at most this many photos (0: all)", min=0)] = 0,
    report: Annotated[Path | None, typer.Option(help="write every photo's result as JSON here")] = None,
    against: Annotated[Path | None, typer.Option(
        help="an earlier --report: the photos read right now and not then, and the other way round")] = None,
    profile: ProfileOption = None,
) -> None:
    """Measure the reader on photos with ground truth: board, tiles, levels, flowers, structure, time."""
    from scoring.files import atomic_write
    from vision.read import evaluate as ev
    from vision.read import read_photo

    if not folder.is_dir():
        raise fail(f"{folder}: not a folder")
    before = None
    if against is not None:
        try:
            before = ev.exact_by_photo(json.loads(against.read_text())["photos"])
        except OSError as e:
            raise fail(f"{against}: cannot be read ({e.strerror})") from None
        except (ValueError, KeyError, TypeError):
            raise fail(f"{against}: not a report of `babylon eval --report`") from None
    edition = _profile(profile)
    photos = ev.photos_with_truth(folder)
    if limit:
        photos = photos[:limit]
    if not photos:
        raise fail(f"{folder}: no photos with a truth JSON beside them")
    results = []
    with _progress(transient=True) as bar:
        task = bar.add_task("reading", total=len(photos))
        for p in photos:
            results.append(ev.evaluate_photo(p, lambda path: read_photo(path, edition)))
            bar.advance(task)
    summary = ev.summarize(results)
    table = Table(title=f"The reader on {len(results)} photos of {folder}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for k, v in summary.items():
        table.add_row(k.replace("_", " "), "-" if v is None else str(v))
    out.print(table)
    out.print("[bold]Worst photos[/]")
    for r in ev.worst(results):
        if r.problems:
            out.print(f"  {r.name}: " + "; ".join(r.problems[:6]) + (" ..." if len(r.problems) > 6 else ""),
                      highlight=False)
    if before is not None:
        now = ev.exact_by_photo(ev.to_json(results))
        both = [p for p in now if p in before]
        gained, lost = ev.changed(before, now)
        out.print(f"[bold]Against {against}[/] ({len(both)} photos in both): total exact "
                  f"{sum(before[p] for p in both)} -> {sum(now[p] for p in both)}", highlight=False)
        out.print(f"  gained: {' '.join(gained) or '-'}", highlight=False)
        out.print(f"  lost: {' '.join(lost) or '-'}", highlight=False)
    if report:
        doc = {"summary": summary, "photos": ev.to_json(results)}
        atomic_write(report, json.dumps(doc, indent=1).encode())
        out.print(f"report: {report}", highlight=False)


@app.command("calibrate")
def calibrate_cmd(
    folder: Annotated[Path, typer.Argument(help="photos of your copy, each with its garden JSON beside it")],
    output: Annotated[Path, typer.Option("-o", "--output", help="the profile file to write")],
    base: Annotated[str | None, typer.Option(
        "--base", help="the profile to start from: a file or a built-in one (default: reference)")] = None,
    name: Annotated[str | None, typer.Option(help="the profile's name (default: from the folder)")] = None,
) -> None:
    """Teach the reader your copy of the game: fit a profile (flower, print and piece colours) from
    labelled photos, then measure how it reads them. Use it with --profile on read, score, batch, serve."""
    from vision.calibrate import CalibrationError, calibrate
    from vision.profile_io import save_profile

    if not output.parent.is_dir():
        raise fail(f"{output.parent}: no such folder")
    edition = _profile(base)
    try:
        with err.status("calibrating") as status:
            cal = calibrate(folder, edition, name, progress=lambda m: status.update(m))
    except CalibrationError as e:
        raise fail(str(e)) from None
    s = cal.summary
    notes = (f"calibrated on {s['photos']} photo(s) of {folder.name}: totals exact {s['total_exact']}, "
             f"tiles found {s['tile_recall']}, levels {s['level_accuracy']}, flowers {s['flower_accuracy']}")
    try:
        save_profile(cal.profile, output, notes)
    except OSError as e:
        raise fail(f"{output}: cannot write: {e.strerror or e}") from None
    table = Table(title=f"The calibrated reader on its {s['photos']} labelled photos")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for k in ("tile_precision", "tile_recall", "level_accuracy", "flower_accuracy", "structure_right",
              "total_exact", "total_mean_abs_error"):
        table.add_row(k.replace("_", " "), "-" if s[k] is None else str(s[k]))
    out.print(table)
    for r in cal.results:
        if r.problems:
            out.print(f"  {r.name}: " + "; ".join(r.problems[:6]), highlight=False)
    out.print(f"profile: {output}", highlight=False)


def _seed_range(text: str) -> range:
    """'A-B' (both included) -> range(A, B + 1)."""
    try:
        a, b = (int(x) for x in text.split("-"))
    except ValueError:
        raise fail(f"{text}: not a seed range like 40000-40219") from None
    if a < 0 or b < a:
        raise fail(f"{text}: not a seed range like 40000-40219")
    return range(a, b + 1)


class PieceKind(StrEnum):
    statue = "statue"
    stairs = "stairs"
    fountain = "fountain"
    bridge = "bridge"
    belvedere = "belvedere"


@app.command("train")
def train_cmd(
    kind: Annotated[PieceKind, typer.Argument(help="the piece whose network to train")],
    folder: Annotated[Path, typer.Argument(help="a folder of rendered photos with their truth beside")],
    output: Annotated[Path, typer.Option("-o", "--output", help="the model file to write (.npz)")],
    seeds: Annotated[list[str] | None, typer.Option(
        "--seeds", help="render these seeds (A-B) into the folder first, keeping those there")] = None,
    shape_only: Annotated[bool, typer.Option(
        "--shape-only", help="learn the piece's shape alone (asked about any edition's piece)")] = False,
) -> None:
    """Train the network the reader asks for a second opinion on a piece (needs the 'train' extra).
    The shipped ones: babylon train KIND DIR --seeds 40000-40219 --seeds 41000-41199 -o
    vision/read/models/KIND.npz (statue, fountain; stairs with --seeds 44000-44571 too); the shape
    networks (asked about other editions' pieces): babylon train statue DIR --shape-only --seeds
    41000-41199 --seeds 42000-42199 -o vision/read/models/statue_shape.npz, and stairs, fountain,
    bridge and belvedere likewise"""
    from vision.read.evaluate import photos_with_truth
    from vision.read.piece_model import SHAPE_ONLY
    from vision.read.piece_train import train
    from vision.render.synth import synth_batch

    ranges = [_seed_range(s) for s in seeds or []]
    if kind.value in SHAPE_ONLY and not shape_only:
        raise fail(f"{kind.value}: the reader asks a {kind.value} network about other editions' pieces only: "
                   "train it with --shape-only")
    if not output.parent.is_dir():
        raise fail(f"{output.parent}: no such folder")
    try:
        with _progress() as progress:
            for r in ranges:
                task = progress.add_task(f"rendering {r.start}-{r.stop - 1}", total=len(r))
                for _ in synth_batch(r.start, len(r), folder, None, False):
                    progress.advance(task)
            if not folder.is_dir():
                raise fail(f"{folder}: no such folder")
            photos = photos_with_truth(folder)
            if not photos:
                raise fail(f"{folder}: no photos with their truth JSON beside them")
            task = progress.add_task("cutting patches", total=len(photos))
            model, counts = train(
                photos, _profile(None), kind.value, progress=lambda _: progress.advance(task),
                shape_only=shape_only,
            )
        model.save(output)
    except (ValueError, RuntimeError) as e:
        raise fail(str(e)) from None
    except OSError as e:
        raise fail(f"{output}: cannot write: {e.strerror or e}") from None
    out.print(f"trained on {len(photos)} photo(s): {counts[kind.value]} {kind.value} patches, "
              f"{counts['other']} others; model: {output}", highlight=False)


def main() -> None:
    """Entry point. Bad input is reported by the commands themselves (exit 2); anything else that
    goes wrong is a bug: one line and exit 1, or the traceback with BABYLON_DEBUG=1."""
    try:
        app()
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
    except Exception as e:  # noqa: BLE001 - the last line of defence, see docstring
        if os.environ.get("BABYLON_DEBUG"):
            raise
        err.print(f"[bold red]internal error:[/] {type(e).__name__}: {e} (BABYLON_DEBUG=1 shows where)",
                  highlight=False, soft_wrap=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
