"""Recall latency and ingest rate as a memory grows (embedded SQLite, or a throwaway
PostgreSQL with --postgres; default embedder).

    .venv/bin/python benchmarks/scale.py [--sizes 10000,100000] [--queries 200] [--postgres]
        [--db FILE or postgresql://...] [--turns] [--as-is]

Builds one memory per size from generated work notes: people, organizations and projects
drawn from fixed pools, sentences from templates with varied topics, each observation naming
two or three entities and a relationship. Measures the ingest rate (add_observation, vectors
included) and then recall p50/p95 over generated questions, so cost growth shows per size,
with the mean time of each stage of a recall. ``--as-is`` measures recall on the memory
``--db`` holds as it is (a build stopped part way, or a copy of one; rows it left queued
are embedded first).
"""

from __future__ import annotations

import argparse
import platform
import random
import resource
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import turngraph
from turngraph.config import Settings
from turngraph.recall.index import refresh_vectors, wait_for_index
from turngraph.recall.stages import STAGES, stage_times

sys.path.insert(0, str(Path(__file__).parent))
from throwaway_postgres import throwaway_postgres

FIRST = [
    "Ana",
    "Ben",
    "Chen",
    "Dara",
    "Eli",
    "Fatima",
    "Gus",
    "Hana",
    "Ivan",
    "Jade",
    "Kofi",
    "Lena",
    "Mateo",
    "Nia",
    "Omar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sven",
    "Tara",
    "Uma",
    "Vik",
    "Wen",
    "Xavi",
    "Yara",
    "Zane",
]
LAST = [
    "Silva",
    "Okafor",
    "Novak",
    "Tanaka",
    "Meyer",
    "Haddad",
    "Kowalski",
    "Larsen",
    "Moreau",
    "Nguyen",
    "Ortiz",
    "Petrov",
    "Quint",
    "Rossi",
    "Sato",
    "Turner",
    "Ueda",
    "Varga",
]
ORGS = [
    "Acme",
    "Globex",
    "Initech",
    "Umbrella",
    "Hooli",
    "Vandelay",
    "Stark",
    "Wayne",
    "Wonka",
    "Tyrell",
    "Cyberdyne",
    "Soylent",
    "Aperture",
    "Massive",
    "Gringotts",
    "Oscorp",
]
SUFFIX = ["Corp", "Labs", "Group", "Systems", "Health", "Logistics", "Foods", "Energy"]
PROJECTS = [
    "Falcon",
    "Harbor",
    "Nimbus",
    "Quartz",
    "Atlas",
    "Beacon",
    "Cobalt",
    "Delta",
    "Ember",
    "Fjord",
    "Granite",
    "Helix",
    "Iris",
    "Juniper",
    "Kestrel",
    "Lumen",
]
TOPICS = [
    "billing migration",
    "data retention policy",
    "onboarding flow",
    "latency budget",
    "security review",
    "quarterly planning",
    "vendor contract",
    "hiring plan",
    "incident postmortem",
    "pricing change",
    "mobile release",
    "search relevance",
    "customer escalation",
    "API deprecation",
    "cost reduction",
    "accessibility audit",
]
TEMPLATES = [
    "{p} met {q} from {o} about the {t}; they agreed to ship {j} before the end of the month.",
    "During the {t} sync, {p} raised a risk for {j}: {o} needs a signed contract first.",
    "{q} reported that {j} is blocked on the {t}, and {p} will follow up with {o} on Friday.",
    "{o} asked {p} for a demo of {j}; the {t} came up twice and {q} took notes.",
    "Notes from the {t}: {p} owns {j}, {q} reviews it, {o} is the first customer.",
]


def generate(rng: random.Random, n: int) -> list[dict[str, object]]:
    people = [f"{f} {s}" for f in FIRST for s in LAST]
    orgs = [f"{o} {s}" for o in ORGS for s in SUFFIX]
    projects = [f"Project {p} {i}" for p in PROJECTS for i in range(1, 9)]
    out = []
    for i in range(n):
        p, q = rng.sample(people, 2)
        o, j, t = rng.choice(orgs), rng.choice(projects), rng.choice(TOPICS)
        out.append(
            {
                "title": f"{t.capitalize()} note {i}",
                "content": rng.choice(TEMPLATES).format(p=p, q=q, o=o, j=j, t=t),
                "category": rng.choice(["meeting", "call", "note"]),
                "entities": [
                    {"name": p, "type": "person", "description": f"{p}, works with {o}"},
                    {"name": o, "type": "organization", "description": f"{o}, a customer"},
                    {"name": j, "type": "project", "description": f"{j}, a delivery project"},
                ],
                "relationships": [{"source": p, "type": "works_on", "target": j}],
            }
        )
    return out


SESSION_TURNS = 50  # turns per generated conversation session (one remember_many each)


def conversation(rng: random.Random, n: int) -> list[dict[str, object]]:
    """One session of ``n`` generated turns between two people, about one project."""
    people = [f"{f} {s}" for f in FIRST for s in LAST]
    orgs = [f"{o} {s}" for o in ORGS for s in SUFFIX]
    projects = [f"Project {p} {i}" for p in PROJECTS for i in range(1, 9)]
    a, b = rng.sample(people, 2)
    j = rng.choice(projects)
    turns = []
    for i in range(n):
        p, q = (a, b) if i % 2 == 0 else (b, a)
        text = rng.choice(TEMPLATES).format(p=p, q=q, o=rng.choice(orgs), j=j, t=rng.choice(TOPICS))
        turns.append({"role": "user", "speaker": p.split()[0], "content": text})
    return turns


def build_turns(db: turngraph.Database, name: str, size: int) -> float:
    """The bulk path: sessions of generated turns through ``remember_many`` (extraction and
    the write), each followed by embedding what it queued in batches on both embedder
    threads (on two cores that beats extracting on one while the background indexer embeds
    on the other).

    Resumable: a memory already holding turns continues where it stopped (the generator is
    seeded by size, so the sessions are the same), and rows queued when a run was cut are
    embedded when the database opens again. Returns turns per second for what this run
    wrote (NaN if nothing was left to write)."""
    mem = db.memory(name) if name in {m.name for m in db.list_memories()} else None
    if mem is None:
        mem = db.create_memory(name)
    done = mem.info().observations  # every observation here is a turn
    rng = random.Random(size)
    sessions = [SESSION_TURNS] * (size // SESSION_TURNS)
    began, wrote = time.perf_counter(), 0
    for i, n in enumerate(sessions):
        turns = conversation(rng, n)
        if (i + 1) * SESSION_TURNS <= done:
            continue  # written by an earlier run
        mem.remember_many(turns)
        wrote += n
        # The rest of the session's rows, on both embedder threads (the background indexer,
        # one thread, returns at once while this drains).
        refresh_vectors(db.store, mem._id, mem.embedder)
        if i % 20 == 0:
            print(
                f"  {done + wrote:,} turns, {wrote / (time.perf_counter() - began):.0f}/s",
                flush=True,
            )
    wait_for_index(db.store, timeout=24 * 3600)
    return wrote / (time.perf_counter() - began) if wrote else float("nan")


def build_notes(db: turngraph.Database, name: str, size: int) -> float:
    """Generated notes one by one through ``add_observation``, embedded by the background
    indexer as the server embeds them (``index_in_background``), so writing and embedding
    share the two cores. Resumable like :func:`build_turns`: a memory already holding notes
    continues after them (the generator is seeded by size). Returns notes per second for what
    this run wrote, every vector included (NaN if nothing was left to write)."""
    mem = db.memory(name) if name in {m.name for m in db.list_memories()} else None
    if mem is None:
        mem = db.create_memory(name)
    done = mem.info().observations
    began = time.perf_counter()
    notes = generate(random.Random(size), size)[done:]
    for i, note in enumerate(notes):
        mem.add_observation(**note)  # type: ignore[arg-type]
        if i % 5000 == 4999:
            rate = (i + 1) / (time.perf_counter() - began)
            print(f"  {done + i + 1:,} notes, {rate:.0f}/s", flush=True)
    wait_for_index(db.store, timeout=24 * 3600)
    return len(notes) / (time.perf_counter() - began) if notes else float("nan")


def questions(rng: random.Random, n: int) -> list[str]:
    shapes = [
        "What did {p} say about the {t}?",
        "Who works on {j}?",
        "What is blocking {j}?",
        "When did {o} ask for a demo?",
        "What risks came up in the {t}?",
    ]
    people = [f"{f} {s}" for f in FIRST for s in LAST]
    orgs = [f"{o} {s}" for o in ORGS for s in SUFFIX]
    projects = [f"Project {p} {i}" for p in PROJECTS for i in range(1, 9)]
    return [
        rng.choice(shapes).format(
            p=rng.choice(people), t=rng.choice(TOPICS), j=rng.choice(projects), o=rng.choice(orgs)
        )
        for _ in range(n)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--turns",
        action="store_true",
        help="build conversation turns through the bulk path (remember_many, background "
        "embedding, resumable with --db) instead of observations one by one",
    )
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL")
    parser.add_argument(
        "--as-is",
        action="store_true",
        help="measure recall on the memory --db holds as it is (a partial build; only the "
        "rows it left queued are embedded)",
    )
    parser.add_argument(
        "--db",
        help="keep the generated memories in this SQLite file or PostgreSQL database "
        "(postgresql://...) and reuse them on the next run (ingest is then measured only "
        "when a size is built)",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        settings = Settings(index_in_background=True)  # as the server runs
        where: str | Path = args.db or Path(tmp) / "scale.db"
        if args.db and not args.db.startswith("postgresql://"):
            where = Path(args.db)
        if args.postgres:
            where = stack.enter_context(throwaway_postgres(Path(tmp)))
        db = turngraph.open(where, settings=settings)
        for size in sizes:
            ingest = float("nan")
            if args.as_is:
                mem = db.memory(f"turns-{size}" if args.turns else f"scale-{size}")
                wait_for_index(db.store, timeout=24 * 3600)  # rows a stopped build queued
                print(f"as it is: {mem.info().observations:,} observations", flush=True)
            elif args.turns:
                began = time.perf_counter()
                ingest = build_turns(db, f"turns-{size}", size)
                print(f"built in {time.perf_counter() - began:.0f} s", flush=True)
                mem = db.memory(f"turns-{size}")
            else:
                ingest = build_notes(db, f"scale-{size}", size)
                mem = db.memory(f"scale-{size}")
            qs = questions(random.Random(-size), args.queries)
            began = time.perf_counter()
            mem.recall(qs[0])  # loads the vector matrices once
            print(f"first recall (loads the vectors): {time.perf_counter() - began:.1f} s")
            lat = []
            with stage_times() as stages:
                for q in qs:
                    t0 = time.perf_counter()
                    mem.recall(q, k=10)
                    lat.append((time.perf_counter() - t0) * 1000)
            cuts = statistics.quantiles(lat, n=100)
            held = mem.info().observations if args.as_is else size
            rows.append((held, ingest, cuts[49], cuts[94]))
            split = ", ".join(f"{s} {stages.get(s, 0.0) / len(qs) * 1000:.1f}" for s in STAGES)
            print(
                f"{size}: ingest {ingest:.0f}/s, recall p50 {cuts[49]:.1f} ms, "
                f"p95 {cuts[94]:.1f} ms; mean ms by stage: {split}",
                flush=True,
            )
        if isinstance(where, str):
            import psycopg

            with psycopg.connect(where) as conn:
                found = conn.execute("SELECT pg_database_size(current_database())").fetchone()
            print(f"database: {(found[0] if found else 0) / 2**20:,.0f} MiB")
        db.close()
        if isinstance(where, Path) and args.db:
            print(f"database: {where.stat().st_size / 2**20:,.0f} MiB")
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS of this process: {rss:,.0f} MiB")
    print(
        f"\nmachine: {platform.machine()}, {platform.system()}, Python "
        f"{platform.python_version()}\n"
    )
    print("| observations | ingest (obs/s) | recall p50 (ms) | recall p95 (ms) |")
    print("|---:|---:|---:|---:|")
    for size, ingest, p50, p95 in rows:
        print(f"| {size:,} | {ingest:.0f} | {p50:.1f} | {p95:.1f} |")


if __name__ == "__main__":
    main()
