"""The FastAPI application: the `/v1` API, the web page at `/`, and the error handling.

Build it with :func:`create_app` (tests, embedding) or let uvicorn call :func:`create_app_from_env`
(``babylon serve``, several workers).
"""

from __future__ import annotations

import asyncio
import logging
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Annotated, Any

import anyio
from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from scoring.garden import FORMAT, GardenError, loads
from scoring.score import Score, rank
from service.api import labels, photos
from service.api.limits import BodyLimitMiddleware, TimeLimitMiddleware
from service.api.models import (
    MAX_PLAYERS,
    ErrorOut,
    GardenIn,
    GardenScoreOut,
    HealthOut,
    LabelSavedOut,
    LabelsOut,
    PhotoScoreOut,
    RankIn,
    RankOut,
    VersionOut,
)
from service.api.settings import Settings
from service.api.uploads import BadForm, is_multipart, read_form
from vision.read import ImageTooLargeError, PhotoError, UnreadableImageError

log = logging.getLogger("babylon.service")
STATIC = Path(__file__).resolve().parent.parent / "static"
IMAGE_TYPES = "JPEG, PNG, WebP or HEIC"

ERRORS: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorOut, "description": "the upload is too large (bytes or pixels)"},
    415: {"model": ErrorOut, "description": f"not a readable image ({IMAGE_TYPES})"},
    422: {"model": ErrorOut, "description": "no readable board, or a malformed request (the reason says)"},
    504: {"model": ErrorOut, "description": "the request took longer than the time limit"},
}
GARDEN_ERRORS = {k: ERRORS[k] for k in (413, 422, 504)}
LABEL_ERRORS: dict[int | str, dict[str, Any]] = {
    **ERRORS, 404: {"model": ErrorOut, "description": "the service keeps no labels"},
    507: {"model": ErrorOut, "description": "the label could not be stored"},
}
LABEL_FORM = {"requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
    "type": "object", "required": ["photo", "garden"],
    "properties": {
        "photo": {"type": "string", "format": "binary", "description": f"the photo: {IMAGE_TYPES}"},
        "garden": {"type": "string", "description": f"the photo's garden as `{FORMAT}` JSON"},
    },
}}}}}

PHOTO_FORM = {"requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
    "type": "object", "required": ["photo"],
    "properties": {
        "photo": {"type": "string", "format": "binary", "description": f"the photo: {IMAGE_TYPES}"},
    },
}}}}}
RANK_BODY = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": {"$ref": "#/components/schemas/RankIn"}},
    "multipart/form-data": {"schema": {
        "type": "object", "required": ["photos"],
        "properties": {
            "photos": {"type": "array", "items": {"type": "string", "format": "binary"},
                       "maxItems": MAX_PLAYERS, "description": "one photo per player"},
            "names": {"type": "array", "items": {"type": "string"},
                      "description": "the players' names, in the order of the photos (default: file names)"},
        },
    }},
}}}


def _version() -> str:
    try:
        return version("babylon-scorer")
    except PackageNotFoundError:
        return "unknown"


def _where(loc: tuple[Any, ...]) -> str:
    parts = [p for p in loc if p not in ("body", "query", "path")]
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts).lstrip(".")
    # pydantic names the branch of a union it tried (e.g. "tuple[int, int]"); the user does not care
    return text.split(".tuple[")[0].split(".function-after")[0] or "body"


def one_line(errors: list[Any]) -> str:
    """The first validation error as one line: where, what, the value given."""
    if not errors:
        return "malformed request"
    first = errors[0]
    msg = str(first.get("msg", "invalid")).removeprefix("Value error, ")
    if first.get("type") == "json_invalid":
        return "body: not valid JSON"
    if first.get("type") == "missing" and tuple(first.get("loc", ())) == ("body",):
        return f"body: a JSON object is required ({FORMAT} garden)"
    value = first.get("input")
    hide = isinstance(value, dict | list) or first.get("type") == "missing"
    shown = "" if hide else f" (got {str(value)[:60]!r})"
    more = f" [+{len(errors) - 1} more problem(s)]" if len(errors) > 1 else ""
    return f"{_where(tuple(first.get('loc', ())))}: {msg}{shown}{more}"


def _error(status: int, detail: str) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status)


def _install_error_handlers(app: FastAPI) -> None:
    async def validation(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError | ValidationError)
        return _error(422, one_line(list(exc.errors())))

    async def http_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code == 400:  # FastAPI's "error parsing the body", e.g. JSON nested too deeply
            return _error(422, "body: cannot be parsed (not valid JSON, or nested too deeply)")
        return JSONResponse({"detail": str(exc.detail)}, status_code=exc.status_code, headers=exc.headers)

    def fixed(status: int) -> Any:
        async def handler(_: Request, exc: Exception) -> JSONResponse:
            return _error(status, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)

        return handler

    async def internal(request: Request, exc: Exception) -> JSONResponse:
        # one line here; the server logs the traceback (Starlette re-raises after this response)
        log.error("%s %s failed: %s: %s", request.method, request.url.path, type(exc).__name__, exc)
        return _error(500, "internal error: the service failed on this request; it has been logged")

    app.add_exception_handler(RequestValidationError, validation)
    app.add_exception_handler(ValidationError, validation)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(ImageTooLargeError, fixed(413))
    app.add_exception_handler(UnreadableImageError, fixed(415))
    app.add_exception_handler(PhotoError, fixed(422))  # NoBoardError and any other unreadable photo
    app.add_exception_handler(GardenError, fixed(422))
    app.add_exception_handler(BadForm, fixed(422))
    app.add_exception_handler(Exception, internal)


def _custom_openapi(app: FastAPI) -> Any:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description,
                                 routes=app.routes)
            extra = RankIn.model_json_schema(ref_template="#/components/schemas/{model}")
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            for name, sub in extra.pop("$defs", {}).items():
                components.setdefault(name, sub)
            components["RankIn"] = extra
            app.openapi_schema = schema
        return app.openapi_schema

    return openapi


def create_app(settings: Settings | None = None, reader: photos.Reader | None = None) -> FastAPI:
    """The service. ``reader`` turns a decoded photo into a Reading (default: the photo reader with the
    settings' profile; a bad profile raises :class:`vision.profile_io.ProfileError`)."""
    settings = settings or Settings()
    if reader is None:
        from vision.profile_io import resolve_profile
        from vision.read import read_photo

        reader = partial(read_photo, profile=resolve_profile(settings.profile))
    app = FastAPI(
        title="babylon-scorer",
        version=_version(),
        description="Scores a finished garden of the board game Babylon: from a photo, or from a "
        f"`{FORMAT}` garden. Errors are `{{\"detail\": \"one-line reason\"}}`.",
    )
    app.state.settings = settings
    limiter: list[anyio.CapacityLimiter] = []

    async def in_worker(fn: Any, *args: Any) -> Any:
        if not limiter:  # made on first use: it belongs to the running event loop
            limiter.append(anyio.CapacityLimiter(settings.photo_workers))
        return await anyio.to_thread.run_sync(partial(fn, *args), limiter=limiter[0])

    async def score_photo(data: bytes, name: str, want_overlay: bool) -> dict[str, Any]:
        if not data:
            raise UnreadableImageError(f"{name}: the file is empty")

        def work() -> dict[str, Any]:
            photo = photos.decode(data, name, settings.max_pixels)
            result = photos.read_result(photo, reader, want_overlay, settings.overlay_long_side)
            if settings.save_dir is not None:
                photos.save_upload(settings.save_dir, data, photo.format, result)
            return result

        return await in_worker(work)

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/healthz", response_model=HealthOut, tags=["service"])
    async def healthz() -> HealthOut:
        """Liveness: answers at once, without touching the reader."""
        return HealthOut()

    @app.get("/version", response_model=VersionOut, tags=["service"])
    async def get_version() -> VersionOut:
        return VersionOut(name="babylon-scorer", version=_version(), api="v1", garden_format=FORMAT)

    @app.post("/v1/score/garden", response_model=GardenScoreOut, responses=GARDEN_ERRORS, tags=["score"])
    async def score_garden_route(garden: GardenIn) -> dict[str, Any]:
        """Score a `babylon-garden/1` garden (spec 4.1): the score (spec 4.2) and the legality findings."""
        return photos.garden_result(garden)  # a GardenIn is a Garden

    @app.post("/v1/score", response_model=PhotoScoreOut, responses=ERRORS, openapi_extra=PHOTO_FORM,
              tags=["score"])
    async def score_photo_route(
        request: Request,
        overlay: Annotated[bool, Query(description="add the overlay (PNG, base64) and the grid")] = False,
    ) -> dict[str, Any]:
        """Score a photo of a garden (spec 4.3): the score, the garden read, the reader's warnings and
        confidence, and the legality findings of that garden."""
        files, _ = await read_form(request, max_files=1)
        photo = next((f for f in files if f.field == "photo"), None)
        if photo is None:
            raise BadForm("photo: a file field named 'photo' is required")
        return await score_photo(photo.data, photo.filename[:80] or "photo", overlay)

    @app.post("/v1/rank", response_model=RankOut, responses=ERRORS, openapi_extra=RANK_BODY, tags=["score"])
    async def rank_route(request: Request) -> dict[str, Any]:
        """Rank the players of one game: most points first; a tie goes to fewer visible board holes,
        a remaining tie shares the place. Send the gardens as JSON, or one photo per player as
        `multipart/form-data` (fields `photos`, and `names` in the same order)."""
        entries: list[tuple[str, dict[str, Any]]] = []
        if is_multipart(request):
            files, fields = await read_form(request, max_files=MAX_PLAYERS)
            shots = [f for f in files if f.field == "photos"]
            if not shots:
                raise BadForm("photos: at least one file field named 'photos' is required")
            names = fields.get("names", [])
            if names and len(names) != len(shots):
                raise BadForm(f"names: {len(names)} name(s) for {len(shots)} photo(s)")
            names = names or [s.filename or f"player {i + 1}" for i, s in enumerate(shots)]
            results = await asyncio.gather(*(score_photo(s.data, s.filename[:80] or f"photos[{i}]", False)
                                             for i, s in enumerate(shots)))
            entries = [(n, {k: v for k, v in r.items() if k != "overlay"})
                       for n, r in zip(names, results, strict=True)]
        else:
            raw = await request.body()
            if not raw.strip():
                raise BadForm('body: {"players": [{"name", "garden"}, ...]} or photos are required')
            body = RankIn.model_validate_json(raw)
            gardens = [(p.name, p.garden.as_garden()) for p in body.players]
            entries = [(n, {"garden": g.to_dict(), **photos.garden_result(g)}) for n, g in gardens]
        if len({n for n, _ in entries}) != len(entries):
            raise BadForm("names: each player needs a different name")
        by_name = dict(entries)
        standings = rank([(n, Score(**r["score"])) for n, r in entries])
        return {"ranking": [{"place": s.place, "name": s.name, **by_name[s.name]} for s in standings]}

    @app.get("/v1/labels", response_model=LabelsOut, tags=["labels"])
    async def labels_info() -> LabelsOut:
        """Whether this service keeps labelled photos (``babylon serve --labels DIR``), and how many."""
        folder = settings.labels_dir
        return LabelsOut(enabled=folder is not None, count=labels.count_labels(folder) if folder else 0)

    @app.post("/v1/labels", response_model=LabelSavedOut, responses=LABEL_ERRORS, openapi_extra=LABEL_FORM,
              tags=["labels"])
    async def save_label_route(request: Request) -> LabelSavedOut:
        """Keep a photo with its (corrected) garden as a labelled pair for ``babylon calibrate``."""
        folder = settings.labels_dir
        if folder is None:
            raise StarletteHTTPException(404, "this service keeps no labels (babylon serve --labels DIR)")
        files, fields = await read_form(request, max_files=1)
        photo = next((f for f in files if f.field == "photo"), None)
        if photo is None or not photo.data:
            raise BadForm("photo: a file field named 'photo' is required")
        text = (fields.get("garden") or [""])[0]
        garden = loads(text)  # GardenError (422) for anything but a babylon-garden/1 garden
        name = photo.filename[:80] or "photo"
        decoded = await in_worker(photos.decode, photo.data, name, settings.max_pixels)
        try:
            stem = await in_worker(labels.save_label, folder, name, photo.data, decoded.format,
                                   garden.to_dict())
        except labels.LabelsFull as e:
            raise StarletteHTTPException(507, str(e)) from None
        except OSError as e:
            log.warning("cannot save a label in %s: %s", folder, e)
            raise StarletteHTTPException(507, "the label could not be saved on the server") from None
        return LabelSavedOut(saved=stem, count=labels.count_labels(folder))

    _install_error_handlers(app)
    app.openapi = _custom_openapi(app)  # type: ignore[method-assign]
    # outermost first: the time limit covers reading the body too
    app.add_middleware(BodyLimitMiddleware, limit=settings.max_upload_bytes)
    app.add_middleware(TimeLimitMiddleware, seconds=settings.time_limit_s)
    return app


def create_app_from_env() -> FastAPI:
    """uvicorn's factory (``babylon serve``): settings from ``BABYLON_*`` variables."""
    return create_app(Settings.from_env())
