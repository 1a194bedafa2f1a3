"""Multipart forms parsed in memory.

Starlette's own form parser spools a file part larger than 1 MB to a temporary file on disk; the
service promises to write nothing a user sends unless the operator asks for it, so uploads are
parsed here with the spool never rolling over to disk (the body is already bounded by the upload
limit, see :mod:`service.api.limits`).
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request


class BadForm(Exception):
    """A body that is not the form the endpoint takes (answered 422)."""


@dataclass(frozen=True)
class Upload:
    field: str
    filename: str
    data: bytes


class _InMemoryMultiPartParser(MultiPartParser):
    spool_max_size = 2**62  #: never roll a part over to disk; the body's size is bounded before


def is_multipart(request: Request) -> bool:
    return request.headers.get("content-type", "").lower().startswith("multipart/form-data")


async def read_form(request: Request, max_files: int) -> tuple[list[Upload], dict[str, list[str]]]:
    """The file parts and the text fields of a ``multipart/form-data`` body, all in memory."""
    if not is_multipart(request):
        raise BadForm("expected a multipart/form-data upload")
    parser = _InMemoryMultiPartParser(
        request.headers, request.stream(), max_files=max_files, max_fields=100, max_part_size=64 * 1024
    )
    try:
        form = await parser.parse()
    except MultiPartException as e:
        raise BadForm(f"malformed multipart upload: {e.message}") from None
    files: list[Upload] = []
    fields: dict[str, list[str]] = {}
    try:
        for key, value in form.multi_items():
            if isinstance(value, UploadFile):
                files.append(Upload(key, value.filename or "", await value.read()))
            else:
                fields.setdefault(key, []).append(value)
    finally:
        await form.close()
    return files, fields
