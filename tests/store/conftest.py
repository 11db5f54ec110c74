"""The store contract suite: a backend checked directly through the storage protocol.

The conformance suite checks a backend through the public API; these tests hold a backend to
what :mod:`turngraph.store.base` promises, row by row. Adding a backend means adding a
parameter to ``store`` that opens it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from turngraph.store.base import AttributeRow, Store, WriteTx
from turngraph.store.sqlite import SQLiteStore

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A fresh, empty store on one backend."""
    opened: Store
    if request.param == "sqlite":
        opened = SQLiteStore(tmp_path / "store.db")
    elif request.param == "postgres":
        url = request.getfixturevalue("postgres_url")  # skips without the dev extra
        from turngraph.store.postgres import PostgresStore

        opened = PostgresStore(url)
    else:  # pragma: no cover - new backends plug in here
        raise AssertionError(f"unknown backend {request.param}")
    yield opened
    opened.close()


@pytest.fixture
def memory_id(store: Store) -> int:
    return store.create_memory(name="acme", visibility="private", retrieval="{}", now=NOW).id


def current_attribute(
    entity_id: int,
    key: str,
    value: str,
    observation_id: int,
    *,
    at: datetime = NOW,
    valid_from: datetime | None = None,
    row_id: str = "attribute-1",
) -> AttributeRow:
    """A current attribute (nothing before or after it), written at ``at`` and holding since
    ``valid_from`` (``at`` by default)."""
    return AttributeRow(
        id=row_id,
        entity_id=entity_id,
        key=key,
        value=value,
        memory_category="knowledge",
        observation_id=observation_id,
        valid_from=valid_from or at,
        valid_until=None,
        supersedes=None,
        superseded_by=None,
        created_at=at,
    )


def insert_note(tx: WriteTx, slug: str, content: str, title: str = "note") -> int:
    """A hand-written observation with nothing but its words."""
    return tx.insert_observation(
        slug=slug,
        title=title,
        content=content,
        category="knowledge",
        tags=(),
        observed_at=NOW,
        confidence=None,
        source=None,
        now=NOW,
    )


def unit_vectors(rng: np.random.Generator, n: int, dim: int) -> npt.NDArray[np.float32]:
    """``n`` random vectors of length one."""
    m = rng.standard_normal((n, dim)).astype(np.float32)
    out: npt.NDArray[np.float32] = (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)
    return out
