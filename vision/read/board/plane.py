"""The board's plane in the photo (:class:`BoardFit`, what stage 2 returns) and the geometry it is
found with: homographies applied to points, the lens's radial distortion and its inverse, and which
side of the board a homography shows."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class BoardFit:
    """The board's plane in the photo."""

    H: np.ndarray  #: undistorted homography: board mm (x, y, 1) at z = 0 -> working-image pixels
    kappa: float  #: radial distortion in pixel units: u_d = c + (u - c) (1 + kappa |u - c|^2)
    centre: tuple[float, float]  #: the distortion centre (the image centre)
    holes: np.ndarray  #: (K, 2) measured hole centres (working pixels, distorted)
    hole_cells: np.ndarray  #: (K, 2) their cells (row, col); row/col 8+ are not used
    score: float  #: template agreement of the registration (NCC on the print outside the zone)
    residual_px: float = 0.0  #: RMS of the refined fit, in pixels
    evidence: dict = field(default_factory=dict)

    def distort(self, uv: np.ndarray) -> np.ndarray:
        """Ideal pinhole pixels -> the photo's (distorted) pixels."""
        return distort(uv, self.kappa, self.centre)

    def undistort(self, uv: np.ndarray) -> np.ndarray:
        return undistort(uv, self.kappa, self.centre)

    def project(self, xy: np.ndarray) -> np.ndarray:
        """Board-plane points (N, 2) in mm -> photo pixels (distorted)."""
        return self.distort(apply_h(self.H, xy))


# ------------------------------------------------------------------------------------ geometry


def cross2(a: np.ndarray, b: np.ndarray) -> float:
    """The z component of the cross product of two 2-D vectors."""
    return float(a[0] * b[1] - a[1] * b[0])


def apply_h(H: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Apply a homography to (N, 2) points."""
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    p = xy @ H[:, :2].T + H[:, 2]
    return p[:, :2] / p[:, 2:3]


def _project_many(Hs: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """:func:`apply_h` of homographies (n, 3, 3) to the same points (N, 2): (n, N, 2)."""
    q = Hs[:, :, :2] @ np.asarray(xy, np.float64).T + Hs[:, :, 2:]
    return np.moveaxis(q[:, :2] / q[:, 2:3], 1, 2)


def distort(uv: np.ndarray, kappa: float, centre: tuple[float, float]) -> np.ndarray:
    d = np.asarray(uv, dtype=np.float64) - centre
    return centre + d * (1.0 + kappa * np.sum(d * d, axis=1, keepdims=True))


def undistort(uv: np.ndarray, kappa: float, centre: tuple[float, float], iters: int = 8) -> np.ndarray:
    """Inverse of :func:`distort` by Newton's method on the radius."""
    d = np.asarray(uv, dtype=np.float64) - centre
    if not kappa:
        return d + centre
    rd = np.sqrt(np.sum(d * d, axis=1, keepdims=True))
    ru = rd.copy()
    for _ in range(iters):
        ru = ru - (ru * (1 + kappa * ru * ru) - rd) / (1 + 3 * kappa * ru * ru)
    s = np.where(rd > 1e-9, ru / np.maximum(rd, 1e-9), 1.0)
    return centre + d * s


def orientation_sign(H: np.ndarray, at: tuple[float, float]) -> float:
    """Sign of the Jacobian of a homography at a point: positive for a board seen from above."""
    return float(orientation_signs(H[None], at)[0])


def orientation_signs(Hs: np.ndarray, at: tuple[float, float]) -> np.ndarray:
    """:func:`orientation_sign` of homographies (n, 3, 3)."""
    p = _project_many(Hs, np.asarray(at, float) + np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    e1, e2 = p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]
    return np.sign(e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0])
