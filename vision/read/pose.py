"""Stage 3: the camera, from the board's plane homography.

With square pixels and the principal point at the image centre, a plane's homography fixes the
focal length through the two constraints of a rotation (its first two columns are orthogonal and
of equal length; Zhang's calibration with one unknown). When the camera looks nearly straight down
those constraints vanish and the homography only fixes f / distance: then the focal length stays
uncertain here (a range, from the phone's field of view, 60-80 degrees across the long side, or from
EXIF) and the terrace tiles, standing at known heights, decide it (:mod:`vision.read.tiles`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.camera import Camera

HFOV_RANGE = (58.0, 82.0)  #: field of view across the long side (spec: 60-80 degrees), with a margin
STRAIGHT_DOWN_DEG = 5.0  #: a view tilted less than this from straight down says nothing of the focal length
PP_OFF = 0.03  #: how far (share of the image's side) a phone's principal point may be off the middle


@dataclass(frozen=True)
class FocalEstimate:
    """What the board plane says about the focal length (pixels of the working image)."""

    f: float  #: the best estimate
    lo: float  #: plausible range
    hi: float
    from_plane: float | None  #: the homography's own estimate, when it has one
    tilt_deg: float  #: the camera's tilt from the board's normal (at ``f``)

    @property
    def certain(self) -> bool:
        return self.hi / self.lo < 1.03


def _centred(H: np.ndarray, c: tuple[float, float]) -> np.ndarray:
    T = np.array([[1.0, 0, -c[0]], [0, 1, -c[1]], [0, 0, 1]])
    Hc = T @ H
    return Hc / np.linalg.norm(Hc[:, :2])


def focal_from_homography(H: np.ndarray, c: tuple[float, float]) -> float | None:
    """Focal length (pixels) from a plane's homography, principal point ``c``; None when the two
    constraints do not give a positive 1/f^2 (a fronto-parallel view, or noise)."""
    h = _centred(H, c)
    h1, h2 = h[:, 0], h[:, 1]
    a = np.array([h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
    b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    den = float(a @ a)
    if den <= 0:
        return None
    w = -float(a @ b) / den
    return 1.0 / math.sqrt(w) if w > 0 else None


def pose_from_homography(H: np.ndarray, f: float, c: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Rotation (board -> camera, det -1: the board frame is left-handed) and translation (mm) of
    the camera that sees the board plane through ``H`` with focal length ``f``."""
    K = np.array([[f, 0, c[0]], [0, f, c[1]], [0, 0, 1.0]])
    M = np.linalg.solve(K, H)
    lam = 2.0 / (np.linalg.norm(M[:, 0]) + np.linalg.norm(M[:, 1]))
    if M[2, 2] * lam < 0:
        lam = -lam  # the board is in front of the camera
    r1, r2, t = lam * M[:, 0], lam * M[:, 1], lam * M[:, 2]
    r3 = -np.cross(r1, r2)
    U, _, Vt = np.linalg.svd(np.column_stack([r1, r2, r3]))
    R = U @ Vt  # the nearest orthogonal matrix; its determinant stays -1
    return R, t


def tilt_deg(R: np.ndarray) -> float:
    """Angle between the optical axis and the board's downward normal."""
    return float(np.degrees(np.arccos(np.clip(-R[2, 2], -1.0, 1.0))))


def fov_range(size: tuple[int, int]) -> tuple[float, float]:
    """The focal lengths (pixels) of the phone's field of view, :data:`HFOV_RANGE`."""
    long_side = max(size)
    return (
        long_side / (2 * math.tan(math.radians(HFOV_RANGE[1]) / 2)),
        long_side / (2 * math.tan(math.radians(HFOV_RANGE[0]) / 2)),
    )


def plane_range(H: np.ndarray, c: tuple[float, float], size: tuple[int, int]) -> tuple[float, float]:
    """The focal lengths the board's plane allows when the principal point may be anywhere within
    :data:`PP_OFF` of ``c``, within the phone's field of view. The plane's own estimate moves a lot
    with the principal point (at 25 degrees of tilt, 3 % off the middle moves it by 10 %), so a
    tilted view narrows the range and a view from straight above leaves the field of view's (within
    :data:`STRAIGHT_DOWN_DEG` of it the estimates scatter with a pixel's noise, most of them past the
    phone's lenses, and their few inside would narrow the range wrongly)."""
    lo, hi = fov_range(size)
    R, _ = pose_from_homography(H, math.sqrt(lo * hi), c)
    if tilt_deg(R) < STRAIGHT_DOWN_DEG:
        return lo, hi
    offsets = np.linspace(-PP_OFF, PP_OFF, 5)
    centres = [(c[0] + dx * size[0], c[1] + dy * size[1]) for dx in offsets for dy in offsets]
    fs = [focal_from_homography(H, pp) for pp in centres]
    if any(f is None for f in fs):
        return lo, hi
    plo, phi = min(fs) / 1.03, max(fs) * 1.03  # and 3 % for what the model leaves out (the board's warp)
    if plo >= hi or phi <= lo:
        return lo, hi
    return max(lo, plo), min(hi, phi)


def estimate_focal(
    H: np.ndarray, c: tuple[float, float], size: tuple[int, int], exif_f: float | None = None
) -> FocalEstimate:
    """The focal length the plane allows, with a plausible range (:func:`plane_range`); the middle of
    the range is the estimate, the tiles decide later (:mod:`vision.read.levelscale`). EXIF, when
    present, narrows the range to the lens's own."""
    lo, hi = plane_range(H, c, size)
    if exif_f:
        flo, fhi = fov_range(size)
        if flo * 0.8 < exif_f < fhi * 1.25:
            lo, hi = exif_f * 0.97, exif_f * 1.03
    f = math.sqrt(lo * hi)
    R, _ = pose_from_homography(H, f, c)
    return FocalEstimate(f, lo, hi, focal_from_homography(H, c), tilt_deg(R))


def camera_from_homography(
    H: np.ndarray, f: float, kappa: float, size: tuple[int, int], c: tuple[float, float]
) -> Camera:
    """The :class:`Camera` (working-image pixels) with focal length ``f`` that sees the board plane
    through ``H``; ``kappa`` is the pixel-unit radial distortion of :class:`vision.read.board.BoardFit`."""
    R, t = pose_from_homography(H, f, c)
    return Camera(int(size[0]), int(size[1]), f, f, c[0], c[1], R, t, kappa * f * f)


def camera_from_intrinsics(
    H: np.ndarray, f: float, c: tuple[float, float], kappa: float, size: tuple[int, int]
) -> Camera:
    """The camera with focal length ``f`` and principal point ``c`` that sees the board plane
    through ``H``."""
    R, t = pose_from_homography(H, f, c)
    return Camera(int(size[0]), int(size[1]), f, f, c[0], c[1], R, t, kappa * f * f)


FD_STEP = 1.5e-8  #: relative step of a forward difference (the square root of the float's epsilon)


REFINE_MIN_TILES = 3  #: :func:`refine_with_tiles` needs this many tiles seen well


def refine_with_tiles(
    H: np.ndarray,
    cam: Camera,
    kappa: float,
    observations: list,
    profile,
    size: tuple[int, int],
    focal: FocalEstimate,
) -> Camera:
    """The focal length and principal point that put the tiles' measured edges best on their
    levels' planes (the board plane alone cannot fix three intrinsics; the tiles, at known
    heights, can). ``observations``: (row, col, level, placement (dx, dy, turn degrees), tile points
    (N, 2) in tile mm, their undistorted photo pixels (N, 2), image normals (N, 2)). Each tile keeps
    its own placement as a free parameter. Returns ``cam`` unchanged when the tiles say too little."""
    from scipy.optimize import least_squares

    if len(observations) < REFINE_MIN_TILES or sum(len(o[4]) for o in observations) < 40:
        return cam
    c0 = np.array([cam.cx, cam.cy])
    long_side = max(size)

    free_f = not focal.certain  # EXIF gives the lens's focal length: only the rest is fitted

    def unpack(p: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        if not free_f:
            p = np.concatenate([[0.0], p])
        return cam.fx * np.exp(p[0]), c0 + p[1:3] * long_side, p[3:].reshape(-1, 3)

    # every tile's points in one array, with the index of its tile, for a vectorised residual
    local = np.vstack([o[4] for o in observations])
    uvu = np.vstack([o[5] for o in observations])
    nrm = np.vstack([o[6] for o in observations])
    owner = np.concatenate([np.full(len(o[4]), i) for i, o in enumerate(observations)])
    base = np.array([(*profile.block_centre(o[0], o[1]), profile.tile_top_z(o[2])) for o in observations])

    def model(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(principal point, placements, K R, the points' (K R X + K t), their turn's (cos, sin))."""
        f, c, pl = unpack(p)
        R, t = pose_from_homography(H, f, (c[0], c[1]))
        K = np.array([[f, 0, c[0]], [0, f, c[1]], [0, 0, 1.0]])
        KR, Kt = K @ R, K @ t
        dx, dy, th = pl[owner, 0], pl[owner, 1], pl[owner, 2]
        cs, sn = np.cos(th), np.sin(th)
        x = base[owner, 0] + dx + local[:, 0] * cs - local[:, 1] * sn
        y = base[owner, 1] + dy + local[:, 0] * sn + local[:, 1] * cs
        q = np.outer(x, KR[:, 0]) + np.outer(y, KR[:, 1]) + np.outer(base[owner, 2], KR[:, 2]) + Kt
        return c, pl, KR, q, np.stack([cs, sn])

    def residual(p: np.ndarray) -> np.ndarray:
        c, pl, _, q, _ = model(p)
        r = np.sum((uvu - q[:, :2] / q[:, 2:3]) * nrm, axis=1)
        # placements within a hand's reach of the blocks; the principal point near the middle (phones:
        # within a few percent)
        return np.concatenate([r, pl[:, :2].ravel() / 1.2, (c - c0) / (0.02 * long_side)])

    n_cam = 3 if free_f else 2  #: the camera's parameters, first in p; then each tile's dx, dy, turn
    n_obs = len(observations)

    def jacobian(p: np.ndarray) -> np.ndarray:
        """The camera's columns by forward differences; each tile's placement's in closed form (the
        same derivatives as :func:`vision.read.tilefit.fit_undistorted`'s): a few evaluations of the
        residual where differences on every column took three per tile."""
        r0 = residual(p)
        J = np.zeros((len(r0), len(p)))
        for j in range(n_cam):
            step = FD_STEP * max(1.0, abs(p[j]))
            moved = p.copy()
            moved[j] += step
            J[:, j] = (residual(moved) - r0) / step
        _, _, KR, q, (cs, sn) = model(p)
        inv_z = 1.0 / q[:, 2]
        pn = np.sum(q[:, :2] * inv_z[:, None] * nrm, axis=1)
        dn = (nrm @ KR[:2] - pn[:, None] * KR[2]) * inv_z[:, None]
        rows, col = np.arange(len(local)), n_cam + 3 * owner
        J[rows, col] = -dn[:, 0]
        J[rows, col + 1] = -dn[:, 1]
        J[rows, col + 2] = -(
            dn[:, 0] * (-local[:, 0] * sn - local[:, 1] * cs)
            + dn[:, 1] * (local[:, 0] * cs - local[:, 1] * sn)
        )
        tiles = np.arange(n_obs)
        J[len(local) + 2 * tiles, n_cam + 3 * tiles] = 1 / 1.2
        J[len(local) + 2 * tiles + 1, n_cam + 3 * tiles + 1] = 1 / 1.2
        return J

    p0 = np.concatenate([[0.0, 0.0, 0.0]] + [[o[3][0], o[3][1], np.radians(o[3][2])] for o in observations])
    p0 = p0 if free_f else p0[1:]
    try:
        sol = least_squares(
            residual, p0, jac=jacobian, loss="cauchy", f_scale=0.7, x_scale="jac", max_nfev=60
        )
    except (ValueError, np.linalg.LinAlgError):
        return cam
    f, c, _ = unpack(sol.x)
    # the field of view bounds the focal length (the plane's range holds for any principal point)
    long_fov = 2 * math.degrees(math.atan(long_side / (2 * f)))
    if not (HFOV_RANGE[0] <= long_fov <= HFOV_RANGE[1]):
        return cam
    return camera_from_intrinsics(H, f, (float(c[0]), float(c[1])), kappa, size)
