"""Helpers for the service tests: a stand-in photo reader that answers with a sample photo's
ground truth, a probe of whether the real reader works yet, and hostile uploads."""

from __future__ import annotations

import hashlib
import io
import json
import struct
import zlib
from pathlib import Path

import numpy as np
from PIL import Image

from scoring.garden import garden_from_dict
from vision.camera import Camera
from vision.read import Reading, TileReading
from vision.read.load import Photo, decode_photo

SAMPLES = Path(__file__).resolve().parent.parent / "sample_images"


def _key(photo: Photo) -> str:
    return hashlib.sha256(photo.image.tobytes()).hexdigest()


class TruthReader:
    """Reads a known sample photo by looking up its truth file: the service's behaviour can be tested
    without depending on the photo reader's accuracy (or on the reader being finished)."""

    def __init__(self, photos: list[Path]) -> None:
        self.truth = {_key(decode_photo(p.read_bytes(), p.name)): p.with_suffix(".json") for p in photos}
        self.calls = 0

    def __call__(self, photo: Photo) -> Reading:
        self.calls += 1
        truth = json.loads(self.truth[_key(photo)].read_text())
        camera = Camera.from_dict(truth["camera"])
        tiles = [
            TileReading(t["row"], t["col"], t["level"], t["flower"], 1.0, np.asarray(t["corners_px"]), ())
            for t in truth["pieces"]["tiles"]
        ]
        return Reading(
            garden=garden_from_dict(truth["garden"]), confidence=1.0, warnings=[], camera=camera,
            board_corners_px=np.asarray(truth["camera"]["board_corners_px"]), tiles=tiles,
            image_size=(camera.width, camera.height),
        )


def truncated_jpeg() -> bytes:
    data = (SAMPLES / "15-one-tile.jpg").read_bytes()
    return data[: len(data) // 3]


def one_colour_png(width: int, height: int) -> bytes:
    """A genuine black ``width`` x ``height`` PNG (1 bit grey), small on disk because it compresses
    a thousandfold: the shape of a decompression bomb."""
    def chunk(kind: bytes, payload: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + payload))
        return struct.pack(">I", len(payload)) + kind + payload + crc

    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    rows = zlib.compress(b"\0" * ((1 + (width + 7) // 8) * height), 9)  # filter byte 0 + packed pixels
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")


def plain_photo(width: int = 1200, height: int = 900, fmt: str = "JPEG") -> bytes:
    """A photo of nothing: one colour, no board."""
    out = io.BytesIO()
    Image.new("RGB", (width, height), (120, 90, 60)).save(out, fmt)
    return out.getvalue()
