"""Damaged photos through the whole reader: truncated or with bytes overwritten, a photo is either read
or refused with the reader's own one-line errors, never anything else (no crash deep in a stage)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.generate import generate_garden
from vision.read import NoBoardError, PhotoError, read_photo
from vision.read.reading import Reading
from vision.render.encode import encode_photo
from vision.render.photo import render_photo


@pytest.fixture(scope="module")
def jpeg() -> bytes:
    photo = render_photo(generate_garden(31), 31, size=(1200, 900))
    return encode_photo(photo.image, "jpeg", 85)


def _read_or_refuse(data: bytes) -> None:
    try:
        reading = read_photo(data)
    except (PhotoError, NoBoardError) as e:
        assert str(e) and "\n" not in str(e)
    else:
        assert isinstance(reading, Reading)
        assert 0.0 <= reading.confidence <= 1.0


@given(cut=st.floats(0.05, 0.98))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_truncated_photos(jpeg: bytes, cut: float) -> None:
    _read_or_refuse(jpeg[: int(len(jpeg) * cut)])


@given(
    edits=st.lists(st.tuples(st.floats(0.0, 1.0), st.binary(min_size=1, max_size=16)), min_size=1, max_size=6)
)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_photos_with_bytes_overwritten(jpeg: bytes, edits: list[tuple[float, bytes]]) -> None:
    data = bytearray(jpeg)
    for where, junk in edits:
        at = int(where * (len(data) - len(junk)))
        data[at : at + len(junk)] = junk
    _read_or_refuse(bytes(data))
