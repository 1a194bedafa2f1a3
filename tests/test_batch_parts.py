"""The batch's parts without the photo reader's cost: the record of one photo (with the stand-in
reader of the service tests), finding the photos, planning a resumed run, ranking games, the
local executor surviving a worker that dies, and the summary."""

from __future__ import annotations

import hashlib
import sys
import types
from pathlib import Path

import cv2
import numpy as np
import pytest
from batch_support import RECORDS, crash_on_marked, scored_record
from service_support import SAMPLES, TruthReader

from scoring import load, score_garden
from service.batch.execute import run_local
from service.batch.games import games_path, games_text, rank_games
from service.batch.inputs import InputError, find_photos, game_of
from service.batch.record import failure, score_photo, score_photo_record
from service.batch.report import summary_lines
from service.batch.results import Opened
from service.batch.runner import Outcome, plan_batch
from vision.read.load import decode_photo

PHOTO = SAMPLES / "15-one-tile.jpg"


@pytest.fixture(scope="module")
def stand_in():
    truth = TruthReader([PHOTO])
    return lambda data: truth(decode_photo(data))


def test_record_of_a_photo(stand_in):
    record = score_photo_record(PHOTO, reader=stand_in)
    garden = load(PHOTO.with_suffix(".json"))
    assert set(record) == {"file", "sha256", "score", "garden", "warnings", "confidence", "error"}
    assert record["file"] == str(PHOTO) and record["error"] is None
    assert record["sha256"] == hashlib.sha256(PHOTO.read_bytes()).hexdigest()
    assert record["score"] == score_garden(garden).to_dict()
    assert record["garden"] == garden.to_dict() and record["confidence"] == 1.0


def test_record_of_a_failure(tmp_path):
    def broken_reader(data: bytes):
        raise ZeroDivisionError("float division by zero\nmore lines")

    record = score_photo_record(PHOTO, reader=broken_reader)
    assert record["error"] == {"kind": "reader-failed",
                               "message": "ZeroDivisionError: float division by zero"}
    assert record["score"] is None and record["sha256"] is not None
    missing = score_photo_record(tmp_path / "gone.jpg")
    assert missing["error"]["kind"] == "cannot-read" and missing["sha256"] is None
    text = tmp_path / "t.jpg"
    text.write_text("not a photo")
    assert score_photo_record(text)["error"] == {
        "kind": "unreadable", "message": "not a readable image (JPEG, PNG, WebP or HEIC)"}


def test_overlay_is_drawn_by_the_readers_function_and_never_stops_a_score(stand_in, monkeypatch):
    calls = []

    def draw_overlay(image_bgr, reading):
        calls.append(reading)
        return np.zeros((40, 60, 3), np.uint8) + 200

    monkeypatch.setitem(sys.modules, "vision.read.overlay", types.SimpleNamespace(draw_overlay=draw_overlay))
    record, png = score_photo(str(PHOTO), overlay=True, reader=stand_in)
    assert len(calls) == 1 and record["error"] is None
    assert cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR).shape == (40, 60, 3)
    assert score_photo(str(PHOTO), overlay=False, reader=stand_in)[1] is None

    def broken(image_bgr, reading):
        raise ValueError("cannot draw")

    monkeypatch.setitem(sys.modules, "vision.read.overlay", types.SimpleNamespace(draw_overlay=broken))
    record, png = score_photo(str(PHOTO), overlay=True, reader=stand_in)
    assert png is None and record["error"] is None and record["score"] is not None


def test_find_photos(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("club/g1/a.jpg", "club/g1/b.JPEG", "club/g1/a.json", "club/g2/c.heic", "club/g2/.d.jpg",
                 "club/.cache/e.png", "club/overlays/a.png", "loose.webp", "notes.txt"):
        Path(name).parent.mkdir(parents=True, exist_ok=True)
        Path(name).write_bytes(b"x")
    found = find_photos(["club"], skip=[Path("club/overlays")])
    assert [p.as_posix() for p in found] == ["club/g1/a.jpg", "club/g1/b.JPEG", "club/g2/c.heic"]
    assert [p.as_posix() for p in find_photos(["club/g*/*", "club/g1/a.jpg", "notes.txt"])] == [
        "club/g1/a.jpg", "club/g1/b.JPEG", "club/g2/c.heic", "notes.txt"]  # named files: taken as they are
    for bad in ("nothing/here", "club/*.gif"):
        with pytest.raises(InputError, match=bad.replace("*", r"\*")):
            find_photos([bad])
    assert game_of("club/g1/a.jpg") == "club/g1"


def test_plan_skips_what_is_done_by_content(tmp_path):
    a, renamed, copy, new = (tmp_path / n for n in ("a.jpg", "renamed.jpg", "copy.jpg", "new.jpg"))
    a.write_bytes(b"photo A")
    renamed.write_bytes(b"photo B")
    copy.write_bytes(b"photo A")
    new.write_bytes(b"photo C")
    b_hash = hashlib.sha256(b"photo B").hexdigest()
    done = failure("old name of B.jpg", b_hash, "no-board", "x")
    plan = plan_batch([a, renamed, copy, new], Opened(records=[done]))
    assert [f for f, _ in plan.todo] == [a.as_posix(), new.as_posix()]
    assert plan.earlier == {b_hash: done}
    assert plan.same_as == {copy.as_posix(): a.as_posix()}


def score(total: int, holes: int) -> dict[str, int]:
    rows = dict.fromkeys(("statues", "fountains", "bridges", "stairs", "decoration_sets", "flower_sets",
                          "belvederes"), 0)
    return {**rows, "highest_level": total, "total": total, "tiebreak_visible_holes": holes}


def test_games_rank_each_folder_with_the_tie_break():
    def rec(file: str, total: int, holes: int):
        return {**scored_record("05-level-3"), "file": file, "score": score(total, holes)}

    photos = [
        ("g1/ann.jpg", rec("g1/ann.jpg", 20, 5)), ("g1/bob.jpg", rec("g1/bob.jpg", 20, 3)),
        ("g1/cy.jpg", rec("g1/cy.jpg", 25, 9)), ("g1/dee.jpg", rec("g1/dee.jpg", 20, 5)),
        ("g1/eve.jpg", failure("g1/eve.jpg", "0" * 64, "no-board", "no board")),
        ("g2/fay.jpg", rec("g2/fay.jpg", 3, 50)), ("g2/gus.jpg", None),
    ]
    games = rank_games(photos)
    assert [g["game"] for g in games] == ["g1", "g2"]
    assert [(e["place"], e["file"]) for e in games[0]["ranking"]] == [
        (1, "g1/cy.jpg"), (2, "g1/bob.jpg"), (3, "g1/ann.jpg"), (3, "g1/dee.jpg")]
    assert games[0]["unscored"] == [{"file": "g1/eve.jpg", "error": "no board"}]
    assert games[1]["unscored"] == [{"file": "g2/gus.jpg", "error": "not scored yet"}]
    assert games_path(Path("out/r.csv")) == Path("out/r.games.csv")
    assert games_path(Path("r.jsonl")) == Path("r.games.json")
    rows = games_text(games, csv_format=True).splitlines()
    assert rows[1] == "g1,1,g1/cy.jpg,25,9,0.8125," and rows[5] == "g1,,g1/eve.jpg,,,,no board"


def test_local_workers_go_on_when_one_dies(tmp_path):
    files = []
    for i, content in enumerate([b"one", b"two", b"crash!", b"three", b"four", b"five"]):
        files.append(tmp_path / f"{i}.jpg")
        files[-1].write_bytes(content)
    results = {f: r for f, r, _ in run_local([(f.as_posix(), None) for f in files], 2, False,
                                            job=crash_on_marked)}
    assert set(results) == {f.as_posix() for f in files}  # every photo answered once
    lost = [f for f, r in results.items() if r["error"]["kind"] == "worker-lost"]
    assert lost == [files[2].as_posix()]
    assert {r["error"]["message"] for f, r in results.items() if f not in lost} == {
        "one", "two", "three", "four", "five"}


def test_summary_counts_and_lists(tmp_path):
    files = [tmp_path / f"{i}.jpg" for i in range(5)]
    for f, content in zip(files, (b"a", b"b", b"c", b"d", b"a"), strict=True):
        f.write_bytes(content)
    plan = plan_batch(files, Opened())
    recs = dict(zip((f.as_posix() for f in files), RECORDS, strict=False))
    outcome = Outcome(plan, recs, new=4, seconds=8.0)
    text = "\n".join(summary_lines(outcome, below=0.5))
    assert "5 photo(s): 4 read now, 1 with the same content as another; 8.0s, 0.50 photos/s" in text
    assert "scored:   2" in text and "failed:   2" in text and "doubtful: 1" in text
    assert f"{files[1].as_posix()}: unreadable: not a readable image" in text
    assert f"{files[2].as_posix()}: confidence 0.10" in text
    assert "not done: 1" in text  # the copy's record is absent from this made-up outcome
