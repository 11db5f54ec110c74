"""A memory as a stream of records: every stored row, in an order where each record comes
after the records it refers to, so a reader can write them again in one pass.

One path serves both ways a memory moves whole: ``turngraph copy`` (records read from one
database's transaction and written into another's) and ``turngraph export`` / ``import``
(records as JSON lines in a file, :mod:`turngraph.core.transfer`).

Each record is a JSON object whose ``record`` says what it is: ``entity``, ``alias``,
``observation`` (with its assertions and the files it cites), ``relationship``, ``backing``,
``session``, ``turn``, ``attribute``, ``fact``, ``context`` (a turn's search context),
``file`` (its bytes in base64), ``proposal``, ``rejection``, ``retired_slug``,
``idempotency``, and last ``end`` (the memory's write counter and how many records came
before it). Entities, observations and relationships carry their row ``id`` in the database
they came from; a record refers to them by it (``entity_id``, ``observation_id``,
``relationship_id``), and the writer maps each to the row it writes. Every public identifier
(slugs, entity keys, session and turn ids, attribute and fact ids) and every time is written
as it was read.

Vectors are not records: the destination embeds the rows again with the memory's own
embedder (the same model gives the same vectors).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter
from pydantic import ValidationError as PydanticError

from turngraph.errors import ValidationError
from turngraph.store.base import (
    AssertionRow,
    AttributeRow,
    BackingRow,
    EntityRow,
    FactRow,
    FileRow,
    IdempotencyRow,
    ObservationFilter,
    ObservationRow,
    ProposalRow,
    ReadTx,
    RelationshipRow,
    SessionRow,
    TurnRow,
    WriteTx,
)

ALL = 10**9  # a limit that reads every row
KINDS = (
    "entity",
    "alias",
    "observation",
    "relationship",
    "backing",
    "session",
    "turn",
    "attribute",
    "fact",
    "context",
    "file",
    "proposal",
    "rejection",
    "retired_slug",
    "idempotency",
    "end",
)


# -- reading --------------------------------------------------------------------------------


def read_records(r: ReadTx) -> Iterator[dict[str, Any]]:
    """Every row of the memory ``r`` reads, as JSON-ready records, ending with ``end``."""
    count = 0

    def record(kind: str, row: Any = None, **more: Any) -> dict[str, Any]:
        nonlocal count
        count += 1
        fields = dataclasses.asdict(row) if row is not None else {}
        plain: dict[str, Any] = _plain({"record": kind, **fields, **more})
        return plain

    for e in r.iter_entities():
        yield record("entity", e)
    for key, name, entity_id in r.alias_rows():
        yield record("alias", key=key, name=name, entity_id=entity_id)
    ids = sorted(r.filter_observations(ObservationFilter(), limit=ALL))
    for start in range(0, len(ids), 500):
        for o in r.get_observations(ids[start : start + 500]):
            yield record(
                "observation",
                o,
                files=r.observation_files(o.id),
                assertions=[dataclasses.asdict(a) for a in r.observation_assertions(o.id)],
            )
    relationships: dict[int, RelationshipRow] = {}
    for e in r.iter_entities():
        rows, _ = r.entity_relationships(e.id, limit=ALL)
        relationships.update({rel.id: rel for rel in rows})
    times = r.relationship_times()
    for rel in sorted(relationships.values(), key=lambda x: x.id):
        created, updated = times[rel.id]
        yield record("relationship", rel, created_at=created, updated_at=updated)
    for oid in ids:
        for b in r.observation_backings(oid):
            yield record("backing", b, observation_id=oid)
    sessions = r.list_sessions(offset=0, limit=ALL)
    for s in sorted(sessions, key=lambda x: (x.created_at, x.id)):
        yield record("session", s)
        for t in r.list_turns(s.id, after_seq=0, offset=0, limit=ALL):
            yield record("turn", t)
    for start in range(0, len(ids), 500):
        for a in r.attributes_for_observations(ids[start : start + 500]):
            yield record("attribute", a)
    for oid in ids:
        for f in r.facts_for_observation(oid):
            yield record("fact", f)
    for oid, context in sorted(r.search_contexts().items()):
        yield record("context", observation_id=oid, context=context)
    for listed in r.list_files(prefix=None):
        yield record("file", r.get_file(listed.path, with_data=True))
    for p in r.list_proposals(status=None):
        yield record("proposal", p)
    for key_a, key_b, at in r.rejections():
        yield record("rejection", key_a=key_a, key_b=key_b, at=at)
    for slug, at in r.retired_slugs():
        yield record("retired_slug", slug=slug, at=at)
    for idem in r.idempotency_rows():
        yield record("idempotency", idem)
    yield _plain({"record": "end", "write_seq": r.write_seq(), "records": count})


def _plain(value: Any) -> Any:
    """``value`` with datetimes as ISO text, bytes as base64 and tuples as lists."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return value


# -- writing --------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class _Alias:
    key: str
    name: str
    entity_id: int


@dataclasses.dataclass(frozen=True, slots=True)
class _Context:
    observation_id: int
    context: str


@dataclasses.dataclass(frozen=True, slots=True)
class _Rejection:
    key_a: str
    key_b: str
    at: datetime


@dataclasses.dataclass(frozen=True, slots=True)
class _Retired:
    slug: str
    at: datetime


@dataclasses.dataclass(frozen=True, slots=True)
class _End:
    write_seq: int
    records: int


_ADAPTERS: dict[str, TypeAdapter[Any]] = {
    "entity": TypeAdapter(EntityRow),
    "alias": TypeAdapter(_Alias),
    "observation": TypeAdapter(ObservationRow),
    "assertion": TypeAdapter(AssertionRow),
    "relationship": TypeAdapter(RelationshipRow),
    "backing": TypeAdapter(BackingRow),
    "session": TypeAdapter(SessionRow),
    "turn": TypeAdapter(TurnRow),
    "attribute": TypeAdapter(AttributeRow),
    "fact": TypeAdapter(FactRow),
    "context": TypeAdapter(_Context),
    "file": TypeAdapter(FileRow),
    "proposal": TypeAdapter(ProposalRow),
    "rejection": TypeAdapter(_Rejection),
    "retired_slug": TypeAdapter(_Retired),
    "idempotency": TypeAdapter(IdempotencyRow),
    "end": TypeAdapter(_End),
}
_TIME = TypeAdapter(datetime)
_FILES = TypeAdapter(tuple[str, ...])


def _parse(adapter: TypeAdapter[Any], value: Any, where: str) -> Any:
    try:
        return adapter.validate_python(value)
    except PydanticError as exc:
        first = exc.errors()[0]
        at = ".".join(str(p) for p in first["loc"])
        raise ValidationError(
            f"{where}: {at + ': ' if at else ''}{first['msg']}", field=where
        ) from None


class RecordWriter:
    """Writes records, in the order :func:`read_records` gives them, into one write
    transaction; :meth:`finish` checks the stream was whole. A record that is malformed,
    refers to a row no earlier record made, or comes after ``end`` raises ValidationError
    naming it (``where`` says where, for example the line of a file); the caller's
    transaction then writes nothing."""

    def __init__(self, w: WriteTx, *, embeds: bool) -> None:
        self._w = w
        self._embeds = embeds
        self._entities: dict[int, int] = {}
        self._observations: dict[int, int] = {}
        self._relationships: dict[int, int] = {}
        self.counts: dict[str, int] = dict.fromkeys(KINDS[:-1], 0)
        self._ended = False

    def write(self, record: Mapping[str, Any], where: str = "record") -> None:
        if not isinstance(record, Mapping):
            raise ValidationError(f"{where} must be a JSON object", field=where)
        kind = record.get("record")
        if self._ended:
            raise ValidationError(f"{where} comes after the end record", field=where)
        if not isinstance(kind, str) or kind not in _ADAPTERS:
            raise ValidationError(
                f"{where}: unknown record kind {kind!r} (one of {', '.join(KINDS)})", field=where
            )
        fields = {k: v for k, v in record.items() if k != "record"}
        getattr(self, f"_{kind}")(fields, where)
        if kind != "end":
            self.counts[kind] += 1

    def finish(self) -> dict[str, int]:
        """The count of each kind written; ValidationError when no ``end`` record came (the
        stream was cut short)."""
        if not self._ended:
            raise ValidationError(
                "the records end before their end record: the file is incomplete", field="end"
            )
        self._w.recompute_degrees(self._entities.values())
        return self.counts

    def _ref(self, table: dict[int, int], what: str, value: Any, where: str) -> int:
        found = table.get(value) if isinstance(value, int) else None
        if found is None:
            raise ValidationError(
                f"{where}: {what} {value!r} is not defined by an earlier record", field=where
            )
        return found

    def _entity(self, fields: dict[str, Any], where: str) -> None:
        e: EntityRow = _parse(_ADAPTERS["entity"], fields, where)
        new = self._w.insert_entity(
            key=e.key,
            name=e.name,
            type=e.type,
            description=e.description,
            retrieval_queries=e.retrieval_queries,
            now=e.created_at,
            memory_category=e.memory_category,
        )
        if e.updated_at != e.created_at:
            self._w.update_entity(
                new.id,
                type=e.type,
                description=e.description,
                retrieval_queries=e.retrieval_queries,
                now=e.updated_at,
            )
        self._entities[e.id] = new.id

    def _alias(self, fields: dict[str, Any], where: str) -> None:
        a: _Alias = _parse(_ADAPTERS["alias"], fields, where)
        entity = self._ref(self._entities, "entity", a.entity_id, where)
        self._w.add_alias(key=a.key, name=a.name, entity_id=entity)

    def _observation(self, fields: dict[str, Any], where: str) -> None:
        files = _parse(_FILES, fields.pop("files", []), f"{where} files")
        raw = fields.pop("assertions", [])
        if not isinstance(raw, list):
            raise ValidationError(f"{where}: assertions must be a list", field=where)
        assertions = [_parse(_ADAPTERS["assertion"], a, f"{where} assertion") for a in raw]
        o: ObservationRow = _parse(_ADAPTERS["observation"], fields, where)
        values = {
            "title": o.title,
            "content": o.content,
            "category": o.category,
            "tags": o.tags,
            "observed_at": o.observed_at,
            "confidence": o.confidence,
            "source": o.source,
        }
        new = self._w.insert_observation(slug=o.slug, now=o.created_at, **values)  # type: ignore[arg-type]
        if o.updated_at != o.created_at:
            self._w.update_observation(new, now=o.updated_at, **values)  # type: ignore[arg-type]
        self._w.set_observation_files(new, files)
        for a in assertions:
            self._w.put_link(
                new,
                self._ref(self._entities, "entity", a.entity_id, where),
                explicit=a.explicit,
                type=a.type,
                description=a.description,
                retrieval_queries=a.retrieval_queries,
                seq=a.seq,
            )
        self._observations[o.id] = new

    def _relationship(self, fields: dict[str, Any], where: str) -> None:
        created = _parse(_TIME, fields.pop("created_at", None), f"{where} created_at")
        updated = _parse(_TIME, fields.pop("updated_at", None), f"{where} updated_at")
        rel: RelationshipRow = _parse(_ADAPTERS["relationship"], fields, where)
        new = self._w.insert_relationship(
            source_id=self._ref(self._entities, "entity", rel.source_id, where),
            type=rel.type,
            target_id=self._ref(self._entities, "entity", rel.target_id, where),
            now=created,
            memory_category=rel.memory_category,
            valid_from=rel.valid_from,
        )
        self._w.update_relationship(
            new, description=rel.description, weight=rel.weight, now=updated
        )
        self._w.set_relationship_validity(
            new,
            memory_category=rel.memory_category,
            valid_from=rel.valid_from,
            valid_until=rel.valid_until,
        )
        self._relationships[rel.id] = new

    def _backing(self, fields: dict[str, Any], where: str) -> None:
        observation = self._ref(
            self._observations, "observation", fields.pop("observation_id", None), where
        )
        b: BackingRow = _parse(_ADAPTERS["backing"], fields, where)
        self._w.put_backing(
            observation,
            self._ref(self._relationships, "relationship", b.relationship_id, where),
            description=b.description,
            weight=b.weight,
            seq=b.seq,
        )

    def _session(self, fields: dict[str, Any], where: str) -> None:
        s: SessionRow = _parse(_ADAPTERS["session"], fields, where)
        self._w.insert_session(s.id, metadata=s.metadata, now=s.created_at)
        for _ in range(s.turn_count):
            self._w.next_turn_seq(s.id)

    def _turn(self, fields: dict[str, Any], where: str) -> None:
        t: TurnRow = _parse(_ADAPTERS["turn"], fields, where)
        if self._w.get_session(t.session_id) is None:
            raise ValidationError(
                f"{where}: session {t.session_id!r} is not defined by an earlier record",
                field=where,
            )
        self._w.insert_turn(
            turn_id=t.id,
            session_id=t.session_id,
            seq=t.seq,
            role=t.role,
            speaker=t.speaker,
            observation_id=self._ref(self._observations, "observation", t.observation_id, where),
            extracted=t.extracted,
            labels=t.labels,
            now=t.created_at,
        )

    def _attribute(self, fields: dict[str, Any], where: str) -> None:
        a: AttributeRow = _parse(_ADAPTERS["attribute"], fields, where)
        self._w.insert_attribute(
            dataclasses.replace(
                a,
                entity_id=self._ref(self._entities, "entity", a.entity_id, where),
                observation_id=self._ref(
                    self._observations, "observation", a.observation_id, where
                ),
            )
        )

    def _fact(self, fields: dict[str, Any], where: str) -> None:
        f: FactRow = _parse(_ADAPTERS["fact"], fields, where)
        observation = self._ref(self._observations, "observation", f.observation_id, where)
        self._w.insert_fact(dataclasses.replace(f, observation_id=observation))

    def _context(self, fields: dict[str, Any], where: str) -> None:
        c: _Context = _parse(_ADAPTERS["context"], fields, where)
        observation = self._ref(self._observations, "observation", c.observation_id, where)
        self._w.set_search_context(observation, c.context)
        if self._embeds:
            self._w.enqueue("window", observation)

    def _file(self, fields: dict[str, Any], where: str) -> None:
        data = fields.get("data")
        if not isinstance(data, str):
            raise ValidationError(f"{where}: data must be base64 text", field=where)
        try:
            fields["data"] = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise ValidationError(f"{where}: data is not valid base64", field=where) from None
        self._w.put_file(_parse(_ADAPTERS["file"], fields, where))

    def _proposal(self, fields: dict[str, Any], where: str) -> None:
        p: ProposalRow = _parse(_ADAPTERS["proposal"], fields, where)
        pid = self._w.insert_proposal(
            canonical_key=p.canonical_key,
            canonical_name=p.canonical_name,
            duplicate_key=p.duplicate_key,
            duplicate_name=p.duplicate_name,
            type=p.type,
            reasons=p.reasons,
            score=p.score,
            now=p.created_at,
        )
        if p.status != "open" or p.decided_at is not None:
            self._w.set_proposal_status(pid, p.status, now=p.decided_at or p.created_at)

    def _rejection(self, fields: dict[str, Any], where: str) -> None:
        r: _Rejection = _parse(_ADAPTERS["rejection"], fields, where)
        self._w.reject_pair(r.key_a, r.key_b, now=r.at)

    def _retired_slug(self, fields: dict[str, Any], where: str) -> None:
        r: _Retired = _parse(_ADAPTERS["retired_slug"], fields, where)
        self._w.retire_slug(r.slug, now=r.at)

    def _idempotency(self, fields: dict[str, Any], where: str) -> None:
        self._w.put_idempotency(_parse(_ADAPTERS["idempotency"], fields, where))

    def _end(self, fields: dict[str, Any], where: str) -> None:
        end: _End = _parse(_ADAPTERS["end"], fields, where)
        written = sum(self.counts.values())
        if end.records != written:
            raise ValidationError(
                f"{where}: the end record counts {end.records} records, {written} came before it",
                field=where,
            )
        self._w.raise_seq(end.write_seq)
        self._ended = True


def copy_rows(r: ReadTx, w: WriteTx, *, embeds: bool) -> dict[str, int]:
    """Every row ``r`` reads, written by ``w``; the count of each kind."""
    writer = RecordWriter(w, embeds=embeds)
    for record in read_records(r):
        writer.write(record)
    return writer.finish()
