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
   :func:`register_outline`), then the best weak placements, refined with the lens and scored
   again (:func:`_refined_weak`), and last an outline that a tile over the board's edge bends
   (:func:`outline_quads` with ``overhung``);
4. refines the homography and the lens distortion on all the evidence (:func:`refine`): every
   hole centre, measured to a fraction of a pixel, and the inner edge of the printed frame line.

Pixel coordinates are those of the working image; board coordinates are millimetres in the board
frame (:mod:`vision.profile`).
"""

from __future__ import annotations

from vision.read.board.find import (
    DETECT_LONG_SIDE,
    MIN_OUTLINE_REGISTRATION,
    MIN_REGISTRATION,
    OUTLINE_HOLES,
    WEAK_OUTLINE_REGISTRATION,
    NoBoardError,
    _refined_weak,
    find_board,
)
from vision.read.board.lattice import Lattice, fit_lattices, hole_candidates
from vision.read.board.plane import BoardFit, apply_h, cross2
from vision.read.board.refinement import _percentiles, refine
from vision.read.board.registration import outline_quads, register, register_outline, register_slots
from vision.read.board.template import flat_field

#: what other modules and the tests take from here (a module-level name is patched where it is read:
#: in its own module, e.g. ``vision.read.board.find.OUTLINE_HOLES``)
__all__ = [
    "DETECT_LONG_SIDE",
    "MIN_OUTLINE_REGISTRATION",
    "MIN_REGISTRATION",
    "OUTLINE_HOLES",
    "WEAK_OUTLINE_REGISTRATION",
    "BoardFit",
    "Lattice",
    "NoBoardError",
    "_percentiles",
    "_refined_weak",
    "apply_h",
    "cross2",
    "find_board",
    "fit_lattices",
    "flat_field",
    "hole_candidates",
    "outline_quads",
    "refine",
    "register",
    "register_outline",
    "register_slots",
]
