"""Servers starting at once on one empty database: one of them creates the admin key and the
default memory, the others find them made and start without error."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import turngraph

STARTING = 8

# One starting server: opens the database, waits for the common start time, runs the
# server's first-start step, and prints what it got (the new key, or null).
_START = textwrap.dedent(
    """
    import json, sys, time
    import turngraph
    from turngraph.server.bootstrap import first_start
    from turngraph.server.settings import ServerSettings
    db = turngraph.open(sys.argv[1])
    time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
    print(json.dumps(first_start(db, ServerSettings())))
    db.close()
    """
)


def test_servers_starting_together_make_one_admin_key_and_no_error(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    turngraph.open(path).close()  # the schema exists; no principal, no memory
    at = time.time() + 3  # after every process has imported turngraph and opened the file
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _START, str(path), str(at)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(STARTING)
    ]
    results = [p.communicate(timeout=60) for p in procs]
    failed = [err for p, (_, err) in zip(procs, results, strict=True) if p.returncode != 0]
    assert failed == []
    keys = [json.loads(out) for out, _ in results]
    made = [k for k in keys if k is not None]
    assert len(made) == 1
    db = turngraph.open(path)
    try:
        assert [m.name for m in db.list_memories()] == ["default"]
        assert [p.id for p in db.access.list_principals()] == ["admin"]
    finally:
        db.close()
