"""``Idempotency-Key`` on HTTP writes, one semantics for both APIs (the graph API's writes
and the memory API's).

The same key with the same body replays the stored response for 24 hours; a different body,
or a duplicate while the first is still in flight, is 409; a write that fails releases the key
(except when the turn was stored before extraction failed: that answer is kept and replayed,
so a retry does not store the turn twice). Records live in the database, so they hold across
workers and restarts. A claim is held until its worker has finished, even when the request
timed out (503) long before: it names the process that made it, and is taken over only once
that process is gone (a crash), never while it may still write. Keys are opaque strings,
scoped to the memory and the principal: one key space for a principal's writes to a memory,
whichever API carries them. An embedded :class:`~turngraph.Memory` call has no principal and
keeps the core's own keys (per memory, kept with the observation they created).
"""

from __future__ import annotations

import json
import os
import secrets
import socket
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi.responses import JSONResponse

from turngraph.errors import ExtractionError
from turngraph.server.common import HTTPProblem, status_of
from turngraph.store.base import Store

KEEP = timedelta(hours=24)
MAX_KEY_CHARS = 200
_HOST = socket.gethostname()
_owner: tuple[int, str] | None = None


def owner() -> str:
    """This process, as a claim names it: host, pid and a token (a forked worker gets its
    own)."""
    global _owner
    pid = os.getpid()
    if _owner is None or _owner[0] != pid:
        _owner = (pid, f"{_HOST}:{pid}:{secrets.token_hex(6)}")
    return _owner[1]


def abandoned(claim_owner: str | None) -> bool:
    """Whether the process that made a pending claim is gone, so the claim may be taken over:
    this process's never are (its worker finishes or releases it, however long it runs);
    another process's on this host are once that pid has exited; a claim made on another
    host is left to expire."""
    if claim_owner is None:  # made before claims named their process
        return True
    if claim_owner == owner():
        return False
    host, _, rest = claim_owner.partition(":")
    pid_text, _, _ = rest.partition(":")
    if host != _HOST or not pid_text.isdigit():
        return False
    if int(pid_text) == os.getpid():  # this pid, another token: a process before a restart
        return True
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except OSError:  # exists, owned by someone else
        return False
    return False


def run_once(
    store: Store,
    *,
    scope: str,
    key: str | None,
    fp: str,
    timeout_seconds: float,
    write: Callable[[], tuple[int, Any]],
    memory: str | None = None,
    replayed: Callable[[Any], Any] | None = None,
) -> JSONResponse:
    """Run ``write`` (returning status and JSON-ready body) at most once per key; a replay
    answers the stored body (passed through ``replayed``, which may mark it as a replay)."""
    if key is None:
        status, body = write()
        return JSONResponse(body, status_code=status)
    if not key.strip() or len(key) > MAX_KEY_CHARS:
        raise HTTPProblem(
            400, f"Idempotency-Key must be 1-{MAX_KEY_CHARS} characters", field="Idempotency-Key"
        )
    now = datetime.now(UTC)
    held = store.idempotency_claim(
        scope,
        key,
        fp,
        now=now,
        expired_before=now - KEEP,
        owner=owner(),
        abandoned=abandoned,
    )
    if held is not None:
        if held.state == "pending":
            raise HTTPProblem(
                409,
                "a request with this Idempotency-Key is still in flight (it may have timed "
                "out, but its write is still running); retry later to get its result",
                headers={"Retry-After": str(max(1, round(timeout_seconds)))},
                error="IdempotencyConflictError",
                memory=memory,
                idempotency_key=key,
                in_flight=True,
            )
        if held.fingerprint != fp:
            raise HTTPProblem(
                409,
                "this Idempotency-Key was used with a different request body",
                error="IdempotencyConflictError",
                memory=memory,
                idempotency_key=key,
            )
        stored = json.loads(held.body or "null")
        if replayed is not None and (held.status or 200) < 400:
            stored = replayed(stored)
        return JSONResponse(
            stored,
            status_code=held.status or 200,
            headers={"Idempotent-Replayed": "true"},
        )
    try:
        status, body = write()
    except ExtractionError as exc:
        err = exc.to_dict()
        store.idempotency_finish(scope, key, status_of(exc), json.dumps(err))
        raise
    except BaseException:
        store.idempotency_release(scope, key)
        raise
    store.idempotency_finish(scope, key, status, json.dumps(body))
    return JSONResponse(body, status_code=status)
