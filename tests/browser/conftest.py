"""A live server on 127.0.0.1 over the seeded memory, and Debian's Chromium driven by
playwright (the system browser: nothing is downloaded) with every host but 127.0.0.1 made
unresolvable, so the page works with the network cut or not at all."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.browser.seed import MEMORY, seed
from tests.http.conftest import Running, running

OFFLINE = "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"


def chromium_path() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail("the inspector's browser tests need Chromium: apt-get install chromium")
    return found


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    with running(tmp_path_factory.mktemp("inspector") / "t.db") as srv:
        seed(srv.db)
        srv.principal("reader")
        srv.grant("reader", MEMORY, "read")
        srv.principal("writer")
        srv.grant("writer", MEMORY, "read_write")
        yield srv


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the inspector's browser tests need playwright: pip install -e '.[dev]'")
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=chromium_path(),
            args=["--no-sandbox", "--disable-dev-shm-usage", f"--host-resolver-rules={OFFLINE}"],
        )
        try:
            yield b
        finally:
            b.close()


@dataclass
class Inspector:
    """One browser tab on the inspector, with what its console said."""

    page: Any
    base: str
    errors: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)  # every message, shown when a test fails

    def open(self, hash_: str = "#/") -> None:
        """Go to a page of the inspector and wait until it has drawn itself."""
        self.page.goto(f"{self.base}/ui/{hash_}")
        self.ready()

    def ready(self) -> None:
        current = self.page.evaluate("location.hash") or "#/"
        self.page.wait_for_selector(
            f'main[aria-busy="false"][data-page={json.dumps(current)}]', state="attached"
        )

    def sign_in(self, key: str) -> None:
        self.page.goto(f"{self.base}/ui/")
        self.page.fill("#key", key)
        self.page.click("#signin button[type=submit]")
        self.page.wait_for_selector("#memories")
        self.ready()

    def text(self, selector: str = "main") -> str:
        text: str = self.page.inner_text(selector)
        return text


@pytest.fixture
def inspector(browser: Any, live: Running, tmp_path: Path) -> Iterator[Inspector]:
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    tab = Inspector(page, live.url)

    def on_console(message: Any) -> None:
        tab.console.append(f"{message.type}: {message.text}")
        if message.type == "error":
            tab.errors.append(message.text)

    page.on("console", on_console)

    def on_error(exc: Any) -> None:
        tab.console.append(f"uncaught: {exc}")
        tab.errors.append(f"uncaught: {exc}")

    page.on("pageerror", on_error)
    try:
        yield tab
    finally:
        context.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failing browser test reports what the page showed and said: its address, the text
    of its main element and every console message, so a failure explains itself."""
    report = yield
    tab = getattr(item, "funcargs", {}).get("inspector")
    if report.failed and isinstance(tab, Inspector):
        try:
            address = tab.page.url
            shown = tab.page.inner_text("main", timeout=2000)
        except Exception as exc:  # the page may be gone: say so instead
            address, shown = "?", f"(the page could not be read: {exc})"
        report.sections.append(("page", f"{address}\n{shown}"))
        report.sections.append(("page console", "\n".join(tab.console) or "(nothing)"))
    return report
