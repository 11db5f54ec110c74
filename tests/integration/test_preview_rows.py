"""Preview runs the whole pipeline and leaves every table of the SQLite file as it was."""

from __future__ import annotations

from pathlib import Path

import turngraph

from .rows import table_rows


def test_preview_leaves_every_table_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "preview.db"
    with turngraph.open(path) as db:
        mem = db.create_memory("m")
        first = mem.remember(
            "I work at Acme as Head of Platform. Always reply in French.", speaker="Alice"
        )
        before = table_rows(path)
        preview = mem.remember(
            "I just got promoted to CTO. My sister Emma lives in Lisbon. I think Bob might "
            "leave Globex. I went to Berlin yesterday.",
            session_id=first.session_id,
            speaker="Alice",
            infer="preview",
        )
        ex = preview.extraction
        assert ex.corrections
        assert ex.relations
        assert ex.uncertainties
        assert ex.actions
        assert table_rows(path) == before
        assert mem.get_session(first.session_id).turn_count == 1
