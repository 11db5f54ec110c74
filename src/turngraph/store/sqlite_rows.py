"""Row encoding shared by the read and write transactions: SQL fragments and decoders.

The PostgreSQL backend reuses the decoders and the column lists (its tables have the same
columns); its own SQL is in the postgres modules."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any, TypeVar

from turngraph.store.base import (
    AttributeRow,
    EntityRow,
    FactRow,
    ObservationRow,
    ProposalRow,
    RelationshipRow,
    TurnRow,
)


def to_db(dt: datetime) -> str:
    """Datetimes are stored as fixed-width UTC ISO strings, so text order is time order."""
    # A write stores its few times many times over: remembered. Equal datetimes may differ
    # in fold (the repeated hour when clocks go back), which changes the instant: keyed too.
    return _utc_text(dt, dt.fold)


@functools.lru_cache(maxsize=64)
def _utc_text(dt: datetime, fold: int) -> str:
    # isoformat, not strftime: "%Y" drops the leading zeros of a year before 1000.
    return dt.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "+00:00"


def from_db(value: str | datetime) -> datetime:
    """A stored datetime: SQLite's text, or a value a driver already decoded (PostgreSQL)."""
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    return datetime.fromisoformat(value)


def _opt_dt(value: str | datetime | None) -> datetime | None:
    return None if value is None else from_db(value)


def _placeholders(n: int) -> str:
    return ",".join("?" * n)


T = TypeVar("T")


def _chunks(ids: Iterable[T], size: int = 500) -> Iterator[list[T]]:
    batch: list[T] = []
    for i in ids:
        batch.append(i)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


_OBS_COLS = (
    "id, slug, title, content, category, tags, observed_at, confidence, source, "
    "created_at, updated_at"
)
_ENT_COLS = (
    "id, key, name, type, description, retrieval_queries, degree, created_at, updated_at, "
    "memory_category"
)
_REL_SELECT = (
    "SELECT r.id, r.source_id, s.name, r.type, r.target_id, t.name, r.description, r.weight, "
    "r.memory_category, r.valid_from, r.valid_until, s.type, t.type, s.key, t.key "
    "FROM relationships r JOIN entities s ON s.id = r.source_id "
    "JOIN entities t ON t.id = r.target_id"
)
_FILE_META = "path, filename, content_type, size, sha256, description, created_by, created_at"
_PROPOSAL_COLS = (
    "id, canonical_key, canonical_name, duplicate_key, duplicate_name, type, reasons, score, "
    "status, created_at, decided_at"
)


def _obs(r: Any) -> ObservationRow:
    return ObservationRow(
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        tuple(json.loads(r[5])),
        from_db(r[6]),
        r[7],
        r[8],
        from_db(r[9]),
        from_db(r[10]),
    )


def _ent(r: Any) -> EntityRow:
    return EntityRow(
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        tuple(json.loads(r[5])),
        r[6],
        from_db(r[7]),
        from_db(r[8]),
        r[9],
    )


def _rel(r: Any) -> RelationshipRow:
    return RelationshipRow(
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        r[5],
        r[6],
        r[7],
        r[8],
        _opt_dt(r[9]),
        _opt_dt(r[10]),
        r[11],
        r[12],
        r[13],
        r[14],
    )


def _proposal(r: Any) -> ProposalRow:
    return ProposalRow(
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        r[5],
        tuple(json.loads(r[6])),
        r[7],
        r[8],
        from_db(r[9]),
        _opt_dt(r[10]),
    )


_TURN_SELECT = (
    "SELECT t.id, t.session_id, t.seq, t.role, t.speaker, t.extracted, t.labels, t.created_at, "
    "o.id, o.slug, o.content, o.observed_at FROM turns t JOIN observations o "
    "ON o.id = t.observation_id"
)
_ATTR_SELECT = (
    "SELECT a.id, a.entity_id, a.key, a.value, a.memory_category, a.observation_id, "
    "a.valid_from, a.valid_until, a.supersedes, a.superseded_by, a.created_at, e.name, e.type, "
    "e.key, t.id, o.slug FROM attributes a JOIN entities e ON e.id = a.entity_id "
    "JOIN observations o ON o.id = a.observation_id "
    "LEFT JOIN turns t ON t.observation_id = a.observation_id"
)
_FACT_COLS = "id, kind, observation_id, memory_category, data, dedup, happened_at, active"


def _turn(r: Any) -> TurnRow:
    return TurnRow(
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        r[5],
        tuple(json.loads(r[6])),
        from_db(r[7]),
        r[8],
        r[9],
        r[10],
        from_db(r[11]),
    )


def _attr(r: Any) -> AttributeRow:
    return AttributeRow(
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        r[5],
        from_db(r[6]),
        _opt_dt(r[7]),
        r[8],
        r[9],
        from_db(r[10]),
        r[11],
        r[12],
        r[13],
        r[14],
        r[15],
    )


def _fact(r: Any) -> FactRow:
    return FactRow(r[0], r[1], r[2], r[3], r[4], r[5], from_db(r[6]), bool(r[7]))
