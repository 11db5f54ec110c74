"""The layout shows the architecture (docs/architecture.md, "Layers"): the contracts at the top
level, everything else in a folder, and imports running from the faces down to the core, the
core down to recall, extraction and the stores."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "turngraph"
CONTRACTS = {"errors", "config", "models", "operations", "plugins"}
FACES = {"server", "mcp", "cli", "client", "agent", "bench", "integrations"}
# What recall/ and extract/ may use of the core (docs/architecture.md, "Layers").
CORE_HELPERS = {"core.validate", "core.categories", "core.graph"}


def _imports(path: Path) -> set[str]:
    """The turngraph modules ``path`` imports (anywhere in it), without the ``turngraph.``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "turngraph":
                found |= {a.name for a in node.names}
            elif node.module.startswith("turngraph."):
                base = node.module.removeprefix("turngraph.")
                found.add(base)
                # `from turngraph.core import graph` imports the module core.graph.
                found |= {f"{base}.{a.name}" for a in node.names if (SRC / base).is_dir()}
        elif isinstance(node, ast.Import):
            found |= {
                a.name.removeprefix("turngraph.")
                for a in node.names
                if a.name.startswith("turngraph.")
            }
    return found


def _modules_in(*folders: str) -> list[Path]:
    return [p for folder in folders for p in sorted((SRC / folder).rglob("*.py"))]


def test_the_top_level_holds_only_the_contracts_and_folders() -> None:
    loose = {p.stem for p in SRC.glob("*.py")} - {"__init__"}
    assert loose == CONTRACTS
    folders = {p.name for p in SRC.iterdir() if (p / "__init__.py").exists()}
    assert folders == {"core", "store", "recall", "extract"} | FACES


def test_the_core_and_what_it_stands_on_import_no_face() -> None:
    below = [*_modules_in("core", "store", "recall", "extract")]
    below += [SRC / f"{name}.py" for name in CONTRACTS]
    for path in below:
        faces = {m for m in _imports(path) if m.split(".")[0] in FACES}
        assert not faces, (path.relative_to(SRC), faces)


def test_the_stores_import_only_the_contracts() -> None:
    for path in _modules_in("store"):
        outside = {
            m for m in _imports(path) if m.split(".")[0] not in {"store", "errors", "config"}
        }
        assert not outside, (path.relative_to(SRC), outside)


def test_recall_and_extraction_use_only_the_cores_pure_helpers() -> None:
    for path in _modules_in("recall", "extract"):
        core = {m for m in _imports(path) if m.split(".")[0] == "core"} - {"core"}
        assert core <= CORE_HELPERS, (path.relative_to(SRC), core - CORE_HELPERS)


def test_the_contracts_below_the_core_import_nothing_of_turngraph() -> None:
    for name in ("errors", "config", "models"):
        assert not _imports(SRC / f"{name}.py"), name


def test_the_console_script_names_a_function() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["scripts"]
    module, _, attr = scripts["turngraph"].partition(":")
    assert callable(getattr(importlib.import_module(module), attr))


def test_python_m_turngraph_cli_runs_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "turngraph.cli", "--version"],
        capture_output=True,
        text=True,
        check=False,
        env={"PYTHONPATH": str(ROOT / "src")},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == importlib.import_module("turngraph").__version__


def test_the_mcp_package_leaves_import_mcp_to_the_sdk() -> None:
    server = importlib.import_module("turngraph.mcp.server")
    sdk = importlib.import_module("mcp")
    assert not Path(sdk.__file__ or "").resolve().is_relative_to(SRC)
    assert server.MCPServer.__module__.startswith("mcp.server")
