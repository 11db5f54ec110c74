"""Hostile text: extraction stays linear and fast, and one caller's batch of it does not hold
up another memory's requests.

Extraction is timed on this thread's CPU clock, the least of three readings (so other work
on the machine counts as little as it can), against a ceiling of 500 ms for any accepted
turn: the slowest family takes about 130 ms, and the ceiling leaves room for a host whose
speed changes by half from one minute to the next (a quadratic family would take seconds).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
import uvicorn

import turngraph
from turngraph.config import Limits, Settings
from turngraph.core.extraction_pool import ProcessExtractor
from turngraph.extract.base import TurnContext
from turngraph.extract.rules import RuleExtractor
from turngraph.server import ServerSettings, create_app

from ..fakes.greedy_extractor import GreedyExtractor
from .conftest import free_port

FAMILIES = {
    "letter A": "A",
    "A-hyphen": "A-",
    "a-hyphen": "a-",
    "Aa-hyphen": "Aa-",
    "A-dot": "A.",
    "hyphenated, then School": "Aa-School ",
    "I-space": "I ",
    "a-space": "a ",
    "capitalised words": "Alpha Beta ",
    "capitalised list": "Alpha, ",
    "my X is Y": "my dog is Rex ",
    "punctuation": ".,;:!?",
    "dots": ".",
    "hyphens": "-",
    "possessives": "'s ",
    "quotes": '"a" ',
    "parentheses": "(",
    "dates": "on May 3 ",
    "emoji": "\U0001f600",
    "accented letters": "\u00e9",
    "CJK": "\u4e2d",
    "zero-width": "a\u200b",
    "right-to-left": "\u05d0 ",
    "and-chains": "and ",
    "likes list": "I like tea and ",
    "one long word": "word",
    "newlines": "\n",
    "spaces": " ",
    "digits": "1",
    "comma list": "x,",
}

SIZES = (10_000, Limits().content_hard_chars)
CEILING = 0.5


def hostile(unit: str, size: int) -> str:
    return ("Hi" + unit * (size // len(unit) + 1))[:size]


def cpu_seconds(text: str) -> float:
    """The least CPU time of three readings (the others are the machine's noise)."""
    # A named speaker: the readers of a whole turn skip one whose speaker is only "user"
    # (with that speaker, a hyphenated run of 32,000 characters that took 21 s passed).
    context = TurnContext(speaker="Ana", role="user", observed_at=datetime.now(UTC))
    extractor = RuleExtractor()
    times = []
    for _ in range(3):
        start = time.thread_time()
        extractor.extract(text, context)
        times.append(time.thread_time() - start)
    return min(times)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_hostile_text_is_read_in_linear_time_under_the_ceiling(family: str) -> None:
    small, large = (cpu_seconds(hostile(FAMILIES[family], size)) for size in SIZES)
    assert large < CEILING, f"{family}: {large * 1000:.0f} ms at {SIZES[1]:,} characters"
    growth = SIZES[1] / SIZES[0]
    # Linear with slack for noise: a quadratic family grows by growth**2 (about 10).
    assert large <= max(small, 0.005) * growth * 2, (family, small, large)


@pytest.fixture
def pooled_server(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A real server whose database reads turns in worker processes, as `turngraph serve`
    does, with a short time limit per turn."""
    settings = Settings(index_in_background=True)
    reader = ProcessExtractor(GreedyExtractor(), workers=2, timeout=2)
    db = turngraph.open(tmp_path / "hostile.db", settings=settings, extractor=reader)
    db.access.create_principal("admin", admin=True, kind="human")
    _, key = db.access.create_key("admin")
    db.create_memory("victim", retrieval={"embedder": "none"})
    db.create_memory("quiet", retrieval={"embedder": "none"})
    port = free_port()
    app = create_app(ServerSettings(db=str(tmp_path / "hostile.db"), port=port), db=db)
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    while not srv.started:
        assert thread.is_alive(), "the server stopped"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}", key
    finally:
        srv.should_exit = True
        thread.join(10)
        db.close()


def test_a_recall_on_another_memory_is_not_held_up_by_a_hostile_batch(
    pooled_server: tuple[str, str],
) -> None:
    url, key = pooled_server
    auth = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=url, headers=auth, timeout=120) as http:
        for text in ("I live in Porto.", "My sister Maya plays the cello."):
            assert http.post("/api/v1/quiet/facts", json={"text": text}).status_code == 200

        def recall() -> float:
            start = time.perf_counter()
            r = http.post("/api/v1/quiet/query", json={"query": "where do I live"})
            assert r.status_code == 200
            return time.perf_counter() - start

        quiet = min(recall() for _ in range(3))
        # Each of these turns holds the interpreter in one call for minutes when read.
        batch = {"messages": [{"content": f"GREEDY {n}"} for n in range(3)]}
        outcome: list[httpx.Response] = []
        sender = threading.Thread(
            target=lambda: outcome.append(
                httpx.post(
                    f"{url}/api/v1/victim/facts/batch", json=batch, headers=auth, timeout=120
                )
            )
        )
        sender.start()
        time.sleep(0.5)  # the batch is being read
        during = [recall() for _ in range(5)]
        sender.join(120)
    # Generous: the quiet memory answers within a second while the batch is read, where
    # reading it in the server's own process held every request for seconds.
    assert max(during) < max(1.0, 10 * quiet), (quiet, during)
    # The batch's work is bounded: each turn stops at the limit, is stored, and the caller
    # is told that extraction failed.
    assert outcome[0].status_code == 502, outcome[0].text
    assert "longer than 2 s" in outcome[0].json()["message"]
