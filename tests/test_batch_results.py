"""The batch's results file: records survive the round trip in JSONL and CSV, a torn tail is cut at
any byte without losing a good line, retryable failures are taken out, foreign files are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from batch_support import RECORDS

from service.batch.record import PhotoRecord, content_hash, failure
from service.batch.results import CsvLines, JsonLines, ResultsFile, ResultsFileError, check_record


def write(path: Path, records: list[PhotoRecord]) -> None:
    with ResultsFile(path) as f:
        f.open()
        for r in records:
            f.append(r)


def reopen(path: Path):
    with ResultsFile(path) as f:
        return f.open()


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_records_come_back_as_written(tmp_path, suffix):
    path = tmp_path / f"r{suffix}"
    write(path, RECORDS)
    opened = reopen(path)
    assert opened.records == RECORDS
    assert (opened.torn_bytes, opened.bad_lines, opened.retried) == (0, 0, 0)
    lines = path.read_bytes().splitlines()
    assert len(lines) == len(RECORDS) + (suffix == ".csv")  # one line per photo (and CSV's header)


def test_csv_has_the_score_columns():
    import csv
    import io

    text = CsvLines.header.decode() + CsvLines().encode(RECORDS[0]).decode()
    row = next(csv.DictReader(io.StringIO(text)))
    assert int(row["total"]) == RECORDS[0]["score"]["total"]
    assert int(row["highest_level"]) == RECORDS[0]["score"]["highest_level"]
    assert json.loads(row["garden"]) == RECORDS[0]["garden"]


@pytest.mark.parametrize("codec", [JsonLines(), CsvLines()], ids=["jsonl", "csv"])
def test_a_torn_last_line_is_cut_at_any_byte(tmp_path, codec):
    suffix = ".jsonl" if isinstance(codec, JsonLines) else ".csv"
    full = codec.header + b"".join(codec.encode(r) for r in RECORDS)
    last = len(codec.encode(RECORDS[-1]))
    for cut in range(len(full) - last, len(full)):  # every byte of the last line but its newline
        path = tmp_path / f"r{cut}{suffix}"
        path.write_bytes(full[:cut])
        opened = reopen(path)
        assert opened.records == RECORDS[:-1]
        assert opened.torn_bytes == cut - (len(full) - last)
        assert path.read_bytes() == full[: len(full) - last]  # the good lines, byte for byte
        write(path, RECORDS[-1:])  # the rerun appends the photo again: the file is whole
        assert reopen(path).records == RECORDS
        path.unlink()


def test_zeros_after_a_power_loss_are_cut(tmp_path):
    path = tmp_path / "r.jsonl"
    write(path, RECORDS[:2])
    good = path.read_bytes()
    path.write_bytes(good + b"\0" * 300 + b"\n" + b"\0" * 20)
    opened = reopen(path)
    assert opened.records == RECORDS[:2] and path.read_bytes() == good


def test_a_bad_line_in_the_middle_is_kept_and_skipped(tmp_path):
    path = tmp_path / "r.jsonl"
    codec = JsonLines()
    lines = [codec.encode(RECORDS[0]), b'{"file": "hand edited"}\n', codec.encode(RECORDS[1])]
    path.write_bytes(b"".join(lines))
    opened = reopen(path)
    assert opened.records == RECORDS[:2] and opened.bad_lines == 1
    assert path.read_bytes() == b"".join(lines)


def test_retryable_failures_are_taken_out_for_another_try(tmp_path):
    path = tmp_path / "r.csv"
    lost = failure("a.jpg", content_hash(b"a"), "worker-lost", "the worker process died")
    unread = failure("b.jpg", None, "cannot-read", "permission denied")
    write(path, [RECORDS[0], lost, RECORDS[1], unread, RECORDS[2]])
    opened = reopen(path)
    assert opened.retried == 2 and opened.records == RECORDS[:3]
    assert reopen(path).records == RECORDS[:3]  # rewritten without them
    assert not list(tmp_path.glob("*.tmp"))


def test_a_foreign_file_is_refused_and_left_alone(tmp_path):
    for name, content in (("notes.jsonl", b"my notes\nline 2"), ("sheet.csv", b"a,b,c\n1,2,3\n")):
        path = tmp_path / name
        path.write_bytes(content)
        with pytest.raises(ResultsFileError, match="not a babylon batch results file"):
            reopen(path)
        assert path.read_bytes() == content
    with pytest.raises(ResultsFileError, match=r"\.jsonl or \.csv"):
        ResultsFile(tmp_path / "r.txt")


def test_a_second_batch_on_the_same_file_is_refused(tmp_path):
    path = tmp_path / "r.jsonl"
    with ResultsFile(path) as first:
        first.open()
        with pytest.raises(ResultsFileError, match="another batch"):
            reopen(path)
    reopen(path)  # free again once the first is closed


def test_records_are_checked():
    assert check_record(RECORDS[0]) == RECORDS[0]
    no_garden = {**RECORDS[0], "garden": None}
    failed_with_score = {**RECORDS[1], "score": RECORDS[0]["score"]}
    bad_hash = {**RECORDS[0], "sha256": "abc"}
    missing_row = {**RECORDS[0], "score": {k: v for k, v in RECORDS[0]["score"].items() if k != "stairs"}}
    for bad in (no_garden, failed_with_score, bad_hash, missing_row, {"file": "x"}, [], "text"):
        assert check_record(bad) is None


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_odd_file_names_keep_one_line_per_record(tmp_path, suffix):
    odd = [failure(name, content_hash(name.encode("utf-8", "surrogateescape")), "no-board", "x")
           for name in ("caf\udce9.jpg", "Zoë's \"best\", 2.jpg", "two\nlines.jpg")]
    path = tmp_path / f"r{suffix}"
    write(path, [*odd, RECORDS[0]])
    assert len(path.read_bytes().splitlines()) == 4 + (suffix == ".csv")
    back = reopen(path).records
    assert back[-1] == RECORDS[0] and [r["sha256"] for r in back[:3]] == [r["sha256"] for r in odd]
    assert back[0]["file"] == "caf\udce9.jpg" and back[1]["file"] == odd[1]["file"]
