"""Every error turngraph raises, in one tree.

::

    TurngraphError
    ├── ValidationError          the input breaks the write contract or a limit
    │   └── TooLargeError        a payload over a hard size limit
    ├── NotFoundError            no memory, observation, entity, file or proposal by that id
    ├── ConflictError            the request contradicts what is stored
    │   ├── IdempotencyConflictError   the same key was used with different content
    │   └── ImmutableConfigError       an attempt to change a fixed retrieval configuration
    ├── AuthenticationError      a server refused the key (missing, unknown, revoked)
    ├── ForbiddenError           the caller's tier does not allow the operation
    ├── StoreError               the storage backend failed
    └── ExtractionError          an extractor failed or returned malformed output

Each error carries its message (``str(error)``) and the fields that locate the problem
(``error.fields``, also readable as attributes: ``error.field``, ``error.memory``, ...). The
faces map the classes to HTTP status codes and MCP tool errors, each in one place, and
carry the class across the wire by name (``error``, beside ``message`` and the fields):
:func:`rebuild` turns such a body back into the same class, so ``except
IdempotencyConflictError`` works the same embedded, through ``turngraph.Client`` and over MCP.
"""

from __future__ import annotations

from typing import Any


class TurngraphError(Exception):
    """Base class of every error turngraph raises on purpose."""

    # The HTTP status a server answered with, when the error came from one (not a field:
    # the same error raised in process has the same fields).
    status: int | None = None

    def __init__(self, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.message = message
        self.fields: dict[str, Any] = {k: v for k, v in fields.items() if v is not None}

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: expose the fields as attributes.
        fields = self.__dict__.get("fields", {})
        if name in fields:
            return fields[name]
        raise AttributeError(name)

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        """The error as a JSON-ready dict: its kind, message and fields."""
        return {"error": type(self).__name__, "message": self.message, **self.fields}


class ValidationError(TurngraphError):
    """The input breaks the write contract, a format rule or a limit; nothing was written."""


class TooLargeError(ValidationError):
    """A payload (content, file, list) is over a hard size limit; nothing was written."""


class NotFoundError(TurngraphError):
    """No object of that kind exists under that identifier."""


class ConflictError(TurngraphError):
    """The request contradicts what is stored (it exists already, or it is in use)."""


class IdempotencyConflictError(ConflictError):
    """An idempotency key was replayed with different content."""


class ImmutableConfigError(ConflictError):
    """A memory's retrieval configuration is fixed at creation and cannot be changed."""


class ForbiddenError(TurngraphError):
    """The caller's access tier does not allow this operation on this memory."""


class AuthenticationError(TurngraphError):
    """A server refused the key: missing, unknown or revoked (HTTP 401)."""


class StoreError(TurngraphError):
    """The storage backend failed (I/O, corruption, a server gone away)."""


class ExtractionError(TurngraphError):
    """An extractor failed or returned output that does not validate."""


class ModelError(TurngraphError):
    """The chat model failed, answered out of shape or ran past its time; what was stored
    before it was asked stays stored (its fields name it), and no reply is made up."""


def error_classes() -> dict[str, type[TurngraphError]]:
    """Every error class by its name, as the wire carries it."""
    found: dict[str, type[TurngraphError]] = {}
    todo: list[type[TurngraphError]] = [TurngraphError]
    while todo:
        kind = todo.pop()
        found[kind.__name__] = kind
        todo.extend(kind.__subclasses__())
    return found


def rebuild(
    body: dict[str, Any], *, default: type[TurngraphError] = TurngraphError
) -> TurngraphError:
    """The error a body made by :meth:`TurngraphError.to_dict` describes: its class by name
    (``default`` for a name this version does not know), its message and its fields."""
    fields = {k: v for k, v in body.items() if k not in ("error", "message")}
    kind = error_classes().get(str(body.get("error")), default)
    return kind(str(body.get("message") or default.__name__), **fields)


__all__ = [
    "AuthenticationError",
    "ConflictError",
    "ExtractionError",
    "ForbiddenError",
    "IdempotencyConflictError",
    "ImmutableConfigError",
    "ModelError",
    "NotFoundError",
    "StoreError",
    "TooLargeError",
    "TurngraphError",
    "ValidationError",
]
