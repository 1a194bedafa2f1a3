"""Stage 2b: which lattice node is which cell, i.e. the board's position and rotation: the placements
of the cell grid on a lattice (:func:`register`), of the storage strip's pillar slots on it
(:func:`register_slots`), and of the board's outline against the table (:func:`outline_quads`,
:func:`register_outline`), each scored by the printed template's agreement with the photo."""

from __future__ import annotations

from itertools import combinations, product

import cv2
import numpy as np
from scipy.optimize import minimize

from scoring.garden import GRID
from vision.profile import Profile
from vision.read.board.lattice import MIN_HOLES, Lattice
from vision.read.board.plane import apply_h, orientation_sign, orientation_signs
from vision.read.board.template import (
    _agreement_in_frame,
    _agreements_in_frame,
    _ncc_vec,
    _sample,
    _template_samples,
    cell_to_board,
)

# ------------------------------------------------------------------------------------- stage 2b


def _symmetries() -> list[np.ndarray]:
    """The eight symmetries of the square lattice, as 2 x 2 integer matrices (the lattice's own
    axes may be either handed; :func:`orientation_sign` keeps the placements seen from above)."""
    r = np.array([[0, -1], [1, 0]])
    m = np.array([[1, 0], [0, -1]])
    turns = [np.linalg.matrix_power(r, k) for k in range(4)]
    return turns + [t @ m for t in turns]


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


#: an outline with this many corners may be a board's whose edge a tile standing over it bends: its
#: four corners holding the most area are the board's (:func:`outline_quads`, ``overhung``)
OVERHUNG_CORNERS = (5, 6)


def outline_quads(gray: np.ndarray, min_area: float = 0.02, overhung: bool = False) -> list[np.ndarray]:
    """Convex quadrilaterals outlined in a grey image (a board's edge against the table), each (4, 2)
    pixels in contour order, the largest first: the cue left when tiles hide nearly every hole. With
    ``overhung``, instead, the four corners holding the most area of each outline of
    :data:`OVERHUNG_CORNERS` corners (a tile over the board's edge adds one or two)."""
    blur = cv2.GaussianBlur(gray, (0, 0), 1.5)
    edges = cv2.dilate(cv2.Canny(blur, 40, 120), np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    quads = []
    for c in contours:
        hull = cv2.convexHull(c)
        area = cv2.contourArea(hull)
        if area < min_area * gray.size:
            continue
        poly = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True).reshape(-1, 2)
        if overhung and len(poly) in OVERHUNG_CORNERS:
            poly = max((poly[list(ix)] for ix in combinations(range(len(poly)), 4)), key=_area)
            area = _area(poly)
        elif overhung or len(poly) != 4:
            continue
        quads.append((area, poly.astype(np.float64)))
    quads.sort(key=lambda q: -q[0])
    return [q for _, q in quads]


def _area(poly: np.ndarray) -> float:
    return float(cv2.contourArea(poly.astype(np.float32)))


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
