"""Load test of the HTTP service on loopback: requests per second and latency percentiles for
``POST /v1/score/garden`` (the sample gardens) and ``POST /v1/score`` (1 MP JPEG photos), with N
concurrent clients. Bounded in count and in time; talks to 127.0.0.1 only; stops by itself.

    python benchmarks/service_load.py                   # 4 clients, 400 garden requests, 40 photos
    python benchmarks/service_load.py --photo-requests 0  # gardens only
    python benchmarks/service_load.py --stand-in        # photos through a stand-in reader (see below)

The server runs in a child process (one uvicorn worker, as ``babylon serve`` starts by default), the
clients are threads of this process: on a small machine they compete for the same cores, so the
figures are a floor. ``--stand-in`` replaces the photo reader by one that returns the sample's ground
truth: it measures what the service itself costs per photo (upload, decode, scoring, JSON), not
reading.
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing as mp
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_images"
HOST = "127.0.0.1"  # loopback only


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _stand_in_reader():  # noqa: ANN202 - built in the server process
    """A reader that answers every photo with sample 05's truth (camera scaled to the photo)."""
    import numpy as np

    from scoring.garden import garden_from_dict
    from vision.camera import Camera
    from vision.read import Reading

    truth = json.loads((SAMPLES / "05-level-3.json").read_text())
    camera = Camera.from_dict(truth["camera"])
    garden = garden_from_dict(truth["garden"])

    def read(photo):  # noqa: ANN001, ANN202
        w, h = photo.original_size
        return Reading(garden=garden, confidence=1.0, warnings=[], camera=camera.with_size(w, h),
                       board_corners_px=np.zeros((4, 2)), tiles=[], image_size=(w, h))

    return read


def _serve(port: int, stand_in: bool) -> None:
    import logging

    import uvicorn

    from service.api import create_app

    logging.getLogger("babylon.service").setLevel(logging.CRITICAL)
    app = create_app(reader=_stand_in_reader() if stand_in else None)
    uvicorn.run(app, host=HOST, port=port, log_level="critical", access_log=False)


def one_megapixel_photos(n: int) -> list[bytes]:
    """JPEGs (quality 90) of about 1 MP made from the sample photos."""
    out = []
    for path in sorted(SAMPLES.glob("[0-3]*.jpg"))[:n]:
        img = Image.open(path).convert("RGB")
        f = (1_000_000 / (img.width * img.height)) ** 0.5
        buf = io.BytesIO()
        small = img.resize((round(img.width * f), round(img.height * f)), Image.Resampling.LANCZOS)
        small.save(buf, "JPEG", quality=90)
        out.append(buf.getvalue())
    return out


def run_load(
    base: str, send: Callable[[httpx.Client, int], httpx.Response], requests: int, seconds: float,
    clients: int,
) -> dict:
    """``requests`` requests shared by ``clients`` threads, stopping early after ``seconds``."""
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    counter = iter(range(requests))
    deadline = time.perf_counter() + seconds

    def worker() -> None:
        with httpx.Client(base_url=base, timeout=60) as client:
            while time.perf_counter() < deadline:
                with lock:
                    i = next(counter, None)
                if i is None:
                    return
                t0 = time.perf_counter()
                r = send(client, i)
                dt = time.perf_counter() - t0
                with lock:
                    latencies.append(dt)
                    statuses[r.status_code] = statuses.get(r.status_code, 0) + 1

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    ms = np.asarray(latencies) * 1000
    return {
        "requests": len(latencies), "seconds": round(wall, 2), "rps": round(len(latencies) / wall, 1),
        "p50_ms": round(float(np.percentile(ms, 50)), 1), "p95_ms": round(float(np.percentile(ms, 95)), 1),
        "max_ms": round(float(ms.max()), 1), "statuses": statuses,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--garden-requests", type=int, default=400)
    ap.add_argument("--photo-requests", type=int, default=40)
    ap.add_argument("--seconds", type=float, default=60.0, help="time limit of each phase")
    ap.add_argument("--stand-in", action="store_true",
                    help="photos through a stand-in reader (the service's own cost)")
    args = ap.parse_args()
    if not (1 <= args.clients <= 16 and args.garden_requests <= 10_000 and args.photo_requests <= 1_000):
        sys.exit("error: at most 16 clients, 10,000 garden requests, 1,000 photo requests")

    port = _free_port()
    server = mp.get_context("spawn").Process(target=_serve, args=(port, args.stand_in), daemon=True)
    server.start()
    base = f"http://{HOST}:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or not server.is_alive():
                sys.exit("error: the server did not start")
            time.sleep(0.2)

        gardens = [json.loads(p.read_text())["garden"] for p in sorted(SAMPLES.glob("*.json"))
                   if p.name != "README.json"]
        bodies = [json.dumps(g).encode() for g in gardens]
        headers = {"content-type": "application/json"}

        def post_garden(c: httpx.Client, i: int) -> httpx.Response:
            return c.post("/v1/score/garden", content=bodies[i % len(bodies)], headers=headers)

        run_load(base, post_garden, 40, 10, args.clients)  # warm-up
        garden = run_load(base, post_garden, args.garden_requests, args.seconds, args.clients)
        print(f"POST /v1/score/garden  {args.clients} clients: {json.dumps(garden)}")
        if args.photo_requests:
            photos = one_megapixel_photos(8)
            size = Image.open(io.BytesIO(photos[0])).size

            def send(c: httpx.Client, i: int) -> httpx.Response:
                return c.post("/v1/score", files={"photo": ("p.jpg", photos[i % len(photos)], "image/jpeg")})

            with httpx.Client(base_url=base, timeout=60) as c:
                probe = send(c, 0)
            if probe.status_code != 200:
                print(f"POST /v1/score: not measured: the service answered {probe.status_code} "
                      f"{probe.json().get('detail')!r} (is the photo reader finished? --stand-in "
                      "measures the service without it)")
            else:
                result = run_load(base, send, args.photo_requests, args.seconds, args.clients)
                what = "stand-in reader" if args.stand_in else "photo reader"
                print(f"POST /v1/score  {args.clients} clients, {size[0]}x{size[1]} JPEG, {what}: "
                      f"{json.dumps(result)}")
    finally:
        server.terminate()
        server.join(10)


if __name__ == "__main__":
    main()
