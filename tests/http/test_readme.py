"""The README's Python examples run as written, and again: the embedded ones in a fresh
folder, the server ones against a live server (its address and a real key stand in for the
README's)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from .conftest import Running

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_python_examples_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: Running
) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text("utf-8"), re.S)
    assert len(blocks) >= 3, "README lost its python examples"
    monkeypatch.chdir(tmp_path)
    server.db.create_memory("default")
    # Twice over: a reader runs a block again, and it must still work.
    for block in blocks + blocks:
        code = (
            textwrap.dedent(block)
            .replace("http://127.0.0.1:8765", server.url)
            .replace('"tg_..."', repr(server.admin_key))
        )
        exec(compile(code, str(README), "exec"), {"__name__": "readme"})
    assert (tmp_path / "turngraph.db").exists()
