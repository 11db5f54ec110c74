"""The inspector's pages in a real browser on a memory of 10,000 observations.

    PYTHONPATH=src .venv/bin/python benchmarks/inspector.py [--observations 10000] [--db PATH]
        [--runs 5]

Builds (or reuses, with ``--db``) a memory of ``--observations`` observations: four in five
are turns of 50-message conversations among a few hundred people (remembered with the
offline extractor, so they make entities, attributes and relations), the rest notes with
entities and relationships; plus merge proposals and files. Starts the server on 127.0.0.1,
drives Debian's Chromium (playwright with the system browser), signs in, and times each page
``--runs`` times two ways: *open* is a fresh load of the page's URL, from navigation to the
page drawn (HTML, scripts, API calls, drawing); *move* is arriving from another page of the
inspector (the API calls and drawing). Prints the median and the worst of each.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import uvicorn

import turngraph
from turngraph.server import ServerSettings, create_app

FIRST = "Ana Ben Chen Dara Eli Fatima Gus Hana Ivan Jade Kofi Lena Mateo Nia Omar Priya".split()
LAST = "Silva Novak Okafor Tanaka Berg Haddad Lindqvist Moreau Costa Rossi Walsh Kim".split()
CITIES = "Lisbon Porto Berlin Bristol Osaka Lagos Quito Oslo Lyon Austin Pune Hanoi".split()
JOBS = "nurse teacher pilot chef designer engineer lawyer baker architect editor".split()
MEMORY = "big"
PAGE_BUDGET_MS = 300.0


def person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def message(rng: random.Random, speaker: str, i: int) -> str:
    return rng.choice(
        [
            f"I live in {rng.choice(CITIES)} now and I work as a {rng.choice(JOBS)}.",
            f"Last weekend I went to {rng.choice(CITIES)} with {person(rng)}.",
            f"My sister {rng.choice(FIRST)} is a {rng.choice(JOBS)} and lives in "
            f"{rng.choice(CITIES)}.",
            f"I just got promoted to head {rng.choice(JOBS)}!",
            f"We talked about the budget for release {i} again.",
            f"I think {person(rng)} might move to {rng.choice(CITIES)} next year.",
        ]
    )


def build(path: Path, observations: int) -> None:
    rng = random.Random(7)
    db = turngraph.open(path)
    mem = db.create_memory(MEMORY)
    turns = observations * 4 // 5
    start = time.perf_counter()
    for s in range(0, turns, 50):
        speakers = [person(rng) for _ in range(2)]
        batch = [
            {
                "role": "user",
                "speaker": speakers[i % 2],
                "content": message(rng, speakers[i % 2], i),
            }
            for i in range(min(50, turns - s))
        ]
        session = mem.create_session({"user": speakers[0]}, session_id=f"session:bench-{s // 50}")
        mem.remember_many(batch, session_id=session.id)
    for i in range(observations - turns):
        a, b = person(rng), person(rng)
        project = f"Project {rng.choice(LAST)} {i % 97}"
        mem.add_observation(
            title=f"Note {i}",
            content=f"{a} and {b} reviewed {project} in {rng.choice(CITIES)}.",
            entities=[
                {"name": a, "type": "person", "description": f"Works on {project}"},
                {"name": project, "type": "project", "description": "A project"},
            ],
            relationships=[{"source": a, "type": "works_on", "target": project}],
        )
    mem.add_observation(
        title="Variants",
        content="Acme Corp and Acme Corporation are one company.",
        entities=[
            {"name": "Acme Corp", "type": "organization", "description": "A customer"},
            {"name": "Acme Corporation", "type": "organization", "description": "A customer"},
        ],
    )
    mem.consolidate()
    for i in range(20):
        mem.put_file(f"notes/{i}.md", f"# Note {i}\n" * 50, description=f"Note {i}")
    info = mem.info()
    print(
        f"built {info.observations} observations, {info.entities} entities, "
        f"{info.relationships} relationships, {info.sessions} sessions, {info.turns} turns "
        f"in {time.perf_counter() - start:.0f} s"
    )
    db.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def pages(db: turngraph.Database) -> dict[str, str]:
    mem = db.memory(MEMORY)
    top = mem.list_entities(limit=1)[0].name
    session = mem.list_sessions(limit=1).sessions[0].id
    turn = mem.list_turns(session, limit=1).turns[0]
    m = f"#/m/{MEMORY}"
    return {
        "memories": "#/",
        "overview": m,
        "recall": f"{m}/recall?q={quote('who lives in Lisbon and works as a nurse')}",
        "entities": f"{m}/entities",
        f"entity (most connected: degree {mem.get_entity(top).degree})": f"{m}/entity/"
        + quote(top, safe=""),
        "graph (most connected)": f"{m}/graph/{quote(top, safe='')}",
        "sessions": f"{m}/sessions",
        "session (20 turns with extractions)": f"{m}/session/{quote(session, safe='')}",
        "turn": f"{m}/turn/{quote(turn.id, safe='')}",
        "observation": f"{m}/obs/{turn.slug}",
        "state": f"{m}/state",
        "proposals": f"{m}/proposals",
        "files": f"{m}/files",
    }


def measure(browser: Any, base: str, key: str, targets: dict[str, str], runs: int) -> list[Any]:
    page = browser.new_page()
    page.goto(f"{base}/ui/")
    page.fill("#key", key)
    page.click("#signin button[type=submit]")
    page.wait_for_selector("#memories")

    def drawn(hash_: str) -> dict[str, str]:
        page.wait_for_selector(
            f'main[aria-busy="false"][data-page={json.dumps(hash_)}]', state="attached"
        )
        if page.locator("main .error").count():
            raise RuntimeError(f"{hash_}: {page.inner_text('main .error')}")
        out: dict[str, str] = page.evaluate("({...document.querySelector('main').dataset})")
        return out

    rows = []
    for name, hash_ in targets.items():
        opened, moved = [], []
        for _ in range(runs):
            page.goto("about:blank")  # a full load: a hash alone would not reload the page
            page.goto(f"{base}/ui/{hash_}")
            opened.append(float(drawn(page.evaluate("location.hash") or "#/")["sinceNavigationMs"]))
            page.evaluate("location.hash = '#/'")
            drawn("#/")
            page.evaluate(f"location.hash = {json.dumps(hash_)}")
            moved.append(float(drawn(page.evaluate("location.hash") or "#/")["renderMs"]))
        rows.append((name, opened, moved))
    page.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--observations", type=int, default=10_000)
    parser.add_argument("--db", type=Path, help="reuse (or build once into) this file")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="turngraph-inspector-"))
    path = args.db or folder / "inspector.db"
    if not path.exists():
        build(path, args.observations)
    db = turngraph.open(path)
    if db.access.is_empty():
        db.access.create_principal("admin", admin=True, kind="human")
    _, key = db.access.create_key("admin")
    port = free_port()
    app = create_app(ServerSettings(db=str(path), port=port), db=db)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    info = db.memory(MEMORY).info()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                args=["--no-sandbox", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
            )
            rows = measure(browser, base, key, pages(db), args.runs)
            browser.close()
    finally:
        server.should_exit = True
        thread.join(10)
        db.close()
        shutil.rmtree(folder, ignore_errors=True)
    load = os.getloadavg()
    print(
        f"memory: {info.observations} observations, {info.entities} entities, "
        f"{info.relationships} relationships, {info.sessions} sessions, {info.turns} turns"
    )
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, load {load[0]:.1f} {load[1]:.1f}"
    )
    print(f"{'page':44} {'open p50':>9} {'open max':>9} {'move p50':>9} {'move max':>9}")
    slow = []
    for name, opened, moved in rows:
        print(
            f"{name:44} {statistics.median(opened):9.0f} {max(opened):9.0f} "
            f"{statistics.median(moved):9.0f} {max(moved):9.0f}"
        )
        if statistics.median(opened) > PAGE_BUDGET_MS:
            slow.append(name)
    print("all pages under 300 ms (median, open)" if not slow else f"over 300 ms: {slow}")
    sys.stdout.flush()
    # Skip the interpreter's teardown: the ONNX runtime's worker threads can abort it
    # ("terminate called without an active exception") after everything above is done.
    os._exit(1 if slow else 0)


if __name__ == "__main__":
    main()
