"""Run the tests that depend on timing many times, with every core kept busy, and report each
test that failed at least once.

The tests marked ``live`` (pyproject.toml) start servers, processes, browsers or threads, or
wait on time: those are the ones a loaded machine can break by chance. Each run is one pytest
session over them; beside it, one busy process per core spins for the whole time. A test that
fails in any run is printed with how often and its first failure's message.

    .venv/bin/python scripts/repeat_live.py --runs 20
    .venv/bin/python scripts/repeat_live.py --runs 1                # as CI runs it
    .venv/bin/python scripts/repeat_live.py --runs 20 --budget 3600  # no run started after 1 h

Exit status 0 when every run passed, 1 when a test failed, 2 when a run could not start.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def spin(stop: multiprocessing.synchronize.Event) -> None:
    """Keep one core busy until told to stop."""
    n = 0
    while not stop.is_set():
        for _ in range(100_000):
            n = (n * 31 + 7) % 1_000_003


def outcomes(junit: Path) -> dict[str, str | None]:
    """Each test of a pytest JUnit report: None when it passed, else its first message line."""
    found: dict[str, str | None] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        if bad is None:
            found[name] = None
        else:
            lines = (bad.get("message") or bad.text or "failed").strip().splitlines()
            found[name] = lines[0][:200] if lines else "failed"
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="pytest sessions (default 20)")
    parser.add_argument(
        "--load", type=int, default=os.cpu_count() or 2, help="busy processes (default: cores)"
    )
    parser.add_argument(
        "--budget", type=float, default=0, help="start no run after this many seconds (0: none)"
    )
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.load < 0:
        parser.error("--runs must be at least 1 and --load at least 0")

    env = {**os.environ, "TURNGRAPH_TEST_POSTGRES": "required"}
    stop = multiprocessing.Event()
    load = [multiprocessing.Process(target=spin, args=(stop,)) for _ in range(args.load)]
    for p in load:
        p.start()
    failed: Counter[str] = Counter()
    first: dict[str, str] = {}
    tests: set[str] = set()
    started = time.monotonic()
    done = 0
    try:
        with tempfile.TemporaryDirectory(prefix="turngraph-repeat-") as tmp:
            for run in range(1, args.runs + 1):
                if args.budget and time.monotonic() - started > args.budget:
                    break
                junit = Path(tmp) / f"run-{run}.xml"
                command = [sys.executable, "-m", "pytest", "-m", "live", "-q", "-p"]
                command += ["no:cacheprovider", f"--junitxml={junit}", *args.pytest_args]
                began = time.monotonic()
                proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
                if not junit.exists():
                    print(f"run {run}: pytest exited {proc.returncode} without a report")
                    print(proc.stdout[-4000:], proc.stderr[-4000:], sep="\n")
                    return 2
                results = outcomes(junit)
                tests.update(results)
                bad = {name: msg for name, msg in results.items() if msg is not None}
                for name, msg in bad.items():
                    failed[name] += 1
                    first.setdefault(name, msg)
                done += 1
                took = time.monotonic() - began
                print(
                    f"run {run}: {len(results)} tests, {len(bad)} failed, {took:.0f} s", flush=True
                )
                for name in bad:
                    print(f"  FAILED {name}", flush=True)
                if bad:  # the whole output of a failing run: the failure's own report
                    print(proc.stdout[-12000:], flush=True)
    finally:
        stop.set()
        for p in load:
            p.join()

    total = time.monotonic() - started
    print()
    print(f"{done} runs of {len(tests)} live tests with {args.load} busy processes, {total:.0f} s")
    print()
    print("| test | failed runs | first failure |")
    print("|---|---:|---|")
    for name, count in failed.most_common():
        print(f"| {name} | {count} of {done} | {first[name]} |")
    if not failed:
        print(f"| (every test) | 0 of {done} | |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
