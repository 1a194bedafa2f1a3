"""Writing a photo the way a phone does: JPEG, HEIC, PNG or WebP, with an EXIF orientation tag.

Phones store the sensor's pixels as they came and say in EXIF how to turn them for display. A
photo here is made upright; with an orientation tag other than 1 the pixels are stored turned the
other way, so that any viewer that honours the tag (as the reader must) shows the upright photo.
"""

from __future__ import annotations

import io

import cv2
import numpy as np
from PIL import Image

#: format names and suffixes -> canonical format
FORMATS = {"jpg": "jpeg", "jpeg": "jpeg", "heic": "heic", "heif": "heic", "png": "png", "webp": "webp"}
#: the suffix each format is written with
SUFFIXES = {"jpeg": ".jpg", "heic": ".heic", "png": ".png", "webp": ".webp"}
EXIF_ORIENTATION_TAG = 0x0112
SUBSAMPLINGS = ("4:4:4", "4:2:2", "4:2:0")
#: EXIF orientation -> how to turn the upright image into the stored pixels
_STORE_TURN = {3: cv2.ROTATE_180, 6: cv2.ROTATE_90_COUNTERCLOCKWISE, 8: cv2.ROTATE_90_CLOCKWISE}


def photo_format(name: str) -> str:
    """'photo.JPG', '.heic', 'webp' ... -> 'jpeg' | 'heic' | 'png' | 'webp'."""
    fmt = FORMATS.get(name.lower().rsplit(".", 1)[-1])
    if fmt is None:
        raise ValueError(f"unsupported image format {name!r} (jpeg, heic, png, webp)")
    return fmt


def encode_photo(image_bgr: np.ndarray, fmt: str = "jpeg", quality: int = 90, orientation: int = 1,
                 subsampling: str | None = None) -> bytes:
    """Encode an upright uint8 BGR image. ``fmt``: a format name or a path/suffix; ``quality``
    applies to JPEG, HEIC and WebP; ``orientation`` (1, 3, 6, 8) is written as the EXIF tag of a
    JPEG or HEIC with the pixels stored accordingly (PNG and WebP are always stored upright).
    ``subsampling``: the chroma subsampling of a JPEG or HEIC, "4:4:4", "4:2:2" or "4:2:0" (None:
    4:4:4 at quality 90 and above, 4:2:0 below; WebP is always 4:2:0)."""
    fmt = photo_format(fmt)
    if orientation not in (1, *_STORE_TURN):
        raise ValueError(f"EXIF orientation {orientation} is not one of 1, 3, 6, 8")
    if subsampling is None:
        subsampling = "4:4:4" if quality >= 90 else "4:2:0"  # as phones do
    if subsampling not in SUBSAMPLINGS:
        raise ValueError(f"chroma subsampling {subsampling!r} is not one of {', '.join(SUBSAMPLINGS)}")
    if fmt in ("png", "webp"):
        params = [cv2.IMWRITE_PNG_COMPRESSION, 3] if fmt == "png" else [cv2.IMWRITE_WEBP_QUALITY, quality]
        ok, buf = cv2.imencode(SUFFIXES[fmt], image_bgr, params)
        if not ok:
            raise RuntimeError(f"could not encode {fmt}")
        return buf.tobytes()
    stored = cv2.rotate(image_bgr, _STORE_TURN[orientation]) if orientation != 1 else image_bgr
    img = Image.fromarray(cv2.cvtColor(stored, cv2.COLOR_BGR2RGB))
    exif = Image.Exif()
    exif[EXIF_ORIENTATION_TAG] = orientation
    out = io.BytesIO()
    if fmt == "heic":
        import pillow_heif

        pillow_heif.register_heif_opener()
        img.save(out, format="HEIF", quality=int(quality), exif=exif.tobytes(), subsampling=subsampling)
    else:
        img.save(out, format="JPEG", quality=int(quality), exif=exif.tobytes(), subsampling=subsampling)
    return out.getvalue()
