"""Extraction time on hostile text: each family at 10 KB and at the largest accepted turn.

    PYTHONPATH=src python benchmarks/adversarial_text.py [--sizes 10000,32000] [--limit 30]

Each family repeats one unit (a letter, a hyphenated letter, a capitalised word, ...) up to
the size; a family whose time grows faster than its size, or passes 200 ms, is a finding.
Times are the extracting thread's CPU time. Each run happens in a child process with a
time limit, so one runaway family does not stop the table.
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from datetime import UTC, datetime

from turngraph.config import Limits

FAMILIES: dict[str, str] = {
    "A": "A",
    "A-": "A-",
    "a-": "a-",
    "Aa-": "Aa-",
    "A.": "A.",
    "Aa- School": "Aa-School ",
    "I ": "I ",
    "a ": "a ",
    "capitalised words": "Alpha Beta ",
    "capitalised, commas": "Alpha, ",
    "my X is Y": "my dog is Rex ",
    "punctuation": ".,;:!?",
    "dots": ".",
    "hyphens": "-",
    "apostrophes": "'s ",
    "quotes": '"a" ',
    "parentheses": "(",
    "digits": "1",
    "dates": "on May 3 ",
    "emoji": "\U0001f600",
    "unicode letters": "\u00e9",
    "CJK": "\u4e2d",
    "zero-width": "a\u200b",
    "RTL": "\u05d0 ",
    "newlines": "\n",
    "and": "and ",
    "I like X and": "I like tea and ",
    "no spaces words": "word",
    "comma list": "x,",
    "spaces": " ",
}


def hostile_text(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def time_extraction(text: str) -> float:
    from turngraph.extract.base import TurnContext
    from turngraph.extract.rules import RuleExtractor

    # A named speaker: some readers skip a turn whose speaker is only "user".
    context = TurnContext(speaker="Ana", role="user", observed_at=datetime.now(UTC))
    extractor = RuleExtractor()
    start = time.thread_time()  # CPU time: other work on the machine does not count
    extractor.extract(text, context)
    return time.thread_time() - start


def _child(text: str, out: multiprocessing.Queue[float | str]) -> None:
    try:
        out.put(time_extraction(text))
    except Exception as exc:  # a crash is a finding too: report it in the table
        out.put(f"{type(exc).__name__}")


def measure(text: str, limit: float) -> float | str | None:
    """Seconds to extract ``text`` in a child process; None past ``limit``; the error's
    name if extraction raised."""
    out: multiprocessing.Queue[float | str] = multiprocessing.Queue()
    child = multiprocessing.Process(target=_child, args=(text, out))
    child.start()
    child.join(limit)
    if child.is_alive():
        child.kill()
        child.join()
        return None
    return out.get() if not out.empty() else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default=f"10000,{Limits().content_hard_chars}")
    parser.add_argument("--limit", type=float, default=30.0, help="seconds per run")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"| family | {' | '.join(f'{s:,} chars (CPU ms)' for s in sizes)} | ratio |")
    print(f"|---|{'---:|' * len(sizes)}---:|")
    for name, unit in FAMILIES.items():
        times = [measure(hostile_text(unit, size), args.limit) for size in sizes]
        cells = [
            f">{args.limit * 1000:.0f}"
            if t is None
            else t
            if isinstance(t, str)
            else f"{t * 1000:.0f}"
            for t in times
        ]
        first, last = times[0], times[-1]
        ratio = (
            f"{last / first:.1f}"
            if isinstance(first, float) and isinstance(last, float) and first
            else "-"
        )
        print(f"| `{name!r}` | {' | '.join(cells)} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
