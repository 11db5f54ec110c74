"""Screenshots of the inspector's main pages, for the README (docs/img/inspector-*.png).

    PYTHONPATH=src:. .venv/bin/python benchmarks/inspector_screenshots.py [--out docs/img]

Seeds a fresh memory with the browser tests' conversation (tests/data), starts the server on
127.0.0.1, and drives Debian's Chromium (playwright with the system browser) through the pages.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path
from urllib.parse import quote

from tests.browser.seed import MEMORY, seed
from tests.http.conftest import running

M = f"#/m/{MEMORY}"
SHOTS = {
    "overview": M,
    "recall": f"{M}/recall?q={quote('where does Maya live')}",
    "entity": f"{M}/entity/Maya",
    "graph": f"{M}/graph/Maya",
    "session": f"{M}/session/{quote('session:followup', safe='')}",
    "proposals": f"{M}/proposals",
    "state": f"{M}/state",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("docs/img"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="turngraph-shots-"))
    try:
        with running(folder / "t.db") as srv, sync_playwright() as p:
            seed(srv.db)
            browser = p.chromium.launch(
                executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                args=["--no-sandbox", "--hide-scrollbars"],
            )
            page = browser.new_page(viewport={"width": 1280, "height": 860})
            page.goto(f"{srv.url}/ui/")
            page.screenshot(path=str(args.out / "inspector-sign-in.png"))
            page.fill("#key", srv.admin_key)
            page.click("#signin button[type=submit]")
            page.wait_for_selector("#memories")
            for name, hash_ in SHOTS.items():
                page.goto(f"{srv.url}/ui/{hash_}")
                current = page.evaluate("location.hash")
                page.wait_for_selector(
                    f'main[aria-busy="false"][data-page={json.dumps(current)}]', state="attached"
                )
                if name == "graph":
                    page.click("#node-list summary")
                    page.click('#node-list button[data-name="Ana"]')
                    page.click("#expand")
                    page.wait_for_selector("#expand:has-text('Expanded')")
                    page.wait_for_timeout(300)
                page.screenshot(path=str(args.out / f"inspector-{name}.png"))
                print(args.out / f"inspector-{name}.png")
            browser.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
