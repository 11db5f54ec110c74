"""turngraph beside Chroma, Mem0 and a bm25s + MiniLM fusion, on the same LoCoMo turns.

    python3 -m venv .venv-peers && .venv-peers/bin/pip install -e '.[peers]'
    .venv-peers/bin/python benchmarks/peers.py FOLDER_OR_FILES... [--systems ...] [--json OUT]

Every system gets the same turns ("speaker: text", a shared photo's caption appended, as
`turngraph bench locomo` writes them) and embeds with the same model: the int8 ONNX export of
all-MiniLM-L6-v2 that turngraph ships (`turngraph.recall.embed.OnnxEmbedder`), handed to each
peer as its embedding function, so nothing is downloaded and only the systems differ.

- turngraph: `remember_many` per LoCoMo session (the rule extractor included), then the
  background indexer drained; `recall(question, k=20)`.
- Chroma: one collection per conversation (its local persistent client, in a temporary
  folder; cosine space), turns added in batches of 64 with their embeddings computed by the
  shared model; `query(n_results=20)`.
- Mem0 (open-source `Memory`, no language model: `add(..., infer=False)` stores each turn as
  it is) on its default local vector store (Qdrant, on disk in a temporary folder), with the
  shared model as its embedder; `search(limit=20)`.
- bm25s + MiniLM: BM25 (bm25s, English stop words) and dense cosine (numpy) over the turns,
  fused by reciprocal rank (k=60) over each one's best 100.

Ingest is timed per conversation with embedding included (wall and CPU seconds per turn).
Questions (categories 1-4, as in `bench locomo`) are asked of every system in turn, the order
rotating with each question, so that the machine's state weighs on all alike; latency is
wall time per query with the query embedding included. R@10 is the share of a question's
evidence turns among the first 10 distinct turns returned.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

import turngraph
from turngraph.recall.embed import OnnxEmbedder
from turngraph.recall.index import wait_for_index

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
K = 20
SYSTEMS = ("turngraph", "chroma", "mem0", "bm25s+minilm")


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str  # as the turn was said (caption appended)
    when: datetime

    @property
    def line(self) -> str:
        return f"{self.speaker}: {self.text}"


@dataclass
class Tally:
    r10: list[float] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)
    ingest_s: float = 0.0
    ingest_cpu_s: float = 0.0
    turns: int = 0


def load(path: Path) -> tuple[list[list[Turn]], list[dict[str, Any]]]:
    data = json.loads(path.read_text("utf-8"))
    conv = data.get("conversation", data)
    sessions = []
    for key, turns in conv.items():
        m = re.fullmatch(r"session_(\d+)", key)
        if m and isinstance(turns, list) and turns:
            when = datetime.strptime(
                conv[f"session_{m.group(1)}_date_time"].strip(), "%I:%M %p on %d %B, %Y"
            ).replace(tzinfo=UTC)
            sessions.append(
                (
                    int(m.group(1)),
                    [
                        Turn(
                            t["dia_id"],
                            t["speaker"],
                            f"{t['text']} [shares a photo: {t['blip_caption']}]"
                            if t.get("blip_caption")
                            else str(t["text"]),
                            when + timedelta(seconds=i),
                        )
                        for i, t in enumerate(turns)
                    ],
                )
            )
    questions = []
    for qa in data.get("qa", []):
        evidence = set()
        for item in qa.get("evidence", []):
            evidence.update(re.findall(r"D\d+:\d+", str(item)))
        if qa.get("category") in CATEGORIES and evidence:
            questions.append({"question": str(qa["question"]), "evidence": evidence})
    return [s for _, s in sorted(sessions, key=lambda s: s[0])], questions


# -- the systems ---------------------------------------------------------------------------
# Each is built for one conversation: ingest(sessions) then ask(question) -> dia_ids, best first.


class Turngraph:
    def __init__(self, tmp: Path, name: str) -> None:
        self.db = turngraph.open(tmp / "turngraph.db")
        self.mem = self.db.create_memory(name)
        self.dia: dict[str, str] = {}

    def ingest(self, sessions: list[list[Turn]]) -> None:
        for turns in sessions:
            result = self.mem.remember_many(
                [
                    {
                        "role": "user",
                        "content": t.text,
                        "speaker": t.speaker,
                        "ts": t.when.isoformat(),
                    }
                    for t in turns
                ]
            )
            self.dia.update(zip(result.turn_ids, (t.dia_id for t in turns), strict=True))
        if not wait_for_index(self.db.store, timeout=3600):
            raise RuntimeError("turngraph's index did not catch up")

    def ask(self, question: str) -> list[str]:
        rc = self.mem.recall(question, k=K, include=("passages",))
        return [self.dia.get(h.source.turn_id or "", "") for h in rc.hits]

    def close(self) -> None:
        self.db.close()


class Chroma:
    def __init__(self, tmp: Path, name: str, model: OnnxEmbedder) -> None:
        import chromadb
        from chromadb.config import Settings

        self.model = model
        self.client = chromadb.PersistentClient(
            str(tmp / "chroma"), Settings(anonymized_telemetry=False)
        )
        self.col = self.client.create_collection(
            name, embedding_function=None, metadata={"hnsw:space": "cosine"}
        )

    def ingest(self, sessions: list[list[Turn]]) -> None:
        turns = [t for s in sessions for t in s]
        for i in range(0, len(turns), 64):
            batch = turns[i : i + 64]
            self.col.add(
                ids=[t.dia_id for t in batch],
                documents=[t.line for t in batch],
                embeddings=self.model.embed([t.line for t in batch]),
            )

    def ask(self, question: str) -> list[str]:
        vec = self.model.single_threaded().embed([question])
        found = self.col.query(query_embeddings=vec, n_results=K)
        return list(found["ids"][0])

    def close(self) -> None:
        self.client.delete_collection(self.col.name)


class _Mem0Embedder:
    """Mem0's embedder interface over the shared model."""

    def __init__(self, model: OnnxEmbedder) -> None:
        self.model = model

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        return [float(x) for x in self.model.single_threaded().embed([text])[0]]


class Mem0:
    def __init__(self, tmp: Path, name: str, model: OnnxEmbedder) -> None:
        os.environ.setdefault("OPENAI_API_KEY", "unused")  # the LLM is never called
        os.environ.setdefault("MEM0_TELEMETRY", "False")
        from mem0 import Memory

        self.memory = Memory.from_config(
            {
                "vector_store": {
                    "provider": "qdrant",
                    "config": {
                        "collection_name": name.replace("-", "_"),
                        "path": str(tmp / "qdrant"),
                        "embedding_model_dims": model.dimension,
                        "on_disk": True,
                    },
                },
                "history_db_path": str(tmp / "mem0-history.db"),
            }
        )
        self.memory.embedding_model = _Mem0Embedder(model)
        self.user = name

    def ingest(self, sessions: list[list[Turn]]) -> None:
        for turns in sessions:
            for t in turns:
                self.memory.add(
                    [{"role": "user", "content": t.line}],
                    user_id=self.user,
                    infer=False,
                    metadata={"dia_id": t.dia_id},
                )

    def ask(self, question: str) -> list[str]:
        found = self.memory.search(question, top_k=K, filters={"user_id": self.user}, threshold=0.0)
        rows = found["results"] if isinstance(found, dict) else found
        return [str((r.get("metadata") or {}).get("dia_id", "")) for r in rows]

    def close(self) -> None:
        client = getattr(self.memory.vector_store, "client", None)
        if client is not None and hasattr(client, "close"):
            client.close()


class Fusion:
    """BM25 (bm25s) and dense cosine, fused by reciprocal rank."""

    POOL = 100
    RRF = 60

    def __init__(self, tmp: Path, name: str, model: OnnxEmbedder) -> None:
        self.model = model

    def ingest(self, sessions: list[list[Turn]]) -> None:
        import bm25s

        self.turns = [t for s in sessions for t in s]
        lines = [t.line for t in self.turns]
        self.bm25 = bm25s.BM25()
        self.bm25.index(
            bm25s.tokenize(lines, stopwords="en", show_progress=False), show_progress=False
        )
        self.vectors = self.model.embed(lines)

    def ask(self, question: str) -> list[str]:
        import bm25s

        n = min(self.POOL, len(self.turns))
        docs, _ = self.bm25.retrieve(
            bm25s.tokenize([question], stopwords="en", show_progress=False),
            k=n,
            show_progress=False,
        )
        qvec = self.model.single_threaded().embed([question])[0]
        sims = np.einsum("ij,j->i", self.vectors, qvec)
        dense = np.argpartition(-sims, n - 1)[:n]
        dense = dense[np.argsort(-sims[dense])]
        score: dict[int, float] = {}
        for ranking in (docs[0], dense):
            for rank, i in enumerate(ranking):
                score[int(i)] = score.get(int(i), 0.0) + 1.0 / (self.RRF + rank + 1)
        best = sorted(score, key=lambda i: -score[i])[:K]
        return [self.turns[i].dia_id for i in best]

    def close(self) -> None:
        pass


def build(system: str, tmp: Path, name: str, model: OnnxEmbedder) -> Any:
    if system == "turngraph":
        return Turngraph(tmp, name)
    if system == "chroma":
        return Chroma(tmp, name, model)
    if system == "mem0":
        return Mem0(tmp, name, model)
    return Fusion(tmp, name, model)


# -- the run -------------------------------------------------------------------------------


def recall_at(ranked: Sequence[str], evidence: set[str], k: int = 10) -> float:
    seen: list[str] = []
    for dia in ranked:
        if dia and dia not in seen:
            seen.append(dia)
    return len(evidence & set(seen[:k])) / len(evidence)


def quantiles(values: Sequence[float]) -> tuple[float, float]:
    q = statistics.quantiles(sorted(values), n=100)
    return q[49], q[94]


def run(
    paths: Sequence[Path], systems: Sequence[str], log: Callable[[str], None]
) -> dict[str, Any]:
    model = OnnxEmbedder()
    model.single_threaded().embed(["warm up"])
    tally = {s: Tally() for s in systems}
    asked = 0
    for path in paths:
        sessions, questions = load(path)
        n_turns = sum(len(s) for s in sessions)
        name = re.sub(r"[^A-Za-z0-9_-]", "-", path.stem)
        with tempfile.TemporaryDirectory() as folder:
            built = {}
            for system in systems:
                tmp = Path(folder) / system
                tmp.mkdir()
                began, cpu = time.perf_counter(), time.process_time()
                built[system] = build(system, tmp, name, model)
                built[system].ingest(sessions)
                took, cpu = time.perf_counter() - began, time.process_time() - cpu
                tally[system].ingest_s += took
                tally[system].ingest_cpu_s += cpu
                tally[system].turns += n_turns
                log(f"{path.name} {system}: {n_turns} turns in {took:.1f} s ({cpu:.1f} s CPU)")
            for qa in questions:
                order = systems[asked % len(systems) :] + systems[: asked % len(systems)]
                asked += 1
                for system in order:
                    began = time.perf_counter()
                    ranked = built[system].ask(qa["question"])
                    tally[system].ms.append((time.perf_counter() - began) * 1000)
                    tally[system].r10.append(recall_at(ranked, qa["evidence"]))
            for system in systems:
                built[system].close()
    out: dict[str, Any] = {}
    for system, t in tally.items():
        p50, p95 = quantiles(t.ms)
        out[system] = {
            "questions": len(t.r10),
            "r10": round(statistics.fmean(t.r10), 4),
            "p50_ms": round(p50, 2),
            "p95_ms": round(p95, 2),
            "turns": t.turns,
            "ingest_ms_per_turn": round(t.ingest_s / t.turns * 1000, 2),
            "ingest_cpu_ms_per_turn": round(t.ingest_cpu_s / t.turns * 1000, 2),
        }
    return out


def render(report: dict[str, Any]) -> str:
    base = report.get("turngraph")
    lines = [
        "| system | R@10 | p50 ms | p95 ms | ingest ms/turn (CPU) | R@10 / turngraph | "
        "p50 / turngraph | p95 / turngraph | ingest / turngraph |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for system, r in report.items():
        ratios = ["", "", "", ""]
        if base:
            ratios = [
                f"{r['r10'] / base['r10']:.2f}",
                f"{r['p50_ms'] / base['p50_ms']:.1f}x",
                f"{r['p95_ms'] / base['p95_ms']:.1f}x",
                f"{r['ingest_ms_per_turn'] / base['ingest_ms_per_turn']:.1f}x",
            ]
        lines.append(
            f"| {system} | {r['r10']:.3f} | {r['p50_ms']:.2f} | {r['p95_ms']:.2f} | "
            f"{r['ingest_ms_per_turn']:.2f} ({r['ingest_cpu_ms_per_turn']:.2f}) | "
            + " | ".join(ratios)
            + " |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="LoCoMo conversation files or folders")
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    paths: list[Path] = []
    for p in map(Path, args.paths):
        paths += sorted(p.glob("*.json")) if p.is_dir() else [p]
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = set(systems) - set(SYSTEMS)
    if unknown or not paths:
        parser.error(f"unknown systems {sorted(unknown)}" if unknown else "no LoCoMo files")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()}, "
        f"Python {platform.python_version()}; load average before: "
        f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}; files: "
        f"{', '.join(p.name for p in paths)}",
        flush=True,
    )
    report = run(paths, systems, log=lambda line: print(line, file=sys.stderr, flush=True))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    print(render(report))
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
