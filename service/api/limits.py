"""ASGI middleware for the service's limits: the size of a request body and the time a request
may take. Both answer with the API's JSON error object."""

from __future__ import annotations

import asyncio
import json
import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("babylon.service")


async def _send_error(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class BodyLimitMiddleware:
    """Reads the request body before the app sees it, refusing one over ``limit`` bytes with 413:
    at once when Content-Length says so, else as soon as the bytes received pass the limit. The app
    then reads the body from memory."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    def _too_large(self) -> str:
        return f"the request body is over the limit of {self.limit / 2**20:g} MB"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            await _send_error(send, 413, self._too_large())
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await _send_error(send, 413, self._too_large())
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class TimeLimitMiddleware:
    """Answers 504 when the app has not started its response within ``seconds``. Work already
    handed to a worker thread finishes there (threads cannot be stopped), but the number of such
    threads is bounded, so an overload queues rather than piles up."""

    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app, self.seconds = app, seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            async with asyncio.timeout(self.seconds):
                await self.app(scope, receive, tracking_send)
        except TimeoutError:
            log.warning("%s %s: over the time limit of %g s", scope.get("method"), scope.get("path"),
                        self.seconds)
            if not started:
                await _send_error(send, 504, f"the request took longer than the limit of {self.seconds:g} s")
