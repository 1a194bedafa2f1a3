"""From a linear render to the phone's picture: colour cast, exposure, lens, blur, vignetting, local
and global tone curve, the phone's detail processing, sensor noise, chromatic aberration.

The order is the physical one: the light reaches the lens (white-balance cast and exposure are
per-channel gains), the lens distorts and blurs (more away from the focus distance), vignetting
darkens the corners, the phone's tone mapping lifts shadows locally and its curve maps to sRGB, its
processor smears fine texture and sharpens edges, and the sensor's noise is what is left in the file.
The gains are linear, so they are applied in one multiply after the remap (which only shrinks the
overscanned canvas). Noise is added last so that its std is exactly what the conditions say (the spec
bounds it).
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
from vision.render import ranges as rg
from vision.render.conditions import (
    REFERENCE_LONG_SIDE,
    PhotoConditions,
    Processing,
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
    shape = (ny * step, nx * step) + coarse.shape[2:]
    buf = _buffer(f"smooth{step}x{coarse.shape[2:]}", shape)
    full = cv2.resize(coarse, shape[1::-1], dst=buf, interpolation=cv2.INTER_LINEAR)
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
    if not cam.distorted and render.fx == cam.fx and render.fy == cam.fy:
        ox, oy = render.cx - cam.cx, render.cy - cam.cy
        if ox == int(ox) and oy == int(oy):
            return img[int(oy) : int(oy) + cam.height, int(ox) : int(ox) + cam.width]
    mx, _ = distortion_maps(render, cam)
    out = _buffer("lens", (cam.height, cam.width, img.shape[2]))
    # the (H, W, 2) float buffer behind both maps, as is: remap's own per-block conversion is cheaper
    # than a convertMaps pass (the same 1/32 px interpolation either way)
    return cv2.remap(img, mx.base, None, cv2.INTER_LINEAR, dst=out, borderMode=cv2.BORDER_REPLICATE)


CA_BLUE = -0.8  #: blue's lateral shift against red's (they fall on either side of green)


def chromatic_scales(cam: Camera, shift_px: float) -> tuple[float, float]:
    """Magnification of red and blue against green about the principal point: red lands ``shift_px``
    further out at the frame's farthest corner, blue :data:`CA_BLUE` times that."""
    rc = max(math.hypot(u - cam.cx, v - cam.cy) for u in (0, cam.width - 1) for v in (0, cam.height - 1))
    return 1.0 + shift_px / rc, 1.0 + CA_BLUE * shift_px / rc


def apply_chromatic_aberration(img: np.ndarray, cam: Camera, shift_px: float) -> np.ndarray:
    """Lateral chromatic aberration: red and blue magnified slightly against green (in place; any
    dtype). Green, which carries most of the luminance, keeps the camera's geometry."""
    if abs(shift_px) < 0.05:
        return img
    for ch, k in ((0, chromatic_scales(cam, shift_px)[0]), (2, chromatic_scales(cam, shift_px)[1])):
        M = np.array([[1 / k, 0, cam.cx * (1 - 1 / k)], [0, 1 / k, cam.cy * (1 - 1 / k)]])
        plane = cv2.extractChannel(img, ch)
        cv2.insertChannel(cv2.warpAffine(plane, M, (cam.width, cam.height), flags=cv2.INTER_LINEAR
                                         | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE), img, ch)
    return img


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


def depth_of_field_sigma(cond: PhotoConditions, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Defocus blur (Gaussian sigma, px at this image's size) at pixels (x, y) of the photo: the
    thin-lens circle of confusion grows with |1 - focus / depth|, depth being that of the board plane
    seen there; 0 at the focus distance (by default the aim point's, which is on the board)."""
    cam, o = cond.camera, cond.optics
    s = max(cam.width, cam.height) / REFERENCE_LONG_SIDE
    n = cam.R[:, 2]  # the board's normal in camera coordinates
    d = n[0] * (x - cam.cx) / cam.fx + n[1] * (y - cam.cy) / cam.fy + n[2]
    depth = float(n @ cam.t) / np.where(np.abs(d) < 1e-9, 1e-9, d)
    focus = o.focus_mm or float(n @ cam.t) / n[2]
    return o.dof_px * s * np.abs(1.0 - focus / np.maximum(depth, 1.0))


def apply_blur(img: np.ndarray, cond: PhotoConditions) -> np.ndarray:
    """Defocus (Gaussian, over the whole frame and, with a depth of field, more away from the focus
    distance) and camera shake (line kernel), scaled from 12 MP to this image. Blur never exceeds
    the spec's bound: the depth of field's and the frame's sigmas add in quadrature up to it."""
    cam = cond.camera
    s = max(cam.width, cam.height) / REFERENCE_LONG_SIDE
    sigma, motion = cond.blur_sigma * s, cond.motion_px * s
    cap = rg.BLUR_SIGMA_PX.hi * s
    dof_max = 0.0
    if cond.optics.dof_px:
        dof = smooth_field(lambda x, y: depth_of_field_sigma(cond, x, y), cam.width, cam.height, step=32,
                           dst=_buffer("dof", img.shape[:2]))
        np.minimum(dof, math.sqrt(max(cap * cap - sigma * sigma, 0.0)), out=dof)
        dof_max = float(dof.max())
    if sigma > 0.05 and dof_max < 0.2:
        img = cv2.GaussianBlur(img, (0, 0), sigma, dst=_buffer("blur", img.shape))
    elif dof_max >= 0.2:
        # a blend of the frame's blur and the strongest blur, per pixel, with the variance that gives
        # sqrt(sigma^2 + dof^2): weight (dof / dof_max)^2
        top = math.sqrt(sigma * sigma + dof_max * dof_max)
        far = cv2.GaussianBlur(img, (0, 0), top, dst=_buffer("blur2", img.shape))
        near = cv2.GaussianBlur(img, (0, 0), sigma, dst=_buffer("blur", img.shape)) if sigma > 0.05 else img
        w = cv2.multiply(dof, dof, dst=dof, scale=1.0 / (dof_max * dof_max))
        rest = cv2.subtract(1.0, w, dst=_buffer("dof_rest", w.shape))
        img = cv2.blendLinear(near, far, rest, w, dst=_buffer("blur3", img.shape))
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


def _buffer(name: str, shape: tuple[int, ...], zero: bool = False, dtype: type = np.float32) -> np.ndarray:
    """A reusable work buffer (per thread): fresh 150 MB arrays cost more in page faults than the
    arithmetic done in them."""
    bufs = _WORK.__dict__.setdefault("bufs", {})
    b = bufs.get(name)
    if b is None or b.shape != shape or b.dtype != dtype:
        b = bufs[name] = np.zeros(shape, dtype) if zero else np.empty(shape, dtype)
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


LOCAL_TONE_CELL = 16  #: the local tone map works on the image shrunk this many times
LOCAL_TONE_RADIUS = 0.06  #: its neighbourhood: a Gaussian of this fraction of the long side
LUMA = np.array([0.2126, 0.7152, 0.0722], np.float32)  #: linear RGB -> luminance


def local_tone_gain(img: np.ndarray, gain: Callable[[np.ndarray, np.ndarray], np.ndarray], strength: float
                    ) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The HDR look: a smooth gain field that pulls each neighbourhood's brightness (log luminance,
    blurred over :data:`LOCAL_TONE_RADIUS` of the frame) towards the frame's mean by ``strength``:
    shadows are lifted, bright areas held back, local contrast kept (with the soft halos such tone
    mappers leave at big brightness steps). ``gain(x, y)``: the per-channel gains already applied to
    ``img`` afterwards (exposure, white balance, vignetting). Returns the field as a function of
    pixel coordinates."""
    h, w = img.shape[:2]
    c = LOCAL_TONE_CELL
    sw, sh = max(2, w // c), max(2, h // c)
    small = cv2.resize(img, (sw, sh), interpolation=cv2.INTER_AREA)
    gx = ((np.arange(sw) + 0.5) * w / sw - 0.5)[None, :]
    gy = ((np.arange(sh) + 0.5) * h / sh - 0.5)[:, None]
    lum = (small * gain(gx, gy)) @ LUMA
    log_l = np.log(np.maximum(lum, 1e-4)).astype(np.float32)
    base = cv2.GaussianBlur(log_l, (0, 0), LOCAL_TONE_RADIUS * max(sw, sh), borderType=cv2.BORDER_REFLECT)
    field = np.exp(np.clip(-strength * (base - float(base.mean())), -1.2, 1.2)).astype(np.float32)

    def at(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        xs, ys = np.broadcast_arrays((x + 0.5) * sw / w - 0.5, (y + 0.5) * sh / h - 0.5)
        return cv2.remap(field, xs.astype(np.float32), ys.astype(np.float32), cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)

    return at


DENOISE_CONTRAST = 5.0  #: texture of about this contrast (in 0..255) is what a phone's denoiser smears


def process_luma(y: np.ndarray, proc: Processing, scale: float) -> np.ndarray | None:
    """The phone's detail processing on luma ``y`` (display values 0..255, (H, W)): fine, low-contrast
    texture smeared by the denoiser (``proc.denoise``), edges sharpened by an unsharp mask that leaves
    halos (``proc.sharpen_amount``, radius ``proc.sharpen_radius_px`` at 12 MP). Returns the change of
    luma (H, W, in a work buffer), or None when there is none."""
    if proc.denoise < 0.02 and proc.sharpen_amount < 0.02:
        return None
    detail, soft = _buffer("detail", y.shape), _buffer("soft", y.shape)
    cv2.GaussianBlur(y, (0, 0), max(0.5, proc.sharpen_radius_px * scale), dst=detail)
    cv2.subtract(y, detail, dst=detail)
    cv2.multiply(detail, detail, dst=soft, scale=-1.0 / DENOISE_CONTRAST**2)
    cv2.exp(soft, dst=soft)
    # change = detail * (amount - denoise * exp(-(detail / contrast)^2))
    cv2.addWeighted(soft, -proc.denoise, soft, 0.0, proc.sharpen_amount, dst=soft)
    return cv2.multiply(detail, soft, dst=detail)


LUMA_DISPLAY = np.array([0.299, 0.587, 0.114], np.float32)  #: display RGB -> luma (Rec. 601, as JPEG)
NOISE_FLOOR = 0.55  #: noise std in the blacks, as a fraction of the bound (shot noise adds the rest)


def _randn(out: np.ndarray, seed: int, sigma: float) -> None:
    """Fill ``out`` with N(0, sigma^2), two threads on row halves (cv2's RNG is per thread)."""

    def fill(part: int) -> None:
        cv2.setRNGSeed((int(seed) * 2 + part) % (2**31 - 1))
        cv2.randn(halves[part], 0.0, sigma)

    mid = out.shape[0] // 2
    halves = (out[:mid], out[mid:])
    list(_POOL.map(fill, (0, 1)))


_POOL = ThreadPoolExecutor(2, thread_name_prefix="post-noise")


def add_noise_and_detail(display: np.ndarray, sigma: float, seed: int, proc: Processing | None = None,
                         scale: float = 1.0) -> np.ndarray:
    """Display values (0..255 float32, overwritten) plus the phone's detail processing
    (:func:`process_luma`; ``scale``: this image's size over 12 MP's) and sensor noise; to uint8. The
    noise is in every channel: luminance grain (the same in all three) and colour blotches
    (``proc.chroma_noise`` of it, each channel its own, about ``proc.chroma_grain_px`` wide at 12
    MP); a little stronger in the brights (shot noise): its std in each channel is at most
    sigma (0.55 + 0.45 y), y = luma / 255, so never more than ``sigma``/255. Seeded."""
    proc = proc or Processing()
    h, w = display.shape[:2]
    busy = sigma > 0 or proc.denoise >= 0.02 or proc.sharpen_amount >= 0.02
    y = cv2.transform(display, LUMA_DISPLAY[None, :], dst=_buffer("y", (h, w))) if busy else None
    luma = process_luma(y, proc, scale) if y is not None else None
    three = _buffer("three", display.shape)
    if sigma > 0:
        c = float(np.clip(proc.chroma_noise, 0.0, 0.95))
        if c > 0:
            # white noise on a coarse grid, bilinearly enlarged: std c (times the local amplitude) at
            # the grid's nodes, less between them; the mean over the channels taken out, so it
            # changes colour only
            cell = max(1.0, proc.chroma_grain_px * scale)
            ch, cw = max(2, round(h / cell)), max(2, round(w / cell))
            blot = np.empty((ch, cw, 3), np.float32)
            cv2.setRNGSeed((int(seed) * 2 + 7) % (2**31 - 1))
            cv2.randn(blot, 0.0, 1.0)
            # the mean over the channels taken out, back to std c per channel: one matrix
            colour_only = np.float32(c * math.sqrt(1.5)) * (np.eye(3, dtype=np.float32) - 1 / 3)
            blot = cv2.transform(blot, colour_only)
            y_small = cv2.resize(y, (cw, ch), interpolation=cv2.INTER_AREA)
            amp_small = cv2.addWeighted(y_small, (1 - NOISE_FLOOR) * sigma / 255.0, y_small, 0.0,
                                        NOISE_FLOOR * sigma)
            cv2.multiply(blot, cv2.merge([amp_small, amp_small, amp_small]), dst=blot)
            cv2.resize(blot, (w, h), dst=three, interpolation=cv2.INTER_LINEAR)
            cv2.add(display, three, dst=display)
        amp = cv2.addWeighted(y, (1 - NOISE_FLOOR) * sigma / 255.0, y, 0.0, NOISE_FLOOR * sigma,
                              dst=_buffer("amp", (h, w)))
        grain = _buffer("noise", (h, w))
        _randn(grain, seed, math.sqrt(1 - c * c))
        cv2.multiply(grain, amp, dst=grain)
        luma = grain if luma is None else cv2.add(luma, grain, dst=luma)
    if luma is not None:
        cv2.add(display, cv2.merge([luma, luma, luma], dst=three), dst=display)
    cv2.max(display, 0.0, dst=display)  # convertScaleAbs takes |x|: negatives to 0 first
    return cv2.convertScaleAbs(display, dst=_buffer("photo8", display.shape, dtype=np.uint8))


# -------------------------------------------------------------------------------------- pipeline


def _exposed(
    linear_rgb: np.ndarray, cond: PhotoConditions, scale: float, render: Camera | None = None
) -> np.ndarray:
    """Lens, blur, then gains (white balance, exposure, vignetting, the local tone map) times
    ``scale``; float32 (H, W, 3) at the photo's size, in a work buffer. ``render``:
    ``render_camera(cond)``."""
    render = render_camera(cond) if render is None else render
    if linear_rgb.shape[:2] != (render.height, render.width):
        raise ValueError(f"render is {linear_rgb.shape[1]}x{linear_rgb.shape[0]}, "
                         f"expected {render.width}x{render.height} (render_camera(cond))")
    img = np.asarray(linear_rgb, dtype=np.float32)
    img = apply_lens(img, render, cond.camera)
    img = apply_blur(img, cond)
    cam = cond.camera
    g = channel_gain(cond).astype(np.float64)

    def gain(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return _vignette(x, y, cam, cond.vignette)[..., None] * g

    if cond.processing.local_tone > 0.01:
        tone = local_tone_gain(img, gain, cond.processing.local_tone)
        field = lambda x, y: gain(x, y) * tone(x, y)[..., None] * scale  # noqa: E731
    else:
        field = lambda x, y: gain(x, y) * scale  # noqa: E731
    gains = smooth_field(field, cam.width, cam.height, dst=_buffer("gains", img.shape))
    return cv2.multiply(img, gains, dst=gains)


def finish_linear(linear_rgb: np.ndarray, cond: PhotoConditions) -> np.ndarray:
    """The photo in linear RGB before the tone curve (lens, blur, white balance, exposure,
    vignetting and local tone mapping applied), at ``cond.camera``'s size. For tests and inspection."""
    return _exposed(linear_rgb, cond, 1.0).copy()


def finish_photo(
    linear_rgb: np.ndarray, cond: PhotoConditions, render: Camera | None = None
) -> np.ndarray:
    """Linear RGB render from ``render`` (default ``render_camera(cond)``) -> the phone photo,
    uint8 BGR, camera size: optics, exposure, tone curve, the phone's detail processing, sensor noise,
    and the lens' chromatic aberration."""
    scaled = _exposed(linear_rgb, cond, LUT_SCALE, render)
    display = tone_map_scaled(scaled, out=_buffer("display", scaled.shape))
    s = max(cond.camera.width, cond.camera.height) / REFERENCE_LONG_SIDE
    out = add_noise_and_detail(display, cond.noise_sigma, cond.seed, cond.processing, s)
    # lateral chromatic aberration, on the 8-bit photo (cheap; it moves the grain of red and blue a
    # fraction of a pixel with them, which no eye or reader can tell from doing it first)
    out = apply_chromatic_aberration(out, cond.camera, cond.optics.chromatic_aberration_px * s)
    return cv2.cvtColor(out, cv2.COLOR_RGB2BGR)  # a new array: ``out`` is a work buffer
