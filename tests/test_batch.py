"""`babylon batch` end to end with the real photo reader, on a small set: two sample photos (at
1200 px), a copy of one in another folder, and broken files. Nothing here checks what the reader
reads against the truth: only that every line's total is the score of the garden on that line, that
a batch killed at several points and resumed writes each photo once with the same results as an
uninterrupted one, and that the Dask path gives the same results as the local one."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from service_support import SAMPLES

from scoring import garden_from_dict, score_garden
from service.batch.record import content_hash
from service.batch.results import ResultsFile

SCORED = ("g1/alice.jpg", "g1/bob.jpg")
FAILED = {"g2/empty.jpg": "unreadable", "g2/text.jpg": "unreadable", "g2/truncated.jpg": "unreadable",
          "g2/grey.png": "no-board"}
COPY = ("g2/alice-again.jpg", "g1/alice.jpg")  # same bytes: scored once


def babylon(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "service.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600)


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def by_hash(records: list[dict]) -> dict[str, dict]:
    out = {r["sha256"]: r for r in records}
    assert len(out) == len(records), "a photo has two lines"
    return out


@pytest.fixture(scope="module")
def photo_set(tmp_path_factory) -> Path:
    """``root/photos/{g1,g2}/...``; the batch runs from ``root`` on ``photos``."""
    root = tmp_path_factory.mktemp("batch")
    g1, g2 = root / "photos/g1", root / "photos/g2"
    g1.mkdir(parents=True)
    g2.mkdir()
    Image.open(SAMPLES / "15-one-tile.jpg").resize((1200, 900)).save(g1 / "alice.jpg", quality=92)
    shutil.copy(SAMPLES / "23-small-board.jpg", g1 / "bob.jpg")  # 1200 x 900 already
    shutil.copy(g1 / "alice.jpg", root / "photos" / COPY[0])
    (g2 / "empty.jpg").write_bytes(b"")
    (g2 / "text.jpg").write_text("not a photo\n")
    (g2 / "truncated.jpg").write_bytes((SAMPLES / "16-tilt-25.jpg").read_bytes()[:20000])
    Image.fromarray(np.full((600, 800, 3), 180, np.uint8)).save(g2 / "grey.png")  # a photo of no board
    (g2 / "notes.json").write_text("{}")  # not a photo: not taken from the folder
    return root


def distinct_hashes(root: Path) -> set[str]:
    return {content_hash((root / "photos" / f).read_bytes()) for f in (*SCORED, *FAILED)}


@pytest.fixture(scope="module")
def reference(photo_set) -> tuple[list[dict], subprocess.CompletedProcess]:
    """An uninterrupted run: its records (in file order) and the process."""
    r = babylon("batch", "photos", "--out", "reference.jsonl", "--workers", "2", cwd=photo_set)
    return lines(photo_set / "reference.jsonl"), r


def test_one_line_per_photo_with_the_score_of_its_garden(photo_set, reference):
    records, proc = reference
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert len(records) == len(SCORED) + len(FAILED)  # the copy is not scored twice
    assert set(by_hash(records)) == distinct_hashes(photo_set)
    named = {r["file"]: r for r in records}
    for f in SCORED:
        rec = named[f"photos/{f}"]
        assert rec["error"] is None, rec["error"]
        assert rec["score"] == score_garden(garden_from_dict(rec["garden"])).to_dict()
        assert 0.0 <= rec["confidence"] <= 1.0 and isinstance(rec["warnings"], list)
    for f, kind in FAILED.items():
        rec = named[f"photos/{f}"]
        assert rec["error"]["kind"] == kind and rec["score"] is None and rec["error"]["message"]
        assert "\n" not in rec["error"]["message"]
    assert f"{len(SCORED) + len(FAILED) + 1} photo(s): 6 read now, 1 with the same content" in proc.stdout
    assert "scored:   3" in proc.stdout and "failed:   4" in proc.stdout  # the copy counts as a photo
    assert "photos/g2/grey.png: no-board: no Babylon player board found" in proc.stdout


def _sigint_as_a_terminal_has_it() -> None:
    """In the child: Ctrl-C's signal handled as in a terminal. Started from a background job (a
    nohup'd CI run), the test inherits it ignored, and so would the batch."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(photo_set: Path, out: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "service.cli", "batch", "photos", "--out", out,
                             "--workers", "2"], cwd=photo_set, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_sigint_as_a_terminal_has_it)


def _wait_for(proc: subprocess.Popen, out: Path, n_lines: int) -> bool:
    """Until ``out`` exists with ``n_lines`` lines; False if the batch ended first."""
    deadline = time.monotonic() + 300
    while proc.poll() is None:
        if out.exists() and out.read_bytes().count(b"\n") >= n_lines:
            return True
        assert time.monotonic() < deadline, "the batch made no progress"
        time.sleep(0.01)
    return False


def test_killed_at_several_points_and_resumed(photo_set, reference):
    """kill -9 before the first line and after 2 lines, Ctrl-C after 4, a torn last line (a kill in
    the middle of a write), then the rerun: each photo once, the same records as uninterrupted."""
    out = photo_set / "killed.jsonl"
    stopped = []
    for n_lines, sig in ((0, signal.SIGKILL), (2, signal.SIGKILL), (4, signal.SIGINT)):
        before = len(lines(out))
        proc = _start(photo_set, out.name)
        if _wait_for(proc, out, n_lines):
            os.kill(proc.pid, sig)  # the batch process only: its workers must go with it
            stopped.append(n_lines)
        _, err = proc.communicate(timeout=120)  # returns: no worker outlives the batch with its pipes
        if sig == signal.SIGINT:  # (after kill -9, a worker being born may complain on stderr)
            assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err, err
        got = lines(out)
        assert len(got) >= before and len(by_hash(got)) == len(got)
    assert stopped[:2] == [0, 2], "the first two stops must come while photos are being read"
    with out.open("ab") as f:  # a torn line: the start of a record, no newline
        f.write(b'{"file":"photos/g1/bob.jpg","sha256":"07b5')
    final = babylon("batch", "photos", "--out", out.name, "--workers", "2", cwd=photo_set)
    assert final.returncode == 0, final.stderr
    assert "torn line" in final.stdout and "Traceback" not in final.stderr
    records, _ = reference
    assert by_hash(lines(out)) == by_hash(records)


def test_dask_gives_the_same_results_and_resumes(photo_set, reference, monkeypatch):
    distributed = pytest.importorskip("distributed")
    from typer.testing import CliRunner

    from service.cli import app

    records, _ = reference
    out = photo_set / "dask.csv"  # and CSV: the same records, written as rows
    with ResultsFile(out) as f:  # as if a run on the cluster died after writing the scored photos
        f.open()
        for r in records:
            if r["error"] is None:
                f.append(r)
    with out.open("ab") as f:
        f.write(b"photos/g2/empty.jpg,e3b0c44298fc1c149afbf4c8996fb92427")
    monkeypatch.chdir(photo_set)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        first = CliRunner().invoke(app, ["batch", "photos", "--out", out.name, "--dask",
                                         cluster.scheduler_address])
        assert first.exit_code == 0, first.output
        assert "4 read now, 2 from an earlier run" in first.output
        with ResultsFile(out) as f:
            assert by_hash(f.open().records) == by_hash(records)
        out.unlink()
        second = CliRunner().invoke(app, ["batch", "photos", "--out", out.name, "--dask",
                                          cluster.scheduler_address])
        assert second.exit_code == 0, second.output
    with ResultsFile(out) as f:
        assert by_hash(f.open().records) == by_hash(records)
    assert out.read_text().count("\n") == 1 + len(records)


def test_games_from_renamed_photos_without_reading_them_again(photo_set, reference, tmp_path):
    """The photos moved into game folders under new names: nothing is read again (the contents are
    in the results file), and each folder is ranked by points, then fewer visible holes."""
    records, _ = reference
    named = {r["file"]: r for r in records}
    night = tmp_path / "club/night 1"
    night.mkdir(parents=True)
    for f in (*SCORED, "g2/grey.png"):
        shutil.copy(photo_set / "photos" / f, night / f"player-{Path(f).name}")
    shutil.copy(photo_set / "reference.jsonl", tmp_path / "r.jsonl")
    r = babylon("batch", "club", "--out", "r.jsonl", "--games", "--overlays", "overlays", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "3 photo(s): 0 read now, 3 from an earlier run" in r.stdout
    (game,) = json.loads((tmp_path / "r.games.json").read_text())["games"]
    assert game["game"] == "club/night 1"
    scores = {f"club/night 1/player-{Path(f).name}": named[f"photos/{f}"]["score"] for f in SCORED}
    ranking = game["ranking"]
    assert {e["file"] for e in ranking} == set(scores)
    assert [e["score"] for e in ranking] == [scores[e["file"]] for e in ranking]
    first, second = ranking
    a, b = first["score"], second["score"]
    assert (a["total"], -a["tiebreak_visible_holes"]) >= (b["total"], -b["tiebreak_visible_holes"])
    tie = (a["total"], a["tiebreak_visible_holes"]) == (b["total"], b["tiebreak_visible_holes"])
    assert (first["place"], second["place"]) == ((1, 1) if tie else (1, 2))
    assert game["unscored"] == [{"file": "club/night 1/player-grey.png", "error": named["photos/g2/grey.png"][
        "error"]["message"]}]
    assert f"game club/night 1:\n  {first['place']}. {first['file']}: {a['total']} points" in r.stdout
    assert len(lines(tmp_path / "r.jsonl")) == len(records)  # nothing added


def test_bad_arguments_give_one_line_and_exit_2(photo_set, tmp_path, monkeypatch):
    r = babylon("batch", "nowhere", cwd=photo_set)  # a real process: stderr is one line, no traceback
    assert r.returncode == 2 and r.stderr == "error: nowhere: no such file or folder\n", r.stderr
    from typer.testing import CliRunner

    from service.cli import app

    (tmp_path / "mine.jsonl").write_text("my own notes\n")
    cases = [
        (["photos", "--out", str(tmp_path / "r.txt")], ".jsonl or .csv"),
        (["photos", "--out", str(tmp_path / "mine.jsonl")], "not a babylon batch results file"),
        (["photos", "--workers", "2", "--dask", "tcp://127.0.0.1:1"], "exclude each other"),
        (["photos/g2/notes.json", "--out", str(tmp_path / "no/such/dir.jsonl")], "no folder"),
        (["photos/g2/*.gif"], "no file matches"),
    ]
    monkeypatch.chdir(photo_set)
    for args, message in cases:
        result = CliRunner().invoke(app, ["batch", *args])
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output and result.output.strip().count("\n") == 0, result.output
    assert (tmp_path / "mine.jsonl").read_text() == "my own notes\n"


def test_unreachable_scheduler_is_one_line():
    from service.batch.execute import ClusterError, connect

    pytest.importorskip("distributed")
    with pytest.raises(ClusterError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:1"):
        connect("tcp://127.0.0.1:1", timeout_s=1)
