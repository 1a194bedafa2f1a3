"""Stage 2: find the player board in the photo and fit its plane homography.

The board's most telling print is the lattice of holes, one at the centre of each of the 64 cells
on a 30 mm pitch: near-black discs on light sand, and a dozen or more stay visible in any finished
garden. The reader

1. finds dark, round blobs (:func:`hole_candidates`);
2. finds the projective lattice that explains most of them (:func:`fit_lattices`, RANSAC over
   4-blob cells);
3. decides which lattice node is which cell, i.e. the board's position and rotation
   (:func:`register`): every placement of the 8 x 8 grid and every quarter turn that keeps the
   holes on the board is scored against what is printed where no tile can stand: the frame line,
   the storage strip with the flower emblem, the tile recess and the pillar slots;
   when none registers (tiles hide nearly every hole), the storage strip's slots and the board's
   outline against the table are tried (:func:`register_slots`, :func:`outline_quads`,
   :func:`register_outline`), and last the best weak placements, refined with the lens and scored
   again (:func:`_refined_weak`);
4. refines the homography and the lens distortion on all the evidence (:func:`refine`): every
   hole centre, measured to a fraction of a pixel, and the inner edge of the printed frame line.

Pixel coordinates are those of the working image; board coordinates are millimetres in the board
frame (:mod:`vision.profile`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from itertools import product

import cv2
import numpy as np
from scipy.optimize import least_squares, minimize
from scipy.spatial import cKDTree

from scoring.garden import GRID
from vision.profile import Profile
from vision.read.load import PhotoError

DETECT_LONG_SIDE = 1000  #: blobs and lattices are found at this size
LATTICE_TOL = 0.17  #: a blob is on the lattice within this fraction of the pitch
MIN_HOLES = 5  #: fewer lattice holes than this is no board
HOLE_SCORES = (0.55, 0.35)  #: the holes are looked for among blobs this hole-like, the stricter first


class NoBoardError(PhotoError):
    """The photo shows no readable player board."""


@dataclass(frozen=True)
class Lattice:
    """A projective lattice of blobs: ``G`` maps lattice coordinates (m, n, 1) to pixels."""

    G: np.ndarray
    points: np.ndarray  #: (K, 2) pixel positions of the blobs on it
    index: np.ndarray  #: (K, 2) their integer lattice coordinates (m, n)


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


# ------------------------------------------------------------------------------------- stage 2a


def green_mask(bgr: np.ndarray) -> np.ndarray:
    """Pixels of the tiles' garden green (a broad hue band, so that white balance does not matter)."""
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
    return (hsv[..., 0] >= 28) & (hsv[..., 0] <= 92) & (hsv[..., 1] > 70) & (hsv[..., 2] > 40)


def _ring(img: np.ndarray, blobs: np.ndarray, k: float, n: int = 24) -> np.ndarray:
    """Samples of ``img`` on a circle of radius ``k`` times each blob's diameter: (N, n)."""
    ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
    r = k * blobs[:, 2:3]
    x = np.clip(np.round(blobs[:, :1] + r * np.cos(ang)), 0, img.shape[1] - 1).astype(int)
    y = np.clip(np.round(blobs[:, 1:2] + r * np.sin(ang)), 0, img.shape[0] - 1).astype(int)
    return img[y, x]


def hole_candidates(
    bgr: np.ndarray, min_score: float = 0.35, min_d: float = 5.0, max_d: float = 34.0
) -> np.ndarray:
    """Dark, round, convex blobs that look like the board's holes: much darker than a ring just
    outside them, and not sitting in a tile's green field (the icons on the tiles' plaques are dark
    blobs too). Returns an (N, 4) array of x, y, diameter in pixels of ``bgr``, and a score of how
    hole-like each is: relative contrast with its ring less a quarter of the ring's unevenness (a
    hole in the open scores about 0.75, the dark squares of a checked cloth about 0.35); blobs
    under ``min_score`` are left out."""
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    p = cv2.SimpleBlobDetector_Params()
    p.filterByColor = True
    p.blobColor = 0
    p.minThreshold, p.maxThreshold, p.thresholdStep = 20, 170, 10
    p.minRepeatability = 2
    p.filterByArea = True
    p.minArea, p.maxArea = np.pi * (min_d / 2) ** 2, np.pi * (max_d / 2) ** 2
    p.filterByCircularity = True
    p.minCircularity = 0.6
    p.filterByInertia = True
    p.minInertiaRatio = 0.3
    p.filterByConvexity = True
    p.minConvexity = 0.85
    p.minDistBetweenBlobs = min_d
    kps = cv2.SimpleBlobDetector_create(p).detect(gray)
    blobs = np.array([[k.pt[0], k.pt[1], k.size] for k in kps], dtype=np.float64).reshape(-1, 3)
    if not len(blobs):
        return np.zeros((0, 4))
    centre = gray[
        np.clip(np.round(blobs[:, 1]).astype(int), 0, gray.shape[0] - 1),
        np.clip(np.round(blobs[:, 0]).astype(int), 0, gray.shape[1] - 1),
    ].astype(float)
    ring = _ring(gray, blobs, 0.9).astype(float)
    lo, mid, hi = np.percentile(ring, [10, 50, 90], axis=1)
    contrast = mid - centre
    # a hole is near black inside an even light ring (its printed cell); a dark check of a cloth,
    # a shadow or a piece is greyer, or has an uneven ring
    score = contrast / np.maximum(mid, 1.0) - 0.25 * np.minimum((hi - lo) / np.maximum(contrast, 1.0), 2.0)
    green = green_mask(bgr).astype(np.float32)
    near, far = _ring(green, blobs, 0.75).mean(axis=1), _ring(green, blobs, 1.4).mean(axis=1)
    keep = (contrast > 25.0) & (near < 0.35) & (far < 0.5) & (score >= min_score)
    return np.column_stack([blobs[keep], score[keep]])


def _lattice_coords(G_inv: np.ndarray, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    q = apply_h(G_inv, pts)
    r = np.round(q)
    return r, np.max(np.abs(q - r), axis=1)


def _unique_inliers(pts: np.ndarray, idx: np.ndarray, err: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Indices of inliers, one blob per lattice node (the closest)."""
    best: dict[tuple[int, int], int] = {}
    for i in np.flatnonzero(ok):
        key = (int(idx[i, 0]), int(idx[i, 1]))
        if key not in best or err[i] < err[best[key]]:
            best[key] = int(i)
    return np.array(sorted(best.values()), dtype=int)


def _window(idx: np.ndarray) -> np.ndarray:
    """Mask of the lattice points inside the GRID x GRID window that holds most of them."""
    lo = idx.min(axis=0)
    span = idx.max(axis=0) - lo + 1
    hist = np.zeros((span[0] + GRID, span[1] + GRID), np.int32)
    np.add.at(hist, (idx[:, 0] - lo[0] + GRID - 1, idx[:, 1] - lo[1] + GRID - 1), 1)
    c = np.pad(hist.cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    win = c[GRID:, GRID:] - c[:-GRID, GRID:] - c[GRID:, :-GRID] + c[:-GRID, :-GRID]
    i, j = np.unravel_index(int(np.argmax(win)), win.shape)
    m0, n0 = i + lo[0] - GRID + 1, j + lo[1] - GRID + 1
    return np.all((idx >= [m0, n0]) & (idx < [m0 + GRID, n0 + GRID]), axis=1)


def _robust_fit(idx: np.ndarray, pts: np.ndarray, projective: bool) -> tuple[np.ndarray | None, np.ndarray]:
    """Lattice -> pixels by RANSAC (affine, or a homography once the support allows), with a
    threshold of a tenth of the local pitch, then least squares on the inliers. Returns
    (3 x 3 matrix, inlier mask)."""
    none = (None, np.zeros(len(pts), bool))
    idx = idx.astype(np.float64)
    A0 = cv2.estimateAffine2D(idx, pts, method=cv2.LMEDS)[0] if len(pts) >= 3 else None
    if A0 is None:
        return none
    thr = max(1.0, 0.1 * float(np.sqrt(abs(np.linalg.det(A0[:, :2])))))
    if projective and len(pts) >= 8:
        G, m = cv2.findHomography(idx, pts, cv2.RANSAC, thr, maxIters=500, confidence=0.999)
        if G is None:
            return none
        ok = m.ravel().astype(bool)
        if ok.sum() >= 5:
            G = cv2.findHomography(idx[ok], pts[ok], 0)[0]
    else:
        A, m = cv2.estimateAffine2D(idx, pts, method=cv2.RANSAC, ransacReprojThreshold=1.5 * thr)
        if A is None:
            return none
        ok = m.ravel().astype(bool)
        G = np.vstack([A, [0, 0, 1.0]])
    if G is None or abs(np.linalg.det(G)) < 1e-12:
        return none
    return G, ok


def _pitch_fits(G: np.ndarray, q: np.ndarray, blobs: np.ndarray) -> np.ndarray:
    """Whether each blob's diameter fits a hole at its place on the lattice (the pitch is about 2.7
    hole diameters; the icons on tiles and the tiles' plaques are other sizes)."""
    step = np.sqrt(np.abs(np.linalg.det(_local_affine(G, q))))
    r = blobs[:, 2] / np.maximum(step, 1e-6)
    return (r > 0.22) & (r < 0.6)


def _local_affine(G: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The Jacobian (N, 2, 2) of the lattice -> pixel map at lattice points q (N, 2)."""
    e = 0.5
    p0 = apply_h(G, q)
    jx = (apply_h(G, q + [e, 0]) - p0) / e
    jy = (apply_h(G, q + [0, e]) - p0) / e
    return np.stack([jx, jy], axis=2)


def _grow(pts: np.ndarray, G: np.ndarray, blobs: np.ndarray) -> Lattice | None:
    """Grow a lattice from a local hypothesis ``G`` (lattice -> pixels, right near its origin):
    accept the blobs near lattice nodes within a radius that widens step by step, refitting on them
    (an affine map while the support is small, then a homography), then keep the best 8 x 8 window
    and tighten the tolerance."""
    inl = np.arange(0)
    schedule = (
        (2.5, 0.22, False),
        (4.5, 0.25, False),
        (8.0, LATTICE_TOL, True),
        (12.0, LATTICE_TOL, True),
        (12.0, 0.12, True),
    )
    for radius, tol, projective in schedule:
        for _ in range(4):  # refit until the inliers (and their lattice indices) settle
            q = apply_h(np.linalg.inv(G), pts)
            idx = np.round(q)
            err = np.max(np.abs(q - idx), axis=1)
            ok = (err < tol) & (np.max(np.abs(idx), axis=1) <= radius) & _pitch_fits(G, q, blobs)
            new = _unique_inliers(pts, idx, err, ok)
            if radius >= 8 and len(new):
                new = new[_window(idx[new].astype(int))]
            if len(new) < (8 if projective else 4):
                if radius < 12:
                    break  # too few holes this close to fit on: look further out first
                if len(new) < 4:
                    return None
                projective = False
            G2, good = _robust_fit(idx[new], pts[new], projective)
            if G2 is None:
                return None
            settled = np.array_equal(new[good], inl)
            inl, G = new[good], G2
            if settled:
                break
    if len(inl) < 4:
        return None
    idx = np.round(apply_h(np.linalg.inv(G), pts[inl])).astype(int)
    return Lattice(G, pts[inl], idx)


def fit_lattices(blobs: np.ndarray, max_grow: int = 40, keep: int = 6, pairs: bool = False) -> list[Lattice]:
    """The projective lattices that explain most blobs, best first (at most ``keep``, disjoint).

    Hypotheses are L-shaped triples: a blob and two neighbours at about the pitch (relative to the
    blob's size) in roughly perpendicular directions, i.e. an affine lattice near that blob; with
    ``pairs`` (for boards whose few visible holes are scattered), also a blob and one neighbour, the
    second axis guessed perpendicular at a few lengths. Each is scored by the blobs it explains
    nearby; the best are grown into projective lattices."""
    if len(blobs) < 4:
        return []
    pts, size = blobs[:, :2], blobs[:, 2]
    tree = cKDTree(pts)
    k = min(9, len(pts))
    dist, nb = tree.query(pts, k=k)
    # how many pitches away each neighbour is, from the blob's size (pitch ~ 2.7 hole diameters)
    steps = np.round(dist / (2.73 * size[:, None]))
    ratio = dist / (2.73 * size[:, None] * np.maximum(steps, 1))
    usable = (steps >= 1) & (steps <= 2) & (ratio > 0.62) & (ratio < 1.6)
    hyps = []
    for i in range(len(pts)):
        for a in range(1, k):
            if not usable[i, a]:
                continue
            for b in range(a + 1, k):
                if not usable[i, b]:
                    continue
                va = (pts[nb[i, a]] - pts[i]) / steps[i, a]
                vb = (pts[nb[i, b]] - pts[i]) / steps[i, b]
                la, lb = np.linalg.norm(va), np.linalg.norm(vb)
                if not 0.6 < la / lb < 1.67 or abs(va @ vb) / (la * lb) > 0.45:
                    continue
                if va[0] * vb[1] - va[1] * vb[0] < 0:
                    va, vb = vb, va
                hyps.append(np.array([[va[0], vb[0], pts[i, 0]], [va[1], vb[1], pts[i, 1]], [0, 0, 1.0]]))
    if pairs:
        for i in range(len(pts)):
            for a in range(1, k):
                if not usable[i, a]:
                    continue
                va = (pts[nb[i, a]] - pts[i]) / steps[i, a]
                for sign in (1.0, -1.0):
                    for stretch in (0.8, 1.0, 1.25):
                        vb = sign * stretch * np.array([-va[1], va[0]])
                        if va[0] * vb[1] - va[1] * vb[0] < 0:
                            continue
                        hyps.append(
                            np.array([[va[0], vb[0], pts[i, 0]], [va[1], vb[1], pts[i, 1]], [0, 0, 1.0]])
                        )
    if not hyps:
        return []
    # quick local score of every hypothesis: blobs within 3 nodes that sit on its nodes
    seeds = np.array([int(tree.query(G[:2, 2])[1]) for G in hyps])
    scores = []
    for G in hyps:
        q = apply_h(np.linalg.inv(G), pts)
        r = np.round(q)
        ok = (np.max(np.abs(q - r), axis=1) < LATTICE_TOL) & (np.max(np.abs(r), axis=1) <= 3)
        scores.append(int((ok & _pitch_fits(G, q, blobs)).sum()))
    found: list[Lattice] = []
    seen: list[frozenset[int]] = []
    tried: set[int] = set()
    grown = 0
    for c in np.argsort(scores, kind="stable")[::-1]:
        if grown >= max_grow or scores[c] < 3:
            break
        if seeds[c] in tried:
            continue  # a lattice through this blob was grown already
        grown += 1
        lat = _grow(pts, hyps[c], blobs)
        tried.add(int(seeds[c]))
        if lat is None or len(lat.points) < MIN_HOLES:
            continue
        members = frozenset(map(int, tree.query(lat.points)[1]))
        if len(members) >= 12:  # a well-supported lattice: no need to grow it again from its members
            tried |= members
        j = next(
            (j for j, s_ in enumerate(seen) if len(members & s_) > 0.5 * min(len(members), len(s_))), None
        )
        if j is not None:
            if len(members) > len(seen[j]):
                seen[j], found[j] = members, lat
            continue
        seen.append(members)
        found.append(lat)
    found.sort(key=lambda lt: -len(lt.points))
    return found[:keep]


# ------------------------------------------------------------------------------------- stage 2b


def _symmetries() -> list[np.ndarray]:
    """The eight symmetries of the square lattice, as 2 x 2 integer matrices (the lattice's own
    axes may be either handed; :func:`orientation_sign` keeps the placements seen from above)."""
    r = np.array([[0, -1], [1, 0]])
    m = np.array([[1, 0], [0, -1]])
    turns = [np.linalg.matrix_power(r, k) for k in range(4)]
    return turns + [t @ m for t in turns]


def board_template(profile: Profile, ppm: float) -> tuple[np.ndarray, np.ndarray]:
    """A luminance picture of the board's print outside the building zone, and the mask of where it
    is always visible (the margin around the zone and the storage strip), at ``ppm`` px per mm.

    Drawn from the profile's geometry with relative luminances only, so it does not depend on the
    exact colours of a copy of the game."""
    b = profile.board
    w, h = round(b.width * ppm), round(b.depth * ppm)
    lum = lambda hx: float(np.dot([0.299, 0.587, 0.114], [int(hx[i : i + 2], 16) for i in (1, 3, 5)]))  # noqa: E731
    t = np.full((h, w), lum(b.colour), np.float32)
    fw = round(b.frame_width * ppm)
    t[:fw, :] = t[-fw:, :] = lum(b.frame_colour)
    t[:, :fw] = t[:, -fw:] = lum(b.frame_colour)
    s = lambda v: round(v * ppm)  # noqa: E731
    x0, y0, x1, y1 = b.recess
    t[s(y0) : s(y1), s(x0) : s(x1)] = lum(b.recess_colour)
    cv2.rectangle(t, (s(x0), s(y0)), (s(x1), s(y1)), lum(b.frame_colour), max(1, s(b.recess_line)))
    ex, ey = b.emblem_centre
    cv2.circle(t, (s(ex), s(ey)), s(b.emblem_diameter / 2), lum(b.emblem_colour), -1)
    cv2.circle(t, (s(ex), s(ey)), s(b.emblem_centre_diameter / 2), lum(b.emblem_centre_colour), -1)
    for px, py in b.pillar_slots:
        cv2.circle(t, (s(px), s(py)), s(b.hole_diameter / 2), lum(b.hole_colour), -1)
    mask = np.ones((h, w), np.uint8)
    ox, oy = b.grid_origin
    zone = GRID * b.pitch
    mask[s(oy - 2) : s(oy + zone + 2), s(ox - 2) : s(ox + zone + 2)] = 0
    # the emblem's petals are in the board's flower colour, unknown here: leave the emblem's ring out
    cv2.circle(mask, (s(ex), s(ey)), s(b.emblem_diameter / 2), 0, -1)
    cv2.circle(mask, (s(ex), s(ey)), s(b.emblem_diameter * 0.28), 1, -1)
    return t, mask.astype(bool)


def cell_to_board(profile: Profile) -> np.ndarray:
    """The affine map (col, row, 1) of hole centres -> board mm (x, y, 1)."""
    b = profile.board
    ox, oy = b.grid_origin
    p = b.pitch
    return np.array([[p, 0, ox + p / 2], [0, p, oy + p / 2], [0, 0, 1.0]])


def _template_samples(profile: Profile, n: int = 3000) -> tuple[np.ndarray, np.ndarray]:
    """Board points (n, 2) in mm where :func:`board_template` is always visible, and its values."""
    ppm = 2.0
    tmpl, mask = board_template(profile, ppm)
    ys, xs = np.nonzero(mask)
    pick = np.random.default_rng(0).choice(len(xs), size=min(n, len(xs)), replace=False)
    xy = np.column_stack([xs[pick], ys[pick]]).astype(np.float64) / ppm + 0.5 / ppm
    return xy, tmpl[ys[pick], xs[pick]].astype(np.float64)


def _sample(gray: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """Bilinear samples of ``gray`` at pixel positions (N, 2); 0 outside the image."""
    m = uv.astype(np.float32).reshape(1, -1, 2)
    return (
        cv2.remap(gray, m, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        .reshape(-1)
        .astype(np.float64)
    )


def _ncc_vec(x: np.ndarray, y: np.ndarray) -> float:
    x = x - x.mean()
    y = y - y.mean()
    d = np.sqrt((x * x).sum() * (y * y).sum())
    return float((x * y).sum() / d) if d > 0 else 0.0


def _agreement_in_frame(gray: np.ndarray, H: np.ndarray, xy: np.ndarray, values: np.ndarray) -> float | None:
    """The template's agreement (:func:`_ncc_vec`) with the photo under ``H`` (board mm -> pixels), on
    the template samples in the photo; None when the board is not wholly in the photo (under 90% of
    the samples)."""
    return _agreements_in_frame(gray, H[None], xy, values)[0]


def _agreements_in_frame(
    gray: np.ndarray, Hs: np.ndarray, xy: np.ndarray, values: np.ndarray
) -> list[float | None]:
    """:func:`_agreement_in_frame` of many homographies (n, 3, 3), the photo sampled for all at once."""
    if not len(Hs):
        return []
    return _agreements_at(gray, _project_many(Hs, xy), values)


def _agreements_at(gray: np.ndarray, uv: np.ndarray, values: np.ndarray) -> list[float | None]:
    """:func:`_agreement_in_frame` of the template samples already placed at pixels ``uv`` (n, N, 2),
    n placements at once (one placed through the lens's distortion, too: :func:`_refined_weak`)."""
    h, w = gray.shape
    seen = (uv[..., 0] >= 0) & (uv[..., 0] < w - 1) & (uv[..., 1] >= 0) & (uv[..., 1] < h - 1)
    got = cv2.remap(gray, uv.astype(np.float32), None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    return [
        _ncc_vec(got[i][seen[i]].astype(np.float64), values[seen[i]]) if seen[i].mean() >= 0.9 else None
        for i in range(len(uv))
    ]


def register(
    gray: np.ndarray, lattice: Lattice, profile: Profile
) -> list[tuple[float, np.ndarray, np.ndarray, np.ndarray]]:
    """Every placement of the cell grid on the lattice (a symmetry of the square lattice and an
    offset) that puts enough of the lattice's holes on the 8 x 8 grid and shows the board from
    above, scored by the normalised cross-correlation of the photo with :func:`board_template`
    where the print is always visible. Returns ``(score, H, cells, points)`` best first: ``H`` maps
    board mm -> pixels, ``cells`` (K, 2) are the (row, col) of the lattice holes on the grid and
    ``points`` their pixels."""
    xy, values = _template_samples(profile)
    from_board = np.linalg.inv(cell_to_board(profile))
    centre = (profile.board.width / 2, profile.board.depth / 2)
    Hs, cells, points = [], [], []
    for A in _symmetries():
        cr = lattice.index @ A.T  # (col, row) up to an offset
        lo, hi = cr.min(axis=0), cr.max(axis=0)
        offsets = np.array(
            [(oc, orow) for oc in range(-hi[0], GRID - lo[0]) for orow in range(-hi[1], GRID - lo[1])]
        )
        g = cr[None] + offsets[:, None]
        inside = np.all((g >= 0) & (g < GRID), axis=2)
        n_in = inside.sum(axis=1)
        keep = np.flatnonzero(n_in >= max(MIN_HOLES, 0.5 * n_in.max()))
        # lattice (m, n) -> (col, row) = A (m, n) + o, whose inverse is A^T ((col, row) - o)
        inv_l = np.zeros((len(keep), 3, 3))
        inv_l[:, :2, :2] = A.T
        inv_l[:, :2, 2] = -offsets[keep] @ A
        inv_l[:, 2, 2] = 1.0
        H = lattice.G @ inv_l @ from_board
        H /= H[:, 2:, 2:]
        for j in np.flatnonzero(orientation_signs(H, centre) > 0):  # the board seen from above
            i = keep[j]
            Hs.append(H[j])
            cells.append(g[i][inside[i]][:, ::-1])
            points.append(lattice.points[inside[i]])
    scores = _agreements_in_frame(gray, np.array(Hs).reshape(-1, 3, 3), xy, values)
    # (a score of None: the board is not wholly in the photo)
    out = [
        (sc, *placed)
        for sc, placed in zip(scores, zip(Hs, cells, points, strict=True), strict=True)
        if sc is not None
    ]
    out.sort(key=lambda o: -o[0])
    return out


def register_slots(
    gray: np.ndarray, lattice: Lattice, profile: Profile
) -> list[tuple[float, np.ndarray, np.ndarray, np.ndarray]]:
    """Every placement of the storage strip's pillar slots on the lattice, scored like :func:`register`.
    Where tiles hide nearly every hole of the building zone, the six slots, never covered, are the
    holes the photo shows best, and the lattice fitted to them is no part of the 30 mm grid (they lie
    on their own grid, 30 by 40 mm): each lattice point that falls on a slot places the board."""
    slots = np.array(profile.board.pillar_slots, float)
    xs, ys = np.unique(slots[:, 0]), np.unique(slots[:, 1])
    on_grid = {(int(np.searchsorted(xs, x)), int(np.searchsorted(ys, y))): (x, y) for x, y in slots}
    centre = (profile.board.width / 2, profile.board.depth / 2)
    Hs = []
    for A in _symmetries():
        cr = lattice.index @ A.T
        lo, hi = cr.min(axis=0), cr.max(axis=0)
        for offset in product(range(-hi[0], len(xs) - lo[0]), range(-hi[1], len(ys) - lo[1])):
            g = cr + offset
            inside = [i for i, key in enumerate(map(tuple, g)) if key in on_grid]
            if len(inside) < 4:
                continue
            src = np.array([on_grid[tuple(g[i])] for i in inside])
            if np.linalg.matrix_rank(src - src.mean(axis=0)) < 2:  # one row of slots fixes no plane
                continue
            H, _ = cv2.findHomography(src, lattice.points[inside, :2], 0)
            if H is not None and orientation_sign(H, centre) > 0:
                Hs.append(H / H[2, 2])
    if not Hs:
        return []
    xy, values = _template_samples(profile)
    scores = _agreements_in_frame(gray, np.array(Hs), xy, values)
    empty = (np.zeros((0, 2), int), np.zeros((0, 2)))
    return sorted(
        ((sc, H, *empty) for sc, H in zip(scores, Hs, strict=True) if sc is not None), key=lambda r: -r[0]
    )


def outline_quads(gray: np.ndarray, min_area: float = 0.02) -> list[np.ndarray]:
    """Convex quadrilaterals outlined in a grey image (a board's edge against the table), each (4, 2)
    pixels in contour order, the largest first: the cue left when tiles hide nearly every hole."""
    blur = cv2.GaussianBlur(gray, (0, 0), 1.5)
    edges = cv2.dilate(cv2.Canny(blur, 40, 120), np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    quads = []
    for c in contours:
        hull = cv2.convexHull(c)
        area = cv2.contourArea(hull)
        if area < min_area * gray.size:
            continue
        quad = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True).reshape(-1, 2)
        if len(quad) == 4:
            quads.append((area, quad.astype(np.float64)))
    quads.sort(key=lambda q: -q[0])
    return [q for _, q in quads]


def register_outline(
    gray: np.ndarray, quads: list[np.ndarray], profile: Profile, max_quads: int = 2
) -> list[tuple[float, np.ndarray, np.ndarray, np.ndarray]]:
    """Each quadrilateral taken as the board's outline, in every turn that shows the board from above,
    its corners then moved to where the template agrees best (a contour found runs a few pixels inside
    or outside the board's edge), scored like :func:`register` (no holes are matched: ``cells`` and
    ``points`` are empty)."""
    xy, values = _template_samples(profile)
    b = profile.board
    corners = b.corners[:, :2].astype(np.float32)
    centre = (b.width / 2, b.depth / 2)
    # a smoother agreement to climb first, then a sharper one
    smooth = [cv2.GaussianBlur(gray, (0, 0), sigma) for sigma in (4.0, 1.5)]

    def homography(quad: np.ndarray) -> np.ndarray:
        return cv2.getPerspectiveTransform(corners, quad.astype(np.float32))

    def agreement(image: np.ndarray, quad: np.ndarray) -> float:
        return _ncc_vec(_sample(image, apply_h(homography(quad), xy)), values)

    out = []
    for quad in quads[:max_quads]:
        for turn in range(4):
            for order in (quad, quad[::-1]):
                q0 = np.roll(order, turn, axis=0)
                if orientation_sign(homography(q0), centre) <= 0:
                    continue
                d = np.zeros(8)
                for image in smooth:
                    d = minimize(
                        lambda d, q0=q0, image=image: -agreement(image, q0 + d.reshape(4, 2)),
                        d,
                        method="Powell",
                        options={"xtol": 0.3, "ftol": 1e-4, "maxfev": 800},
                    ).x
                H = homography(q0 + d.reshape(4, 2))
                score = _agreement_in_frame(gray, H, xy, values)
                if score is not None:
                    out.append((score, H, np.zeros((0, 2), int), np.zeros((0, 2))))
    out.sort(key=lambda o: -o[0])
    return out


# ------------------------------------------------------------------------------------- stage 2c


def _percentiles(values: np.ndarray, qs: tuple[float, ...]) -> np.ndarray:
    """``np.percentile(values, qs)`` (linear interpolation) by a partial sort: the same values, without
    the general function's overhead, which dominated the hundreds of small windows of a photo."""
    flat = values.ravel()
    pos = np.asarray(qs, float) / 100.0 * (flat.size - 1)
    lo = np.floor(pos).astype(int)
    hi = np.minimum(lo + 1, flat.size - 1)
    part = np.partition(flat, np.unique(np.concatenate([lo, hi])))
    return part[lo] + (part[hi] - part[lo]) * (pos - lo)


def hole_centre(gray: np.ndarray, uv: np.ndarray, radius_px: float) -> np.ndarray | None:
    """The centre of a dark hole near ``uv``, to a fraction of a pixel: the centroid of the dark
    blob at the middle of the local dark and light levels, or None where the window shows no whole
    hole of about the expected size (``radius_px``)."""
    r = int(np.ceil(radius_px * 2.2)) + 2
    x0, y0 = int(round(uv[0])) - r, int(round(uv[1])) - r
    if x0 < 0 or y0 < 0 or x0 + 2 * r + 1 > gray.shape[1] or y0 + 2 * r + 1 > gray.shape[0]:
        return None
    win = gray[y0 : y0 + 2 * r + 1, x0 : x0 + 2 * r + 1].astype(np.float32)
    dark, light = _percentiles(win, (3, 70))
    if light - dark < 25:
        return None
    mask = (win < (dark + light) / 2).astype(np.uint8)
    n, lab, stats, cent = cv2.connectedComponentsWithStats(mask, connectivity=8)
    c = np.array([uv[0] - x0, uv[1] - y0])
    best, best_d = None, radius_px
    for i in range(1, n):
        d = np.hypot(*(cent[i] - c))
        if d < best_d:
            best, best_d = i, d
    if best is None:
        return None
    area = stats[best, cv2.CC_STAT_AREA]
    expect = np.pi * radius_px**2
    x, y, w, h = stats[best, :4]
    if (
        not 0.55 * expect < area < 1.6 * expect
        or x == 0
        or y == 0
        or x + w >= win.shape[1]
        or y + h >= win.shape[0]
    ):
        return None
    # the grey-level centroid of the blob (weights: how much darker than the light level)
    ys, xs = np.nonzero(lab == best)
    wts = light - win[ys, xs]
    return np.array([x0 + (xs * wts).sum() / wts.sum(), y0 + (ys * wts).sum() / wts.sum()])


def frame_edge_points(
    gray: np.ndarray, project: Callable[[np.ndarray], np.ndarray], profile: Profile, step: float = 6.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sub-pixel points of the inner edge of the printed frame line (light sand inside, the dark
    frame line outside), searched along the predicted edge's normal. Returns (board points (N, 2),
    unit normals in the image (N, 2), measured pixels (N, 2))."""
    b = profile.board
    fw, W, D = b.frame_width, b.width, b.depth
    lines = []  # (start, end, inward normal in board coordinates)
    lines.append(((fw, fw), (W - fw, fw), (0, 1)))
    lines.append(((W - fw, fw), (W - fw, D - fw), (-1, 0)))
    lines.append(((W - fw, D - fw), (fw, D - fw), (0, -1)))
    lines.append(((fw, D - fw), (fw, fw), (1, 0)))
    pts, inward = [], []
    for a, e, n in lines:
        a, e = np.array(a, float), np.array(e, float)
        length = np.linalg.norm(e - a)
        t = np.arange(step, length - step / 2, step)
        pts.append(a + (e - a) * (t / length)[:, None])
        inward.append(np.tile(np.array(n, float), (len(t), 1)))
    p, n = np.vstack(pts), np.vstack(inward)
    q = project(np.vstack([p, p + n * 3.0]))
    q0 = q[: len(p)]
    nrm = q[len(p) :] - q0
    ppm = np.linalg.norm(nrm, axis=1) / 3.0
    nrm /= np.maximum(3.0 * ppm, 1e-12)[:, None]
    # each point is searched across the line, 2.5 mm either way in half-pixel steps (the same number of
    # steps for all: the furthest reach's, the rest masked)
    ts_max = np.arange(-2.5 * ppm.max(), 2.5 * ppm.max() + 0.5, 0.5)
    ts = -2.5 * ppm[:, None] + 0.5 * np.arange(len(ts_max))[None, :]
    used = ts <= (2.5 * ppm + 0.5)[:, None] - 1e-9
    xs = q0[:, :1] + nrm[:, :1] * ts
    ys = q0[:, 1:] + nrm[:, 1:] * ts
    h, w = gray.shape
    inside = np.where(used, (xs >= 1) & (ys >= 1) & (xs <= w - 2) & (ys <= h - 2), True).all(axis=1)
    ok = (ppm > 0) & inside
    m = np.stack([xs, ys], axis=-1).astype(np.float32)
    gx = cv2.remap(cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3), m, None, cv2.INTER_LINEAR)
    gy = cv2.remap(cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3), m, None, cv2.INTER_LINEAR)
    g = np.where(used, gx * nrm[:, :1] + gy * nrm[:, 1:], -np.inf)
    k = np.argmax(g, axis=1)
    rows = np.arange(len(p))
    last = used.sum(axis=1) - 1
    ok &= (g[rows, k] >= 40) & (k > 0) & (k < last)
    km, kp = np.maximum(k - 1, 0), np.minimum(k + 1, g.shape[1] - 1)
    den = g[rows, km] - 2 * g[rows, k] + g[rows, kp]
    with np.errstate(invalid="ignore", divide="ignore"):
        off = np.where(den < 0, 0.5 * (g[rows, km] - g[rows, kp]) / np.where(den < 0, den, -1.0), 0.0)
    tt = ts[rows, k] + off * 0.5
    found = q0 + nrm * tt[:, None]
    return p[ok].reshape(-1, 2), nrm[ok].reshape(-1, 2), found[ok].reshape(-1, 2)


def refine(gray: np.ndarray, H: np.ndarray, profile: Profile, fit_distortion: bool = True) -> BoardFit:
    """Fit the board homography and the radial distortion on every hole seen (centre to a fraction
    of a pixel) and on the inner edge of the frame line, robustly (outliers: holes half hidden by
    pieces, clutter on the frame)."""
    b = profile.board
    centre = ((gray.shape[1] - 1) / 2, (gray.shape[0] - 1) / 2)
    to_board = cell_to_board(profile)
    cells = np.array([(r, c) for r in range(GRID) for c in range(GRID)])
    hole_xy = apply_h(to_board, cells[:, ::-1].astype(float))
    slot_xy = np.array(b.pillar_slots, float)
    all_xy = np.vstack([hole_xy, slot_xy])
    all_cells = np.vstack([cells, np.full((len(slot_xy), 2), -1)])
    kappa = 0.0
    scale = 1.0 / max(gray.shape)  # parameters are kept near unit size
    fit = None
    for _ in range(3):  # measure again around the refined prediction
        pred = distort(apply_h(H, all_xy), kappa, centre)
        ppm = np.sqrt(abs(np.linalg.det(_local_affine(H, all_xy))))
        meas, keep = [], []
        for i, (uv, s) in enumerate(zip(pred, ppm, strict=True)):
            c = hole_centre(gray, uv, s * b.hole_diameter / 2)
            if c is not None and np.hypot(*(c - uv)) < 0.25 * s * b.pitch:
                meas.append(c)
                keep.append(i)
        if len(keep) < MIN_HOLES:
            break
        hx, hm = all_xy[keep], np.array(meas)
        ex, en, em = frame_edge_points(
            gray, lambda xy, H=H, k=kappa: distort(apply_h(H, xy), k, centre), profile
        )
        p0 = np.append((H / H[2, 2]).ravel()[:8], kappa / scale**2)

        def residuals(p: np.ndarray, hx=hx, hm=hm, ex=ex, en=en, em=em) -> np.ndarray:
            Hp = np.append(p[:8], 1.0).reshape(3, 3)
            k = p[8] * scale**2 if fit_distortion else 0.0
            r1 = (distort(apply_h(Hp, hx), k, centre) - hm).ravel()
            if len(ex):
                r2 = np.sum((distort(apply_h(Hp, ex), k, centre) - em) * en, axis=1)
                return np.concatenate([r1, r2])
            return r1

        sol = least_squares(residuals, p0, loss="huber", f_scale=1.0, x_scale="jac", max_nfev=200)
        H = np.append(sol.x[:8], 1.0).reshape(3, 3)
        kappa = float(sol.x[8] * scale**2) if fit_distortion else 0.0
        res = residuals(sol.x)
        rms = float(np.sqrt(np.mean(np.minimum(np.abs(res), 3.0) ** 2)))
        fit = BoardFit(
            H,
            kappa,
            centre,
            hm,
            all_cells[keep],
            0.0,
            rms,
            {"holes": len(keep), "edge_points": len(ex)},
        )
    if fit is None:
        fit = BoardFit(H, 0.0, centre, np.zeros((0, 2)), np.zeros((0, 2), int), 0.0, float("inf"))
    return fit


MIN_REGISTRATION = 0.35  #: template agreement below this is not a board
OUTLINE_LONG_SIDE = 2000  #: the board's outline is looked for at this size
#: an outline with no lattice of holes behind it must agree with the template this well (a checked
#: cloth's square or a card's edge passes the lattice's threshold by chance, never this one)
MIN_OUTLINE_REGISTRATION = 0.6
#: ... or this well when refining it then finds this many of the board's holes where it puts them (a
#: shadow across the margin or tiles over its edge lower the agreement; a card or a cloth has no holes)
WEAK_OUTLINE_REGISTRATION = 0.5
OUTLINE_HOLES = 12
#: a lattice's placement registered at least this well, though under :data:`MIN_REGISTRATION`, is
#: refined (lens distortion and all) and scored again; the best few of them (:func:`_refined_weak`)
WEAK_REGISTRATION, REFINED_TRIES = 0.2, 3
FLAT_FIELD_SIGMA = 0.04  #: of the image's long side: light varying more slowly than this is divided out


def _refined_weak(
    gray_small: np.ndarray,
    s: float,
    regs: list,
    refined: Callable[[np.ndarray], BoardFit],
    profile: Profile,
) -> BoardFit | None:
    """The best few lattice placements registered weakly (``regs``, best first, on the image scaled by
    ``s``), each refined on the holes and frame it shows and scored again through the lens distortion
    the refinement found. A strongly bent lens, or a sheen that greys half the board's holes, keeps the
    straight template from agreeing with a board that is there; refined, its print lines up again. A
    fit counts with :data:`OUTLINE_HOLES` holes measured and an agreement of :data:`MIN_REGISTRATION`;
    the best of them wins. The last resort, after the storage strip's slots and the outline: tried
    before them, it took a clutter board's print for the board on a held-out variant photo (710151:
    0.37, where the slots placed it right at 0.55), though it placed one board right that they put
    100 px off (seed 42030 saved as PNG; 0.49 against 0.50)."""
    xy, values = _template_samples(profile)
    best = None
    for r in [r for r in regs if r[0] >= WEAK_REGISTRATION][:REFINED_TRIES]:
        fit = refined(r[1])
        score = _agreements_at(gray_small, fit.project(xy)[None] * s, values)[0]
        if fit.evidence.get("holes", 0) < OUTLINE_HOLES or score is None or score < MIN_REGISTRATION:
            continue
        if best is None or score > best.score:
            fit.score = float(score)
            best = fit
    return best


def flat_field(gray: np.ndarray) -> np.ndarray:
    """``gray`` divided by its own blur (wider than the board's printed features): the light's
    fall-off, a lamp's glare and the soft shadow of a hand or a phone over part of the board no longer
    weigh on the template's correlation, which compares the print alone."""
    g = gray.astype(np.float32) + 8.0
    # the blur is wide: it is made on the image a quarter the size, and brought back (the same light)
    h, w = g.shape
    quarter = cv2.resize(g, ((w + 3) // 4, (h + 3) // 4), interpolation=cv2.INTER_AREA)
    light = cv2.GaussianBlur(quarter, (0, 0), FLAT_FIELD_SIGMA * max(gray.shape) / 4)
    light = cv2.resize(light, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(128.0 * g / light, 0, 255).astype(np.uint8)


def find_board(image: np.ndarray, profile: Profile, name: str = "photo") -> BoardFit:
    """Stages 2a-2c on a BGR image: the board's refined homography and lens distortion.

    Raises :class:`NoBoardError` when no lattice of holes registers as a whole board in frame."""
    s = DETECT_LONG_SIDE / max(image.shape[:2])
    small = cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else image
    s = min(s, 1.0)
    gray_small = flat_field(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY))
    blobs = hole_candidates(small, min(HOLE_SCORES))
    regs: list = []
    tried: list[Lattice] = []
    scored: list = []  #: every lattice placement scored, for :func:`_refined_weak`

    def registered() -> bool:
        return bool(regs) and regs[0][0] >= MIN_REGISTRATION

    @cache
    def gray() -> np.ndarray:  # the full image, for refining (once, whichever cue places the board)
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)

    def refined(H_small: np.ndarray) -> BoardFit:
        """:func:`refine` on the full image of a homography found on the small one."""
        return refine(gray(), np.diag([1 / s, 1 / s, 1.0]) @ H_small, profile)

    # a strict choice of blobs first (a checked cloth floods the loose one), then the loose one, then
    # hypotheses from single pairs of holes (a board so covered that its holes are scattered)
    for min_score, pairs in ((HOLE_SCORES[0], False), (HOLE_SCORES[1], False), (HOLE_SCORES[1], True)):
        lattices = fit_lattices(blobs[blobs[:, 3] >= min_score, :3], pairs=pairs)
        tried += lattices
        regs = sorted(
            (r for lat in lattices for r in register(gray_small, lat, profile)), key=lambda r: -r[0]
        )
        scored += regs
        if registered():
            break
    slots: list = []
    if not registered():  # the lattices were the pillar slots'
        slots = sorted(
            (r for lat in tried for r in register_slots(gray_small, lat, profile)), key=lambda r: -r[0]
        )
        regs = sorted([*regs, *slots[:1]], key=lambda r: -r[0])
    if not registered():
        # no lattice registers (tiles hide nearly every hole): the board's outline, if the photo shows it
        t = min(OUTLINE_LONG_SIDE / max(image.shape[:2]), 1.0)  # finer than the blobs: clutter merges less
        mid = cv2.resize(image, None, fx=t, fy=t, interpolation=cv2.INTER_AREA) if t < 1 else image
        quads = [q * (s / t) for q in outline_quads(cv2.cvtColor(mid, cv2.COLOR_BGR2GRAY))]
        outline = register_outline(gray_small, quads, profile)
        weak = outline[0] if outline and outline[0][0] >= WEAK_OUTLINE_REGISTRATION else None
        outline = [r for r in outline if r[0] >= MIN_OUTLINE_REGISTRATION]
        regs = sorted([*regs, *outline], key=lambda r: -r[0])
        if not registered() and weak is not None:
            fit = refined(weak[1])
            if fit.evidence.get("holes", 0) >= OUTLINE_HOLES:
                fit.score = float(weak[0])
                return fit
    if not registered() and slots:
        # the slots place the board roughly (they span a corner of it): refined on the holes it then
        # shows, it must agree with the template
        fit = refined(slots[0][1])
        H = np.diag([s, s, 1.0]) @ fit.H
        score = _agreement_in_frame(gray_small, H / H[2, 2], *_template_samples(profile))
        if fit.evidence.get("holes", 0) >= OUTLINE_HOLES and score is not None and score >= MIN_REGISTRATION:
            fit.score = float(score)
            return fit
    if not registered():  # no placement agrees with the straight template: refined, one may
        fit = _refined_weak(gray_small, s, sorted(scored, key=lambda r: -r[0]), refined, profile)
        if fit is not None:
            return fit
    if not registered():
        raise NoBoardError(f"{name}: no Babylon player board found (the whole board must be in the photo)")
    fit = refined(regs[0][1])
    if fit.evidence.get("holes", 0) < MIN_HOLES:
        raise NoBoardError(f"{name}: the board's holes could not be measured")
    fit.score = float(regs[0][0])
    return fit
