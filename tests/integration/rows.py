"""Row counts of every table of a SQLite file: what a write really left behind."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def table_rows(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}
