"""`babylon serve`: the service runs under uvicorn, with several workers, and bad options are one line."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from typer.testing import CliRunner

from service.cli import app

ROOT = Path(__file__).resolve().parent.parent
GARDEN = ROOT / "sample_images" / "05-level-3.json"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, body: bytes | None = None) -> dict:
    request = urllib.request.Request(url, data=body, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


def _status_of_declared_body(port: int, path: str, length: int) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.putrequest("POST", path)
        conn.putheader("content-type", "application/json")
        conn.putheader("content-length", str(length))
        conn.endheaders()
        return conn.getresponse().status
    finally:
        conn.close()


def test_serve_with_two_workers(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", "from service.cli import main; main()", "serve", "--port", str(port),
         "--workers", "2", "--max-upload-mb", "1"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                assert _get(f"http://127.0.0.1:{port}/healthz") == {"status": "ok"}
                break
            except OSError:
                assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
                assert time.monotonic() < deadline, "babylon serve did not answer"
                time.sleep(0.3)
        garden = json.loads(GARDEN.read_text())["garden"]
        result = _get(f"http://127.0.0.1:{port}/v1/score/garden", json.dumps(garden).encode())
        assert result["score"]["total"] == 22
        # the option reached the workers: a body declared over 1 MB is refused. Only the headers
        # are sent: the server answers 413 at once and may close the socket while a client is
        # still writing the body, which would make this test fail by a race
        assert _status_of_declared_body(port, "/v1/score/garden", 2 * 2**20) == 413
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out = proc.communicate(timeout=20)[0].decode()
        except subprocess.TimeoutExpired:
            proc.kill()
            out = proc.communicate()[0].decode()
    assert out.count("Started server process") >= 2, out
    assert list(tmp_path.iterdir()) == []  # nothing written where it ran


def test_serve_refuses_a_file_as_save_dir(tmp_path: Path) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    result = CliRunner().invoke(app, ["serve", "--save-dir", str(f)])
    assert result.exit_code == 2
    assert "not a folder" in result.output
