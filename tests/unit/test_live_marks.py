"""The list of timing-dependent tests (tests/conftest.py LIVE) names tests that exist: a
renamed test would otherwise drop out of the repeated runs unnoticed."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import LIVE

ROOT = Path(__file__).resolve().parents[2]


def test_every_live_entry_names_a_module_or_a_test_that_exists() -> None:
    for entry in LIVE:
        path, _, prefix = entry.partition("::")
        where = ROOT / path
        assert where.exists(), entry
        if prefix:
            source = where.read_text(encoding="utf-8")
            assert re.search(rf"^def {re.escape(prefix)}", source, re.M), entry
