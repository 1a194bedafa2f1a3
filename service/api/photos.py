"""Photo work for the service: size checks, decoding, reading, scoring, the overlay, and (only when
the operator asks for it) keeping the upload. Plain functions, run in worker threads."""

from __future__ import annotations

import hashlib
import io
import json
import logging
import re
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

from scoring.files import atomic_write
from scoring.rules import check
from scoring.score import score_garden
from service.api import overlay
from vision.read import ImageTooLargeError, Reading
from vision.read.load import Photo, decode_photo

log = logging.getLogger("babylon.service")

Reader = Callable[[Photo], Reading]


def refuse_too_many_pixels(data: bytes, max_pixels: int, name: str) -> None:
    """Raise :class:`ImageTooLargeError` when the image's header claims more than ``max_pixels``:
    a decompression bomb is refused before a single pixel is decoded. Anything the header probe
    cannot make sense of is left to the decoder to report."""
    import pillow_heif

    pillow_heif.register_heif_opener()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as img:
                w, h = img.size
    except Image.DecompressionBombError as e:  # Pillow's own guard, far above ours: say how many
        claimed = re.search(r"\((\d+) pixels\)", str(e))
        size = f"{int(claimed.group(1)) / 1e6:.0f} megapixels" if claimed else "far more pixels"
        limit = f"{max_pixels / 1e6:g} megapixels"
        raise ImageTooLargeError(f"{name}: {size} is over the limit of {limit}") from None
    except Exception:  # noqa: BLE001 - not an image we can size: decode_photo says what is wrong
        return
    if w * h > max_pixels:
        limit = f"{max_pixels / 1e6:g} megapixels"
        raise ImageTooLargeError(f"{name}: {w} x {h} pixels is over the limit of {limit}")


def decode(data: bytes, name: str, max_pixels: int) -> Photo:
    """The upload as an upright image; PhotoError subclasses for what cannot be read."""
    refuse_too_many_pixels(data, max_pixels, name)
    return decode_photo(data, name)


def garden_result(garden: Any) -> dict[str, Any]:
    """``{"score", "findings"}`` of a scoring Garden."""
    return {"score": score_garden(garden).to_dict(), "findings": [f.to_dict() for f in check(garden)]}


def read_result(photo: Photo, reader: Reader, want_overlay: bool, overlay_long_side: int) -> dict[str, Any]:
    """Spec 4.3's object for one photo, with the legality findings and, if asked, the overlay."""
    reading = reader(photo)
    result: dict[str, Any] = {**reading.to_dict(), **garden_result(reading.garden), "overlay": None}
    if want_overlay:
        png, w, h, grid = overlay.render(photo.image, reading, overlay_long_side)
        result["overlay"] = {"png": png, "width": w, "height": h, "grid": grid.round(1).tolist()}
    return result


def save_upload(save_dir: Path, data: bytes, photo_format: str, result: dict[str, Any]) -> None:
    """Keep the photo and what was read from it (the operator's --save-dir). A failure to write is
    logged, never the user's problem."""
    stem = f"{time.strftime('%Y%m%d-%H%M%S')}-{hashlib.sha256(data).hexdigest()[:12]}"
    kept = {k: v for k, v in result.items() if k != "overlay"}
    try:
        save_dir.mkdir(parents=True, exist_ok=True)
        atomic_write(save_dir / f"{stem}.{photo_format}", data)
        atomic_write(save_dir / f"{stem}.json", (json.dumps(kept, indent=1) + "\n").encode())
    except OSError as e:
        log.warning("cannot keep the upload in %s: %s", save_dir, e)
