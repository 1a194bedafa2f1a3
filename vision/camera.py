"""The camera model shared by the renderer and the reader.

Pinhole with radial distortion: the spec's term k1 (section 3) and a small second term k2 (0 by
default), the same convention as OpenCV's ``distCoeffs = (k1, k2, 0, 0, 0)``:

    p_cam = R @ p_board + t                (board frame in mm, camera: x right, y down, z forward)
    x_u, y_u = X / Z, Y / Z
    x_d = x_u (1 + k1 r_u^2 + k2 r_u^4),  r_u^2 = x_u^2 + y_u^2
    u = fx x_d + cx,  v = fy y_d + cy      (pixel centres at integer coordinates)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


def radial_distort_scale(ru2: np.ndarray, k1: float, k2: float = 0.0) -> np.ndarray:
    """x_d / x_u as a function of r_u^2: 1 + k1 r_u^2 + k2 r_u^4 (any broadcastable shape)."""
    return 1.0 + ru2 * (k1 + k2 * ru2)


def radial_undistort_scale(rd2: np.ndarray, k1: float, k2: float = 0.0, iters: int = 6) -> np.ndarray:
    """x_u / x_d as a function of r_d^2, the inverse of :func:`radial_distort_scale`: Newton's method
    on the radius, r_d = r_u (1 + k1 r_u^2 + k2 r_u^4) (any broadcastable shape)."""
    rd = np.sqrt(rd2)
    if not k1 and not k2:
        return np.ones_like(rd)
    ru = rd.copy()
    for _ in range(iters):
        r2 = ru * ru
        ru = ru - (ru * (1 + r2 * (k1 + k2 * r2)) - rd) / (1 + r2 * (3 * k1 + 5 * k2 * r2))
    return np.where(rd > 1e-12, ru / np.maximum(rd, 1e-12), 1.0)


def in_image(uv: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Which pixel positions ``uv`` (..., 2: column, row, rounded) lie in an image of ``shape`` (rows,
    columns, ...)."""
    h, w = shape[:2]
    return (uv[..., 0] >= 0) & (uv[..., 0] < w) & (uv[..., 1] >= 0) & (uv[..., 1] < h)


@dataclass(frozen=True)
class Camera:
    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    R: np.ndarray  #: (3, 3) rotation, board frame -> camera frame
    t: np.ndarray  #: (3,) translation in mm
    k1: float = 0.0
    k2: float = 0.0  #: second radial term (not in the spec; small)

    @property
    def distorted(self) -> bool:
        return bool(self.k1 or self.k2)

    @property
    def K(self) -> np.ndarray:
        return np.array([[self.fx, 0, self.cx], [0, self.fy, self.cy], [0, 0, 1]], dtype=np.float64)

    @property
    def dist(self) -> np.ndarray:
        return np.array([self.k1, self.k2, 0.0, 0.0, 0.0])

    @property
    def position(self) -> np.ndarray:
        """The camera centre in the board frame (mm)."""
        return -self.R.T @ self.t

    @property
    def hfov_deg(self) -> float:
        """Field of view across the image's width."""
        return float(np.degrees(2 * np.arctan(self.width / (2 * self.fx))))

    @property
    def long_side_fov_deg(self) -> float:
        """Field of view across the image's long side (the width, or the height of a portrait)."""
        if self.height > self.width:
            return float(np.degrees(2 * np.arctan(self.height / (2 * self.fy))))
        return self.hfov_deg

    def to_camera(self, points: np.ndarray) -> np.ndarray:
        """Board-frame points (N, 3) -> camera-frame points (N, 3)."""
        return np.asarray(points, dtype=np.float64) @ self.R.T + self.t

    def project(self, points: np.ndarray, distort: bool = True) -> np.ndarray:
        """Board-frame points (N, 3) -> pixel coordinates (N, 2)."""
        pc = self.to_camera(np.atleast_2d(points))
        x, y = pc[:, 0] / pc[:, 2], pc[:, 1] / pc[:, 2]
        if distort and self.distorted:
            scale = radial_distort_scale(x * x + y * y, self.k1, self.k2)
            x, y = x * scale, y * scale
        out = np.empty((len(pc), 2))
        out[:, 0] = self.fx * x + self.cx
        out[:, 1] = self.fy * y + self.cy
        return out

    def undistort_normalised(self, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Distorted pixel coordinates (u, v) (arrays of any broadcastable shapes) -> undistorted
        normalised coordinates (x_u, y_u), by :func:`radial_undistort_scale`."""
        xd, yd = (u - self.cx) / self.fx, (v - self.cy) / self.fy
        s = radial_undistort_scale(xd * xd + yd * yd, self.k1, self.k2)
        return xd * s, yd * s

    def undistort_pixels(self, px: np.ndarray) -> np.ndarray:
        """Distorted pixel coordinates (N, 2) -> the pixels an ideal pinhole would have seen."""
        px = np.asarray(px, dtype=np.float64)
        if not self.distorted:
            return px
        xu, yu = self.undistort_normalised(px[:, 0], px[:, 1])
        return np.column_stack([xu * self.fx + self.cx, yu * self.fy + self.cy])

    def plane_homography(self, frame: np.ndarray) -> np.ndarray:
        """The undistorted 3 x 3 homography from plane coordinates (s, t, 1) to pixels, for the
        plane whose board-frame points are ``frame @ (s, t, 1)`` (columns u, v, o: the point
        o + s u + t v): K @ [R u, R v, R o + t]."""
        H = (self.K @ self.R) @ np.asarray(frame, dtype=np.float64)
        H[:, 2] += self.K @ self.t
        return H

    def homography(self, z: float = 0.0) -> np.ndarray:
        """The undistorted 3 x 3 homography from board-plane (x, y) at height z to pixels."""
        return self.plane_homography(np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, z]]))

    def with_size(self, width: int, height: int) -> Camera:
        """The same camera for an image scaled to (width, height)."""
        sx, sy = width / self.width, height / self.height
        return Camera(
            width, height, self.fx * sx, self.fy * sy,
            (self.cx + 0.5) * sx - 0.5, (self.cy + 0.5) * sy - 0.5, self.R, self.t, self.k1, self.k2,
        )

    @staticmethod
    def look_at(
        eye: np.ndarray, target: np.ndarray, up_hint: np.ndarray, width: int, height: int,
        hfov_deg: float, k1: float = 0.0, k2: float = 0.0,
    ) -> Camera:
        """A camera at ``eye`` (board frame) looking at ``target``; ``up_hint`` is a board-frame
        direction that should appear towards the top of the image."""
        eye, target = np.asarray(eye, float), np.asarray(target, float)
        z = target - eye
        z /= np.linalg.norm(z)
        y = -np.asarray(up_hint, float)  # image y points down
        y = y - z * (y @ z)
        y /= np.linalg.norm(y)
        # x = z cross y (the board frame, x right, y towards the player, z up, is left-handed)
        x = np.array([z[1] * y[2] - z[2] * y[1], z[2] * y[0] - z[0] * y[2], z[0] * y[1] - z[1] * y[0]])
        R = np.vstack([x, y, z])
        f = width / (2 * np.tan(np.radians(hfov_deg) / 2))
        return Camera(width, height, f, f, (width - 1) / 2, (height - 1) / 2, R, -R @ eye, k1, k2)

    def to_dict(self) -> dict[str, Any]:
        return {
            "image_size": [self.width, self.height],
            "K": self.K.round(6).tolist(),
            "k1": round(self.k1, 6),
            "k2": round(self.k2, 6),
            "R_board_to_cam": self.R.round(9).tolist(),
            "t_board_to_cam_mm": self.t.round(6).tolist(),
            "position_board_mm": self.position.round(6).tolist(),
            "hfov_deg": round(self.hfov_deg, 6),
        }

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Camera:
        K = np.asarray(d["K"], dtype=np.float64)
        w, h = d["image_size"]
        return Camera(
            int(w), int(h), K[0, 0], K[1, 1], K[0, 2], K[1, 2],
            np.asarray(d["R_board_to_cam"], dtype=np.float64),
            np.asarray(d["t_board_to_cam_mm"], dtype=np.float64), float(d.get("k1", 0.0)),
            float(d.get("k2", 0.0)),
        )
