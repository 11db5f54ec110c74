"""The Telegram example runs end to end against the local fake Bot API, as the README says,
on the package alone, and its second message is answered from memory of the first."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_telegram_example_demo_runs(tmp_path: Path) -> None:
    source = (ROOT / "examples" / "telegram_bot.py").read_text("utf-8")
    assert "tests" not in {
        line.split()[1].split(".")[0]
        for line in source.splitlines()
        if line.startswith(("import ", "from "))
    }
    # From another folder, with only the installed package on the path: no tests/ to import.
    done = subprocess.run(
        [sys.executable, "-I", str(ROOT / "examples" / "telegram_bot.py"), "--demo"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "update 1: handled" in done.stdout
    assert "You said: Remind me to water the plants." in done.stdout
    assert "update 2: handled" in done.stdout
    replies = [line for line in done.stdout.splitlines() if "You said" in line]
    assert len(replies) == 2, done.stdout
    assert "Remind me to water the plants." in replies[1].split("You said: What did I ask?")[1]
