"""From a linear render to the phone's file: colour cast, exposure, lens, blur, vignetting,
tone curve, sensor noise and encoding.

The order is the physical one: the light reaches the lens (white-balance cast and exposure are
per-channel gains), the lens distorts and blurs, vignetting darkens the corners, the camera's
tone curve maps to sRGB and the sensor adds noise. The gains are linear, so they are applied in
one multiply after the remap (which only shrinks the overscanned canvas).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import cv2
import numpy as np

from vision.camera import Camera
from vision.profile import linear_to_srgb, srgb_to_linear
from vision.render.conditions import (
    REFERENCE_LONG_SIDE,
    PhotoConditions,
    render_camera,
)

# ------------------------------------------------------------------------------ colour and gain


def kelvin_to_rgb(kelvin: float) -> np.ndarray:
    """Linear RGB of a blackbody at ``kelvin``, normalised to green = 1 (Tanner Helland's fit of
    the CIE data, converted to linear)."""
    t = kelvin / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    if t <= 66:
        g = 99.4708025861 * math.log(t) - 161.1195681661
    else:
        g = 288.1221695283 * (t - 60) ** -0.0755148492
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
    srgb = np.clip(np.array([r, g, b]) / 255.0, 1e-3, 1.0)
    lin = srgb_to_linear(srgb, np.float64)
    return (lin / lin[1]).astype(np.float32)


def white_balance_gain(light_kelvin: float, wb_kelvin: float) -> np.ndarray:
    """Per-channel gain of a camera set to ``wb_kelvin`` photographing light of ``light_kelvin``;
    (1, 1, 1) when they agree, warm (more red) when the light is warmer than the setting."""
    g = kelvin_to_rgb(light_kelvin) / kelvin_to_rgb(wb_kelvin)
    return (g / (g @ np.array([0.2126, 0.7152, 0.0722], np.float32))).astype(np.float32)


def channel_gain(cond: PhotoConditions) -> np.ndarray:
    """White-balance cast times exposure, linear RGB."""
    cast = white_balance_gain(cond.light.kelvin, cond.white_balance_kelvin)
    return cast * np.float32(2.0**cond.exposure_ev)


def _vignette(x: np.ndarray, y: np.ndarray, cam: Camera, amount: float) -> np.ndarray:
    w, h = cam.width, cam.height
    rc2 = max((u - cam.cx) ** 2 + (v - cam.cy) ** 2 for u in (0, w - 1) for v in (0, h - 1))
    return 1.0 - amount * ((x - cam.cx) ** 2 + (y - cam.cy) ** 2) / rc2


def smooth_field(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], width: int, height: int,
                 step: int = 8, dst: np.ndarray | None = None) -> np.ndarray:
    """A smooth per-pixel field fn(x, y) (pixel coordinates; result (H, W) or (H, W, C)) evaluated on
    a coarse grid every ``step`` px, padded past the edges so that the linear upsampling never
    extrapolates, then resized to full size: for quadratic-ish fields the error is ~1e-3 px."""
    pad = step
    nx, ny = -(-(width + 2 * pad) // step), -(-(height + 2 * pad) // step)
    gx = ((np.arange(nx) + 0.5) * step - 0.5 - pad)[None, :]
    gy = ((np.arange(ny) + 0.5) * step - 0.5 - pad)[:, None]
    coarse = np.ascontiguousarray(fn(gx, gy), dtype=np.float32)
    full = cv2.resize(coarse, (nx * step, ny * step), interpolation=cv2.INTER_LINEAR)
    crop = full[pad : pad + height, pad : pad + width]
    if dst is None:
        return crop
    np.copyto(dst, crop)
    return dst


# ------------------------------------------------------------------------------------ geometry


def distortion_maps(render: Camera, cam: Camera) -> tuple[np.ndarray, np.ndarray]:
    """cv2.remap maps: for each pixel of the distorted photo ``cam``, where to read in the undistorted
    ``render`` (solved exactly on a coarse grid, see :func:`smooth_field`)."""

    def source(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        xu, yu = cam.undistort_normalised(x, y)
        return np.stack([xu * render.fx + render.cx, yu * render.fy + render.cy], axis=-1)

    m = smooth_field(source, cam.width, cam.height, dst=_buffer("maps", (cam.height, cam.width, 2)))
    return m[..., 0], m[..., 1]


def apply_lens(img: np.ndarray, render: Camera, cam: Camera) -> np.ndarray:
    """Resample the overscanned undistorted render into the distorted photo frame."""
    if not cam.k1 and render.fx == cam.fx and render.fy == cam.fy:
        ox, oy = render.cx - cam.cx, render.cy - cam.cy
        if ox == int(ox) and oy == int(oy):
            return img[int(oy) : int(oy) + cam.height, int(ox) : int(ox) + cam.width]
    mx, _ = distortion_maps(render, cam)
    m1, m2 = cv2.convertMaps(mx.base, None, cv2.CV_16SC2)  # the (H, W, 2) buffer behind both maps
    out = _buffer("lens", (cam.height, cam.width, img.shape[2]))
    return cv2.remap(img, m1, m2, cv2.INTER_LINEAR, dst=out, borderMode=cv2.BORDER_REPLICATE)


def motion_kernel(length: float, angle_deg: float) -> np.ndarray:
    """A normalised anti-aliased line kernel of ``length`` px at ``angle_deg``."""
    n = 2 * math.ceil(length / 2) + 3
    k = np.zeros((n * 8, n * 8), np.float32)
    c = n * 4 - 0.5
    a = math.radians(angle_deg)
    dx, dy = math.cos(a) * length * 4, math.sin(a) * length * 4
    p0 = (round((c - dx) * 16), round((c - dy) * 16))
    p1 = (round((c + dx) * 16), round((c + dy) * 16))
    cv2.line(k, p0, p1, 1.0, thickness=8, lineType=cv2.LINE_AA, shift=4)
    k = cv2.resize(k, (n, n), interpolation=cv2.INTER_AREA)
    return k / k.sum()


def apply_blur(img: np.ndarray, cond: PhotoConditions) -> np.ndarray:
    """Defocus (Gaussian) and camera shake (line kernel), scaled from 12 MP to this image."""
    s = max(cond.camera.width, cond.camera.height) / REFERENCE_LONG_SIDE
    sigma, motion = cond.blur_sigma * s, cond.motion_px * s
    if sigma > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), sigma, dst=_buffer("blur", img.shape))
    if motion > 0.3:
        img = cv2.filter2D(img, -1, motion_kernel(motion, cond.motion_angle_deg),
                           dst=_buffer("motion", img.shape))
    return img


# ---------------------------------------------------------------------------------- tone, noise

TONE_KNEE = 0.7
LUT_MAX = 4.0  #: linear values above this all map to white
LUT_SIZE = 32000  #: steps of 1.25e-4 linear: under 0.2/255 error even in the blacks
LUT_SCALE = (LUT_SIZE - 1) / LUT_MAX


def filmic(x: np.ndarray) -> np.ndarray:
    """Identity below the knee, then a rational shoulder approaching 1 (C1-continuous), so
    highlights roll off instead of clipping."""
    x = np.asarray(x, np.float64)
    k = TONE_KNEE
    d = np.maximum(x - k, 0.0)
    return np.minimum(x, k) + (1 - k) * d / (d + (1 - k))


def _tone_lut() -> np.ndarray:
    """(1, LUT_SIZE): linear scene value (index / LUT_SCALE) -> display sRGB value * 255."""
    x = np.arange(LUT_SIZE) / LUT_SCALE
    return (linear_to_srgb(filmic(x).astype(np.float32)) * 255.0).astype(np.float32)[None, :]


_LUT = _tone_lut()
_WORK = threading.local()


def _buffer(name: str, shape: tuple[int, ...], zero: bool = False) -> np.ndarray:
    """A reusable float32 work buffer (per thread): fresh 150 MB arrays cost more in page faults
    than the arithmetic done in them."""
    bufs = _WORK.__dict__.setdefault("bufs", {})
    b = bufs.get(name)
    if b is None or b.shape != shape:
        b = bufs[name] = np.zeros(shape, np.float32) if zero else np.empty(shape, np.float32)
    return b


def tone_map_scaled(scaled: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Linear values already multiplied by LUT_SCALE (H, W, C) -> display sRGB 0..255 float32,
    through the filmic tone curve; a cv2.remap on one row is a fast multi-threaded LUT."""
    h = scaled.shape[0]
    flat = scaled.reshape(h, -1)
    zeros = _buffer("zeros", flat.shape, zero=True)
    dst = out.reshape(h, -1) if out is not None else None
    res = cv2.remap(_LUT, flat, zeros, cv2.INTER_NEAREST, dst=dst, borderMode=cv2.BORDER_REPLICATE)
    return res.reshape(scaled.shape)


def _randn_rows(out: np.ndarray, seed: int, sigma: float) -> None:
    """Fill ``out`` with N(0, sigma^2), two threads on row halves (cv2's RNG is per thread)."""

    def fill(part: int) -> None:
        cv2.setRNGSeed((int(seed) * 2 + part) % (2**31 - 1))
        cv2.randn(halves[part], 0.0, sigma)

    mid = out.shape[0] // 2
    halves = (out[:mid], out[mid:])
    list(_POOL.map(fill, (0, 1)))


_POOL = ThreadPoolExecutor(2, thread_name_prefix="post-noise")


def add_noise(display: np.ndarray, sigma: float, seed: int) -> np.ndarray:
    """Display values (0..255 float32, overwritten) plus sensor noise of ``sigma``/255, a little
    stronger in the brights (shot noise): std = sigma (0.7 + 0.6 y), y = display / 255; to uint8.
    Seeded: same seed, same noise."""
    if sigma > 0:
        a, b = 0.6 * sigma / 255.0, 0.7 * sigma
        noise = _buffer("noise", display.shape)
        _randn_rows(noise, seed, a)
        cv2.scaleAdd(noise, b / a, display, dst=display)  # display + b n
        cv2.accumulateProduct(noise, display, display)  # + a n display (the a b n^2 term is < 0.05)
        np.maximum(display, 0.0, out=display)
    return cv2.convertScaleAbs(display)


# -------------------------------------------------------------------------------------- pipeline


def _exposed(
    linear_rgb: np.ndarray, cond: PhotoConditions, scale: float, render: Camera | None = None
) -> np.ndarray:
    """Lens, blur, then gains (white balance, exposure, vignetting) times ``scale``; float32
    (H, W, 3) at the photo's size, in a work buffer. ``render``: ``render_camera(cond)``."""
    render = render_camera(cond) if render is None else render
    if linear_rgb.shape[:2] != (render.height, render.width):
        raise ValueError(f"render is {linear_rgb.shape[1]}x{linear_rgb.shape[0]}, "
                         f"expected {render.width}x{render.height} (render_camera(cond))")
    img = np.asarray(linear_rgb, dtype=np.float32)
    img = apply_lens(img, render, cond.camera)
    img = apply_blur(img, cond)
    cam = cond.camera
    g = channel_gain(cond).astype(np.float64) * scale
    gains = smooth_field(lambda x, y: _vignette(x, y, cam, cond.vignette)[..., None] * g,
                         cam.width, cam.height, dst=_buffer("gains", img.shape))
    return cv2.multiply(img, gains, dst=gains)


def finish_linear(linear_rgb: np.ndarray, cond: PhotoConditions) -> np.ndarray:
    """The photo in linear RGB before the tone curve (lens, blur, white balance, exposure and
    vignetting applied), at ``cond.camera``'s size. For tests and inspection."""
    return _exposed(linear_rgb, cond, 1.0).copy()


def finish_photo(
    linear_rgb: np.ndarray, cond: PhotoConditions, render: Camera | None = None
) -> np.ndarray:
    """Linear RGB render from ``render`` (default ``render_camera(cond)``) -> the phone photo,
    uint8 BGR, camera size."""
    scaled = _exposed(linear_rgb, cond, LUT_SCALE, render)
    display = tone_map_scaled(scaled, out=_buffer("display", scaled.shape))
    out = add_noise(display, cond.noise_sigma, cond.seed)
    return cv2.cvtColor(out, cv2.COLOR_RGB2BGR)
