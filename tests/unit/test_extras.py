"""`pip install turngraph` is the library: the server, MCP and PostgreSQL dependencies are
extras, and an embedded use of a memory never imports them."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
FACES = {"fastapi", "uvicorn", "fastapi-offline", "mcp"}


def test_the_server_and_mcp_dependencies_are_extras() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    base = {Requirement(r).name for r in project["dependencies"]}
    extras = project["optional-dependencies"]
    assert not base & FACES
    assert {"fastapi", "uvicorn", "fastapi-offline"} <= {
        Requirement(r).name for r in extras["server"]
    }
    assert "mcp" in {Requirement(r).name for r in extras["mcp"]}
    dev = [Requirement(r) for r in extras["dev"] if Requirement(r).name == "turngraph"]
    assert dev
    assert {"server", "mcp", "postgres"} <= dev[0].extras
    # The PostgreSQL driver is an extra too.
    assert not base & {"psycopg", "psycopg-pool"}
    assert {"psycopg", "psycopg-pool"} <= {Requirement(r).name for r in extras["postgres"]}


def test_an_embedded_memory_never_imports_the_server_or_mcp(tmp_path: Path) -> None:
    script = f"""
import sys, turngraph
with turngraph.open({str(tmp_path / "e.db")!r}) as db:
    m = db.create_memory("m", retrieval={{"embedder": "none"}})
    m.remember("I live in Leeds.", speaker="Dana")
    m.recall("Leeds")
faces = {{"fastapi", "uvicorn", "mcp", "starlette", "psycopg", "psycopg_pool"}}
print(sorted({{n.split(".")[0] for n in sys.modules}} & faces))
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=False,
        env={"PYTHONPATH": str(ROOT / "src")},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_mcp_face_needs_only_what_the_mcp_extra_installs(tmp_path: Path) -> None:
    # The server extra's own packages, beyond what the mcp extra (and the SDK) install.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    extras = project["optional-dependencies"]
    only_server = {Requirement(r).name for r in extras["server"]} - {
        Requirement(r).name for r in extras["mcp"]
    }
    assert "fastapi-offline" in only_server
    script = f"""
import sys, turngraph
from turngraph.mcp.server import build_server
with turngraph.open({str(tmp_path / "m.db")!r}) as db:
    build_server(db.create_memory("m", retrieval={{"embedder": "none"}}), "write")
print(sorted({{n for n in sys.modules}} & {{"fastapi_offline", "turngraph.server.app"}}))
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=False,
        env={"PYTHONPATH": str(ROOT / "src")},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
