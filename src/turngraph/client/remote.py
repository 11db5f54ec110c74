"""Clients of a turngraph server's graph API, with the embedded API's names and results.

``Client(url, api_key)`` stands where :class:`turngraph.Database` stands and
``client.memory(name)`` where :class:`turngraph.Memory` does: the same method names, the same
keyword arguments, the same result models and the same error classes (a 404 raises
NotFoundError, a 403 ForbiddenError, ...), so code written against one runs against the
other. ``AsyncClient`` is the same with ``await``. Built on httpx.

Each operation is described once (:class:`_Call`: method, path, body, how to read the
answer) and run by a blocking or an async transport.

Writes (observations, turns) always carry an ``Idempotency-Key``: the caller's, or a fresh
one. When the server answers that the request timed out while its write goes on (503 with
``Retry-After``), or that the first request under the key is still in flight (409), or the
connection is lost, the client sends the same request again with the same key (at most
``RETRIES`` times, waiting as ``Retry-After`` says): the server replays the first write's
result, so a write is never stored twice and never reported failed after it landed.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, TypeAdapter

from turngraph.errors import (
    AuthenticationError,
    ConflictError,
    ExtractionError,
    ForbiddenError,
    NotFoundError,
    StoreError,
    TooLargeError,
    TurngraphError,
    ValidationError,
    rebuild,
)
from turngraph.models import (
    AppendixFile,
    AttributeVersion,
    BatchResult,
    ChatResult,
    DeleteResult,
    Entity,
    EntityDeleteResult,
    EntityState,
    EntitySummary,
    FileContent,
    ForgetResult,
    MemoryContext,
    MemoryInfo,
    MergeProposal,
    MergeResult,
    Neighborhood,
    Observation,
    RecallResult,
    RememberResult,
    Session,
    SessionPage,
    State,
    StateEntity,
    TurnDetail,
    TurnDetailPage,
    TurnPage,
    WriteResult,
)

T = TypeVar("T")


_ERRORS: dict[int, type[TurngraphError]] = {
    400: ValidationError,
    401: AuthenticationError,
    403: ForbiddenError,
    404: NotFoundError,
    409: ConflictError,
    413: TooLargeError,
    422: ValidationError,
    502: ExtractionError,
    503: StoreError,
}


def _seg(value: str) -> str:
    return quote(str(value), safe="")


def _clean(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


@dataclass(frozen=True)
class _Call(Generic[T]):
    method: str
    path: str
    parse: Callable[[httpx.Response], T]
    json: Any = None
    params: dict[str, Any] = field(default_factory=dict)
    content: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)


@cache
def _model(kind: Any) -> Callable[[httpx.Response], Any]:
    """A parser of responses into ``kind`` (built once per kind: building one is costly)."""
    adapter: TypeAdapter[Any] = TypeAdapter(kind)
    return lambda r: adapter.validate_json(r.content)


def _raise_for(response: httpx.Response) -> None:
    """Raise the error the server answered, as the class its body names (``error``), with
    its fields; a body without a known class gets the class of its status."""
    if response.status_code < 400:
        return
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        body = {"message": response.text or f"HTTP {response.status_code}"}
    body.setdefault("message", f"HTTP {response.status_code}")
    error = rebuild(body, default=_ERRORS.get(response.status_code, StoreError))
    error.status = response.status_code
    raise error


def _idem(key: str | None) -> dict[str, str]:
    """Every write carries an Idempotency-Key (a fresh one unless the caller chose it), so the
    client can send it again after a timeout without storing anything twice."""
    return {"Idempotency-Key": key if key is not None else f"tg-{uuid.uuid4().hex}"}


RETRIES = 5  # sends of one keyed write after the first, on a timeout or while in flight
MAX_WAIT = 10.0  # seconds between two sends at most, whatever Retry-After says


def _wait_before_retry(
    call: _Call[Any], response: httpx.Response | None, sent: int
) -> float | None:
    """Seconds to wait before sending a keyed write again, or None to answer now: after a
    lost connection, a 503 the server invites a retry for (its write goes on), or a 409 that
    says the first request under the key is still in flight. Never for an unkeyed call."""
    if "Idempotency-Key" not in call.headers or sent > RETRIES:
        return None
    if response is None:
        return 0.5
    after = response.headers.get("retry-after")
    if after is None or response.status_code not in (409, 503):
        return None
    if response.status_code == 409:
        try:
            in_flight = bool(response.json().get("in_flight"))
        except (ValueError, AttributeError):
            in_flight = False
        if not in_flight:
            return None
    try:
        return min(max(float(after), 0.0), MAX_WAIT)
    except ValueError:
        return 1.0


class _Calls:
    """The graph API's operations on one memory, as descriptions."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.base = f"/v1/memories/{_seg(name)}"

    def info(self) -> _Call[MemoryInfo]:
        return _Call("GET", self.base, _model(MemoryInfo))

    def made(self, name: str, *args: Any, **kwargs: Any) -> _Call[Any]:
        """The call of operation ``name`` as the table of operations makes it."""
        from turngraph.client.made import made_call, made_operation

        op = made_operation(name)
        if op is None:
            raise AttributeError(f"the client does not reach operation {name!r}")
        return made_call(self.base, op, args, kwargs)

    def add_observation(self, fields: dict[str, Any]) -> _Call[WriteResult]:
        key = fields.pop("idempotency_key", None)
        return _Call(
            "POST",
            f"{self.base}/observations",
            _model(WriteResult),
            json=_clean(fields),
            headers=_idem(key),
        )

    def update_observation(self, slug: str, fields: dict[str, Any]) -> _Call[WriteResult]:
        key = fields.pop("idempotency_key", None)
        return _Call(
            "PATCH",
            f"{self.base}/observations/{_seg(slug)}",
            _model(WriteResult),
            json=_clean(fields),
            headers=_idem(key),
        )

    def delete_observation(self, slug: str, key: str | None) -> _Call[DeleteResult]:
        return _Call(
            "DELETE",
            f"{self.base}/observations/{_seg(slug)}",
            _model(DeleteResult),
            headers=_idem(key),
        )

    def recall(self, query: str | None, options: dict[str, Any]) -> _Call[RecallResult]:
        body = _clean({"query": query, **options})
        for name in ("since", "until", "as_of"):
            if name in body and not isinstance(body[name], str):
                body[name] = body[name].isoformat()
        return _Call("POST", f"{self.base}/recall", _model(RecallResult), json=body)

    def context(self, query: str, options: dict[str, Any]) -> _Call[MemoryContext]:
        return _Call(
            "POST",
            f"{self.base}/context",
            _model(MemoryContext),
            json=_clean({"query": query, **options}),
        )

    def remember(self, text: str | None, fields: dict[str, Any]) -> _Call[RememberResult]:
        key = fields.pop("idempotency_key", None)
        if "observed_at" in fields and not isinstance(fields["observed_at"], str | None):
            fields["observed_at"] = fields["observed_at"].isoformat()
        return _Call(
            "POST",
            f"{self.base}/turns",
            _model(RememberResult),
            json=_clean({"text": text, **fields}),
            headers=_idem(key),
        )

    def remember_many(
        self, messages: Sequence[Mapping[str, Any]], fields: dict[str, Any]
    ) -> _Call[BatchResult]:
        key = fields.pop("idempotency_key", None)
        return _Call(
            "POST",
            f"{self.base}/turns/batch",
            _model(BatchResult),
            json=_clean({"messages": [dict(m) for m in messages], **fields}),
            headers=_idem(key),
        )

    def preview_delete_observation(self, slug: str) -> _Call[DeleteResult]:
        return _Call(
            "DELETE",
            f"{self.base}/observations/{_seg(slug)}",
            _model(DeleteResult),
            params={"dry_run": "true"},
        )

    def delete_session(self, session_id: str) -> _Call[int]:
        return _Call(
            "DELETE",
            f"{self.base}/sessions/{_seg(session_id)}",
            lambda r: int(r.json()["deleted_turns"]),
        )

    def put_file(
        self,
        path: str,
        data: bytes | str,
        description: str,
        content_type: str | None,
        overwrite: bool,
    ) -> _Call[AppendixFile]:
        blob = data.encode("utf-8") if isinstance(data, str) else data
        kind = content_type or (
            "text/plain; charset=utf-8" if isinstance(data, str) else "application/octet-stream"
        )
        return _Call(
            "PUT",
            f"{self.base}/files/{quote(path, safe='/')}",
            _model(AppendixFile),
            params={"description": description, "overwrite": str(overwrite).lower()},
            content=blob,
            headers={"Content-Type": kind},
        )

    def get_file(self, path: str) -> _Call[FileContent]:
        return _Call(
            "GET",
            f"{self.base}/files/{quote(path, safe='/')}",
            lambda r: FileContent(
                file=AppendixFile.model_validate_json(r.headers["x-file-meta"]), data=r.content
            ),
        )

    def list_proposals(self, status: str | None) -> _Call[list[MergeProposal]]:
        return _Call(
            "GET",
            f"{self.base}/proposals",
            _model(list[MergeProposal]),
            params={"status": status or "all"},
        )


class _Remote:
    def __init__(self, calls: _Calls) -> None:
        self._c = calls

    @property
    def name(self) -> str:
        return self._c.name


class RemoteMemory(_Remote):
    """A memory on a server; the methods of :class:`turngraph.Memory`."""

    def __init__(self, client: Client, name: str) -> None:
        super().__init__(_Calls(name))
        self._run = client._run

    def info(self) -> MemoryInfo:
        return self._run(self._c.info())

    def add_observation(self, **fields: Any) -> WriteResult:
        return self._run(self._c.add_observation(fields))

    def update_observation(self, slug: str, **fields: Any) -> WriteResult:
        return self._run(self._c.update_observation(slug, fields))

    def delete_observation(self, slug: str, *, idempotency_key: str | None = None) -> DeleteResult:
        return self._run(self._c.delete_observation(slug, idempotency_key))

    def get_observation(self, slug: str) -> Observation:
        result: Observation = self._run(self._c.made("get_observation", slug))
        return result

    def get_entity(self, name: str) -> Entity:
        result: Entity = self._run(self._c.made("get_entity", name))
        return result

    def list_entities(
        self, type: str | None = None, *, limit: int = 100, offset: int = 0
    ) -> list[EntitySummary]:
        result: list[EntitySummary] = self._run(
            self._c.made("list_entities", type, limit=limit, offset=offset)
        )
        return result

    def delete_entity(self, name: str, entity_type: str | None = None) -> EntityDeleteResult:
        result: EntityDeleteResult = self._run(self._c.made("delete_entity", name, entity_type))
        return result

    def recall(self, query: str | None = None, **options: Any) -> RecallResult:
        return self._run(self._c.recall(query, options))

    def context(self, query: str, **options: Any) -> MemoryContext:
        return self._run(self._c.context(query, options))

    def forget(self, query: str, *, purge: bool = False, dry_run: bool = False) -> ForgetResult:
        result: ForgetResult = self._run(
            self._c.made("forget", query, purge=purge, dry_run=dry_run)
        )
        return result

    def chat(self, message: str, **options: Any) -> ChatResult:
        result: ChatResult = self._run(self._c.made("chat", message, **options))
        return result

    def remember(self, text: str | None = None, **fields: Any) -> RememberResult:
        return self._run(self._c.remember(text, fields))

    def remember_many(self, messages: Sequence[Mapping[str, Any]], **fields: Any) -> BatchResult:
        return self._run(self._c.remember_many(messages, fields))

    def create_session(self, metadata: Any = None, *, session_id: str | None = None) -> Session:
        result: Session = self._run(self._c.made("create_session", metadata, session_id=session_id))
        return result

    def list_sessions(self, *, limit: int = 50, offset: int = 0) -> SessionPage:
        result: SessionPage = self._run(self._c.made("list_sessions", limit=limit, offset=offset))
        return result

    def get_turn(self, turn_id: str) -> TurnDetail:
        result: TurnDetail = self._run(self._c.made("get_turn", turn_id))
        return result

    def list_turn_details(
        self, session_id: str, *, limit: int = 20, cursor: str | None = None
    ) -> TurnDetailPage:
        result: TurnDetailPage = self._run(
            self._c.made("list_turn_details", session_id, limit=limit, cursor=cursor)
        )
        return result

    def neighborhood(self, name: str, *, limit: int = 200) -> Neighborhood:
        result: Neighborhood = self._run(self._c.made("neighborhood", name, limit=limit))
        return result

    def preview_delete_observation(self, slug: str) -> DeleteResult:
        return self._run(self._c.preview_delete_observation(slug))

    def get_session(self, session_id: str) -> Session:
        result: Session = self._run(self._c.made("get_session", session_id))
        return result

    def delete_session(self, session_id: str) -> int:
        return self._run(self._c.delete_session(session_id))

    def list_turns(
        self, session_id: str, *, limit: int = 100, cursor: str | None = None, offset: int = 0
    ) -> TurnPage:
        result: TurnPage = self._run(
            self._c.made("list_turns", session_id, limit=limit, cursor=cursor, offset=offset)
        )
        return result

    def state(self, as_of: Any = None, *, limit: int = 100) -> State:
        result: State = self._run(self._c.made("state", as_of, limit=limit))
        return result

    def entity_states(
        self, entity_type: str | None = None, *, limit: int = 100, offset: int = 0
    ) -> list[StateEntity]:
        result: list[StateEntity] = self._run(
            self._c.made("entity_states", entity_type, limit=limit, offset=offset)
        )
        return result

    def entity_state(self, entity_type: str, name: str) -> EntityState:
        result: EntityState = self._run(self._c.made("entity_state", entity_type, name))
        return result

    def entity_history(self, entity_type: str, name: str, key: str) -> list[AttributeVersion]:
        result: list[AttributeVersion] = self._run(
            self._c.made("entity_history", entity_type, name, key)
        )
        return result

    def put_file(
        self,
        path: str,
        data: bytes | str,
        *,
        description: str,
        content_type: str | None = None,
        overwrite: bool = False,
    ) -> AppendixFile:
        return self._run(self._c.put_file(path, data, description, content_type, overwrite))

    def get_file(self, path: str) -> FileContent:
        return self._run(self._c.get_file(path))

    def list_files(self, prefix: str | None = None) -> list[AppendixFile]:
        result: list[AppendixFile] = self._run(self._c.made("list_files", prefix))
        return result

    def delete_file(self, path: str) -> AppendixFile:
        result: AppendixFile = self._run(self._c.made("delete_file", path))
        return result

    def consolidate(self) -> list[MergeProposal]:
        result: list[MergeProposal] = self._run(self._c.made("consolidate"))
        return result

    def list_proposals(self, status: str | None = "open") -> list[MergeProposal]:
        return self._run(self._c.list_proposals(status))

    def accept_proposal(self, proposal_id: int) -> MergeResult:
        result: MergeResult = self._run(self._c.made("accept_proposal", proposal_id))
        return result

    def reject_proposal(self, proposal_id: int) -> MergeProposal:
        result: MergeProposal = self._run(self._c.made("reject_proposal", proposal_id))
        return result

    if not TYPE_CHECKING:  # the typed methods above; this reaches the rest of the table

        def __getattr__(self, name: str) -> Callable[..., Any]:
            from turngraph.client.made import made_operation

            if name.startswith("_") or made_operation(name) is None:
                raise AttributeError(name)
            calls, run = self.__dict__["_c"], self.__dict__["_run"]

            def call(*args: Any, **kwargs: Any) -> Any:
                return run(calls.made(name, *args, **kwargs))

            call.__name__ = name
            return call


class AsyncRemoteMemory(_Remote):
    """A memory on a server; the methods of :class:`turngraph.Memory`, awaited."""

    def __init__(self, client: AsyncClient, name: str) -> None:
        super().__init__(_Calls(name))
        self._run = client._run

    async def info(self) -> MemoryInfo:
        return await self._run(self._c.info())

    async def add_observation(self, **fields: Any) -> WriteResult:
        return await self._run(self._c.add_observation(fields))

    async def update_observation(self, slug: str, **fields: Any) -> WriteResult:
        return await self._run(self._c.update_observation(slug, fields))

    async def delete_observation(
        self, slug: str, *, idempotency_key: str | None = None
    ) -> DeleteResult:
        return await self._run(self._c.delete_observation(slug, idempotency_key))

    async def get_observation(self, slug: str) -> Observation:
        result: Observation = await self._run(self._c.made("get_observation", slug))
        return result

    async def get_entity(self, name: str) -> Entity:
        result: Entity = await self._run(self._c.made("get_entity", name))
        return result

    async def list_entities(
        self, type: str | None = None, *, limit: int = 100, offset: int = 0
    ) -> list[EntitySummary]:
        result: list[EntitySummary] = await self._run(
            self._c.made("list_entities", type, limit=limit, offset=offset)
        )
        return result

    async def delete_entity(self, name: str, entity_type: str | None = None) -> EntityDeleteResult:
        result: EntityDeleteResult = await self._run(
            self._c.made("delete_entity", name, entity_type)
        )
        return result

    async def recall(self, query: str | None = None, **options: Any) -> RecallResult:
        return await self._run(self._c.recall(query, options))

    async def context(self, query: str, **options: Any) -> MemoryContext:
        return await self._run(self._c.context(query, options))

    async def forget(
        self, query: str, *, purge: bool = False, dry_run: bool = False
    ) -> ForgetResult:
        result: ForgetResult = await self._run(
            self._c.made("forget", query, purge=purge, dry_run=dry_run)
        )
        return result

    async def chat(self, message: str, **options: Any) -> ChatResult:
        result: ChatResult = await self._run(self._c.made("chat", message, **options))
        return result

    async def remember(self, text: str | None = None, **fields: Any) -> RememberResult:
        return await self._run(self._c.remember(text, fields))

    async def remember_many(
        self, messages: Sequence[Mapping[str, Any]], **fields: Any
    ) -> BatchResult:
        return await self._run(self._c.remember_many(messages, fields))

    async def create_session(
        self, metadata: Any = None, *, session_id: str | None = None
    ) -> Session:
        result: Session = await self._run(
            self._c.made("create_session", metadata, session_id=session_id)
        )
        return result

    async def list_sessions(self, *, limit: int = 50, offset: int = 0) -> SessionPage:
        result: SessionPage = await self._run(
            self._c.made("list_sessions", limit=limit, offset=offset)
        )
        return result

    async def get_turn(self, turn_id: str) -> TurnDetail:
        result: TurnDetail = await self._run(self._c.made("get_turn", turn_id))
        return result

    async def list_turn_details(
        self, session_id: str, *, limit: int = 20, cursor: str | None = None
    ) -> TurnDetailPage:
        result: TurnDetailPage = await self._run(
            self._c.made("list_turn_details", session_id, limit=limit, cursor=cursor)
        )
        return result

    async def neighborhood(self, name: str, *, limit: int = 200) -> Neighborhood:
        result: Neighborhood = await self._run(self._c.made("neighborhood", name, limit=limit))
        return result

    async def preview_delete_observation(self, slug: str) -> DeleteResult:
        return await self._run(self._c.preview_delete_observation(slug))

    async def get_session(self, session_id: str) -> Session:
        result: Session = await self._run(self._c.made("get_session", session_id))
        return result

    async def delete_session(self, session_id: str) -> int:
        return await self._run(self._c.delete_session(session_id))

    async def list_turns(
        self, session_id: str, *, limit: int = 100, cursor: str | None = None, offset: int = 0
    ) -> TurnPage:
        result: TurnPage = await self._run(
            self._c.made("list_turns", session_id, limit=limit, cursor=cursor, offset=offset)
        )
        return result

    async def state(self, as_of: Any = None, *, limit: int = 100) -> State:
        result: State = await self._run(self._c.made("state", as_of, limit=limit))
        return result

    async def entity_states(
        self, entity_type: str | None = None, *, limit: int = 100, offset: int = 0
    ) -> list[StateEntity]:
        result: list[StateEntity] = await self._run(
            self._c.made("entity_states", entity_type, limit=limit, offset=offset)
        )
        return result

    async def entity_state(self, entity_type: str, name: str) -> EntityState:
        result: EntityState = await self._run(self._c.made("entity_state", entity_type, name))
        return result

    async def entity_history(self, entity_type: str, name: str, key: str) -> list[AttributeVersion]:
        result: list[AttributeVersion] = await self._run(
            self._c.made("entity_history", entity_type, name, key)
        )
        return result

    async def put_file(
        self,
        path: str,
        data: bytes | str,
        *,
        description: str,
        content_type: str | None = None,
        overwrite: bool = False,
    ) -> AppendixFile:
        return await self._run(self._c.put_file(path, data, description, content_type, overwrite))

    async def get_file(self, path: str) -> FileContent:
        return await self._run(self._c.get_file(path))

    async def list_files(self, prefix: str | None = None) -> list[AppendixFile]:
        result: list[AppendixFile] = await self._run(self._c.made("list_files", prefix))
        return result

    async def delete_file(self, path: str) -> AppendixFile:
        result: AppendixFile = await self._run(self._c.made("delete_file", path))
        return result

    async def consolidate(self) -> list[MergeProposal]:
        result: list[MergeProposal] = await self._run(self._c.made("consolidate"))
        return result

    async def list_proposals(self, status: str | None = "open") -> list[MergeProposal]:
        return await self._run(self._c.list_proposals(status))

    async def accept_proposal(self, proposal_id: int) -> MergeResult:
        result: MergeResult = await self._run(self._c.made("accept_proposal", proposal_id))
        return result

    async def reject_proposal(self, proposal_id: int) -> MergeProposal:
        result: MergeProposal = await self._run(self._c.made("reject_proposal", proposal_id))
        return result

    if not TYPE_CHECKING:  # the typed methods above; this reaches the rest of the table

        def __getattr__(self, name: str) -> Callable[..., Any]:
            from turngraph.client.made import made_operation

            if name.startswith("_") or made_operation(name) is None:
                raise AttributeError(name)
            calls, run = self.__dict__["_c"], self.__dict__["_run"]

            async def call(*args: Any, **kwargs: Any) -> Any:
                return await run(calls.made(name, *args, **kwargs))

            call.__name__ = name
            return call


def _memories_call(body: dict[str, Any] | None = None) -> _Call[Any]:
    if body is None:
        return _Call("GET", "/v1/memories", _model(list[MemoryInfo]))
    return _Call("POST", "/v1/memories", _model(MemoryInfo), json=_clean(body))


def _create_body(name: str, visibility: str, retrieval: Any) -> dict[str, Any]:
    if isinstance(retrieval, BaseModel):
        retrieval = retrieval.model_dump()
    return {"name": name, "visibility": visibility, "retrieval": retrieval}


class Client:
    """A blocking client of a turngraph server; stands where :class:`turngraph.Database`
    does. Use as a context manager or call :meth:`close`."""

    def __init__(self, url: str, api_key: str, *, timeout: float = 30.0) -> None:
        self._http = httpx.Client(
            base_url=url.rstrip("/"),
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=timeout,
        )

    def _run(self, call: _Call[T]) -> T:
        sent = 0
        while True:
            sent += 1
            try:
                response: httpx.Response | None = self._http.request(
                    call.method,
                    call.path,
                    json=call.json,
                    params=call.params or None,
                    content=call.content,
                    headers=call.headers or None,
                )
            except httpx.TransportError:
                if _wait_before_retry(call, None, sent) is None:
                    raise
                response = None
            wait = _wait_before_retry(call, response, sent)
            if response is not None and wait is None:
                _raise_for(response)
                return call.parse(response)
            time.sleep(wait or 0.0)

    def memory(self, name: str) -> RemoteMemory:
        return RemoteMemory(self, name)

    def create_memory(
        self, name: str, *, visibility: str = "private", retrieval: Any = None
    ) -> RemoteMemory:
        self._run(_memories_call(_create_body(name, visibility, retrieval)))
        return RemoteMemory(self, name)

    def list_memories(self) -> list[MemoryInfo]:
        result: list[MemoryInfo] = self._run(_memories_call())
        return result

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class AsyncClient:
    """An async client of a turngraph server (``await`` every call)."""

    def __init__(self, url: str, api_key: str, *, timeout: float = 30.0) -> None:
        self._http = httpx.AsyncClient(
            base_url=url.rstrip("/"),
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=timeout,
        )

    async def _run(self, call: _Call[T]) -> T:
        sent = 0
        while True:
            sent += 1
            try:
                response: httpx.Response | None = await self._http.request(
                    call.method,
                    call.path,
                    json=call.json,
                    params=call.params or None,
                    content=call.content,
                    headers=call.headers or None,
                )
            except httpx.TransportError:
                if _wait_before_retry(call, None, sent) is None:
                    raise
                response = None
            wait = _wait_before_retry(call, response, sent)
            if response is not None and wait is None:
                _raise_for(response)
                return call.parse(response)
            await asyncio.sleep(wait or 0.0)

    def memory(self, name: str) -> AsyncRemoteMemory:
        return AsyncRemoteMemory(self, name)

    async def create_memory(
        self, name: str, *, visibility: str = "private", retrieval: Any = None
    ) -> AsyncRemoteMemory:
        await self._run(_memories_call(_create_body(name, visibility, retrieval)))
        return AsyncRemoteMemory(self, name)

    async def list_memories(self) -> list[MemoryInfo]:
        result: list[MemoryInfo] = await self._run(_memories_call())
        return result

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
