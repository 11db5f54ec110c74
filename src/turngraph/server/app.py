"""The ASGI application: one core, two APIs (the memory API and the graph API), admin routes.

Routes are plain functions run in the worker thread pool: reads run concurrently, writes to
one memory queue on its lock in the core. Every response carries ``X-Trace-Id``; every error
is ``{"message": ...}`` with the status of its kind, never a stack trace.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import turngraph
from turngraph.core.database import Database
from turngraph.core.extraction_pool import ProcessExtractor
from turngraph.errors import TurngraphError
from turngraph.server.common import HTTPProblem, class_of, status_of
from turngraph.server.settings import ServerSettings

log = logging.getLogger("turngraph.server")


def create_app(
    settings: ServerSettings | None = None, *, db: Database | None = None, freeze: bool = False
) -> FastAPI:
    """The application for ``settings`` (or on an open ``db``, which the caller closes).

    ``freeze`` is for a process that exists to serve it (``turngraph serve``): once the app
    has started, every object alive is moved out of the garbage collector's reach
    (``gc.freeze``). The collector's full passes otherwise walk the whole heap, modules and
    libraries included (170,000 objects), holding every thread for 30-80 ms a few times a
    minute under load; after the freeze they walk only what the requests left behind."""
    from turngraph.server import admin_api, graph_api, memory_api, ui
    from turngraph.server.routes_made import made_router

    settings = settings or ServerSettings()

    from turngraph.mcp.server import Gateway

    gateway = Gateway(lambda: app.state.db)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = db is None
        app.state.db = db or turngraph.open(settings.db, settings=settings.core())
        app.state.settings = settings
        await asyncio.to_thread(_warm, app.state.db)
        if freeze:
            gc.collect()  # what is garbage now is not kept for good
            gc.freeze()
        try:
            async with gateway.session():
                yield
        finally:
            if owned:
                app.state.db.close()

    # /docs and /redoc load Swagger UI and ReDoc from the fastapi-offline package, not a CDN.
    app = FastAPIOffline(
        title="turngraph",
        version=turngraph.__version__,
        summary="Memory for conversational agents: turns, an editable graph, bounded recall.",
        lifespan=lifespan,
    )
    app.include_router(memory_api.router)
    app.include_router(graph_api.router)
    app.include_router(made_router())  # the table's routes, after the hand-written ones
    app.include_router(admin_api.router)
    ui.mount(app)
    # MCP over streamable HTTP, with the same keys and tiers (not in the OpenAPI document).
    app.router.routes.append(Route("/mcp", gateway, methods=["GET", "POST", "DELETE"]))
    _errors(app)
    app.add_middleware(UnexpectedErrorMiddleware)
    app.add_middleware(TimeoutMiddleware, seconds=settings.request_timeout_seconds)
    app.add_middleware(BodyLimitMiddleware, limit=settings.max_body_bytes)
    app.add_middleware(TraceMiddleware)
    return app


def _warm(db: Database) -> None:
    """Load the embedders the memories use, and start the extraction workers, before the
    first request needs them.

    A memory whose embedder cannot load (a model no longer on disk, an endpoint no longer
    configured) never stops the server: it is reported here, its requests are refused with
    503 naming the cause, and every other memory serves."""
    if isinstance(db.extractor, ProcessExtractor):
        db.extractor.warm()
    for row in db.store.list_memories():
        try:
            embedder = db.memory_of(row).embedder
            if embedder is not None:
                embedder.embed(["warm up"])
                if (single := embedder.single_threaded()) is not embedder:
                    single.embed(["warm up"])
        except (TurngraphError, OSError, RuntimeError, ValueError) as exc:
            log.error("memory %r cannot be served until its embedder loads: %s", row.name, exc)


def _problem(status: int, message: str, /, **extra: Any) -> JSONResponse:
    # Positional-only: an error's own fields may be named "status" or "message". Every body
    # names its error class, so a client raises the class the core raised.
    body = {"message": message, **{k: v for k, v in extra.items() if v is not None}}
    if "error" not in body and (kind := class_of(status)) is not None:
        body["error"] = kind
    return JSONResponse(body, status_code=status)


def _errors(app: FastAPI) -> None:
    @app.exception_handler(TurngraphError)
    async def core_error(_: Request, exc: TurngraphError) -> JSONResponse:
        body = exc.to_dict()
        return _problem(status_of(exc), body.pop("message"), **body)

    @app.exception_handler(HTTPProblem)
    async def problem(_: Request, exc: HTTPProblem) -> JSONResponse:
        response = _problem(exc.status, exc.message, **exc.extra)
        response.headers.update(exc.headers)
        return response

    @app.exception_handler(RequestValidationError)
    async def bad_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors()[:5]:
            where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
            parts.append(f"{where}: {err.get('msg', 'invalid')}")
        first = exc.errors()[0].get("loc", ()) if exc.errors() else ()
        field = ".".join(str(p) for p in first if p != "body") or None
        return _problem(400, "invalid request: " + "; ".join(parts), field=field)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _problem(exc.status_code, str(exc.detail))

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=exc)
        return _problem(500, "internal error; see the server log")


class TraceMiddleware:
    """Gives every response an ``X-Trace-Id`` (the caller's, if it sent a sane one)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        trace = f"trace:{secrets.token_hex(8)}".encode()
        scope.setdefault("state", {})["trace_id"] = trace.decode()  # request.state.trace_id

        async def send_with_trace(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k != b"x-trace-id"]
                message["headers"] = [*headers, (b"X-Trace-Id", trace)]
            await send(message)

        await self.app(scope, receive, send_with_trace)


class BodyLimitMiddleware:
    """Refuses a body over ``limit`` bytes with 413, by its Content-Length or as it streams."""

    def __init__(self, app: ASGIApp, *, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for key, value in scope.get("headers", []):
            if key == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > self.limit:
                    await self._refuse(send)
                    return
        seen = 0
        over = False

        async def counted() -> Message:
            nonlocal seen, over
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    over = True
                    raise _TooBig
            return message

        async def answer(message: Message) -> None:
            # The framework may turn a failed read of the body into its own 400: a body
            # (chunked, without a Content-Length) that went over the limit is still a 413.
            if not over:
                await tracked(message)
            elif message["type"] == "http.response.start" and not tracked.started:
                await self._refuse(tracked)

        tracked = _Tracked(send)
        try:
            await self.app(scope, counted, answer)
        except _TooBig:
            if not tracked.started:
                await self._refuse(tracked)

    async def _refuse(self, send: Send) -> None:
        response = _problem(413, f"request body is over the limit of {self.limit} bytes")
        await response({"type": "http"}, _no_body, send)


class _TooBig(Exception):
    pass


class _Tracked:
    """A ``send`` that remembers whether the response has started (after which no error
    response can replace it)."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.started = False

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
        await self.send(message)


async def _no_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


class UnexpectedErrorMiddleware:
    """Answers an unexpected exception with 500 and ``{"message": ...}`` and keeps the
    connection open (the framework's own last-resort handler re-raises it to the server,
    which then drops the keep-alive connection)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        tracked = _Tracked(send)
        try:
            await self.app(scope, receive, tracked)
        except (_TooBig, asyncio.CancelledError):
            raise
        except Exception as exc:
            log.exception("unexpected error", exc_info=exc)
            if tracked.started:
                raise
            await _problem(500, "internal error; see the server log")(scope, _no_body, send)


class TimeoutMiddleware:
    """Answers 503 when a request runs past ``seconds``."""

    def __init__(self, app: ASGIApp, *, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path", "").startswith("/mcp"):
            await self.app(scope, receive, send)
            return
        tracked = _Tracked(send)
        try:
            await asyncio.wait_for(self.app(scope, receive, tracked), self.seconds)
        except TimeoutError:
            if not tracked.started:
                await self._answer_late(scope, send)

    async def _answer_late(self, scope: Scope, send: Send) -> None:
        # The worker cannot be stopped: a write goes on and may still land. A retry is safe
        # for a read, or for a write with an Idempotency-Key (the retry waits for the first
        # one's result); without a key it may store a second copy, so none is invited.
        safe = scope.get("method") in ("GET", "HEAD", "OPTIONS")
        keyed = any(k == b"idempotency-key" for k, _ in scope.get("headers", []))
        message = f"the request took longer than {self.seconds:g} s"
        if not safe:
            message += "; its write goes on and may still complete" + (
                ": retry with the same Idempotency-Key to get its result"
                if keyed
                else ": check before retrying, or send an Idempotency-Key so that a retry "
                "cannot store it twice"
            )
        response = _problem(503, message)
        if safe or keyed:
            response.headers["Retry-After"] = "1"
        await response(scope, _no_body, send)
