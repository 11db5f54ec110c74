"""Train the extractor's item filter (src/turngraph/extract/item_filter.py) on the development
precision labels, and print what it does on them, each conversation judged by a model that
never saw it.

    .venv/bin/python benchmarks/train_item_filter.py "$LOCOMO" [--write]

Only development labels teach it (benchmarks/data/locomo-precision-labels.json and
locomo-precision-labels-rest.json: every turn of the five development conversations); the
held-out labels judge it through `turngraph bench extraction --heldout ...`, never here.
Examples are the labelled attributes and actions that the extractor gives without its
filter (an attribute of a key the filter always keeps is left out); the label is 1 for
"correct", 0 for "noise" or "wrong". The model is an L2-regularized logistic regression
fitted by gradient descent (numpy). The threshold is the highest that still keeps --keep
(0.80) of the correct items when each conversation is scored by a model trained on the other
four (the filter may cost a fifth of the correct facts, and drops what it can for that),
lowered until no case of the suite's passing list fails. The suite's items train it too: an
item a case expects is 1, one it does not is 0, weighted --suite-weight.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from turngraph.bench.extraction import Item, ingest, run_suite, suite_items
from turngraph.extract import item_filter
from turngraph.extract.item_filter import JUDGED_KEYS, features
from turngraph.extract.rules import RuleExtractor

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "tests" / "data" / "extraction_suite.txt"
PASSING = ROOT / "tests" / "data" / "extraction_suite_passing.txt"
LABELS = [
    ROOT / "benchmarks" / "data" / "locomo-precision-labels.json",
    ROOT / "benchmarks" / "data" / "locomo-precision-labels-rest.json",
]
OUT = ROOT / "src" / "turngraph" / "extract" / "item_filter.json"

Example = tuple[str, list[str], int]  # conversation, features, label


def _example(item: Item, text: str) -> list[str] | None:
    """The features of one item, or None for an item the filter never judges."""
    if item.kind not in ("attr", "action"):
        return None
    if item.kind == "attr" and item.predicate not in JUDGED_KEYS:
        return None
    value = f"{item.object} {item.place}".strip() if item.kind == "action" else item.object
    return features(item.kind, item.predicate, value, text, timed=bool(item.time))


def examples(files: list[Path]) -> list[Example]:
    """Every labelled attribute and action the unfiltered extractor gives on ``files``."""
    labels: dict[str, dict[str, str]] = {}
    for path in LABELS:
        labels.update(json.loads(path.read_text("utf-8"))["turns"])
    out: list[Example] = []
    for path in files:
        turns, _ = ingest(path, RuleExtractor(filtered=False))
        for turn in turns:
            marks = labels.get(f"{turn.conversation}:{turn.dia_id}", {})
            for item in turn.items:
                label = marks.get(item.key())
                found = _example(item, turn.text) if label else None
                if found is not None:
                    out.append((turn.conversation, found, int(label == "correct")))
        print(f"{path.stem}: {len(out)} examples so far", file=sys.stderr)
    return out


def suite_examples() -> list[Example]:
    """The suite's attributes and actions, extracted without the filter: 1 when the case
    expects the item, 0 when it does not (a case lists what is worth recording)."""
    out: list[Example] = []
    for text, item, wanted in suite_items(RuleExtractor(filtered=False), SUITE):
        found = _example(item, text)
        if found is not None:
            out.append(("suite", found, int(wanted)))
    return out


def lost_cases() -> list[str]:
    """The passing suite cases that the extractor, with the filter as written, fails."""
    item_filter._model.cache_clear()
    listed = PASSING.read_text("utf-8").splitlines()
    passing = {line.strip() for line in listed if line.strip() and not line.startswith("#")}
    now = set(run_suite(RuleExtractor(), SUITE)["passing"])
    return sorted(passing - now)


def _matrix(rows: list[list[str]], vocab: dict[str, int]) -> np.ndarray:
    x = np.zeros((len(rows), len(vocab)))
    for i, row in enumerate(rows):
        for f in row:
            if f in vocab:
                x[i, vocab[f]] = 1.0
    return x


def fit(
    rows: list[list[str]], labels: list[int], weights: list[float], l2: float
) -> tuple[dict[str, float], float]:
    vocab = {f: i for i, f in enumerate(sorted({f for r in rows for f in r}))}
    x, y = _matrix(rows, vocab), np.array(labels, dtype=float)
    s = np.array(weights) / np.mean(weights)
    w, b = np.zeros(len(vocab)), 0.0
    for _ in range(400):
        p = 1.0 / (1.0 + np.exp(-(x @ w + b)))
        grad = (p - y) * s
        w -= 0.5 * (x.T @ grad / len(y) + l2 * w)
        b -= 0.5 * float(grad.mean())
    return {f: round(float(w[i]), 4) for f, i in vocab.items() if abs(w[i]) > 1e-4}, b


def predict(weights: dict[str, float], bias: float, row: list[str]) -> float:
    z = bias + sum(weights.get(f, 0.0) for f in row)
    return float(1.0 / (1.0 + np.exp(-z)))


def _weight(group: str, suite: float) -> float:
    return suite if group == "suite" else 1.0


def by_conversation(data: list[Example], l2: float, suite: float) -> np.ndarray:
    """Each example's score from a model trained on the other conversations only."""
    scores = np.zeros(len(data))
    for held in sorted({c for c, _, _ in data}):
        train = [(c, r, y) for c, r, y in data if c != held]
        w, b = fit(
            [r for _, r, _ in train],
            [y for _, _, y in train],
            [_weight(c, suite) for c, _, _ in train],
            l2,
        )
        for i, (c, row, _) in enumerate(data):
            if c == held:
                scores[i] = predict(w, b, row)
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("locomo", help="the folder of the development LoCoMo files")
    parser.add_argument("--l2", type=float, default=0.003)
    parser.add_argument("--suite-weight", type=float, default=3.0, help="weight of a suite example")
    parser.add_argument("--keep", type=float, default=0.80, help="share of correct to keep")
    parser.add_argument("--write", action="store_true", help=f"write {OUT.name}")
    args = parser.parse_args()
    data = examples(sorted(Path(args.locomo).glob("*.json"))) + suite_examples()
    y = np.array([label for _, _, label in data])
    scores = by_conversation(data, args.l2, args.suite_weight)
    print(f"examples: {len(data)} ({int(y.sum())} correct); precision unfiltered {y.mean():.3f}")
    print("\n| threshold | kept | precision of kept | correct kept |")
    print("|---:|---:|---:|---:|")
    chosen = 0.0
    for t in np.arange(0.0, 0.81, 0.05):
        kept = scores >= t
        share = y[kept].sum() / y.sum()
        print(f"| {t:.2f} | {kept.sum()} | {y[kept].mean():.3f} | {share:.3f} |")
        if share >= args.keep:
            chosen = float(t)
    print(f"\nthreshold {chosen:.2f}: the highest keeping {args.keep} of the correct items")
    print("\n| conversation | examples | precision unfiltered | filtered | correct kept |")
    print("|---|---:|---:|---:|---:|")
    for conv in sorted({c for c, _, _ in data}):
        mine = np.array([c == conv for c, _, _ in data])
        kept = mine & (scores >= chosen)
        print(
            f"| {conv} | {mine.sum()} | {y[mine].mean():.3f} | {y[kept].mean():.3f} | "
            f"{y[kept].sum() / y[mine].sum():.3f} |"
        )
    if args.write:
        weights, bias = fit(
            [r for _, r, _ in data],
            list(y),
            [_weight(c, args.suite_weight) for c, _, _ in data],
            args.l2,
        )
        about = (
            "Item filter weights: benchmarks/train_item_filter.py on the development "
            "precision labels (benchmarks/data/locomo-precision-labels*.json) and the "
            "labelled suite only."
        )
        model = {"about": about, "bias": round(bias, 4), "threshold": round(chosen, 2)}
        model["weights"] = dict(sorted(weights.items()))
        # The suite's ratchet: lower the threshold until no passing case is lost.
        while True:
            OUT.write_text(json.dumps(model, indent=0, ensure_ascii=False) + "\n", "utf-8")
            lost = lost_cases()
            if not lost or model["threshold"] <= 0:
                break
            print(f"threshold {model['threshold']:.2f} loses {', '.join(lost)}")
            model["threshold"] = round(model["threshold"] - 0.05, 2)
        print(
            f"wrote {OUT.relative_to(ROOT)} ({len(weights)} weights, "
            f"threshold {model['threshold']:.2f})"
        )


if __name__ == "__main__":
    main()
