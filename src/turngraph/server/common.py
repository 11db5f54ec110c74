"""What every route shares: the error body, status mapping, authentication, memory lookup."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Request
from pydantic import BaseModel

from turngraph.core.access import Caller, Tier
from turngraph.core.database import Database
from turngraph.core.memory import Memory
from turngraph.core.validate import MEMORY_NAME_RE
from turngraph.errors import (
    AuthenticationError,
    ConflictError,
    ExtractionError,
    ForbiddenError,
    ModelError,
    NotFoundError,
    StoreError,
    TooLargeError,
    TurngraphError,
    ValidationError,
)
from turngraph.store.base import MemoryRow


class ErrorBody(BaseModel):
    """Every error response: a message that says what is wrong, and where."""

    message: str
    error: str | None = None
    field: str | None = None


class HTTPProblem(Exception):
    """An error answered with ``status`` and ``{"message": ...}``."""

    def __init__(
        self, status: int, message: str, *, headers: dict[str, str] | None = None, **extra: Any
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}
        self.extra = extra


STATUS: list[tuple[type[TurngraphError], int]] = [
    (TooLargeError, 413),
    (ValidationError, 400),
    (NotFoundError, 404),
    (ConflictError, 409),
    (AuthenticationError, 401),
    (ForbiddenError, 403),
    (ExtractionError, 502),
    (ModelError, 502),
    (StoreError, 503),
]


def class_of(status: int) -> str | None:
    """The error class a status stands for, named in a body that has no class of its own."""
    for kind, code in STATUS:
        if code == status:
            return kind.__name__
    return None


def status_of(exc: TurngraphError) -> int:
    for kind, status in STATUS:
        if isinstance(exc, kind):
            return status
    return 500


ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": text}
    for status, text in (
        (400, "Bad input: the message names the field"),
        (401, "Missing, unknown or revoked key"),
        (403, "The key's connection to this memory does not allow this"),
        (404, "Unknown memory, session, entity, observation, file or proposal"),
        (409, "Conflict (exists already, idempotency key reused or in flight)"),
        (413, "Body over the size limit"),
        (422, "Syntactically invalid memory (context) id"),
        (
            502,
            "The extractor failed or ran past TURNGRAPH_EXTRACTION_TIMEOUT_SECONDS; the turn "
            "was stored without extracted facts (the body names it)",
        ),
        (503, "Busy or timed out; retry"),
    )
}


def responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: ERRORS[code] for code in codes}


@dataclass(frozen=True, slots=True)
class Bound:
    """A memory opened for one request, with the caller's tier on it."""

    memory: Memory
    row: MemoryRow
    caller: Caller
    tier: Tier


def database(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def authenticated(request: Request, db: Annotated[Database, Depends(database)]) -> Caller:
    caller = db.access.authenticate(bearer(request))
    if caller is None:
        raise HTTPProblem(401, "a valid API key is required: send 'Authorization: Bearer <key>'")
    return caller


CallerDep = Annotated[Caller, Depends(authenticated)]
DatabaseDep = Annotated[Database, Depends(database)]


def memory_name(name: str, *, status: int = 422) -> str:
    if not MEMORY_NAME_RE.match(name):
        raise HTTPProblem(
            status,
            f"invalid memory id {name!r}: use 1-64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit",
            field="context",
        )
    return name


def bind(db: Database, caller: Caller, name: str, needed: Tier, *, bad_id: int = 422) -> Bound:
    """Open memory ``name`` for ``caller`` if its tier allows ``needed``: 422 for a malformed
    id, 404 for a name the caller's organization does not use (another organization's memory
    reads the same), 403 without a sufficient connection."""
    memory_name(name, status=bad_id)
    row, tier = caller.open(db.store, name, needed)  # one read: the memory and the grant
    try:
        memory = db.memory_of(row)  # the row just read: no second read
    except ValueError as exc:  # a stored configuration that no longer parses
        raise HTTPProblem(
            503,
            f"memory {name!r} cannot be served: its stored retrieval configuration does not "
            f"load ({exc})",
            memory=name,
        ) from None
    check_servable(memory)
    return Bound(memory, row, caller, tier)


def check_servable(memory: Memory) -> None:
    """503 naming the cause when the memory's embedder cannot load (its writes could not be
    indexed nor its dense recall run); tried again on every request, so it serves as soon as
    the cause is fixed."""
    try:
        memory.embedder  # noqa: B018 (built once per process, then shared)
    except (TurngraphError, OSError, RuntimeError, ValueError) as exc:
        raise HTTPProblem(
            503,
            f"memory {memory.name!r} cannot be served: its embedder "
            f"{memory.retrieval.embedder!r} does not load ({exc}); an operator must make it "
            "available (install the model, set the embeddings endpoint)",
            memory=memory.name,
        ) from None


_HEADER_SAFE = re.compile(r"[^\x21-\x7e]")


def principal_header(request: Request) -> str | None:
    """The principal a call is made on behalf of (either header name; ``principal:`` is
    stripped)."""
    for name in ("x-memory-on-behalf-of", "x-spectron-on-behalf-of"):
        value = request.headers.get(name)
        if value:
            value = value.strip().removeprefix("principal:")
            return _HEADER_SAFE.sub("", value)[:200] or None
    return None
