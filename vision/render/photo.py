"""Top level: a garden and a seed -> a phone photo of the physical game, with exact ground truth."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scoring.files import atomic_write
from scoring.garden import Garden
from vision.camera import Camera
from vision.profile import REFERENCE, Profile
from vision.render import conditions as cnd
from vision.render import holes
from vision.render.encode import encode_photo, photo_format
from vision.render.mesh import Face, Solid
from vision.render.raster import Lighting, render
from vision.render.scene import Scene, board_flower, build_scene
from vision.render.textures import board_top
from vision.render.truth import build_truth

BOARD_CACHE_SIZE = 8  #: board prints kept (profile, board flower, texels per mm)
#: board textures by (id(profile), flower, ppm); each entry keeps its profile, so an id reused by
#: another profile is told apart (a Profile holds dicts, so it cannot be a key itself)
_BOARD_CACHE: dict[tuple[int, str, float], tuple[Profile, np.ndarray]] = {}


@dataclass
class RenderedPhoto:
    image: np.ndarray  #: uint8 BGR, the photo at ``cond.camera``'s size
    truth: dict[str, Any]
    conditions: cnd.PhotoConditions
    linear: np.ndarray | None = None  #: the undistorted linear render (render camera), if kept
    ids: np.ndarray | None = None  #: object ids per render pixel (``truth`` objects), if kept
    timings: dict[str, float] = field(default_factory=dict)


def texture_ppm(cam: Camera, profile: Profile) -> float:
    """Texels per mm so that printed faces have about one texel per image pixel at the board."""
    centre = np.array([profile.board.width / 2, profile.board.depth / 2, 0.0])
    dist = float(cam.to_camera(centre[None])[0, 2])
    return float(np.clip(np.round(cam.fx / dist * 4) / 4, 1.0, 16.0))


def _board_texture(profile: Profile, flower: str, ppm: float) -> np.ndarray:
    key = (id(profile), flower, ppm)
    hit = _BOARD_CACHE.pop(key, None)  # put back last: the least recently used go first
    if hit is None or hit[0] is not profile:
        while len(_BOARD_CACHE) >= BOARD_CACHE_SIZE:
            del _BOARD_CACHE[next(iter(_BOARD_CACHE))]
        hit = (profile, board_top(profile, flower, ppm, np.random.default_rng(7), mottled=False))
    _BOARD_CACHE[key] = hit
    return hit[1]


def _table_extent(cam: Camera, z: float) -> tuple[np.ndarray, np.ndarray]:
    """Board-frame xy bounds of the table visible in the (render) image."""
    w, h = cam.width, cam.height
    px = np.array([[0, 0], [w, 0], [w, h], [0, h], [w / 2, 0], [w / 2, h], [0, h / 2], [w, h / 2]], float)
    rays = np.column_stack([(px[:, 0] - cam.cx) / cam.fx, (px[:, 1] - cam.cy) / cam.fy, np.ones(len(px))])
    d = rays @ cam.R  # camera -> board directions
    o = cam.position
    t = (z - o[2]) / np.where(np.abs(d[:, 2]) < 1e-6, -1e-6, d[:, 2])
    pts = o[:2] + np.clip(t, 0, 5000)[:, None] * d[:, :2]
    return pts.min(axis=0) - 5, pts.max(axis=0) + 5


def _table_solid(cond: cnd.PhotoConditions, rcam: Camera, profile: Profile) -> Solid:
    """The table: one horizontal receiver face textured on the table's own (turned, for wood
    anisotropic) grid, at the board's texel density where the cap allows."""
    from vision.render import table

    z = -profile.board.thickness
    lo, hi = _table_extent(rcam, z)
    mm_per_px = 1.0 / texture_ppm(rcam, profile)  # table.MAX_TEXELS caps the cost
    tex, fr = table.table_texture_uv(
        cond.table, (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])), mm_per_px
    )
    tex = np.ascontiguousarray(tex, np.float32)
    h, w = tex.shape[:2]
    # texel centres (col, row) -> fr @ (col, row, 1); the face's corners are the texels' outer corners
    cr = np.array([[-0.5, -0.5, 1], [w - 0.5, -0.5, 1], [w - 0.5, h - 0.5, 1], [-0.5, h - 0.5, 1]])
    poly = np.column_stack([cr @ fr.T, np.full(4, z)])
    frame_m = np.array([[fr[0, 0], fr[0, 1], fr[0, 2]], [fr[1, 0], fr[1, 1], fr[1, 2]], [0, 0, z]])
    face = Face(poly, tex=tex, tex_frame=frame_m, receiver=True, normal=np.array([0, 0, 1.0]),
                material=table.table_material(cond.table))
    return Solid([face], poly, casts=False)


def render_linear(
    garden: Garden, cond: cnd.PhotoConditions, profile: Profile = REFERENCE, rcam: Camera | None = None
) -> tuple[np.ndarray, np.ndarray, Scene]:
    """The undistorted linear-RGB render from ``rcam`` (default ``render_camera(cond)``), its id
    buffer and the scene."""
    rcam = cnd.render_camera(cond) if rcam is None else rcam
    ppm = texture_ppm(rcam, profile)
    flower = board_flower(garden, profile, cond.seed)
    scene = build_scene(
        garden.model_copy(update={"board_flower": flower}),
        profile,
        cond.seed,
        ppm,
        tuple(cond.clutter),
        board_tex=holes.recessed(_board_texture(profile, flower, ppm), profile, cond.geometry.hole_depth_mm,
                                 rcam.position, cond.light.direction, cond.light.ambient),
        looks=cond.looks,
        geometry=cond.geometry,
    )
    centre = np.array([profile.board.width / 2, profile.board.depth / 2, 0.0])
    light = Lighting.from_light(cond.light, cond.looks, centre)
    frame = render(scene.solids, rcam, light, background=_table_solid(cond, rcam, profile),
                   gloss=cond.looks.gloss)
    return frame.img, frame.ids, scene


def render_photo(
    garden: Garden,
    seed: int,
    profile: Profile = REFERENCE,
    keep_linear: bool = False,
    **condition_overrides: Any,
) -> RenderedPhoto:
    """Render photo ``seed`` of ``garden``: conditions from :func:`conditions.sample_conditions`."""
    from vision.render import post

    t0 = time.perf_counter()
    cond = cnd.sample_conditions(seed, profile, garden, **condition_overrides)
    t1 = time.perf_counter()
    rcam = cnd.render_camera(cond)
    lin, ids, scene = render_linear(garden, cond, profile, rcam)
    t2 = time.perf_counter()
    image = post.finish_photo(lin, cond, rcam)
    t3 = time.perf_counter()
    truth = build_truth(garden, scene, ids, rcam, cond.camera, profile, seed, cond.to_dict())
    t4 = time.perf_counter()
    times = {"conditions": t1 - t0, "render": t2 - t1, "post": t3 - t2, "truth": t4 - t3}
    return RenderedPhoto(
        image, truth, cond, lin if keep_linear else None, ids if keep_linear else None, times
    )


def save_photo(photo: RenderedPhoto, path: str | Path) -> Path:
    """Write the photo (format from the suffix: .jpg, .heic, .png, .webp) at the conditions'
    quality and EXIF orientation, and its truth beside it (``x.jpg`` -> ``x.json``), each
    atomically: a temporary name, then renamed. The truth's camera and pixel positions refer to
    the upright photo, as a viewer honouring the EXIF orientation shows it."""
    path = Path(path)
    cond = photo.conditions
    fmt = photo_format(path.name)
    orientation = cond.exif_orientation if fmt in ("jpeg", "heic") else 1
    data = encode_photo(photo.image, fmt, cond.jpeg_quality, orientation, cond.processing.jpeg_subsampling)
    truth = dict(photo.truth)
    truth["photo"] = truth["photo"] | {"image_format": fmt, "exif_orientation": orientation}
    atomic_write(path, data)
    atomic_write(path.with_suffix(".json"), (json.dumps(truth, indent=1) + "\n").encode())
    return path
