"""Turns and sessions: remember() records a message and runs it through extraction.

Order of a remember: validate > resolve the speaker > extract (outside the write lock, so a
slow extractor never holds the memory) > one write transaction: idempotency check, session,
the turn's observation, the extraction applied (reconcile) > commit. ``preview`` runs all of
it and rolls the transaction back.
"""

from __future__ import annotations

import json
import logging
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from pydantic import BaseModel

from turngraph.config import Limits
from turngraph.core import categories
from turngraph.core.ids import new_id
from turngraph.core.reconcile import TurnWrite, apply_extraction
from turngraph.core.sessions import SessionOps, check_role, session_row
from turngraph.core.validate import (
    check_content,
    check_speaker,
    check_triple_entities,
    fingerprint,
    normalize_labels,
    optional_text,
    parse_datetime,
    required_text,
)
from turngraph.errors import ExtractionError, ValidationError
from turngraph.extract.base import (
    Extractor,
    RawExtraction,
    TurnContext,
)
from turngraph.extract.triples import merge, triples_extraction
from turngraph.models import (
    EXTRACTION_KINDS,
    BatchResult,
    DeleteResult,
    Extraction,
    RememberResult,
)
from turngraph.recall.embed import Embedder, Vectors
from turngraph.recall.index import BATCH, embed_text, spoken_text, window_vector
from turngraph.store.base import MemoryRow, ObservationRow, ReadTx, Store, TurnRow, WriteTx

INFER_MODES = ("full", "triples", "preview", "none")
EXTRACT_MODES = ("per_message", "whole_conversation")
TURN_CATEGORY = "turn"
# How many earlier turns of the session an extractor sees (for pronouns and elided subjects).
HISTORY_TURNS = 4
KNOWN_NAMES = 300  # the memory's newest people and animals an extraction is told of
# Tries of a remember whose session others write to at the same time (see _Stale).
_ATTEMPTS = 3
log = logging.getLogger("turngraph.turns")
# A message to write as a turn, its extraction (None: none asked) and the extractor's failure.
_Prepared = tuple[dict[str, Any], RawExtraction | None, str | None]
# What a write of turns returns: the session, the turn ids, their extractions.
_Written = tuple[str, list[str], list[Extraction]]


class _Rollback(Exception):
    """Raised inside a preview's transaction to discard it after computing the result."""


class _Stale(Exception):
    """The session's last turns changed after the extraction read them: extract again."""


class _Replayed(Exception):
    """An identical request under the same key committed first: return its stored result."""

    def __init__(self, stored: str) -> None:
        super().__init__("replayed")
        self.stored = stored


class Tails:
    """The last turns of the sessions written to lately through one store (by any memory
    object on it: a server makes one per request), each with the memory's write count just
    after that write, and each memory's known names likewise. The next turn of the session is
    extracted against them without a read; its write checks the count
    (``TurnOps._write_turns``)."""

    SESSIONS = 256
    CHARS = 16_000  # longer last turns are read again: at most 256 x 16,000 characters kept

    _of: ClassVar[weakref.WeakKeyDictionary[Store, Tails]] = weakref.WeakKeyDictionary()
    _of_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_session: dict[tuple[MemoryRow, str], tuple[int, tuple[TurnRow, ...]]] = {}
        self._names: dict[MemoryRow, tuple[int, tuple[str, ...]]] = {}

    @classmethod
    def of(cls, store: Store) -> Tails:
        """The tails kept for ``store``."""
        with cls._of_lock:
            tails = cls._of.get(store)
            if tails is None:
                tails = cls._of[store] = cls()
            return tails

    # A memory is known by its whole row: a deleted memory's id may be given to a new one.
    def get(self, memory: MemoryRow, session_id: str) -> tuple[int, tuple[TurnRow, ...]] | None:
        with self._lock:
            return self._by_session.get((memory, session_id))

    def put(
        self, memory: MemoryRow, session_id: str, writes: int, turns: Sequence[TurnRow]
    ) -> None:
        kept = tuple(turns[-HISTORY_TURNS:])
        key = (memory, session_id)
        with self._lock:
            self._by_session.pop(key, None)
            if sum(len(t.content) for t in kept) > self.CHARS:
                return
            if len(self._by_session) >= self.SESSIONS:  # the least recently written goes
                del self._by_session[next(iter(self._by_session))]
            self._by_session[key] = (writes, kept)

    def names(self, memory: MemoryRow) -> tuple[int, tuple[str, ...]] | None:
        """The memory's known names (``known_names``) as the last remember through this store
        left them, and the write count at which they are exact."""
        with self._lock:
            return self._names.get(memory)

    def put_names(self, memory: MemoryRow, writes: int, names: Sequence[str]) -> None:
        with self._lock:
            self._names.pop(memory, None)
            if len(self._names) >= self.SESSIONS:
                del self._names[next(iter(self._names))]
            self._names[memory] = (writes, tuple(names))


class _Names:
    """The memory's newest people and animals an extraction is told of (``known_names``),
    read when first asked for: on a first attempt as the last remember through this store
    left them, else in a read of their own; and the write count at which they are exact
    (None on the last attempt, which takes them as read). The write checks them
    (:meth:`check`) and, once it commits, keeps them for the next remember (:meth:`keep`)."""

    def __init__(self, ops: TurnOps, attempt: int) -> None:
        self._ops = ops
        self._attempt = attempt
        self.used: tuple[str, ...] | None = None
        self.at: int | None = None
        self._after: tuple[str, ...] | None = None

    def __call__(self) -> list[str]:
        if self.used is None:
            ops = self._ops
            cached = ops._tails.names(ops._row) if self._attempt == 0 else None
            if cached is not None:
                self.at, self.used = cached
            else:
                with ops._store.read(ops._id) as tx:
                    self.used = tuple(tx.known_names(limit=KNOWN_NAMES))
                    last = self._attempt == _ATTEMPTS - 1
                    self.at = None if last else tx.write_count()
        return list(self.used)

    def check(self, tx: WriteTx) -> None:
        """In the write, before anything is written: _Stale if other writes since the names
        were read changed them."""
        if self.used is None or self.at is None or self.at == tx.writes - 1:
            return
        if tuple(tx.known_names(limit=KNOWN_NAMES)) != self.used:
            raise _Stale
        self.at = tx.writes - 1

    def written(self, tx: WriteTx, extractions: Sequence[Extraction]) -> None:
        """In the write, after its turns: the names as it leaves them (read again only when
        its extractions touched entities)."""
        if self.used is None or self.at is None:
            return
        touched = any(e.entities for e in extractions)
        self._after = tuple(tx.known_names(limit=KNOWN_NAMES)) if touched else self.used

    def keep(self, writes: int) -> None:
        """Once the write committed at count ``writes``."""
        if self._after is not None:
            ops = self._ops
            ops._tails.put_names(ops._row, writes, self._after)


def _merge(turn_id: str, extractions: Sequence[Extraction]) -> Extraction:
    merged = Extraction(turn_id=turn_id)
    updates: dict[str, list[Any]] = {}
    for field in EXTRACTION_KINDS:
        items: list[Any] = []
        for e in extractions:
            for item in getattr(e, field):
                if item not in items:
                    items.append(item)
        updates[field] = items
    return merged.model_copy(update=updates)


class TurnOps(SessionOps):
    """The turn and session operations of a :class:`~turngraph.Memory`."""

    name: str
    _store: Store
    _id: int
    _row: MemoryRow
    _limits: Limits
    _tails: Tails
    extractor: Extractor

    # -- remembering -------------------------------------------------------------------------

    def remember(
        self,
        text: str | None = None,
        *,
        session_id: str | None = None,
        role: str = "user",
        speaker: str | None = None,
        infer: str = "full",
        observed_at: datetime | str | None = None,
        memory_category: str | None = None,
        labels: Sequence[str] = (),
        triples: Sequence[Mapping[str, Any]] | None = None,
        links: Sequence[Mapping[str, Any]] | None = None,
        idempotency_key: str | None = None,
    ) -> RememberResult:
        """Record one message as a turn and return what it taught the memory.

        ``infer``: ``full`` extracts from the text; ``triples`` takes caller-supplied facts and
        reads no text; ``preview`` extracts and reconciles but persists nothing; ``none``
        stores the turn only. ``links`` (triples with a ``target``; entities may carry a
        ``description``) are written with the turn in any mode, beside what it extracts:
        the structure a caller knows, such as the conversation a message belongs to.
        Without ``session_id`` a session is created. The first person
        is ``speaker``, else the session's user, else an entity named ``user``. Raises
        NotFoundError for an unknown session, ValidationError for bad input, and
        ExtractionError when the extractor fails (the turn is then stored, marked
        ``failed``).
        """
        message = self._message(
            text,
            role=role,
            speaker=speaker,
            observed_at=observed_at,
            field="text",
            required=infer != "triples",
        )
        mode = self._infer(infer)
        category = self._category(memory_category)
        tags = normalize_labels(labels, self._limits)
        if mode == "triples":
            check_triple_entities(triples, field="triples")
        if links:
            check_triple_entities(links, field="links")
        raw_triples = triples_extraction(triples) if mode == "triples" else None
        raw_links = triples_extraction(links) if links else None
        if raw_triples is not None and message["content"] is None:
            message["content"] = "; ".join(
                f"{a.entity} {a.key} {a.value}" for a in raw_triples.attributes
            ) or "; ".join(f"{r.subject} {r.label} {r.object}" for r in raw_triples.relations)
        key = self._turn_key(idempotency_key)
        request = {
            "message": message,
            "mode": mode,
            "category": category,
            "labels": tags,
            "session": session_id,
            "triples": raw_triples,
            "links": raw_links,
        }
        fp = fingerprint("remember", request) if key else ""  # only a keyed retry compares
        stored = self._stored(key, "remember", fp)
        if stored is None:
            speaker_name = self._speaker(session_id, message)

            def prepare(recent: Sequence[TurnRow], names: _Names) -> list[_Prepared]:
                history = _said(recent) if mode in ("full", "preview") else []
                known = names() if mode in ("full", "preview") else []
                raw, failure = self._extract(
                    mode, message, speaker_name, raw_triples, history, known
                )
                return [(message, merge(raw, raw_links) if failure is None else raw, failure)]

            prepared, result, stored = self._extract_and_write(
                session_id,
                prepare,
                mode=mode,
                category=category,
                labels=tags,
                key=key,
                fp=fp,
                operation="remember",
                vectors=self._turn_vectors([message], mode),
            )
        if stored is not None:
            return RememberResult.model_validate_json(stored).model_copy(update={"replayed": True})
        assert result is not None
        if (failure := prepared[0][2]) is not None:
            raise ExtractionError(
                f"{failure}; the turn was stored as {result[1][0]} without extracted facts",
                turn_id=result[1][0],
                session_id=result[0],
            )
        session, turn_ids, extractions = result
        return RememberResult(
            mode=mode,
            session_id=session,
            turn_id=turn_ids[0],
            preview=mode == "preview",
            extraction=extractions[0],
        )

    def remember_many(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        session_id: str | None = None,
        extract: str = "per_message",
        infer: str = "full",
        labels: Sequence[str] = (),
        idempotency_key: str | None = None,
    ) -> BatchResult:
        """Record several messages, in order, as turns of one session, atomically.

        Each message is ``{role, content, ts?, speaker?}``. ``extract="per_message"``
        returns one extraction per turn; ``"whole_conversation"`` returns one for the batch
        (each fact still cites the turn that said it).
        """
        if extract not in EXTRACT_MODES:
            raise ValidationError(
                f"extract must be one of {', '.join(EXTRACT_MODES)}", field="extract"
            )
        mode = self._infer(infer)
        if mode == "triples":
            raise ValidationError(
                "remember_many does not take triples; use remember", field="infer"
            )
        if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
            raise ValidationError("messages must be a list", field="messages")
        most = self._limits.messages_per_batch
        if not messages or len(messages) > most:
            raise ValidationError(f"messages must hold 1 to {most} items", field="messages")
        parsed = []
        for i, m in enumerate(messages):
            if not isinstance(m, Mapping):
                raise ValidationError(f"messages[{i}] must be an object", field=f"messages[{i}]")
            parsed.append(
                self._message(
                    m.get("content"),
                    role=m.get("role", "user"),
                    speaker=m.get("speaker"),
                    observed_at=m.get("ts") or m.get("observed_at"),
                    field=f"messages[{i}].content",
                    required=True,
                )
            )
        tags = normalize_labels(labels, self._limits)
        key = self._turn_key(idempotency_key)
        request = {
            "messages": parsed,
            "mode": mode,
            "extract": extract,
            "labels": tags,
            "session": session_id,
        }
        fp = fingerprint("remember_many", request) if key else ""  # only a keyed retry compares
        stored = self._stored(key, "remember_many", fp)
        if stored is None:

            def prepare(recent: Sequence[TurnRow], names: _Names) -> list[_Prepared]:
                prepared = []
                history = _said(recent) if mode in ("full", "preview") else []
                known = names() if mode in ("full", "preview") else []
                for message in parsed:
                    speaker = self._speaker(session_id, message)
                    raw, failure = self._extract(mode, message, speaker, None, history, known)
                    prepared.append((message, raw, failure))
                    if raw is not None:  # the batch's own names, for its later turns
                        known = [
                            *(e.name for e in raw.entities if e.type in ("person", "animal")),
                            *known,
                        ][:KNOWN_NAMES]
                    history = [*history, (speaker, message["content"])][-HISTORY_TURNS:]
                return prepared

            prepared, result, stored = self._extract_and_write(
                session_id,
                prepare,
                mode=mode,
                category=None,
                labels=tags,
                key=key,
                fp=fp,
                operation="remember_many",
                batch=extract,
                vectors=self._turn_vectors(parsed, mode),
            )
        if stored is not None:
            return BatchResult.model_validate_json(stored).model_copy(update={"replayed": True})
        assert result is not None
        session, turn_ids, extractions = result
        failures = [f for _, _, f in prepared if f]
        if failures:
            raise ExtractionError(
                f"{failures[0]}; the turns were stored without the failed extractions",
                session_id=session,
                turn_ids=turn_ids,
            )
        if extract == "whole_conversation":
            extractions = [_merge(turn_ids[-1], extractions)]
        return BatchResult(session_id=session, turn_ids=turn_ids, extractions=extractions)

    # -- the write ---------------------------------------------------------------------------

    def _extract_and_write(
        self,
        session_id: str | None,
        prepare: Callable[[Sequence[TurnRow], _Names], list[_Prepared]],
        **write: Any,
    ) -> tuple[list[_Prepared], _Written | None, str | None]:
        """Extract (``prepare`` does, given the session's last turns) and write the turns;
        again when those last turns changed before the write (_Stale). Returns what was
        prepared and the write's outcome, or the stored result a replay found instead."""
        for attempt in range(_ATTEMPTS):
            recent, known_at = self._recent(session_id, attempt)
            names = _Names(self, attempt)
            prepared = prepare(recent, names)
            try:
                written = self._write_turns(
                    session_id, prepared, recent=recent, known_at=known_at, names=names, **write
                )
            except _Stale:
                continue
            except _Replayed as replay:
                return prepared, None, replay.stored
            return prepared, written, None
        raise AssertionError("the last attempt writes the turns as it read them")

    def _write_turns(
        self,
        session_id: str | None,
        prepared: list[_Prepared],
        *,
        mode: str,
        category: str | None,
        labels: list[str],
        key: str | None,
        fp: str,
        operation: str,
        batch: str | None = None,
        recent: Sequence[TurnRow] = (),
        known_at: int | None = None,
        names: _Names | None = None,
        vectors: Sequence[Vectors] | None = None,
    ) -> _Written:
        """Write ``prepared`` turns in one transaction. ``recent`` are the session's last turns
        the extraction saw, exact at the memory's write count ``known_at`` (None: a new
        session). Raises _Stale when they are no longer the session's last turns, or when
        the memory's known ``names`` the extraction was told of changed. With
        ``vectors`` (the turns', in order) the transaction stores them and the windows it
        changes; without, the indexer embeds what the write queued after it commits."""
        now = datetime.now(UTC)
        outcome: _Written | None = None
        written: list[TurnRow] = []
        # The windows whose vectors this write derives (None: it queues them instead).
        windows: list[int] | None = None if vectors is None else []
        indexed = False
        try:
            with self._store.write(self._id) as tx:
                if key and (stored := self._replay(tx, key, operation, fp)) is not None:
                    raise _Replayed(stored)
                if names is not None:
                    names.check(tx)
                if session_id is None:
                    session_id = new_id("session")
                    tx.insert_session(session_id, metadata="null", now=now)
                else:
                    session_row(tx, session_id)
                    if known_at is not None and tx.writes != known_at + 1:
                        recent = _still_last(tx, session_id, recent)  # other writes came between
                tail = list(recent)
                turn_ids: list[str] = []
                extractions: list[Extraction] = []
                for message, raw, failure in prepared:
                    turn, extraction = self._write_turn(
                        tx,
                        session_id,
                        message,
                        raw,
                        failure,
                        mode=mode,
                        category=category,
                        labels=labels,
                        now=now,
                        recent=recent,
                        windows=windows,
                    )
                    recent = ()  # later turns of a batch follow ones written here
                    written.append(turn)
                    turn_ids.append(turn.id)
                    extractions.append(extraction)
                outcome = (session_id, turn_ids, extractions)
                if mode == "preview":
                    raise _Rollback
                if names is not None:
                    names.written(tx, extractions)
                if vectors is not None and windows is not None:
                    indexed = _put_turn_vectors(
                        tx,
                        self.embedder,
                        written,
                        vectors,
                        windows,
                        queued=any(_wrote(e) for e in extractions),
                        now=now,
                    )
                if key:
                    result: RememberResult | BatchResult
                    if operation == "remember":
                        result = RememberResult(
                            mode=mode,
                            session_id=session_id,
                            turn_id=turn_ids[0],
                            extraction=extractions[0],
                        )
                    else:
                        merged = (
                            [_merge(turn_ids[-1], extractions)]
                            if (batch == "whole_conversation")
                            else extractions
                        )
                        result = BatchResult(
                            session_id=session_id, turn_ids=turn_ids, extractions=merged
                        )
                    # Keyed to the first turn's observation: deleting it releases the key.
                    slug = turn_ids[0].replace(":", "-")
                    self._remember_key(tx, key, operation, fp, slug, result, now)
        except _Rollback:
            pass
        else:
            self._tails.put(self._row, session_id, tx.writes, [*tail, *written])
            if names is not None:
                names.keep(tx.writes)
            if not indexed:  # the indexer embeds what the write queued
                self._after_write()
        assert outcome is not None
        return outcome

    def _write_turn(
        self,
        tx: WriteTx,
        session_id: str,
        message: dict[str, Any],
        raw: RawExtraction | None,
        failure: str | None,
        *,
        mode: str,
        category: str | None,
        labels: list[str],
        now: datetime,
        recent: Sequence[TurnRow] = (),
        windows: list[int] | None = None,
    ) -> tuple[TurnRow, Extraction]:
        seq = tx.next_turn_seq(session_id)
        turn_id = new_id("turn")
        observed = message["observed_at"] or now
        who = message["speaker"] or message["role"]
        first_line = " ".join(message["content"].split())
        title = f"{who}: {first_line}"[:200]
        write_seq = tx.next_seq()
        before = self._before(tx, session_id, seq, recent)
        content = message["content"]
        slug = turn_id.replace(":", "-")
        self._widen_previous(tx, content, before, windows)
        obs_id = tx.insert_observation(
            slug=slug,
            title=title,
            content=message["content"],
            category=TURN_CATEGORY,
            tags=[],
            observed_at=observed,
            confidence=None,
            source=f"{session_id}#{seq}",
            now=now,
            search_context=f"{before[-1].content} {content}" if before else content,
        )
        extracted = (
            "failed"
            if failure
            else ("none" if raw is None else ("triples" if mode == "triples" else "full"))
        )
        tx.insert_turn(
            turn_id=turn_id,
            session_id=session_id,
            seq=seq,
            role=message["role"],
            speaker=message["speaker"],
            observation_id=obs_id,
            extracted=extracted,
            labels=labels,
            now=now,
        )
        if windows is not None:
            windows.append(obs_id)
        elif not self.lexical_only:
            tx.enqueue("window", obs_id)
        turn = TurnRow(
            id=turn_id,
            session_id=session_id,
            seq=seq,
            role=message["role"],
            speaker=message["speaker"],
            extracted=extracted,
            labels=tuple(labels),
            created_at=now,
            observation_id=obs_id,
            slug=slug,
            content=content,
            observed_at=observed.astimezone(UTC),
        )
        if raw is None:
            return turn, Extraction(turn_id=turn_id)
        at = TurnWrite(
            observation_id=obs_id,
            turn_id=turn_id,
            observed_at=observed,
            seq=write_seq,
            now=now,
            category=category,
        )
        return turn, apply_extraction(tx, raw, at)

    # -- helpers -----------------------------------------------------------------------------

    def _before(
        self, tx: WriteTx, session_id: str, seq: int, recent: Sequence[TurnRow]
    ) -> list[TurnRow]:
        """The (at most two) turns before turn ``seq``, oldest first. ``recent`` (the session's
        last turns, read before the write) serve when nothing was written after them;
        otherwise they are read here."""
        if recent and recent[-1].seq == seq - 1:
            return [t for t in recent if t.seq >= seq - 2]
        before = tx.list_turns(session_id, after_seq=max(seq - 3, 0), offset=0, limit=2)
        return [t for t in before if t.seq < seq]

    def _widen_previous(
        self,
        tx: WriteTx,
        content: str,
        before: Sequence[TurnRow],
        windows: list[int] | None,
    ) -> None:
        """Index each turn with its neighbours: short replies carry their topic there. A new
        turn's observation is written with its window so far (the turn before it and itself);
        here, just before, the turn before it gets its whole window (the two turns before it,
        and the new one). It is done first, so the full-text index takes the rows in
        ascending id order. Its window's vector changes too: derived in this write
        (``windows``) or queued."""
        if before:
            prev = before[-1]
            earlier = [t.content for t in before[:-1]]
            tx.set_search_context(prev.observation_id, " ".join([*earlier, prev.content, content]))
            if windows is not None:
                windows.append(prev.observation_id)
            elif not self.lexical_only:
                tx.enqueue("window", prev.observation_id)

    def _turn_vectors(self, messages: Sequence[dict[str, Any]], mode: str) -> list[Vectors] | None:
        """The vectors of turns about to be written, embedded before their write (outside
        its lock) so that it stores them in its own transaction: a remember is one commit,
        and its turn is found by meaning as soon as it returns. None where the indexer
        embeds them after the write instead: a preview, a memory without vectors, a store
        indexing in the background, a batch larger than the indexer's, a failing embedder
        (the indexer then meets the failure after the turns are stored)."""
        if (
            mode == "preview"
            or self.lexical_only
            or self._store.settings.index_in_background
            or len(messages) > BATCH
        ):
            return None
        texts = [spoken_text(m["speaker"] or m["role"], m["content"] or " ") for m in messages]
        try:
            embedder = self.embedder
            return None if embedder is None else list(embedder.embed(texts).astype(np.float32))
        except Exception as exc:  # the queue keeps the turns for the indexer
            log.warning("embedding %d turns before their write failed: %s", len(texts), exc)
            return None

    if TYPE_CHECKING:  # provided by Memory

        @property
        def lexical_only(self) -> bool: ...

        @property
        def embedder(self) -> Embedder | None: ...

        def _after_write(self) -> None: ...

        def _replay(self, tx: ReadTx, key: str, operation: str, fp: str) -> str | None: ...

        def _remember_key(
            self,
            tx: WriteTx,
            key: str,
            operation: str,
            fp: str,
            slug: str | None,
            result: BaseModel,
            now: datetime,
        ) -> None: ...

        def _delete_in_tx(
            self, tx: WriteTx, row: ObservationRow, now: datetime
        ) -> DeleteResult: ...

    def _stored(self, key: str | None, operation: str, fp: str) -> str | None:
        """The stored result of an earlier identical request under ``key``, if any."""
        if key is None:
            return None
        with self._store.read(self._id) as tx:
            return self._replay(tx, key, operation, fp)

    def _message(
        self,
        text: object,
        *,
        role: object,
        speaker: object,
        observed_at: object,
        field: str,
        required: bool,
    ) -> dict[str, Any]:
        content = None
        if text is not None or required:
            if text is None:
                raise ValidationError(f"{field} is required", field=field)
            content = check_content(text, limits=self._limits)
        return {
            "content": content,
            "role": check_role(role, field.rsplit(".", 1)[0] + ".role" if "." in field else "role"),
            "speaker": check_speaker(
                optional_text(speaker, field="speaker", limit=self._limits.speaker_chars)
            ),
            "observed_at": None
            if observed_at is None
            else parse_datetime(observed_at, field="observed_at"),
        }

    def _speaker(self, session_id: str | None, message: dict[str, Any]) -> str:
        if message["speaker"]:
            return str(message["speaker"])
        if message["role"] == "user" and session_id is not None:
            with self._store.read(self._id) as tx:
                row = tx.get_session(session_id)
            meta = json.loads(row.metadata) if row else None
            if isinstance(meta, dict) and isinstance(meta.get("user"), str) and meta["user"]:
                return str(meta["user"])
        return "user" if message["role"] in ("user", "system", "tool") else "assistant"

    def _recent(self, session_id: str | None, attempt: int) -> tuple[list[TurnRow], int | None]:
        """The session's last few turns, oldest first, and the memory's write count at which
        they are exact: on the first attempt those the last write to the session through this
        store left, else one read. The last attempt takes them as read, with no count."""
        if session_id is None:
            return [], None
        if attempt == 0 and (tail := self._tails.get(self._row, session_id)) is not None:
            return list(tail[1]), tail[0]
        with self._store.read(self._id) as tx:
            turns = tx.last_turns(session_id, count=HISTORY_TURNS)
            return turns, (None if attempt == _ATTEMPTS - 1 else tx.write_count())

    def _extract(
        self,
        mode: str,
        message: dict[str, Any],
        speaker: str,
        triples: RawExtraction | None,
        history: Sequence[tuple[str, str]] = (),
        known: Sequence[str] = (),
    ) -> tuple[RawExtraction | None, str | None]:
        if mode == "none":
            return None, None
        if mode == "triples":
            return triples, None
        context = TurnContext(
            speaker=speaker,
            role=message["role"],
            observed_at=message["observed_at"] or datetime.now(UTC),
            history=tuple(history),
            known_names=tuple(dict.fromkeys(known)),
        )
        try:
            return self.extractor.extract(message["content"], context), None
        except ExtractionError as exc:
            return None, str(exc)

    def _infer(self, infer: object) -> str:
        if infer not in INFER_MODES:
            raise ValidationError(
                f"infer must be one of {', '.join(INFER_MODES)}, not {infer!r}", field="infer"
            )
        return str(infer)

    def _category(self, value: object) -> str | None:
        if value is None:
            return None
        category = categories.check(value)
        if category is None:
            raise ValidationError(
                "memory_category must be identity, knowledge or context", field="memory_category"
            )
        return category

    def _turn_key(self, key: object) -> str | None:
        if key is None:
            return None
        return required_text(key, field="idempotency_key", limit=self._limits.idempotency_key_chars)


def _still_last(tx: WriteTx, session_id: str, recent: Sequence[TurnRow]) -> list[TurnRow]:
    """The session's last turns, read in the write; _Stale unless they are ``recent``."""
    turns = tx.last_turns(session_id, count=HISTORY_TURNS)
    if [(t.id, t.role, t.speaker, t.content) for t in turns] != [
        (t.id, t.role, t.speaker, t.content) for t in recent[-HISTORY_TURNS:]
    ]:
        raise _Stale
    return turns


def _put_turn_vectors(
    tx: WriteTx,
    embedder: Embedder | None,
    turns: Sequence[TurnRow],
    vectors: Sequence[Vectors],
    windows: Sequence[int],
    *,
    queued: bool,
    now: datetime,
) -> bool:
    """Store, in the turns' write, their vectors and those of the windows it changed, each
    derived from its turns' vectors as the indexer derives it
    (:func:`~turngraph.recall.index.window_vector`). With ``queued`` (the extraction wrote
    something, so entities it named or described may be queued) those are embedded here too:
    a few short texts, the one model call made inside the write, and only the write's own (stamped
    ``now``), never rows other writes left queued. A window with a turn that has no vector
    yet, or more rows than a batch, is left to the indexer. Returns whether nothing of the
    write was left queued."""
    own = {t.observation_id: v for t, v in zip(turns, vectors, strict=True)}
    refs = list(dict.fromkeys(windows))
    around = tx.window_turns(refs)
    put = [("observation", obs_id, v.tobytes()) for obs_id, v in own.items()]
    complete = True
    for ref in refs:
        parts: list[tuple[str, Vectors]] = []
        for obs_id, speaker, content, data in around.get(ref, []):
            vector = own.get(obs_id)
            if vector is None and data:
                vector = np.frombuffer(data, dtype=np.float32)
            if vector is None:
                break
            parts.append((spoken_text(speaker, content), vector))
        else:
            if parts:
                put.append(("window", ref, window_vector(parts).tobytes()))
                continue
        tx.enqueue("window", ref)
        complete = False
    if queued and embedder is not None:
        done = {(kind, ref) for kind, ref, _ in put}
        rows = tx.index_queue(limit=BATCH, written_at=now)
        more = [q for q in rows if (q.kind, q.ref) not in done]
        embedded = None
        if more:
            texts = [embed_text(q) or " " for q in more]
            try:
                embedded = embedder.embed(texts).astype(np.float32)
            except Exception as exc:  # the turn is still written; the indexer tries again
                log.warning("embedding %d rows inside their write failed: %s", len(texts), exc)
        if embedded is not None:
            put += zip(
                [q.kind for q in more],
                [q.ref for q in more],
                [v.tobytes() for v in embedded],
                strict=True,
            )
        complete = complete and len(rows) < BATCH and (not more or embedded is not None)
    tx.put_vectors(put, dequeue=True)
    return complete


def _wrote(extraction: Extraction) -> bool:
    """Whether an applied extraction wrote anything (the entities it wrote or described
    anew are queued for their vectors)."""
    return any(getattr(extraction, field) for field in EXTRACTION_KINDS)


def _said(turns: Sequence[TurnRow]) -> list[tuple[str, str]]:
    """Turns as the extractor's history reads them: (speaker, text), oldest first."""
    return [(t.speaker or t.role, t.content) for t in turns]
