"""Crash test at length: SIGKILL a real server and a real embedded writer many times.

    PYTHONPATH=src python benchmarks/crash.py --kills 20 [--seed 7] [--max-seconds 2]

Prints, per writer, the kills, the acknowledged writes, how many of them were found after
the last kill, and what `turngraph check` found. Exits 1 if any acknowledged write is lost
or the check finds a problem.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from turngraph.bench.crash import kill_embedded, kill_servers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=20, help="kills per writer")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-seconds", type=float, default=2.0, help="longest run per kill")
    args = parser.parse_args()
    print("| writer | kills | acknowledged writes | found after the kills | lost | check | s |")
    print("|---|---:|---:|---:|---:|---|---:|")
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for name, run in (("server", kill_servers), ("embedded", kill_embedded)):
            start = time.monotonic()
            report = run(
                Path(tmp) / f"{name}.db",
                kills=args.kills,
                seed=args.seed,
                max_seconds=args.max_seconds,
            )
            check = "clean" if not report.problems else "; ".join(report.problems)
            print(
                f"| {name} | {report.kills} | {report.acknowledged:,} | {report.found:,} | "
                f"{len(report.lost)} | {check} | {time.monotonic() - start:.0f} |",
                flush=True,
            )
            failed |= not report.ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
