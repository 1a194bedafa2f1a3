"""Games: the photos in one folder are the players of one game, ranked as the rules rank them (most
points; a tie goes to fewer visible holes; a remaining tie shares the place: ``scoring.rank``)."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path
from typing import Any

from scoring.score import Score, rank
from service.batch.inputs import game_of
from service.batch.record import PhotoRecord


def rank_games(photos: list[tuple[str, PhotoRecord | None]]) -> list[dict[str, Any]]:
    """``photos``: (file, its record or None if not done) -> one entry per folder, in the order the
    folders first appear: ``{"game", "ranking": [{"place", "file", "total", "tiebreak_visible_holes",
    "confidence", "score"}], "unscored": [{"file", "error"}]}``."""
    games: dict[str, list[tuple[str, PhotoRecord | None]]] = {}
    for file, record in photos:
        games.setdefault(game_of(file), []).append((file, record))
    out = []
    for game, members in games.items():
        scored = {f: r for f, r in members if r is not None and r["score"] is not None}
        standings = rank([(f, Score(**r["score"])) for f, r in scored.items()])  # type: ignore[index]
        out.append({
            "game": game,
            "ranking": [{
                "place": st.place, "file": st.name, "total": st.score.total,
                "tiebreak_visible_holes": st.score.tiebreak_visible_holes,
                "confidence": scored[st.name]["confidence"], "score": st.score.to_dict(),
            } for st in standings],
            "unscored": [{"file": f, "error": r["error"]["message"] if r and r["error"] else "not scored yet"}
                         for f, r in members if f not in scored],
        })
    return out


def games_path(results: Path) -> Path:
    """Beside the results file: ``results.games.json`` (``results.games.csv`` for CSV results)."""
    suffix = ".csv" if results.suffix.lower() == ".csv" else ".json"
    return results.with_name(f"{results.stem}.games{suffix}")


def games_text(games: list[dict[str, Any]], csv_format: bool) -> str:
    if not csv_format:
        return json.dumps({"games": games}, indent=2, ensure_ascii=False) + "\n"
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["game", "place", "file", "total", "tiebreak_visible_holes", "confidence", "error"])
    for g in games:
        for e in g["ranking"]:
            w.writerow([g["game"], e["place"], e["file"], e["total"], e["tiebreak_visible_holes"],
                        e["confidence"], ""])
        for e in g["unscored"]:
            w.writerow([g["game"], "", e["file"], "", "", "", e["error"]])
    return buf.getvalue()


def write_games(path: Path, games: list[dict[str, Any]]) -> None:
    """Written under a temporary name, synced and renamed: never half a file."""
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", encoding="utf-8", errors="surrogateescape") as f:  # file names as they are
        f.write(games_text(games, path.suffix.lower() == ".csv"))
        f.flush()
        os.fsync(f.fileno())
    tmp.replace(path)
