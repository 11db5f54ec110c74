"""/docs and /redoc render in a real browser with no way out to the internet: Swagger UI and
ReDoc come from the server itself, not a CDN.

Headless Chromium (Debian's ``chromium`` package; ``.ci/run`` installs it) loads each page with
every host name but 127.0.0.1 made unresolvable, runs its scripts, and prints the DOM.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import Running

OFFLINE = "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"


def _rendered(url: str, tmp_path: Path) -> str:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.fail("headless Chromium is needed for this test: apt-get install chromium")
    done = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--host-resolver-rules={OFFLINE}",
            "--virtual-time-budget=15000",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_swagger_ui_renders_offline(server: Running, tmp_path: Path) -> None:
    dom = _rendered(f"{server.url}/docs", tmp_path)
    # Swagger UI drew the document: its info block with our title, and an operation.
    assert 'class="swagger-ui"' in dom, dom[:2000]
    assert "turngraph" in dom
    assert "opblock" in dom, dom[:2000]
    assert "/api/v1/{context}/facts" in dom


def test_redoc_renders_offline(server: Running, tmp_path: Path) -> None:
    dom = _rendered(f"{server.url}/redoc", tmp_path)
    assert "redoc-wrap" in dom, dom[:2000]
    assert "/api/v1/{context}/facts" in dom
