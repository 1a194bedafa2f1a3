"""Render photos of the same seeds side by side: a contact sheet of the renderer's range of looks.

    python tools/contact_sheet.py OUT.jpg [--seeds 100000,100001,...] [--size 800x600] [--label TEXT]

Photo ``k`` is garden ``generate_garden(k)`` under conditions ``sample_conditions(k)``, as ``babylon
synth`` makes it, so running this from two versions of the renderer shows the same gardens and photo
draws before and after a change (the README's before/after sheet was made that way, the "before" row
from an older checkout of this repository).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from scoring.generate import generate_garden
from vision.render.photo import render_photo

DEFAULT_SEEDS = "100001,100004,100007,100012,100020,100033"


def sheet(seeds: list[int], size: tuple[int, int], label: str) -> np.ndarray:
    tiles = []
    for s in seeds:
        img = render_photo(generate_garden(s), s, size=size).image
        img = cv2.resize(img, (size[0] // 2, size[1] // 2), interpolation=cv2.INTER_AREA)
        cv2.putText(img, f"{label} {s}", (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 3, cv2.LINE_AA)
        white = (255, 255, 255)
        cv2.putText(img, f"{label} {s}", (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.6, white, 1, cv2.LINE_AA)
        tiles.append(img)
    return np.hstack(tiles)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--seeds", default=DEFAULT_SEEDS)
    ap.add_argument("--size", default="800x600")
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    w, h = (int(v) for v in a.size.split("x"))
    row = sheet([int(s) for s in a.seeds.split(",")], (w, h), a.label)
    cv2.imwrite(str(a.out), row, [cv2.IMWRITE_JPEG_QUALITY, 85])


if __name__ == "__main__":
    main()
