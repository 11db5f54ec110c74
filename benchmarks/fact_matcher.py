"""Agreement of the extraction bench's fact matcher with hand labels.

Each line of ``benchmarks/data/fact-matcher-pairs.jsonl`` names a LoCoMo gold observation
(``conversation:session_N_observation:speaker:index``; the text is read from the LoCoMo files,
which are not shipped here), an item the rule extractor produced from its evidence turn, and
a person's judgement of whether the item states the same fact. ``design`` pairs were labelled
while the matcher was written; ``held-out`` pairs were labelled afterwards, from a fresh
sample, and never used to change it.

    .venv/bin/python benchmarks/fact_matcher.py "$LOCOMO"
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from turngraph.bench.extraction import Item, states_same_fact

PAIRS = Path(__file__).parent / "data" / "fact-matcher-pairs.jsonl"


def item_of(line: str) -> Item:
    f = [x.strip() for x in line.split("|")] + [""] * 6
    if f[0] == "action":
        return Item(f[0], f[1], f[2], f[3], f[4], f[5])
    return Item(f[0], f[1], f[2], f[3])


def gold_text(folder: Path, ref: str) -> tuple[str, str]:
    """The observation ``ref`` names, and whom it is about."""
    conversation, key, speaker, index = ref.split(":")
    data = json.loads((folder / f"{conversation}.json").read_text("utf-8"))
    return str(data[key][speaker][int(index)][0]), speaker


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("LOCOMO", "locomo"))
    rows = [json.loads(line) for line in PAIRS.read_text("utf-8").splitlines() if line]
    for r in rows:
        r["gold"], r["gold_about"] = gold_text(folder, r["gold"])
    print("| pairs | n | agreement | matcher precision | matcher recall |")
    print("|---|---|---|---|---|")
    for name in ("design", "held-out", "all"):
        chosen = [r for r in rows if name == "all" or r["set"] == name]
        tp = fp = fn = tn = 0
        for r in chosen:
            said = states_same_fact(item_of(r["item"]), r["gold"], r["gold_about"])
            tp += said and r["same_fact"]
            fp += said and not r["same_fact"]
            fn += not said and r["same_fact"]
            tn += not said and not r["same_fact"]
        n = len(chosen)
        print(
            f"| {name} | {n} | {(tp + tn) / n:.3f} | {tp / max(tp + fp, 1):.3f} | "
            f"{tp / max(tp + fn, 1):.3f} |"
        )


if __name__ == "__main__":
    main()
