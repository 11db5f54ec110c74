"""Shared fixtures: every database is a real file in a temporary folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import turngraph


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "turngraph.db"


@pytest.fixture
def sqlite_db(db_path: Path) -> Iterator[turngraph.Database]:
    db = turngraph.open(db_path)
    yield db
    db.close()
