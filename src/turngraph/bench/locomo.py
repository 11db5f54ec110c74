"""Evidence recall@k on LoCoMo conversations (``turngraph bench locomo FILE...``).

Each conversation is ingested into its own memory through ``remember_many``: one session per
LoCoMo session, each turn stamped with its session's date and spoken by its speaker, a shared
photo's caption appended to the turn's text. Every question of categories 1-4 is asked of
``recall``; a hit maps back to its turn, and so to its ``dia_id``, through provenance. Nothing
here reads the questions, answers or evidence before the ingest is complete, and nothing is
tuned per conversation. Two baselines run over the same turns in the same process: plain BM25
(bm25s) and dense-only recall with the memory's embedder.
"""

from __future__ import annotations

import json
import re
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import turngraph
from turngraph.errors import TurngraphError
from turngraph.recall.index import wait_for_index
from turngraph.recall.stages import STAGES, stage_times

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def _quantiles(values: Sequence[float]) -> tuple[float, float]:
    """p50 and p95 of ``values`` (0 for none)."""
    lat = sorted(values)
    if len(lat) < 2:
        return (lat[0], lat[0]) if lat else (0.0, 0.0)
    q = statistics.quantiles(lat, n=100)
    return q[49], q[94]


@dataclass
class Scores:
    recalls: dict[int, list[float]] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)

    def add(self, ranked: Sequence[str], evidence: set[str], ks: Sequence[int], ms: float) -> None:
        for k in ks:
            found = len(evidence & set(ranked[:k]))
            self.recalls.setdefault(k, []).append(found / len(evidence))
        self.latencies.append(ms)

    def summary(self) -> dict[str, Any]:
        p50, p95 = _quantiles(self.latencies)
        return {
            "n": len(self.latencies),
            "recall": {str(k): round(statistics.fmean(v), 4) for k, v in self.recalls.items()},
            "latency_ms": {"p50": round(p50, 3), "p95": round(p95, 3)},
        }


@dataclass
class Split:
    """Milliseconds per stage of each hybrid recall (query embedding, searches, assembly)."""

    stages: dict[str, list[float]] = field(default_factory=lambda: {s: [] for s in STAGES})
    # Each recall's whole time, and its own part: every stage but the wait for the model.
    whole: list[float] = field(default_factory=list)
    own: list[float] = field(default_factory=list)

    def add(self, seconds: dict[str, float], whole_ms: float) -> None:
        for stage in STAGES:
            self.stages[stage].append(seconds.get(stage, 0.0) * 1000)
        waited = ("embed wait", "embedding")
        self.own.append(sum(v for k, v in seconds.items() if k not in waited) * 1000)
        self.whole.append(whole_ms)

    def summary(self) -> dict[str, dict[str, float]]:
        out = {}
        for stage, values in [*self.stages.items(), ("own part", self.own)]:
            p50, p95 = _quantiles(values)
            mean = statistics.fmean(values) if values else 0.0
            out[stage] = {"mean": round(mean, 3), "p50": round(p50, 3), "p95": round(p95, 3)}
        return out

    def ratio(self) -> float:
        """Recall p95 over the query embedding's own p95, in the same run."""
        model = _quantiles(self.stages["embedding"])[1]
        return round(_quantiles(self.whole)[1] / model, 3) if model else 0.0


def _session_time(text: str) -> datetime:
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def _turn_text(turn: dict[str, Any]) -> str:
    caption = turn.get("blip_caption")
    return f"{turn['text']} [shares a photo: {caption}]" if caption else str(turn["text"])


def _sessions(conv: dict[str, Any]) -> list[tuple[datetime, list[dict[str, Any]]]]:
    out = []
    for key, turns in conv.items():
        m = re.fullmatch(r"session_(\d+)", key)
        if m and isinstance(turns, list) and turns:
            out.append(
                (int(m.group(1)), _session_time(conv[f"session_{m.group(1)}_date_time"]), turns)
            )
    return [(when, turns) for _, when, turns in sorted(out, key=lambda s: s[0])]


def _evidence(qa: dict[str, Any]) -> set[str]:
    ids: set[str] = set()
    for item in qa.get("evidence", []):
        ids.update(re.findall(r"D\d+:\d+", str(item)))
    return ids


def run(
    paths: Sequence[Path],
    ks: Sequence[int],
    *,
    log: Callable[[str], None],
    db_url: str | None = None,
) -> dict[str, Any]:
    import bm25s  # a dev dependency: the baseline only

    kmax = max(ks)
    ours, per_cat = Scores(), {name: Scores() for name in CATEGORIES.values()}
    base_bm25, base_dense = Scores(), Scores()
    split = Split()
    ingest = {"turns": 0, "seconds": 0.0, "cpu_seconds": 0.0}
    with tempfile.TemporaryDirectory() as tmp:
        db = turngraph.open(db_url or Path(tmp) / "locomo.db")
        for path in paths:
            data = json.loads(path.read_text("utf-8"))
            conv = data.get("conversation", data)
            mem = db.create_memory(re.sub(r"[^A-Za-z0-9_.-]", "-", path.stem))
            dia_of: dict[str, str] = {}
            texts: list[str] = []
            dias: list[str] = []
            started, cpu = time.perf_counter(), time.process_time()
            for when, turns in _sessions(conv):
                batch = [
                    {
                        "role": "user",
                        "content": _turn_text(t),
                        "speaker": t["speaker"],
                        "ts": (when + timedelta(seconds=i)).isoformat(),
                    }
                    for i, t in enumerate(turns)
                ]
                result = mem.remember_many(batch)
                for turn, turn_id in zip(turns, result.turn_ids, strict=True):
                    dia_of[turn_id] = turn["dia_id"]
                    texts.append(f"{turn['speaker']}: {_turn_text(turn)}")
                    dias.append(turn["dia_id"])
            # A write embeds one batch itself and leaves the rest to the background indexer:
            # recall is measured once every turn has its vectors.
            if not wait_for_index(db.store, timeout=1800):
                raise TurngraphError(f"{path.name}: the index did not catch up in 30 minutes")
            took, cpu = time.perf_counter() - started, time.process_time() - cpu
            ingest["turns"] += len(dias)
            ingest["seconds"] += took
            ingest["cpu_seconds"] += cpu
            log(f"{path.name}: ingested {len(dias)} turns in {took:.1f}s ({cpu:.1f}s of CPU)")
            retriever = bm25s.BM25()
            retriever.index(
                bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False
            )
            for qa in data.get("qa", []):
                category = CATEGORIES.get(qa.get("category", 0))
                evidence = _evidence(qa)
                if category is None or not evidence:
                    continue
                question = str(qa["question"])
                for scores, mode in ((ours, "hybrid"), (base_dense, "dense")):
                    with stage_times() as stages:
                        began = time.perf_counter()
                        rc = mem.recall(question, k=kmax, mode=mode, include=("passages",))
                        ms = (time.perf_counter() - began) * 1000
                    if mode == "hybrid":
                        split.add(stages, ms)
                    ranked = _dedupe(dia_of.get(h.source.turn_id or "", "") for h in rc.hits)
                    scores.add(ranked, evidence, ks, ms)
                    if mode == "hybrid":
                        per_cat[category].add(ranked, evidence, ks, ms)
                began = time.perf_counter()
                docs, _ = retriever.retrieve(
                    bm25s.tokenize([question], stopwords="en", show_progress=False),
                    k=min(kmax, len(texts)),
                    show_progress=False,
                )
                ms = (time.perf_counter() - began) * 1000
                base_bm25.add([dias[int(i)] for i in docs[0]], evidence, ks, ms)
        db.close()
    return {
        "overall": ours.summary(),
        "categories": {name: s.summary() for name, s in per_cat.items()},
        "baselines": {"bm25": base_bm25.summary(), "dense": base_dense.summary()},
        "stages_ms": split.summary(),
        "recall_over_embedding_p95": split.ratio(),
        "ingest": {
            **ingest,
            "turns_per_s": round(ingest["turns"] / max(ingest["seconds"], 1e-9), 1),
            "turns_per_cpu_s": round(ingest["turns"] / max(ingest["cpu_seconds"], 1e-9), 1),
        },
    }


def _dedupe(items: Any) -> list[str]:
    out: list[str] = []
    for item in items:
        if item and item not in out:
            out.append(item)
    return out


def render(report: dict[str, Any], ks: Sequence[int]) -> str:
    head = "| pipeline | n | " + " | ".join(f"R@{k}" for k in ks) + " | p50 ms | p95 ms |"
    lines = [head, "|" + "---|" * (len(ks) + 4)]

    def row(name: str, s: dict[str, Any]) -> str:
        cells = " | ".join(f"{s['recall'].get(str(k), 0):.3f}" for k in ks)
        return (
            f"| {name} | {s['n']} | {cells} | {s['latency_ms']['p50']:.2f} | "
            f"{s['latency_ms']['p95']:.2f} |"
        )

    lines.append(row("turngraph hybrid", report["overall"]))
    for name, s in report["categories"].items():
        lines.append(row(f"  {name}", s))
    lines.append(row("baseline bm25 (bm25s)", report["baselines"]["bm25"]))
    lines.append(row("baseline dense only", report["baselines"]["dense"]))
    lines += ["", "turngraph hybrid, ms per query by stage:", "| stage | mean | p50 | p95 |"]
    lines.append("|---|---|---|---|")
    for stage, s in report.get("stages_ms", {}).items():
        lines.append(f"| {stage} | {s['mean']:.2f} | {s['p50']:.2f} | {s['p95']:.2f} |")
    if report.get("recall_over_embedding_p95"):
        lines += [
            "",
            "(own part: every stage but the wait for the query embedding; embedding: the "
            "model's own time, beside the text searches)",
            "recall p95 / query embedding p95, same run: "
            f"{report['recall_over_embedding_p95']:.2f}",
        ]
    if "ingest" in report:
        i = report["ingest"]
        lines += [
            "",
            f"ingest (remember_many, embedding and index queue included): {i['turns']} turns, "
            f"{i['turns_per_s']} turns/s, {i['turns_per_cpu_s']} turns per CPU second",
        ]
    return "\n".join(lines)
