"""The entry point (:func:`find_board`): the cues tried in turn, the lattice of holes first (checked
against a clear outline where it registers weakly), then the storage strip's slots, the board's
outline, the weak placements refined with the lens (:func:`_refined_weak`) and last an outline that a
tile over the board's edge bends, and the thresholds each must pass; of the placements registered, the
best that measures the board's holes once refined."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import cv2
import numpy as np

from vision.profile import Profile
from vision.read.board.lattice import (
    HOLE_TO_PITCH,
    MIN_HOLES,
    STRICT_HOLE_TO_PITCH,
    Lattice,
    fit_lattices,
    hole_candidates,
)
from vision.read.board.plane import BoardFit
from vision.read.board.refinement import refine
from vision.read.board.registration import outline_quads, register, register_outline, register_slots
from vision.read.board.template import _agreement_in_frame, _agreements_at, _template_samples, flat_field
from vision.read.load import PhotoError

DETECT_LONG_SIDE = 1000  #: blobs and lattices are found at this size
HOLE_SCORES = (0.55, 0.35)  #: the holes are looked for among blobs this hole-like, the stricter first


class NoBoardError(PhotoError):
    """The photo shows no readable player board."""


MIN_REGISTRATION = 0.35  #: template agreement below this is not a board
OUTLINE_LONG_SIDE = 2000  #: the board's outline is looked for at this size
#: an outline with no lattice of holes behind it must agree with the template this well (a checked
#: cloth's square or a card's edge passes the lattice's threshold by chance, never this one)
MIN_OUTLINE_REGISTRATION = 0.6
#: ... or this well when refining it then finds this many of the board's holes where it puts them (a
#: shadow across the margin or tiles over its edge lower the agreement; a card or a cloth has no holes)
WEAK_OUTLINE_REGISTRATION = 0.5
OUTLINE_HOLES = 12
#: a lattice placement registered under this is checked against the board's outline, which places the
#: board instead where it agrees at least :data:`SURE_OUTLINE` and, refined, measures as many of the
#: board's holes (and :data:`OUTLINE_HOLES`). On 800 development photos (seeds 43000-43199,
#: 51000-53199) 21 lattices registered under 0.45: two (0.38, 0.39) placed the board 411 and 43 px
#: off, both outlined at 0.77-0.84 (2 px off refined, more holes); 3 more outlined at 0.72-0.81 refine
#: to the lattice's own fit. Outlines alone are no surer: 24 at 0.70-0.78 refined 10-67 px off boards
#: their lattices (0.63-0.77) placed right
DOUBTED_LATTICE, SURE_OUTLINE = 0.45, 0.7
HOLES_TRIES = 3  #: the best placements registered tried in turn until one measures the board's holes
#: a lattice's placement registered at least this well, though under :data:`MIN_REGISTRATION`, is
#: refined (lens distortion and all) and scored again; the best few of them (:func:`_refined_weak`)
WEAK_REGISTRATION, REFINED_TRIES = 0.2, 3
#: ... each refined from no distortion and from this barrel one (:func:`refine`'s ``barrel``), the one
#: whose holes and frame it fits closer kept: from no distortion, the fit settles where a strong barrel
#: (k1 -0.06) is taken for perspective, two corners 25-33 px off (development 42100, saved as PNG)
BARREL_START = -0.1
#: the lattice's placement, refined from no distortion, is refined from :data:`BARREL_START` too where
#: its holes and frame fit it worse than this (px, working image), and that fit is kept where it fits
#: them this much closer (a share of the first's residual). On 8 fresh development photos (seeds
#: 44000-44199) whose corners were 12-60 px off, all with a barrel of k1 -0.03 to -0.08, the first fit
#: left 1.06-1.90 px, and 5 fit 0.18-0.67 times as close from the barrel (corners 1-3 px off), the 3
#: others 0.99-1.09 times; the first 16 photos of seeds 43000-43021 fit 0.36-0.80 px. Of the 600 older
#: development photos, the 15 so refitted had corners 10-48 px off and 1.2-2.8 px after; 7 more fit a
#: little closer from the barrel (0.96-0.99 times where measured), a corner no nearer (43023's focal
#: length 11% off from there): they keep the first fit
BENT_RESIDUAL_PX, BENT_CLOSER = 0.9, 0.85
#: a weak placement whose refinement measures this many of the board's 64 holes where it puts them
#: needs only :data:`WEAK_REGISTRATION` (the whole board in frame still): no cloth or card has half a
#: board's lattice of holes. Development 47088, a far view whose tall stacks shade half the board:
#: 39 holes measured at 0.65 px, the print's agreement 0.32 (the true camera's too)
MANY_HOLES = 32


def _shows_holes(fit: BoardFit) -> bool:
    """Whether a placement by a cue other than the lattice of holes (the outline, the storage strip's
    slots), refined, measures :data:`OUTLINE_HOLES` of the board's holes where it puts them. The slots
    agree with the print now and then on a board they place hundreds of pixels off (development 48141:
    0.36 and 9 holes, 370 px off, where the outline then placed it 2 px off at 0.64 with 22 holes)."""
    return fit.evidence.get("holes", 0) >= OUTLINE_HOLES


def _refined_weak(
    gray_small: np.ndarray,
    s: float,
    regs: list,
    refined: Callable[[np.ndarray, float], BoardFit],
    profile: Profile,
) -> BoardFit | None:
    """The best few lattice placements registered weakly (``regs``, best first, on the image scaled by
    ``s``), each refined on the holes and frame it shows and scored again through the lens distortion
    the refinement found. A strongly bent lens, or a sheen that greys half the board's holes, keeps the
    straight template from agreeing with a board that is there; refined, its print lines up again. A
    fit counts with :data:`OUTLINE_HOLES` holes measured and an agreement of :data:`MIN_REGISTRATION`
    (with :data:`MANY_HOLES`, of :data:`WEAK_REGISTRATION`); the best of them wins. The last resort,
    after the storage strip's slots and the outline: tried before them, it took a clutter board's
    print for the board on a held-out variant photo (710151: 0.37, where the slots placed it right at
    0.55), though it placed one board right that they put 100 px off (seed 42030 saved as PNG; 0.49
    against 0.50)."""
    xy, values = _template_samples(profile)
    best = None
    for r in [r for r in regs if r[0] >= WEAK_REGISTRATION][:REFINED_TRIES]:
        fit = min((refined(r[1], start) for start in (0.0, BARREL_START)), key=lambda f: f.residual_px)
        score = _agreements_at(gray_small, fit.project(xy)[None] * s, values)[0]
        holes = fit.evidence.get("holes", 0)
        least = WEAK_REGISTRATION if holes >= MANY_HOLES else MIN_REGISTRATION
        if holes < OUTLINE_HOLES or score is None or score < least:
            continue
        if best is None or score > best.score:
            fit.score = float(score)
            best = fit
    return best


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

    fits: dict[tuple[bytes, float], BoardFit] = {}

    def refined(H_small: np.ndarray, barrel: float = 0.0) -> BoardFit:
        """:func:`refine` on the full image of a homography found on the small one (once each)."""
        key = (H_small.tobytes(), barrel)
        if key not in fits:
            fits[key] = refine(gray(), np.diag([1 / s, 1 / s, 1.0]) @ H_small, profile, barrel=barrel)
        return fits[key]

    def lattices_registered(sizes: tuple[float, float]) -> None:
        """The lattices of holes of ``sizes`` (of the pitch), registered: a strict choice of blobs first
        (a checked cloth floods the loose one), then the loose one, then hypotheses from single pairs
        of holes (a board so covered that its holes are scattered)."""
        nonlocal regs
        for min_score, pairs in ((HOLE_SCORES[0], False), (HOLE_SCORES[1], False), (HOLE_SCORES[1], True)):
            lattices = fit_lattices(blobs[blobs[:, 3] >= min_score, :3], pairs=pairs, sizes=sizes)
            tried.extend(lattices)
            regs = sorted(
                (r for lat in lattices for r in register(gray_small, lat, profile)), key=lambda r: -r[0]
            )
            scored.extend(regs)
            if registered():
                return

    lattices_registered(HOLE_TO_PITCH)
    slots: list = []
    by_lattice = registered()
    if not by_lattice:  # the lattices were the pillar slots'
        slots = sorted(
            (r for lat in tried for r in register_slots(gray_small, lat, profile)), key=lambda r: -r[0]
        )
        if slots and slots[0][0] >= MIN_REGISTRATION and _shows_holes(refined(slots[0][1])):
            regs = sorted([*regs, *slots[:1]], key=lambda r: -r[0])

    @cache
    def gray_mid() -> tuple[np.ndarray, float]:  # finer than the blobs: clutter merges less
        t = min(OUTLINE_LONG_SIDE / max(image.shape[:2]), 1.0)
        mid = cv2.resize(image, None, fx=t, fy=t, interpolation=cv2.INTER_AREA) if t < 1 else image
        return cv2.cvtColor(mid, cv2.COLOR_BGR2GRAY), t

    def outline_registered(overhung: bool = False) -> list:
        """The placements of the board's outlines (:func:`outline_quads`), registered, best first."""
        mid, t = gray_mid()
        quads = [q * (s / t) for q in outline_quads(mid, overhung=overhung)]
        return register_outline(gray_small, quads, profile)

    def by_outline(overhung: bool = False) -> BoardFit | None:
        """The board's outline registered (into ``regs``, if it agrees well), or refined where it agrees
        weakly and shows the board's holes."""
        nonlocal regs
        outline = outline_registered(overhung)
        weak = outline[0] if outline and outline[0][0] >= WEAK_OUTLINE_REGISTRATION else None
        outline = [r for r in outline if r[0] >= MIN_OUTLINE_REGISTRATION]
        regs = sorted([*regs, *outline], key=lambda r: -r[0])
        if not registered() and weak is not None:
            fit = refined(weak[1])
            if _shows_holes(fit):
                fit.score = float(weak[0])
                return fit
        return None

    if by_lattice and regs[0][0] < DOUBTED_LATTICE:
        # a lattice registered weakly: an outline that agrees far better, and shows as many of the
        # board's holes where it puts them, places the board (development 53132: a lattice of holes of
        # the board and of tiles' plaques at 0.38, 411 px off, 13 holes; its clear outline at 0.84, 2 px
        # off, 24 holes)
        outline = outline_registered()
        if outline and outline[0][0] >= SURE_OUTLINE:
            holes = refined(outline[0][1]).evidence.get("holes", 0)
            if holes >= max(OUTLINE_HOLES, refined(regs[0][1]).evidence.get("holes", 0)):
                regs = [outline[0], *regs]
    if not by_lattice:
        # no lattice registers (tiles hide nearly every hole): the board's outline, if the photo shows it,
        # and the better of it and the slots' placement (development 49072: the slots at 0.45 put the
        # board 52 px off, the outline at 0.79 2 px off)
        fit = by_outline()
        if fit is not None:
            return fit
    if not registered() and slots:
        # the slots place the board roughly (they span a corner of it): refined on the holes it then
        # shows, it must agree with the template
        fit = refined(slots[0][1])
        H = np.diag([s, s, 1.0]) @ fit.H
        score = _agreement_in_frame(gray_small, H / H[2, 2], *_template_samples(profile))
        if _shows_holes(fit) and score is not None and score >= MIN_REGISTRATION:
            fit.score = float(score)
            return fit
    if not registered():  # no placement agrees with the straight template: refined, one may
        fit = _refined_weak(gray_small, s, sorted(scored, key=lambda r: -r[0]), refined, profile)
        if fit is not None:
            return fit
    if not registered():  # a last try, on blobs sized more like holes (a fine checked cloth round it)
        lattices_registered(STRICT_HOLE_TO_PITCH)
    if not registered():
        # and on an outline that tiles standing over the board's edge bend: development 52147, seen close
        # and wide over a board so covered that 16 blobs look like holes, its outline of 5 corners, 4 of
        # them the board's, registered at 0.62 (corners 1-2 px off)
        fit = by_outline(overhung=True)
        if fit is not None:
            return fit
    if not registered():
        raise NoBoardError(f"{name}: no Babylon player board found (the whole board must be in the photo)")
    # the best placement registered whose refinement measures the board's holes: an outline of the table
    # or of a shadow may register best and measure none (development 43002 under the robustness
    # benchmark's S-curve: an outline at 0.66 none, the storage strip's slots at 0.60 19 holes, 2 px off)
    for score, H, *_ in [r for r in regs if r[0] >= MIN_REGISTRATION][:HOLES_TRIES]:
        fit = refined(H)
        if fit.residual_px > BENT_RESIDUAL_PX:
            bent = refined(H, BARREL_START)
            if bent.residual_px < BENT_CLOSER * fit.residual_px:
                fit = bent
        if fit.evidence.get("holes", 0) >= MIN_HOLES:
            fit.score = float(score)
            return fit
    raise NoBoardError(f"{name}: the board's holes could not be measured")
