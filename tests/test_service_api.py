"""The HTTP service through the ASGI client: every endpoint, every error code, hostile inputs.

Photo endpoints are tested for the service's behaviour (status codes, the response shape, the score
being that of the returned garden, the overlay), with a stand-in reader that answers with the sample's
ground truth; the real reader is exercised on the same photos where it is finished (see the skip).
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import tempfile
import time
from functools import lru_cache

import httpx
import numpy as np
import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from service_support import (
    SAMPLES,
    TruthReader,
    one_colour_png,
    plain_photo,
    truncated_jpeg,
)

from scoring import check, garden_from_dict, generate_garden, load, rank, score_garden
from service.api import Settings, create_app
from service.api.models import GardenScoreOut, PhotoScoreOut, RankOut
from service.api.overlay import GRID_LEVELS
from vision.read import NoBoardError
from vision.read.load import Photo

PHOTOS = ["05-level-3.jpg", "36-heic.heic", "37-webp.webp", "38-png.png", "39-exif-rotated.jpg"]
MIME = {"jpg": "image/jpeg", "heic": "image/heic", "webp": "image/webp", "png": "image/png"}


@lru_cache(maxsize=1)
def truth_reader() -> TruthReader:
    return TruthReader([SAMPLES / p for p in [*PHOTOS, "14-sixteen-tiles.jpg", "15-one-tile.jpg"]])


@lru_cache(maxsize=1)
def bomb_png() -> bytes:
    return one_colour_png(20000, 20000)


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(reader=truth_reader()), raise_server_exceptions=False)


def garden_json(name: str) -> dict:
    return json.loads((SAMPLES / name).read_text())["garden"]


def upload(name: str) -> dict:
    data = (SAMPLES / name).read_bytes()
    return {"photo": (name, data, MIME[name.rsplit(".", 1)[1]])}


def assert_error(response: httpx.Response, status: int, *words: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"detail"}
    detail = body["detail"]
    assert "\n" not in detail and "Traceback" not in detail
    for w in words:
        assert w.lower() in detail.lower(), detail


def assert_photo_result(body: dict) -> None:
    """The shape of spec 4.3 (validated by the response model), a valid garden, its own score."""
    PhotoScoreOut.model_validate(body)
    garden = garden_from_dict(body["garden"])
    assert body["score"] == score_garden(garden).to_dict()
    assert body["findings"] == [f.to_dict() for f in check(garden)]
    assert 0.0 <= body["confidence"] <= 1.0


# --- service endpoints ------------------------------------------------------------------------------


def test_health_version_docs_and_page(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    v = client.get("/version").json()
    assert v["api"] == "v1" and v["garden_format"] == "babylon-garden/1" and v["version"]
    schema = client.get("/openapi.json").json()
    assert {"/v1/score", "/v1/score/garden", "/v1/rank", "/healthz", "/version"} <= set(schema["paths"])
    assert "multipart/form-data" in schema["paths"]["/v1/score"]["post"]["requestBody"]["content"]
    assert set(schema["paths"]["/v1/rank"]["post"]["requestBody"]["content"]) == {
        "application/json", "multipart/form-data"}
    assert "RankIn" in schema["components"]["schemas"]
    assert client.get("/docs").status_code == 200
    page = client.get("/")
    assert page.status_code == 200 and 'capture="environment"' in page.text
    for asset in ("/static/app.js", "/static/style.css"):
        assert client.get(asset).status_code == 200
    # nothing fetched from another site
    assert "http://" not in page.text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in page.text


def test_unknown_path_and_method_are_json_errors(client: TestClient) -> None:
    assert_error(client.get("/v1/nothing"), 404)
    assert_error(client.get("/v1/score/garden"), 405)


# --- POST /v1/score/garden ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["05-level-3.json", "12-belvederes.json", "14-sixteen-tiles.json"])
def test_score_garden_equals_the_engine(client: TestClient, name: str) -> None:
    r = client.post("/v1/score/garden", json=garden_json(name))
    assert r.status_code == 200
    body = GardenScoreOut.model_validate(r.json())
    garden = load(SAMPLES / name)
    assert body.score.model_dump() == score_garden(garden).to_dict()
    assert r.json()["findings"] == [f.to_dict() for f in check(garden)]


def test_score_garden_reports_broken_rules(client: TestClient) -> None:
    g = garden_json("05-level-3.json")
    g["tiles"].append({"row": 6, "col": 6, "level": 4, "flower": "pink"})  # nothing on level 3 under it
    r = client.post("/v1/score/garden", json=g)
    assert r.status_code == 200
    rules = {f["rule"] for f in r.json()["findings"]}
    assert "unsupported" in rules or "level-gap" in rules


@pytest.mark.parametrize(("body", "words"), [
    (b"", ("body",)),
    (b"{not json", ("json",)),
    (b"[1, 2]", ("body",)),
    (b'"garden"', ("body",)),
    (b'{"format": "babylon-garden/2", "tiles": []}', ("format",)),
    (b'{"tiles": []}', ("format",)),
    (b'{"format": "babylon-garden/1", "tiles": [{"row": 7, "col": 0, "level": 1, "flower": "pink"}]}',
     ("tiles[0].row",)),
    (b'{"format": "babylon-garden/1", "tiles": [{"row": 0, "col": 0, "level": 1, "flower": "red"}]}',
     ("tiles[0].flower",)),
    (b'{"format": "babylon-garden/1", "decorations": [{"kind": "statue", "cells": [[9, 9]], "level": 1}]}',
     ("outside",)),
    (b'{"format": "babylon-garden/1", "tiles": [], "extra": 1}', ("extra",)),
])
def test_malformed_gardens_are_422_with_a_reason(client: TestClient, body: bytes,
                                                 words: tuple[str, ...]) -> None:
    r = client.post("/v1/score/garden", content=body, headers={"content-type": "application/json"})
    assert_error(r, 422, *words)


def test_a_garden_with_500_tiles_is_refused(client: TestClient) -> None:
    g = {"format": "babylon-garden/1",
         "tiles": [{"row": i % 7, "col": (i // 7) % 7, "level": 1 + i // 49, "flower": "pink"}
                   for i in range(500)]}
    t0 = time.perf_counter()
    r = client.post("/v1/score/garden", json=g)
    assert_error(r, 422, "tiles", "52")
    assert time.perf_counter() - t0 < 2.0


def test_deeply_nested_json_is_not_a_500(client: TestClient) -> None:
    r = client.post("/v1/score/garden", content=b"[" * 100_000 + b"]" * 100_000,
                    headers={"content-type": "application/json"})
    assert r.status_code in (413, 422)
    assert set(r.json()) == {"detail"}


# --- POST /v1/score ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", PHOTOS)
def test_score_a_photo_in_every_format(client: TestClient, name: str) -> None:
    r = client.post("/v1/score", files=upload(name))
    assert r.status_code == 200, r.text
    body = r.json()
    assert_photo_result(body)
    assert body["overlay"] is None
    assert garden_from_dict(body["garden"]) == load((SAMPLES / name).with_suffix(".json"))


def test_overlay_is_a_png_with_the_grid(client: TestClient) -> None:
    r = client.post("/v1/score", params={"overlay": "true"}, files=upload("39-exif-rotated.jpg"))
    assert r.status_code == 200
    body = r.json()
    assert_photo_result(body)
    ov = body["overlay"]
    img = Image.open(io.BytesIO(base64.b64decode(ov["png"])))
    assert img.format == "PNG" and img.size == (ov["width"], ov["height"])
    assert max(img.size) <= Settings().overlay_long_side
    grid = np.asarray(ov["grid"])
    assert grid.shape == (GRID_LEVELS + 1, 9, 9, 2)
    # the board's building zone lies inside the picture, upright like the photo a viewer shows
    truth = json.loads((SAMPLES / "39-exif-rotated.json").read_text())
    w, _ = truth["camera"]["image_size"]
    assert (ov["width"] > ov["height"]) == (w > truth["camera"]["image_size"][1])
    zone = grid[0].reshape(-1, 2)
    assert zone[:, 0].min() > 0 and zone[:, 0].max() < ov["width"]
    assert zone[:, 1].min() > 0 and zone[:, 1].max() < ov["height"]


@pytest.mark.parametrize(("make", "status", "words"), [
    (truncated_jpeg, 415, ("truncated",)),
    (lambda: b"this is a text file, not a photo\n" * 20, 415, ("not a readable image",)),
    (lambda: b"", 415, ("empty",)),
    (bomb_png, 413, ("400 megapixels", "limit")),
    (lambda: plain_photo(fmt="GIF"), 415, ("GIF",)),
    (lambda: plain_photo(fmt="BMP"), 415, ("BMP",)),
])
def test_hostile_photos(client: TestClient, make, status: int, words: tuple[str, ...]) -> None:
    calls = truth_reader().calls
    r = client.post("/v1/score", files={"photo": ("garden.jpg", make(), "image/jpeg")})
    assert_error(r, status, *words)
    assert truth_reader().calls == calls  # refused before the reader


def test_the_bomb_is_refused_before_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    """A header claiming too many pixels never reaches the decoder."""
    from service.api import photos

    def no_decoding(*_: object, **__: object) -> None:
        raise AssertionError("decoded a decompression bomb")

    monkeypatch.setattr(photos, "decode_photo", no_decoding)
    client = TestClient(create_app(reader=truth_reader()), raise_server_exceptions=False)
    assert_error(client.post("/v1/score", files={"photo": ("b.png", bomb_png(), "image/png")}), 413)


def test_pixel_limit_is_configurable() -> None:
    client = TestClient(create_app(Settings(max_pixels=1_000_000), reader=truth_reader()),
                        raise_server_exceptions=False)
    assert_error(client.post("/v1/score", files=upload("05-level-3.jpg")), 413, "1500 x 2000")


@pytest.mark.parametrize("form", [
    {"data": {"photo": "not a file"}, "files": {"other": ("a.jpg", b"x", "image/jpeg")}},
    {"files": {"picture": ("a.jpg", b"x", "image/jpeg")}},
])
def test_photo_field_is_required(client: TestClient, form: dict) -> None:
    assert_error(client.post("/v1/score", **form), 422, "photo")


def test_score_needs_a_multipart_body(client: TestClient) -> None:
    assert_error(client.post("/v1/score", content=b""), 422, "multipart")
    assert_error(client.post("/v1/score", json={"photo": "x"}), 422, "multipart")
    r = client.post("/v1/score", content=b"--x\r\nbroken", headers={"content-type": "multipart/form-data"})
    assert_error(r, 422, "multipart")


def test_no_board_is_422() -> None:
    def reader(_: Photo):
        raise NoBoardError("photo: no player board found")

    client = TestClient(create_app(reader=reader), raise_server_exceptions=False)
    assert_error(client.post("/v1/score", files=upload("15-one-tile.jpg")), 422, "no player board")


def test_a_failure_inside_is_a_json_500_without_traceback(caplog: pytest.LogCaptureFixture) -> None:
    def reader(_: Photo):
        raise RuntimeError("secret internals /home/x/y.py line 3")

    client = TestClient(create_app(reader=reader), raise_server_exceptions=False)
    r = client.post("/v1/score", files=upload("15-one-tile.jpg"))
    assert_error(r, 500, "internal error")
    assert "secret" not in r.text
    assert any("RuntimeError" in rec.getMessage() for rec in caplog.records)


# --- limits: size, time, event loop, disk -----------------------------------------------------------


def test_upload_size_limit() -> None:
    assert Settings().max_upload_bytes == 25 * 2**20
    client = TestClient(create_app(Settings(max_upload_bytes=200_000), reader=truth_reader()),
                        raise_server_exceptions=False)
    assert_error(client.post("/v1/score", files=upload("05-level-3.jpg")), 413, "0.19")  # 253 kB photo
    assert client.post("/v1/score", files=upload("15-one-tile.jpg")).status_code in (200, 413)
    assert_error(client.post("/v1/score/garden", content=b" " * 300_000,
                             headers={"content-type": "application/json"}), 413)


def test_upload_size_limit_without_content_length() -> None:
    """A chunked body is counted as it arrives."""
    app = create_app(Settings(max_upload_bytes=100_000), reader=truth_reader())

    async def run() -> httpx.Response:
        async def chunks():
            for _ in range(30):
                yield b"x" * 10_000

        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            return await c.post("/v1/score/garden", content=chunks(),
                                headers={"content-type": "application/json"})

    assert_error(asyncio.run(run()), 413)


def test_time_limit_and_the_event_loop_stays_free() -> None:
    """A slow photo is answered 504 at the time limit, and meanwhile other requests are served."""
    def slow_reader(_: Photo):
        time.sleep(3.0)
        raise NoBoardError("too slow to matter")

    app = create_app(Settings(time_limit_s=1.0), reader=slow_reader)
    data = (SAMPLES / "15-one-tile.jpg").read_bytes()

    async def run() -> tuple[httpx.Response, float, httpx.Response, float]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            t0 = time.perf_counter()
            slow = asyncio.create_task(c.post("/v1/score", files={"photo": ("a.jpg", data, "image/jpeg")}))
            await asyncio.sleep(0.3)
            health = await c.get("/healthz")
            t_health = time.perf_counter() - t0
            slow_response = await slow
            return slow_response, time.perf_counter() - t0, health, t_health

    slow_response, t_slow, health, t_health = asyncio.run(run())
    assert_error(slow_response, 504, "limit of 1 s")
    assert 0.9 < t_slow < 2.5  # at the limit, long before the reader would have finished
    assert health.status_code == 200 and t_health < 1.0  # answered while the photo was being read


def test_nothing_is_written_to_disk_by_default(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """Uploads are parsed in memory: a photo over 1 MB would otherwise roll over to a temporary file."""
    def no_disk(*_: object, **__: object):
        raise AssertionError("an upload was written to a temporary file")

    for name in ("TemporaryFile", "NamedTemporaryFile", "mkstemp"):
        monkeypatch.setattr(tempfile, name, no_disk)
    monkeypatch.chdir(tmp_path)
    client = TestClient(create_app(reader=truth_reader()), raise_server_exceptions=False)
    big = (SAMPLES / "14-sixteen-tiles.jpg").read_bytes()
    padded = big + b"\0" * (1_500_000 - len(big))  # JPEG decoders ignore bytes after the end marker
    r = client.post("/v1/score", files={"photo": ("big.jpg", padded, "image/jpeg")})
    assert r.status_code == 200, r.text
    assert list(tmp_path.iterdir()) == []


def test_save_dir_keeps_photo_and_reading(tmp_path) -> None:
    client = TestClient(create_app(Settings(save_dir=tmp_path / "kept"), reader=truth_reader()))
    r = client.post("/v1/score", files=upload("38-png.png"))
    assert r.status_code == 200
    kept = sorted(p.suffix for p in (tmp_path / "kept").iterdir())
    assert kept == [".json", ".png"]
    saved = json.loads(next((tmp_path / "kept").glob("*.json")).read_text())
    assert saved["score"] == r.json()["score"]


def test_settings_round_trip_through_the_environment(tmp_path) -> None:
    s = Settings(max_upload_bytes=3 * 2**20, max_pixels=1234, time_limit_s=7.5, photo_workers=3,
                 save_dir=tmp_path)
    assert Settings.from_env(s.to_env()) == s
    assert Settings.from_env({}) == Settings()


# --- POST /v1/rank ----------------------------------------------------------------------------------


def test_rank_gardens_as_the_engine_ranks(client: TestClient) -> None:
    names = {"Ann": "05-level-3.json", "Bob": "14-sixteen-tiles.json", "Cy": "12-belvederes.json",
             "Di": "05-level-3.json"}
    players = [{"name": n, "garden": garden_json(f)} for n, f in names.items()]
    r = client.post("/v1/rank", json={"players": players})
    assert r.status_code == 200, r.text
    body = RankOut.model_validate(r.json())
    expected = rank([(n, score_garden(load(SAMPLES / f))) for n, f in names.items()])
    assert [(s.place, s.name) for s in body.ranking] == [(s.place, s.name) for s in expected]
    places = {s.name: s.place for s in body.ranking}
    assert places["Ann"] == places["Di"]  # same garden: they share the place


def test_rank_tie_break_fewer_visible_holes(client: TestClient) -> None:
    def garden(*tiles: tuple[int, int]) -> dict:
        return {"format": "babylon-garden/1",
                "tiles": [{"row": r, "col": c, "level": 1, "flower": "pink"} for r, c in tiles]}

    # one pink tile or two: the same points (highest level 2), but the second covers more holes
    r = client.post("/v1/rank", json={"players": [
        {"name": "one", "garden": garden((0, 0))}, {"name": "two", "garden": garden((0, 0), (4, 4))}]})
    ranking = r.json()["ranking"]
    assert [s["score"]["total"] for s in ranking] == [2, 2]
    assert [(s["place"], s["name"]) for s in ranking] == [(1, "two"), (2, "one")]


@pytest.mark.parametrize(("body", "words"), [
    ({"players": []}, ("players",)),
    ({"players": [{"name": "a", "garden": {"format": "babylon-garden/1"}}] * 9}, ("players",)),
    ({"players": [{"name": "a", "garden": {"format": "babylon-garden/1"}}] * 2}, ("different name",)),
    ({"players": [{"name": "", "garden": {"format": "babylon-garden/1"}}]}, ("name",)),
    ({"players": [{"name": "a", "garden": {"tiles": []}}]}, ("format",)),
    ({"gardens": []}, ("players",)),
])
def test_rank_refuses_malformed_games(client: TestClient, body: dict, words: tuple[str, ...]) -> None:
    assert_error(client.post("/v1/rank", json=body), 422, *words)


def test_rank_empty_and_broken_bodies(client: TestClient) -> None:
    assert_error(client.post("/v1/rank", content=b""), 422, "players")
    r = client.post("/v1/rank", content=b"{", headers={"content-type": "application/json"})
    assert_error(r, 422, "json")


def test_rank_photos(client: TestClient) -> None:
    files = [("photos", (n, (SAMPLES / n).read_bytes(), "image/jpeg"))
             for n in ("14-sixteen-tiles.jpg", "15-one-tile.jpg")]
    r = client.post("/v1/rank", files=files, data={"names": ["Ann", "Bob"]})
    assert r.status_code == 200, r.text
    body = RankOut.model_validate(r.json())
    scores = {"Ann": load(SAMPLES / "14-sixteen-tiles.json"), "Bob": load(SAMPLES / "15-one-tile.json")}
    expected = rank([(n, score_garden(g)) for n, g in scores.items()])
    assert [(s.place, s.name, s.score.total) for s in body.ranking] == [
        (s.place, s.name, s.score.total) for s in expected]
    for s in r.json()["ranking"]:
        assert s["score"] == score_garden(garden_from_dict(s["garden"])).to_dict()
        assert s["confidence"] is not None
    # names default to the file names; a bad photo among them is the whole request's error
    assert client.post("/v1/rank", files=files).json()["ranking"][0]["name"].endswith(".jpg")
    bad = [*files, ("photos", ("x.jpg", b"text", "image/jpeg"))]
    assert_error(client.post("/v1/rank", files=bad), 415, "x.jpg")
    assert_error(client.post("/v1/rank", files=files, data={"names": ["only one"]}), 422, "names")
    assert_error(client.post("/v1/rank", files={"photo": ("a.jpg", b"x", "image/jpeg")}), 422, "photos")


# --- the real reader -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["05-level-3.jpg", "36-heic.heic"])
def test_real_reader_through_the_service(name: str) -> None:
    client = TestClient(create_app(), raise_server_exceptions=False)
    r = client.post("/v1/score", params={"overlay": "true"}, files=upload(name))
    assert r.status_code == 200, r.text
    assert_photo_result(r.json())


def test_real_reader_photo_without_a_board_is_422() -> None:
    client = TestClient(create_app(), raise_server_exceptions=False)
    r = client.post("/v1/score", files={"photo": ("table.jpg", plain_photo(), "image/jpeg")})
    assert_error(r, 422)


# --- property: any generated garden, nudged, scores through the service as through the engine -------


@given(seed=st.integers(0, 99_999), which=st.integers(0, 99), bump=st.integers(-2, 2))
@settings(max_examples=40, deadline=None)
def test_generated_gardens_score_as_the_engine(client: TestClient, seed: int, which: int, bump: int) -> None:
    data = generate_garden(seed).to_dict()
    if data["tiles"]:
        t = data["tiles"][which % len(data["tiles"])]
        t["level"] = min(12, max(1, t["level"] + bump))
    r = client.post("/v1/score/garden", json=data)
    assert r.status_code == 200, r.text
    garden = garden_from_dict(data)
    findings = [f.to_dict() for f in check(garden)]
    assert r.json() == {"score": score_garden(garden).to_dict(), "findings": findings}
