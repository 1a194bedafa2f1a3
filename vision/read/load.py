"""Stage 1: a photo file -> an upright BGR image, the way a phone viewer shows it.

JPEG, PNG, WebP and HEIC, with the EXIF orientation applied and the EXIF focal length kept when the
file has one. Everything that is not a readable photo of a sane size is refused with a
:class:`PhotoError` whose message is one line; nothing here raises anything else.

Pillow reads every format and its metadata; colour JPEGs are decoded by OpenCV (the same pixels,
three times faster for a 12 MP photo), and very large ones at a reduced scale straight from the DCT
(as Pillow's ``draft``): the reader never needs more than :data:`WORK_LONG_SIDE` pixels on the long
side.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

MAX_FILE_BYTES = 64 * 1024 * 1024  #: refuse files larger than this
MAX_PIXELS = 50_000_000  #: refuse images with more pixels than this (decompression bombs), before decoding
MIN_LONG_SIDE = 320  #: a smaller image cannot show the board's holes and edges
WORK_LONG_SIDE = 2100  #: decode no larger than this on the long side (JPEG draft scaling)
FORMATS = {"JPEG": "jpeg", "PNG": "png", "WEBP": "webp", "HEIF": "heic"}
EXIF_ORIENTATION = 0x0112
EXIF_IFD = 0x8769
EXIF_FOCAL_35MM = 0xA405  #: FocalLengthIn35mmFilm


class PhotoError(Exception):
    """A photo that cannot be read as asked; the message is one line for the user."""


class UnreadableImageError(PhotoError):
    """Not an image, truncated, corrupt, or an unsupported format."""


class ImageTooLargeError(PhotoError):
    """Over :data:`MAX_FILE_BYTES` or :data:`MAX_PIXELS`."""


@dataclass(frozen=True)
class Photo:
    image: np.ndarray  #: uint8 BGR, upright, possibly reduced (see ``scale``)
    original_size: tuple[int, int]  #: (width, height) of the upright photo at full size
    scale: float  #: ``image`` pixels per full-size pixel (1.0, or 1/2, 1/4, 1/8 after draft decoding)
    format: str  #: "jpeg" | "png" | "webp" | "heic"
    orientation: int  #: the EXIF orientation that was applied (1 = none)
    focal_35mm: float | None = None  #: EXIF FocalLengthIn35mmFilm, when present
    name: str = "photo"  #: the file's name, for messages

    @property
    def focal_px(self) -> float | None:
        """The EXIF 35 mm-equivalent focal length as pixels of ``image`` (36 mm = the long side)."""
        if not self.focal_35mm:
            return None
        return self.focal_35mm / 36.0 * max(self.image.shape[:2])


def _register_heif() -> None:
    import pillow_heif

    pillow_heif.register_heif_opener()


def _focal_35mm(exif: Image.Exif) -> float | None:
    try:
        v = exif.get_ifd(EXIF_IFD).get(EXIF_FOCAL_35MM)
        f = float(v) if v else None
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None
    return f if f and 8.0 <= f <= 300.0 else None


def load_photo(source: str | Path | bytes, max_long_side: int = WORK_LONG_SIDE) -> Photo:
    """Decode ``source`` (a path or the file's bytes) into an upright BGR image no larger than
    ``max_long_side`` where the format allows a cheap reduced decode (JPEG); other formats are
    decoded whole and reduced by area averaging."""
    name = "photo" if isinstance(source, bytes) else str(source)
    if isinstance(source, bytes):
        data = source
    else:
        path = Path(source)
        try:
            size = path.stat().st_size
        except OSError as e:
            raise UnreadableImageError(f"{name}: cannot read the file ({e.strerror or e})") from None
        if size > MAX_FILE_BYTES:
            raise ImageTooLargeError(
                f"{name}: the file is {size / 2**20:.0f} MB, over the {MAX_FILE_BYTES // 2**20} MB limit"
            )
        try:
            data = path.read_bytes()
        except OSError as e:
            raise UnreadableImageError(f"{name}: cannot read the file ({e.strerror or e})") from None
    if len(data) > MAX_FILE_BYTES:
        raise ImageTooLargeError(
            f"{name}: {len(data) / 2**20:.0f} MB, over the {MAX_FILE_BYTES // 2**20} MB limit"
        )
    if not data:
        raise UnreadableImageError(f"{name}: the file is empty")
    return decode_photo(data, name, max_long_side)


#: OpenCV's reduced JPEG decodes (the DCT's own scaling, as Pillow's ``draft``), by reduction
_CV2_REDUCED = {
    1: cv2.IMREAD_COLOR,
    2: cv2.IMREAD_REDUCED_COLOR_2,
    4: cv2.IMREAD_REDUCED_COLOR_4,
    8: cv2.IMREAD_REDUCED_COLOR_8,
}


def _decode_jpeg(data: bytes, img: Image.Image, request: tuple[int, int]) -> np.ndarray | None:
    """A complete colour JPEG decoded by OpenCV, upright (its EXIF orientation applied) and reduced by
    the DCT as Pillow's ``draft`` to ``request`` would: the same pixels as Pillow's, three times
    faster for a 12 MP photo. None for anything else (a truncated file, greyscale or CMYK), which
    Pillow decodes, or refuses with its reason."""
    if img.mode != "RGB" or not data.rstrip(b"\x00").endswith(b"\xff\xd9"):
        return None
    w, h = img.size
    most = min(w // request[0], h // request[1])
    reduction = max((r for r in (8, 4, 2, 1) if r <= most), default=1)
    try:
        bgr = cv2.imdecode(np.frombuffer(data, np.uint8), _CV2_REDUCED[reduction])
    except cv2.error:
        return None
    return bgr if bgr is not None and bgr.ndim == 3 else None


def decode_photo(data: bytes, name: str = "photo", max_long_side: int = WORK_LONG_SIDE) -> Photo:
    """Like :func:`load_photo`, from the file's bytes."""
    _register_heif()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
            fmt = FORMATS.get(img.format or "")
            if fmt is None:
                raise UnreadableImageError(
                    f"{name}: {img.format or 'unknown'} images are not supported (JPEG, PNG, WebP or HEIC)"
                )
            w, h = img.size
            if w * h > MAX_PIXELS:
                raise ImageTooLargeError(
                    f"{name}: {w} x {h} pixels is over the limit of {MAX_PIXELS / 1e6:.0f} megapixels"
                )
            if max(w, h) < MIN_LONG_SIDE:
                raise UnreadableImageError(f"{name}: {w} x {h} pixels is too small to read a board")
            exif = img.getexif()
            orientation = int(exif.get(EXIF_ORIENTATION, 1) or 1)
            focal = _focal_35mm(exif)
            request = (w * max_long_side // max(w, h) + 1, h * max_long_side // max(w, h) + 1)
            bgr = _decode_jpeg(data, img, request) if fmt == "jpeg" else None
            if bgr is None:
                if fmt == "jpeg" and max(w, h) > max_long_side:
                    img.draft("RGB", request)
                img.load()
                if orientation != 1:
                    img = ImageOps.exif_transpose(img)
                bgr = np.asarray(img if img.mode == "RGB" else img.convert("RGB"))[:, :, ::-1]
    except PhotoError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageTooLargeError(
            f"{name}: the image has too many pixels (over {MAX_PIXELS / 1e6:.0f} megapixels)"
        ) from None
    except UnidentifiedImageError:
        raise UnreadableImageError(f"{name}: not a readable image (JPEG, PNG, WebP or HEIC)") from None
    except (OSError, ValueError, SyntaxError, EOFError, MemoryError, RuntimeError) as e:
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise UnreadableImageError(f"{name}: the image is truncated or corrupt ({reason})") from None
    if orientation in (5, 6, 7, 8):
        w, h = h, w
    long_side = max(bgr.shape[:2])
    if long_side > max_long_side:
        f = max_long_side / long_side
        bgr = cv2.resize(
            bgr, (round(bgr.shape[1] * f), round(bgr.shape[0] * f)), interpolation=cv2.INTER_AREA
        )
    bgr = np.ascontiguousarray(bgr)
    scale = bgr.shape[1] / w
    return Photo(bgr, (w, h), scale, fmt, orientation if orientation in range(1, 9) else 1, focal, name)
