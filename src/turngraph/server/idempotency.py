"""``Idempotency-Key`` on HTTP writes.

The same key with the same body replays the stored response for 24 hours; a different body,
or a duplicate while the first is still in flight, is 409; a write that fails releases the key
(except when the turn was stored before extraction failed: that answer is kept and replayed,
so a retry does not store the turn twice). Records live in the database, so they hold across
workers and restarts; a claim whose request died is taken over after twice the request
timeout. Keys are opaque strings, scoped to the memory and the principal.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi.responses import JSONResponse

from turngraph.errors import ExtractionError
from turngraph.server.common import HTTPProblem, status_of
from turngraph.store.base import Store

KEEP = timedelta(hours=24)
MAX_KEY_CHARS = 200


def run_once(
    store: Store,
    *,
    scope: str,
    key: str | None,
    fp: str,
    timeout_seconds: float,
    write: Callable[[], tuple[int, Any]],
) -> JSONResponse:
    """Run ``write`` (returning status and JSON-ready body) at most once per key."""
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
        stale_before=now - timedelta(seconds=2 * timeout_seconds),
    )
    if held is not None:
        if held.state == "pending":
            raise HTTPProblem(409, "a request with this Idempotency-Key is still in flight")
        if held.fingerprint != fp:
            raise HTTPProblem(409, "this Idempotency-Key was used with a different request body")
        return JSONResponse(
            json.loads(held.body or "null"),
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
