"""The photo ranges of spec section 3, named once: sampling, docs and tests all read them here.

The first group is the spec's contract (every combination must be read). The second group is the
renderer's own choice of how far the "phone look" goes beyond what the spec names (processing,
lens and geometry details a real phone photo shows); those ranges are not in the spec, and each
says so. Lengths in pixels are at 12 MP (long side :data:`REFERENCE_LONG_SIDE`) unless stated.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Range:
    """A closed interval ``lo..hi`` of one photo parameter."""

    lo: float
    hi: float
    unit: str = ""
    what: str = ""

    def draw(self, rng: np.random.Generator) -> float:
        """Uniform in ``lo..hi``."""
        return float(rng.uniform(self.lo, self.hi))

    def __contains__(self, value: float) -> bool:
        eps = 1e-9 * max(1.0, abs(self.lo), abs(self.hi))
        return self.lo - eps <= float(value) <= self.hi + eps

    def __str__(self) -> str:
        return f"{self.lo:g}..{self.hi:g}{(' ' + self.unit) if self.unit else ''}"


REFERENCE_LONG_SIDE = 4032  #: blur, motion and other pixel lengths are given at this long side (12 MP)

# ------------------------------------------------------------------ spec section 3 (the contract)

MEGAPIXELS = Range(1.0, 12.0, "MP", "image size (roughly: the long side is the exact bound)")
LONG_SIDE_PX = Range(1200, REFERENCE_LONG_SIDE, "px", "image long side")
ASPECTS = ("4:3", "16:9")  #: landscape or portrait
IMAGE_FORMATS = ("jpeg", "heic", "png", "webp")
JPEG_QUALITY = Range(70, 95, "", "JPEG quality")
EXIF_ORIENTATIONS = (1, 3, 6, 8)
HEIGHT_MM = Range(350.0, 700.0, "mm", "camera above the board")
HFOV_DEG = Range(60.0, 80.0, "deg", "horizontal field of view (across the long side)")
TILT_DEG = Range(0.0, 25.0, "deg", "optical axis from vertical")
ROLL_DEG = Range(0.0, 360.0, "deg", "rotation of the board in the frame")
K1 = Range(-0.08, 0.04, "", "radial lens distortion k1")
LIGHT_ELEVATION_DEG = Range(35.0, 85.0, "deg", "key light above the horizon")
LIGHT_AZIMUTH_DEG = Range(0.0, 360.0, "deg", "key light direction")
AMBIENT = Range(0.20, 0.60, "", "ambient share of the illumination")
WB_KELVIN = Range(2800.0, 6500.0, "K", "white balance (and light colour temperature)")
EXPOSURE_EV = Range(-1.0, 1.0, "EV", "exposure")
VIGNETTE = Range(0.0, 0.30, "", "vignetting: corner darkening")
NOISE_SIGMA = Range(0.0, 4.0, "/255", "sensor noise, std of every channel")
BLUR_SIGMA_PX = Range(0.0, 1.2, "px", "defocus blur (Gaussian sigma, at 12 MP)")
MOTION_PX = Range(0.0, 5.0, "px", "motion blur length (at 12 MP)")
GARDEN_TILES = Range(1, 16, "", "tiles in a garden")
GARDEN_LEVELS = Range(1, 5, "", "highest level of a garden")
GARDEN_DECORATIONS = Range(0, 25, "", "decorations in a garden")

SPEC = (MEGAPIXELS, LONG_SIDE_PX, JPEG_QUALITY, HEIGHT_MM, HFOV_DEG, TILT_DEG, ROLL_DEG, K1,
        LIGHT_ELEVATION_DEG, LIGHT_AZIMUTH_DEG, AMBIENT, WB_KELVIN, EXPOSURE_EV, VIGNETTE, NOISE_SIGMA,
        BLUR_SIGMA_PX, MOTION_PX)

# ------------------------------------------ the renderer's phone look (not in the spec: our choice)

K2 = Range(-0.02, 0.02, "", "second radial distortion term k2 (small)")
PRINCIPAL_POINT_OFFSET = Range(-0.03, 0.03, "", "principal point off centre, fraction of width/height")
CHROMATIC_ABERRATION_PX = Range(-1.2, 1.2, "px", "lateral CA: red/blue shift at the corner (12 MP)")
DOF_PX = Range(0.0, 6.0, "px", "depth of field: blur sigma per unit of relative depth off the focus (12 MP)")
CHROMA_NOISE = Range(0.2, 0.75, "", "share of the noise that is colour (chroma) noise")
CHROMA_GRAIN_PX = Range(2.5, 8.0, "px", "size of chroma-noise blotches (12 MP)")
SHARPEN_AMOUNT = Range(0.0, 1.2, "", "unsharp-mask amount (halos)")
SHARPEN_RADIUS_PX = Range(0.8, 2.5, "px", "unsharp-mask radius (12 MP)")
DENOISE = Range(0.0, 1.0, "", "denoising smear of fine low-contrast texture")
LOCAL_TONE = Range(0.0, 0.6, "", "local tone mapping (HDR look): shadows lifted, highlights held")
JPEG_SUBSAMPLING = ("4:2:0", "4:4:4")
BOARD_WARP_MM = Range(0.0, 1.5, "mm", "board bow: middle raised over its edges")
TILE_BOW_MM = Range(0.0, 0.6, "mm", "terrace tile bow: middle raised over its edges")
HOLE_DEPTH_MM = Range(0.8, 2.0, "mm", "depth of the board's hole recesses")

LOOK = (K2, PRINCIPAL_POINT_OFFSET, CHROMATIC_ABERRATION_PX, DOF_PX, CHROMA_NOISE, CHROMA_GRAIN_PX,
        SHARPEN_AMOUNT, SHARPEN_RADIUS_PX, DENOISE, LOCAL_TONE, BOARD_WARP_MM, TILE_BOW_MM, HOLE_DEPTH_MM)


def table(ranges: tuple[Range, ...] = SPEC, heading: str = "parameter") -> str:
    """A markdown table of ``ranges`` (what, range)."""
    rows = [f"| {heading} | range |", "| --- | --- |"]
    rows += [f"| {r.what} | {r} |" for r in ranges]
    return "\n".join(rows)


def tables() -> str:
    """The README's tables: the spec's ranges, then the renderer's own."""
    return table(SPEC, "spec section 3") + "\n\n" + table(LOOK, "the renderer's phone look (beyond the spec)")


if __name__ == "__main__":  # the README's tables of photo ranges: python -m vision.render.ranges
    print(tables())
