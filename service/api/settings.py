"""The operator's knobs for the HTTP service, from arguments or from ``BABYLON_*`` environment
variables (uvicorn's worker processes build the app from the environment)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from vision.read.load import MAX_PIXELS

MB = 2**20


@dataclass(frozen=True)
class Settings:
    max_upload_bytes: int = 25 * MB  #: a request body larger than this is refused with 413
    max_pixels: int = MAX_PIXELS  #: a photo with more pixels is refused with 413, before decoding
    time_limit_s: float = 30.0  #: a request that takes longer is answered 504
    photo_workers: int = 2  #: photos read at once per process (the rest wait their turn)
    overlay_long_side: int = 1280  #: the overlay PNG is at most this wide or tall
    save_dir: Path | None = None  #: where uploads are kept; None (the default): nothing is written
    profile: str | None = None  #: the reader's profile: a file or a built-in name; None: the reference
    labels_dir: Path | None = None  #: where the correction page saves labelled photos; None: it cannot

    @staticmethod
    def from_env(env: dict[str, str] | None = None) -> Settings:
        """Settings from ``BABYLON_MAX_UPLOAD_MB``, ``BABYLON_MAX_PIXELS``, ``BABYLON_TIME_LIMIT_S``,
        ``BABYLON_PHOTO_WORKERS``, ``BABYLON_SAVE_DIR``, ``BABYLON_PROFILE``, ``BABYLON_LABELS_DIR``
        (unset: the defaults)."""
        env = os.environ if env is None else env
        d = Settings()
        save = env.get("BABYLON_SAVE_DIR")
        labels = env.get("BABYLON_LABELS_DIR")
        return Settings(
            max_upload_bytes=int(float(env.get("BABYLON_MAX_UPLOAD_MB", d.max_upload_bytes / MB)) * MB),
            max_pixels=int(env.get("BABYLON_MAX_PIXELS", d.max_pixels)),
            time_limit_s=float(env.get("BABYLON_TIME_LIMIT_S", d.time_limit_s)),
            photo_workers=int(env.get("BABYLON_PHOTO_WORKERS", d.photo_workers)),
            save_dir=Path(save) if save else None,
            profile=env.get("BABYLON_PROFILE") or None,
            labels_dir=Path(labels) if labels else None,
        )

    def to_env(self) -> dict[str, str]:
        """The environment that :meth:`from_env` turns back into these settings."""
        env = {
            "BABYLON_MAX_UPLOAD_MB": repr(self.max_upload_bytes / MB),
            "BABYLON_MAX_PIXELS": str(self.max_pixels),
            "BABYLON_TIME_LIMIT_S": repr(self.time_limit_s),
            "BABYLON_PHOTO_WORKERS": str(self.photo_workers),
        }
        if self.save_dir is not None:
            env["BABYLON_SAVE_DIR"] = str(self.save_dir)
        if self.profile is not None:
            env["BABYLON_PROFILE"] = self.profile
        if self.labels_dir is not None:
            env["BABYLON_LABELS_DIR"] = str(self.labels_dir)
        return env
