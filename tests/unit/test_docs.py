"""The docs stand alone and stay true: architecture.md names only files that exist in this
repository and describes the demo as it runs; the README says which Python versions run
turngraph, how to upgrade, and how to browse the database."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text("utf-8")
README = (ROOT / "README.md").read_text("utf-8")


def test_architecture_points_at_nothing_outside_the_repository() -> None:
    for target in re.findall(r"\]\(([^)#]+)\)", ARCHITECTURE):
        if not target.startswith("http"):
            assert (ROOT / "docs" / target).resolve().is_relative_to(ROOT), target
            assert (ROOT / "docs" / target).exists(), target
    for name in re.findall(r"[\w./-]+\.md\b", ARCHITECTURE):
        assert (ROOT / name).exists() or (ROOT / "docs" / name).exists(), name
    assert "/work/" not in ARCHITECTURE
    assert "../" not in ARCHITECTURE


def test_architecture_names_modules_that_exist() -> None:
    modules = ARCHITECTURE.split("```")[1]
    for path in re.findall(r"^\s+([\w/]+\.py)\b", modules, re.M):
        assert (ROOT / "src" / "turngraph" / path).exists(), path


def test_architecture_names_every_module_by_its_path() -> None:
    modules = ARCHITECTURE.split("```")[1]
    named = set(re.findall(r"^\s+([\w/]+\.py)\b", modules, re.M))
    src = ROOT / "src" / "turngraph"
    for path in src.rglob("*.py"):
        rel = path.relative_to(src).as_posix()
        if path.name in {"__init__.py", "__main__.py"} and rel != "__init__.py":
            continue  # a folder is described on its own line
        assert rel in named, rel


def test_architecture_describes_the_demo_as_it_runs() -> None:
    (line,) = [line for line in ARCHITECTURE.splitlines() if line.strip().startswith("cli/demo.py")]
    assert "turngraph demo" in line
    assert "make run" not in line  # `make run` starts the server; the tour is `turngraph demo`
    makefile = (ROOT / "Makefile").read_text("utf-8")
    run_recipe = makefile.split("\nrun:", 1)[1].split("\n\n", 1)[0]
    assert "demo" not in run_recipe


def test_readme_names_python_versions_upgrades_and_datasette() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    minimum = project["requires-python"].removeprefix(">=")
    assert f"Python {minimum} or newer" in README
    assert "## Upgrading" in README
    upgrading = README.split("## Upgrading", 1)[1].split("\n## ", 1)[0]
    assert "migration" in upgrading
    assert "src/turngraph/store/migrations/sqlite/" in upgrading
    assert (ROOT / "src/turngraph/store/migrations/sqlite").is_dir()
    assert "datasette turngraph.db" in README
