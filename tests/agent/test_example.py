"""The Telegram example runs end to end against the local fake Bot API, as the README says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_telegram_example_demo_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "telegram_bot.py"), "--demo"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "update 1: handled" in done.stdout
    assert "You said: Remind me to water the plants." in done.stdout
