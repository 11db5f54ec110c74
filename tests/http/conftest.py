"""A real turngraph server on 127.0.0.1 (uvicorn in a thread) over a fresh SQLite file."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import uvicorn

import turngraph
from turngraph.config import Settings
from turngraph.server import ServerSettings, create_app
from turngraph.server.connections import uvicorn_config


@dataclass
class Running:
    url: str
    db: turngraph.Database
    admin_key: str
    keys: dict[str, str] = field(default_factory=dict)

    def principal(self, pid: str, *, organization: str = "default") -> str:
        """A new principal with a key; returns the key."""
        self.db.access.create_principal(pid, organization=organization)
        _, key = self.db.access.create_key(pid)
        self.keys[pid] = key
        return key

    def grant(self, pid: str, memory: str, tier: str) -> None:
        row = self.db.store.get_memory(memory)
        assert row is not None
        self.db.access.grant(pid, row, tier)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def running(path: Path, *, core: Settings | None = None, **settings: Any) -> Iterator[Running]:
    """A server on a free port over the SQLite file ``path`` with an admin key (``core``:
    the database's settings)."""
    db = turngraph.open(path, settings=core)
    if db.access.is_empty():
        db.access.create_principal("admin", admin=True, kind="human")
    _, admin_key = db.access.create_key("admin")
    port = free_port()
    server_settings = ServerSettings(db=str(path), port=port, **settings)
    app = create_app(server_settings, db=db)
    srv = uvicorn.Server(uvicorn_config(app, server_settings))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield Running(f"http://127.0.0.1:{port}", db, admin_key)
    finally:
        srv.should_exit = True
        thread.join(10)
        db.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    with running(tmp_path_factory.mktemp("server") / "turngraph.db") as srv:
        yield srv
