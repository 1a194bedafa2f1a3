"""The `babylon` command line, run as a user would: a real process, real files, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

from builders import TOWER, deco, garden, tile

from scoring.garden import save


def babylon(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "service.cli", *args], capture_output=True, text=True, timeout=120
    )


def test_score_garden_prints_a_score_card(tmp_path):
    p = tmp_path / "alice.json"
    save(garden(TOWER, [deco("statue", [(0, 0)], 3)]), p)
    r = babylon("score-garden", str(p))
    assert r.returncode == 0, r.stderr
    assert "Statues" in r.stdout and "TOTAL" in r.stdout and "legal" in r.stdout
    assert "9" in r.stdout  # 3 for the statue + 6 for level 3


def test_score_garden_json_shape(tmp_path):
    p = tmp_path / "g.json"
    save(garden([tile(0, 0, 1)], [deco("statue", [(0, 0)], 2)]), p)
    r = babylon("score-garden", str(p), "--json")
    assert r.returncode == 0
    data = json.loads(r.stdout)
    assert set(data) == {"score", "findings"}
    assert data["score"]["total"] == 2 + 2 and data["score"]["tiebreak_visible_holes"] == 60
    assert data["findings"][0]["rule"] == "off-tile"
    assert data["findings"][0]["severity"] == "error"
    assert data["findings"][0]["cells"] == [[0, 0]]


def test_several_files_are_ranked(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    save(garden(TOWER), a)
    save(garden([tile(0, 0, 1)]), b)
    r = babylon("score-garden", str(b), str(a), "--json")
    ranking = json.loads(r.stdout)["ranking"]
    assert [(e["place"], e["file"]) for e in ranking] == [(1, str(a)), (2, str(b))]
    text = babylon("score-garden", str(b), str(a)).stdout
    assert "1. a: 6 points" in text


def test_bad_files_give_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.json"
    tiles = [{"row": 0, "col": 7, "level": 1, "flower": "pink"}]
    bad.write_text(json.dumps({"format": "babylon-garden/1", "tiles": tiles}))
    for path in (bad, tmp_path / "missing.json"):
        r = babylon("score-garden", str(path))
        assert r.returncode == 2
        assert r.stderr.count("\n") == 1 and str(path.name) in r.stderr
        assert "Traceback" not in r.stderr
    assert "tiles[0].col" in babylon("score-garden", str(bad)).stderr
