"""Make sample_images/: rendered photos with their truth, chosen to cover every element and the
extremes of the photo range, a README table of what each shows, and a contact sheet.

    python tools/make_samples.py [--out sample_images]

Each sample is found by a deterministic search over generator seeds from SAMPLE_SEEDS (never the
held-out evaluation range), so the folder can be made again exactly.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scoring.garden import Garden
from scoring.generate import generate_garden
from scoring.score import score_garden
from scoring.visibility import top_levels, view
from vision.render.conditions import sample_conditions
from vision.render.photo import render_photo, save_photo
from vision.render.synth import SAMPLE_SEEDS

Check = Callable[[Garden], bool]


@dataclass(frozen=True)
class Sample:
    name: str
    shows: str
    garden: Check = lambda g: True
    generate: dict[str, Any] = field(default_factory=dict)  #: generate_garden keyword arguments
    photo: dict[str, Any] = field(default_factory=dict)  #: render_photo condition overrides
    photo_check: Callable[[Any], bool] = lambda cond: True
    fmt: str = "jpg"


def kinds_visible(g: Garden) -> set[str]:
    return {d.kind for d in view(g).decorations}


def partly_hidden(g: Garden) -> bool:
    top = top_levels(g)
    return any(
        any(top[r][c] > lv for (r, c), lv in d.cell_levels)
        and any(top[r][c] <= lv for (r, c), lv in d.cell_levels)
        for d in g.decorations
    )


def fully_hidden(g: Garden) -> bool:
    return len(view(g).decorations) < len(g.decorations)


def belvederes(g: Garden) -> int:
    return sum(d.kind == "belvedere" for d in g.decorations)


EASY = {"tilt_deg": 3.0,
        "light": {"softness_deg": 8.0, "ambient": 0.5, "elevation_deg": 70.0, "kelvin": 5200.0},
        "white_balance_kelvin": 5200.0, "exposure_ev": 0.0, "noise_sigma": 0.5, "blur_sigma": 0.0,
        "motion_px": 0.0, "vignette": 0.05, "clutter": (), "size": (2000, 1500)}
MID = {"size": (2000, 1500)}
SAMPLES: list[Sample] = [
    Sample("easy-01", "plain easy: few tiles, overhead, soft daylight, no clutter",
           generate={"n_tiles": 4, "max_level": 2}, photo=EASY),
    Sample("easy-02", "plain easy: overhead, soft light", generate={"n_tiles": 7, "max_level": 2},
           photo=EASY),
    Sample("easy-03", "plain easy: a fuller garden, overhead", generate={"n_tiles": 11}, photo=EASY),
    *[Sample(f"level-{k}", f"highest level {k}", garden=lambda g, k=k: g.max_level == k,
             generate={"max_level": k}, photo=MID) for k in (1, 2, 3, 4, 5)],
    Sample("all-decorations", "all five decorations visible", garden=lambda g: len(kinds_visible(g)) == 5,
           photo=MID),
    Sample("all-decorations-2", "all five decorations visible, 16:9",
           garden=lambda g: len(kinds_visible(g)) == 5, photo={"size": (2400, 1350)}),
    Sample("partly-hidden", "a decoration partly covered by a higher tile (it still scores)",
           garden=partly_hidden, photo=MID),
    Sample("fully-hidden", "a decoration completely covered (scores nothing)", garden=fully_hidden,
           photo=MID),
    Sample("belvederes", "several tiles on 3 supports, each with a belvedere",
           garden=lambda g: belvederes(g) >= 3, photo=MID),
    Sample("statue-pillar", "a statue serving as a pillar under a tile (hidden)",
           garden=lambda g: any(d.kind == "statue" and d not in view(g).decorations for d in g.decorations),
           photo=MID),
    Sample("sixteen-tiles", "16 tiles, crowded", generate={"n_tiles": 16}, photo=MID),
    Sample("one-tile", "a single tile", generate={"n_tiles": 1}, photo=MID),
    Sample("tilt-25", "steep view: optical axis 25 degrees from vertical", photo={**MID, "tilt_deg": 25.0}),
    Sample("tilt-25-b", "steep view from another side, level 4+", garden=lambda g: g.max_level >= 4,
           photo={**MID, "tilt_deg": 25.0, "tilt_azimuth_deg": 200.0}),
    Sample("dim-warm", "dim warm lamp: 2800 K, -1 EV, ambient 20%",
           photo={**MID, "light": {"kelvin": 2800.0, "ambient": 0.2}, "exposure_ev": -1.0,
                  "white_balance_kelvin": 4200.0}),
    Sample("dim-warm-2", "dim warm light, noisy", photo={**MID, "light": {"kelvin": 3000.0, "ambient": 0.25},
                                                          "exposure_ev": -0.8, "noise_sigma": 4.0}),
    Sample("hard-shadows", "hard low light: long sharp shadows",
           garden=lambda g: g.max_level >= 3,
           photo={**MID, "light": {"softness_deg": 0.5, "elevation_deg": 35.0, "ambient": 0.2}}),
    Sample("hard-shadows-2", "hard light from another side",
           photo={**MID, "light": {"softness_deg": 0.6, "elevation_deg": 40.0, "ambient": 0.25,
                                   "azimuth_deg": 135.0}}),
    Sample("soft-window", "soft window light, high ambient",
           photo={**MID, "light": {"softness_deg": 12.0, "ambient": 0.6}}),
    Sample("small-board", "small board in frame: 700 mm up, 80 degree lens, 1200 px",
           photo={"height_mm": 700.0, "hfov_deg": 80.0, "size": (1200, 900)}),
    Sample("small-board-16x9", "small board, 16:9 at 1280 px", photo={"height_mm": 700.0, "hfov_deg": 80.0,
                                                                       "size": (1280, 720)}),
    Sample("close-up", "close: 350 mm up with an 80 degree lens, board fills the frame",
           photo={**MID, "height_mm": 350.0, "hfov_deg": 80.0}),
    Sample("narrow-lens", "60 degree lens from as low as the board allows",
           photo={**MID, "hfov_deg": 60.0}),
    Sample("clutter", "clutter beside the board: spare pillars, pieces, tiles, cards",
           photo=MID, photo_check=lambda c: len(c.clutter) >= 6),
    Sample("clutter-2", "clutter and a patterned cloth", photo={**MID, "table": {"kind": "cloth"}},
           photo_check=lambda c: len(c.clutter) >= 5),
    Sample("barrel", "strong barrel distortion k1 = -0.08", photo={**MID, "k1": -0.08}),
    Sample("pincushion", "pincushion distortion k1 = +0.04", photo={**MID, "k1": 0.04}),
    Sample("motion-blur", "motion blur 5 px (at 12 MP)", photo={**MID, "motion_px": 5.0, "blur_sigma": 0.0}),
    Sample("blur-noise", "out-of-focus blur 1.2 px and noise 4/255",
           photo={**MID, "blur_sigma": 1.2, "motion_px": 0.0, "noise_sigma": 4.0}),
    Sample("bright", "+1 EV, vignetting 30%", photo={**MID, "exposure_ev": 1.0, "vignette": 0.3}),
    Sample("portrait", "portrait photo 1500 x 2000", photo={"size": (1500, 2000)}),
    Sample("plain-table", "plain dark table", photo={**MID, "table": {"kind": "plain", "colour_a": "#2A2A2C",
                                                                      "colour_b": "#2A2A2C"}}),
    Sample("heic", "an iPhone-style HEIC file", photo={**MID, "jpeg_quality": 85}, fmt="heic"),
    Sample("webp", "a WebP file", photo=MID, fmt="webp"),
    Sample("png", "a lossless PNG at 1600 x 1200", photo={"size": (1600, 1200)}, fmt="png"),
    Sample("exif-rotated", "pixels stored turned, EXIF orientation 6 says how to show them",
           photo={**MID, "exif_orientation": 6}),
    Sample("full-12mp", "a full 12 MP photo (4032 x 3024)", garden=lambda g: len(g.tiles) >= 10,
           photo={"size": (4032, 3024), "jpeg_quality": 80}),
]


#: the dozen samples on the contact sheet
SHEET = ("easy-01", "level-3", "level-5", "all-decorations", "belvederes", "tilt-25", "dim-warm",
         "hard-shadows", "small-board", "close-up", "clutter", "barrel")


def find(sample: Sample, start: int) -> tuple[int, Garden]:
    for seed in range(start, SAMPLE_SEEDS.stop):
        g = generate_garden(seed, **sample.generate)
        if sample.garden(g) and sample.photo_check(sample_conditions(seed, garden=g, **sample.photo)):
            return seed, g
    raise RuntimeError(f"no seed in {SAMPLE_SEEDS} makes sample {sample.name}")


def contact_sheet(paths: list[Path], out: Path, cols: int = 4, cell: int = 480) -> None:
    tiles = []
    for p in paths:
        img = cv2.imread(str(p)) if p.suffix != ".heic" else None
        if img is None:
            continue
        s = cell / max(img.shape[:2])
        img = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
        canvas = np.full((cell * 3 // 4, cell, 3), 255, np.uint8)
        h, w = min(img.shape[0], canvas.shape[0]), min(img.shape[1], cell)
        y0, x0 = (canvas.shape[0] - h) // 2, (cell - w) // 2
        canvas[y0 : y0 + h, x0 : x0 + w] = img[:h, :w]
        (tw, th), _ = cv2.getTextSize(p.stem, cv2.FONT_HERSHEY_SIMPLEX, 0.6, 1)
        cv2.rectangle(canvas, (0, 0), (tw + 12, th + 14), (30, 30, 30), -1)
        white = (255, 255, 255)
        cv2.putText(canvas, p.stem, (6, th + 7), cv2.FONT_HERSHEY_SIMPLEX, 0.6, white, 1, cv2.LINE_AA)
        tiles.append(cv2.copyMakeBorder(canvas, 4, 4, 4, 4, cv2.BORDER_CONSTANT, value=(255, 255, 255)))
    while len(tiles) % cols:
        tiles.append(np.full_like(tiles[0], 255))
    rows = [np.hstack(tiles[i : i + cols]) for i in range(0, len(tiles), cols)]
    cv2.imwrite(str(out), np.vstack(rows), [cv2.IMWRITE_JPEG_QUALITY, 85])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("sample_images"))
    args = ap.parse_args()
    args.out.mkdir(exist_ok=True)
    rows = ["| photo | garden seed / photo seed | shows | tiles | top level | decorations | total |",
            "|---|---|---|---|---|---|---|"]
    made: list[Path] = []
    start = SAMPLE_SEEDS.start
    for i, sample in enumerate(SAMPLES):
        seed, g = find(sample, start + 37 * i)
        path = args.out / f"{i:02d}-{sample.name}.{sample.fmt}"
        save_photo(render_photo(g, seed, **sample.photo), path)
        made.append(path)
        s = score_garden(g)
        rows.append(f"| `{path.name}` | {seed} | {sample.shows} | {len(g.tiles)} | {g.max_level} | "
                    f"{len(g.decorations)} | {s.total} |")
        print(f"{path.name}: seed {seed}, {sample.shows}")
    picks = [p for p in made if p.stem.split("-", 1)[1] in SHEET]
    contact_sheet(picks, args.out / "contact_sheet.jpg")
    readme = [
        "# Sample images", "",
        "Rendered by the project's own renderer (`babylon render` / `babylon synth`), each with its ground",
        "truth beside it (same name, `.json`: garden, score, camera, photo conditions, piece positions).",
        "Made by `python tools/make_samples.py`; seeds are searched from the sample range "
        f"{SAMPLE_SEEDS.start}-{SAMPLE_SEEDS.stop - 1},",
        "never from the held-out evaluation range.", "",
        "![contact sheet](contact_sheet.jpg)", "", *rows, "",
    ]
    (args.out / "README.md").write_text("\n".join(readme))


if __name__ == "__main__":
    main()
