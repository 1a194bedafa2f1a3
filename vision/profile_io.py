"""Profile files: one edition's appearance as a small, versioned JSON document.

The format (``babylon-profile/1``)::

    {
      "format": "babylon-profile/1",
      "name": "my copy",
      "based_on": "reference",          # optional: the built-in profile that fills what is left out
      "notes": "...",                   # optional, free text (calibrate writes its figures here)
      "flowers": {"white": "#RRGGBB", "pink": ..., "yellow": ..., "blue": ...},
      "board": {...}, "tile": {...}, "pillar": {...}, "decoration": {...}, "card": {...},
      "level_height": 22.5
    }

Each section holds fields of the matching model of :mod:`vision.profile` (colours as ``#RRGGBB``,
sizes in mm); a section or field left out keeps the value of ``based_on``, so a hand-written file
may give the colours only (geometry stays the spec's). :func:`save_profile` writes every field.
A malformed file is refused with a :class:`ProfileError` whose one-line message names the field.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from scoring.files import atomic_write
from vision.profile import (
    BUILT_IN,
    REFERENCE,
    BoardModel,
    CardModel,
    DecorationModel,
    PillarModel,
    Profile,
    TileModel,
)

FORMAT = "babylon-profile/1"
SECTIONS: dict[str, type] = {
    "board": BoardModel, "tile": TileModel, "pillar": PillarModel, "decoration": DecorationModel,
    "card": CardModel,
}
FLOWERS = ("white", "pink", "yellow", "blue")
ICON_STYLES = ("reference", "variant")
TOP_KEYS = {"format", "name", "based_on", "notes", "flowers", "level_height", *SECTIONS}
_HEX = re.compile(r"^#[0-9A-Fa-f]{6}$")


class ProfileError(ValueError):
    """A profile that cannot be used; the message is one line and names the file and the field."""


def _is_colour_field(name: str) -> bool:
    return name.endswith("colour") or name.startswith("blank_flower_centre")


def _check_colour(where: str, value: Any) -> str:
    if not isinstance(value, str) or not _HEX.match(value):
        raise ProfileError(f"{where}: {value!r} is not a colour '#RRGGBB'")
    return value


def _section(name: str, model: type, data: Any, base: Any) -> Any:
    """``base`` (a model instance) with the fields given in ``data`` validated and replaced."""
    if not isinstance(data, dict):
        raise ProfileError(f"{name}: must be an object of fields")
    known = {f.name: f for f in dataclasses.fields(model)}
    for key in data:
        if key not in known:
            raise ProfileError(f"{name}.{key}: unknown field (known: {', '.join(known)})")
    merged = {**dataclasses.asdict(base), **data}
    for key, value in data.items():
        if _is_colour_field(key):
            merged[key] = _check_colour(f"{name}.{key}", value)
        elif key == "underside":
            if not isinstance(value, dict) or set(value) != set(base.underside):
                raise ProfileError(f"{name}.underside: must give the colours of {', '.join(base.underside)}")
            merged[key] = {k: _check_colour(f"{name}.underside.{k}", v) for k, v in value.items()}
        elif key == "icon_style" and value not in ICON_STYLES:
            raise ProfileError(f"{name}.icon_style: {value!r} is not one of {', '.join(ICON_STYLES)}")
    try:
        out = TypeAdapter(model).validate_python(merged, strict=False)
    except ValidationError as e:
        first = e.errors()[0]
        key, *inner = first["loc"] or ("?",)
        where = f" (item {'.'.join(str(p) for p in inner)})" if inner else ""
        raise ProfileError(f"{name}.{key}: {first['msg'].lower()}{where}") from None
    for key in data:  # sizes, positions and counts in the board frame are never negative
        v = getattr(out, key)
        flat = [x for item in (v if isinstance(v, tuple) else (v,))
                for x in (item if isinstance(item, tuple) else (item,))]
        if any(isinstance(x, (int, float)) and x < 0 for x in flat):
            raise ProfileError(f"{name}.{key}: must not be negative")
    return out


def profile_from_dict(data: Any) -> Profile:
    """A validated :class:`Profile` from a parsed profile document (see the module docstring)."""
    if not isinstance(data, dict):
        raise ProfileError("a profile must be a JSON object")
    if data.get("format") != FORMAT:
        raise ProfileError(f"format: {data.get('format')!r} is not {FORMAT!r}")
    for key in data:
        if key not in TOP_KEYS:
            raise ProfileError(f"{key}: unknown field (known: {', '.join(sorted(TOP_KEYS))})")
    based_on = data.get("based_on", REFERENCE.name)
    if based_on not in BUILT_IN:
        raise ProfileError(f"based_on: {based_on!r} is not a built-in profile ({', '.join(BUILT_IN)})")
    base = BUILT_IN[based_on]
    name = data.get("name", "unnamed")
    if not isinstance(name, str) or not name.strip():
        raise ProfileError("name: must be a non-empty string")
    changes: dict[str, Any] = {"name": name}
    for sec, model in SECTIONS.items():
        if sec in data:
            changes[sec] = _section(sec, model, data[sec], getattr(base, sec))
    if "flowers" in data:
        fl = data["flowers"]
        if not isinstance(fl, dict) or set(fl) != set(FLOWERS):
            raise ProfileError(f"flowers: must give exactly the colours of {', '.join(FLOWERS)}")
        changes["flowers"] = {k: _check_colour(f"flowers.{k}", fl[k]) for k in FLOWERS}
    if "level_height" in data:
        lh = data["level_height"]
        if isinstance(lh, bool) or not isinstance(lh, (int, float)) or not 5.0 <= lh <= 100.0:
            raise ProfileError(f"level_height: {lh!r} is not a height in mm (5..100)")
        changes["level_height"] = float(lh)
    return dataclasses.replace(base, **changes)


def profile_to_dict(profile: Profile, notes: str = "") -> dict[str, Any]:
    """The full document of ``profile`` (every field written)."""
    doc: dict[str, Any] = {"format": FORMAT, "name": profile.name}
    if notes:
        doc["notes"] = notes
    doc["flowers"] = dict(profile.flowers)
    for sec in SECTIONS:
        doc[sec] = dataclasses.asdict(getattr(profile, sec))
    doc["level_height"] = profile.level_height
    return doc


def save_profile(profile: Profile, path: str | Path, notes: str = "") -> None:
    """Write ``profile`` to ``path`` atomically (a temporary file, then renamed)."""
    text = json.dumps(profile_to_dict(profile, notes), indent=2) + "\n"
    atomic_write(Path(path), text.encode())


def load_profile(path: str | Path) -> Profile:
    """Read a profile file; :class:`ProfileError` (naming the file and the field) if it is unusable."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ProfileError(f"{path}: cannot read: {e.strerror or e}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ProfileError(f"{path}: not JSON ({e})") from None
    try:
        return profile_from_dict(data)
    except ProfileError as e:
        raise ProfileError(f"{path}: {e}") from None


def resolve_profile(spec: str | Path | None) -> Profile:
    """``--profile``: a built-in profile's name (``reference``, ``variant``) or a profile file; None is
    the reference edition."""
    if spec is None:
        return REFERENCE
    if str(spec) in BUILT_IN and not Path(spec).exists():
        return BUILT_IN[str(spec)]
    return load_profile(spec)
