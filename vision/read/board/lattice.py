"""Stage 2a: the board's holes (:func:`hole_candidates`, dark round blobs) and the projective lattices
that explain most of them (:func:`fit_lattices`, RANSAC over 4-blob cells, grown outwards)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from scipy.spatial import cKDTree

from scoring.garden import GRID
from vision.read.board.plane import apply_h

LATTICE_TOL = 0.17  #: a blob is on the lattice within this fraction of the pitch
MIN_HOLES = 5  #: fewer lattice holes than this is no board
#: a lattice with blobs on this many nodes of the ring just round its holes goes on past them: a
#: pattern (a checked cloth's squares), not the board, whose 8 x 8 holes end at its plain margin
TEXTURE_RING = 12
#: a blob's diameter over the lattice's local pitch that fits a hole (a hole is 0.37 of it): blur
#: widens a hole's blob more than anything narrows it, and a sharp far view narrows it to a quarter
HOLE_TO_PITCH = (0.22, 0.6)
#: ... and where no board is found so, this (:func:`vision.read.board.find.find_board`): the dark
#: squares of a fine checked cloth, round the board, fit a hole too, and the lattice grown from the
#: board's holes took them in, broke into pieces and placed no board (development 49020, its squares
#: 0.24-0.29 of the pitch and its holes 0.38-0.50). Not always: of 1,461 development photos (seeds
#: 41000-41099, 42000-49199), 7 placed closer so, 4 farther (41036, 45094, 46016, 46073: 18-166 px),
#: whose holes seen sharp from afar measure under it; of the 2,797 hole blobs on 200 of them (seeds
#: 48000-48199) 20 are under 0.22 and 32 under 0.28, of the other blobs within 4 pitches 629 and 912
STRICT_HOLE_TO_PITCH = (0.28, 0.6)


@dataclass(frozen=True)
class Lattice:
    """A projective lattice of blobs: ``G`` maps lattice coordinates (m, n, 1) to pixels."""

    G: np.ndarray
    points: np.ndarray  #: (K, 2) pixel positions of the blobs on it
    index: np.ndarray  #: (K, 2) their integer lattice coordinates (m, n)


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


def _nodes(
    G: np.ndarray, pts: np.ndarray, blobs: np.ndarray, sizes: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each blob under the lattice ``G`` (lattice -> pixels): its nearest node (m, n), how far it
    lies from it (the larger coordinate, in pitches), and whether its size fits a hole there."""
    q = apply_h(np.linalg.inv(G), pts)
    idx = np.round(q)
    return idx, np.max(np.abs(q - idx), axis=1), _pitch_fits(G, q, blobs, sizes)


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


def _pitch_fits(G: np.ndarray, q: np.ndarray, blobs: np.ndarray, sizes: tuple[float, float]) -> np.ndarray:
    """Whether each blob's diameter fits a hole at its place on the lattice (``sizes`` of the local
    pitch, :data:`HOLE_TO_PITCH`; the icons on tiles and the tiles' plaques are other sizes)."""
    step = np.sqrt(np.abs(np.linalg.det(_local_affine(G, q))))
    r = blobs[:, 2] / np.maximum(step, 1e-6)
    return (r > sizes[0]) & (r < sizes[1])


def _local_affine(G: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The Jacobian (N, 2, 2) of the lattice -> pixel map at lattice points q (N, 2)."""
    e = 0.5
    p0 = apply_h(G, q)
    jx = (apply_h(G, q + [e, 0]) - p0) / e
    jy = (apply_h(G, q + [0, e]) - p0) / e
    return np.stack([jx, jy], axis=2)


def _grow(pts: np.ndarray, G: np.ndarray, blobs: np.ndarray, sizes: tuple[float, float]) -> Lattice | None:
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
            idx, err, fits = _nodes(G, pts, blobs, sizes)
            ok = (err < tol) & (np.max(np.abs(idx), axis=1) <= radius) & fits
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


def _continues(
    lat: Lattice, pts: np.ndarray, blobs: np.ndarray, sizes: tuple[float, float]
) -> np.ndarray | None:
    """The blobs on ``lat``'s nodes anywhere, if it goes on past its holes (:data:`TEXTURE_RING`): a
    pattern's lattice, every node of which is then no seed for another; None for a board's."""
    idx, err, fits = _nodes(lat.G, pts, blobs, sizes)
    on = (err < LATTICE_TOL) & fits
    lo, hi = lat.index.min(axis=0), lat.index.max(axis=0)
    ring = on & np.all((idx >= lo - 1) & (idx <= hi + 1), axis=1) & np.any((idx < lo) | (idx > hi), axis=1)
    if len({(int(m), int(n)) for m, n in idx[ring]}) < TEXTURE_RING:
        return None
    return np.flatnonzero(on)


def fit_lattices(
    blobs: np.ndarray,
    max_grow: int = 40,
    keep: int = 6,
    pairs: bool = False,
    sizes: tuple[float, float] = HOLE_TO_PITCH,
) -> list[Lattice]:
    """The projective lattices that explain most blobs, best first (at most ``keep``, disjoint).

    Hypotheses are L-shaped triples: a blob and two neighbours at about the pitch (relative to the
    blob's size) in roughly perpendicular directions, i.e. an affine lattice near that blob; with
    ``pairs`` (for boards whose few visible holes are scattered), also a blob and one neighbour, the
    second axis guessed perpendicular at a few lengths. Each is scored by the blobs it explains
    nearby; the best are grown into projective lattices. A lattice that goes on past its 8 x 8 holes
    (:func:`_continues`: a checked cloth) is left out, and none is grown again from its blobs. A blob
    is on a lattice where its size is ``sizes`` of the local pitch."""
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
    # quick local score of every hypothesis: blobs within 3 nodes that sit on its nodes (only the blobs
    # that near are looked at, 3 + LATTICE_TOL steps along each axis: a checked cloth makes thousands
    # of blobs and of hypotheses, 28,000 on development 49020)
    seeds = np.array([int(tree.query(G[:2, 2])[1]) for G in hyps])
    scores = []
    for G in hyps:
        reach = (3 + LATTICE_TOL) * (np.linalg.norm(G[:2, 0]) + np.linalg.norm(G[:2, 1]))
        near = np.array(tree.query_ball_point(G[:2, 2], reach * 1.01), dtype=int)
        idx, err, fits = _nodes(G, pts[near], blobs[near], sizes)
        scores.append(int(((err < LATTICE_TOL) & (np.max(np.abs(idx), axis=1) <= 3) & fits).sum()))
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
        lat = _grow(pts, hyps[c], blobs, sizes)
        tried.add(int(seeds[c]))
        if lat is None or len(lat.points) < MIN_HOLES:
            continue
        pattern = _continues(lat, pts, blobs, sizes)
        if pattern is not None:
            tried |= set(map(int, pattern))
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
