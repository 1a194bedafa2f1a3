"""Median seconds of vision.render.post.finish_photo at 12 MP (4032 x 3024), worst-case settings:
barrel distortion, Gaussian blur, vignetting and noise all on, and the phone's whole look (colour noise,
denoising, sharpening, local tone mapping, chromatic aberration, depth of field over a tilted frame).
Run: python benchmarks/post_speed.py"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from vision.render.conditions import Optics, Processing, render_camera, sample_conditions
from vision.render.post import finish_photo

LOOK = dict(tilt_deg=25.0, optics=Optics(k2=0.02, principal_offset=(0.03, -0.03), chromatic_aberration_px=1.2,
                                         dof_px=6.0),
            processing=Processing(chroma_noise=0.75, chroma_grain_px=2.5, sharpen_amount=1.2, denoise=1.0,
                                  local_tone=0.6))


def main(runs: int = 7) -> None:
    for label, extra in (("gaussian blur", dict(blur_sigma=1.0, motion_px=0.0)),
                         ("motion blur", dict(blur_sigma=0.0, motion_px=5.0))):
        cond = sample_conditions(1, size=(4032, 3024), k1=-0.08, noise_sigma=3.0, vignette=0.25, **extra,
                                 **LOOK)
        rc = render_camera(cond)
        img = np.random.default_rng(0).random((rc.height, rc.width, 3), dtype=np.float32) * 0.8
        finish_photo(img, cond)  # warm-up: work buffers, thread pool
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            finish_photo(img, cond)
            times.append(time.perf_counter() - t)
        print(f"finish_photo 4032x3024 ({label}): median {statistics.median(times):.3f} s, "
              f"min {min(times):.3f} s over {runs} runs (render {rc.width}x{rc.height})")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
