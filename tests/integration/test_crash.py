"""SIGKILL during sustained writes loses no acknowledged write and leaves a sound database.

A few kills each here; ``benchmarks/crash.py`` runs many (figures in docs/benchmarks.md).
"""

from __future__ import annotations

import signal
from pathlib import Path

from turngraph.bench.crash import kill_embedded, kill_servers


def test_killed_servers_lose_no_acknowledged_write(tmp_path: Path) -> None:
    report = kill_servers(tmp_path / "server.db", kills=3, seed=1)
    assert report.kills == 3
    assert report.acknowledged > 0
    assert report.lost == []
    assert report.found == report.acknowledged
    assert report.problems == []
    assert report.exits == [-signal.SIGKILL] * 3  # each died of the kill, not on its own
    assert report.ok


def test_killed_embedded_writers_lose_no_acknowledged_write(tmp_path: Path) -> None:
    report = kill_embedded(tmp_path / "embedded.db", kills=3, seed=1)
    assert report.kills == 3
    assert report.acknowledged > 0
    assert report.lost == []
    assert report.found == report.acknowledged
    assert report.problems == []
    assert report.exits == [-signal.SIGKILL] * 3  # each died of the kill, not on its own
    assert report.ok
