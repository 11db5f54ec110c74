"""Train the extractor's item filter (src/turngraph/extract/item_filter.py) on the development
precision labels, and print what it does on them by cross-validation.

    .venv/bin/python benchmarks/train_item_filter.py [--write]

Only the development labels (benchmarks/data/locomo-precision-labels.json) teach it; the
held-out labels judge it through `turngraph bench extraction --heldout ...`, never here.
Items are the labelled attributes and actions (an attribute of a key the filter always keeps
is left out); the label is 1 for "correct", 0 for "noise" or "wrong". The model is an L2-
regularized logistic regression fitted by gradient descent (numpy); the threshold is the
highest that still keeps --keep (0.85) of the correct items in 5-fold cross-validation: the
filter may cost a sixth of the correct context facts, and drops what noise it can for that.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from turngraph.bench.extraction import suite_items
from turngraph.extract.item_filter import KEPT_KEYS, features
from turngraph.extract.rules import RuleExtractor

ROOT = Path(__file__).resolve().parent.parent
LABELS = ROOT / "benchmarks" / "data" / "locomo-precision-labels.json"
SUITE = ROOT / "tests" / "data" / "extraction_suite.txt"
OUT = ROOT / "src" / "turngraph" / "extract" / "item_filter.json"


def _example(parts: list[str], label: int) -> tuple[list[str], int] | None:
    kind = parts[0]
    if kind not in ("attr", "action") or len(parts) < 3:
        return None
    head = parts[2]
    if kind == "attr" and head in KEPT_KEYS:
        return None
    value = parts[3] if len(parts) > 3 else ""
    timed = kind == "action" and len(parts) > 4 and bool(parts[4])
    if kind == "action" and len(parts) > 5:
        value = f"{value} {parts[5]}".strip()
    return features(kind, head, value, timed=timed), label


def examples(path: Path) -> list[tuple[list[str], int]]:
    """The precision labels' attributes and actions: 1 for correct, 0 for noise or wrong."""
    raw = json.loads(path.read_text("utf-8"))["turns"]
    found = (
        _example([p.strip() for p in line.split("|")], int(label == "correct"))
        for items in raw.values()
        for line, label in items.items()
    )
    return [x for x in found if x is not None]


def suite_examples() -> list[tuple[list[str], int]]:
    """The suite's items, extracted without the filter: 1 when the case expects them."""
    found = (
        _example([p.strip() for p in item.key().split("|")], int(wanted))
        for item, wanted in suite_items(RuleExtractor(filtered=False), SUITE)
    )
    return [x for x in found if x is not None]


def fit(
    rows: list[list[str]], labels: list[int], l2: float, epochs: int = 400
) -> tuple[dict[str, float], float]:
    vocab = {f: i for i, f in enumerate(sorted({f for r in rows for f in r}))}
    x = np.zeros((len(rows), len(vocab)))
    for i, r in enumerate(rows):
        for f in r:
            x[i, vocab[f]] = 1.0
    y = np.array(labels, dtype=float)
    w, b = np.zeros(len(vocab)), 0.0
    rate = 0.5
    for _ in range(epochs):
        p = 1.0 / (1.0 + np.exp(-(x @ w + b)))
        grad = p - y
        w -= rate * (x.T @ grad / len(y) + l2 * w)
        b -= rate * grad.mean()
    return {f: round(float(w[i]), 4) for f, i in vocab.items() if abs(w[i]) > 1e-4}, float(b)


def predict(weights: dict[str, float], bias: float, row: list[str]) -> float:
    z = bias + sum(weights.get(f, 0.0) for f in row)
    return 1.0 / (1.0 + np.exp(-z))


def cross_validated(data: list[tuple[list[str], int]], l2: float, folds: int = 5) -> np.ndarray:
    rng = np.random.default_rng(7)
    order = rng.permutation(len(data))
    scores = np.zeros(len(data))
    for k in range(folds):
        test = order[k::folds]
        train = np.setdiff1d(order, test)
        w, b = fit([data[i][0] for i in train], [data[i][1] for i in train], l2)
        for i in test:
            scores[i] = predict(w, b, data[i][0])
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--l2", type=float, default=0.003)
    parser.add_argument("--keep", type=float, default=0.85, help="share of correct to keep")
    parser.add_argument("--write", action="store_true", help=f"write {OUT.name}")
    args = parser.parse_args()
    data = examples(LABELS) + suite_examples()
    y = np.array([label for _, label in data])
    scores = cross_validated(data, args.l2)
    print(
        f"items: {len(data)} ({int(y.sum())} correct); kept precision without a filter "
        f"{y.mean():.3f}"
    )
    print("| threshold | kept | kept precision | correct kept |")
    print("|---|---|---|---|")
    chosen = 0.0
    for t in np.arange(0.0, 0.81, 0.05):
        kept = scores >= t
        precision = y[kept].mean() if kept.any() else 0.0
        share = y[kept].sum() / y.sum()
        print(f"| {t:.2f} | {kept.sum()} | {precision:.3f} | {share:.3f} |")
        if share >= args.keep:
            chosen = float(t)
    print(
        f"threshold: {chosen:.2f} (the highest that keeps at least {args.keep} of the "
        "correct items, cross-validated)"
    )
    if args.write:
        weights, bias = fit([r for r, _ in data], list(y), args.l2)
        OUT.write_text(
            json.dumps(
                {
                    "about": "Item filter weights: benchmarks/train_item_filter.py on "
                    "benchmarks/data/locomo-precision-labels.json (development labels only).",
                    "bias": round(bias, 4),
                    "threshold": round(chosen, 2),
                    "weights": dict(sorted(weights.items())),
                },
                indent=1,
            )
            + "\n",
            "utf-8",
        )
        print(f"wrote {OUT.relative_to(ROOT)} ({len(weights)} weights)")


if __name__ == "__main__":
    main()
