"""A learned filter on extracted items: drops attributes and actions that a careful reader
would call noise or wrong ("appreciate | kind words", "likes | support").

A logistic model over a few features of the item alone (its kind, key or verb, the words
of its value), trained on the development precision labels by
``benchmarks/train_item_filter.py``; its weights ship as ``item_filter.json`` beside this
module. Facts that say who someone is (employer, location, relations and the like) are
never dropped. The model costs a dictionary lookup per feature.
"""

from __future__ import annotations

import functools
import json
import math
import re
from importlib import resources

_WORD = re.compile(r"[a-z0-9+#']+")
_PRONOUNS = frozenset("i me my we us our you your it its them they their this that".split())
# Keys a reader always keeps: who someone is, not what they said about a day.
KEPT_KEYS = frozenset(
    (
        "employer job_title location hometown age family pets species relationship_status "
        "diet allergies health education school languages manager preferred_name birthday "
        "nationality religion pronouns gender"
    ).split()
)


def features(kind: str, head: str, value: str, *, timed: bool = False) -> list[str]:
    """The features of an item: ``kind`` (attr or action), ``head`` (its key, or its verb),
    ``value`` (its value, or its object and place) and whether it is dated."""
    words = _WORD.findall(value.lower())
    head = head.lower().strip()
    out = [f"kind={kind}", f"head={kind}:{head}", f"len={min(len(words), 6)}"]
    if timed:
        out.append("timed")
    if words:
        out += [f"first={words[0]}", f"last={words[-1]}"]
        out += [f"w={w}" for w in dict.fromkeys(words)]
        if words[0].endswith("ing"):
            out.append("gerund")
        if any(w in _PRONOUNS for w in words):
            out.append("pronoun")
    else:
        out.append("empty")
    if ":" in value:
        out.append("opinion")
    return out


@functools.cache
def _model() -> tuple[dict[str, float], float, float]:
    raw = json.loads(resources.files(__package__).joinpath("item_filter.json").read_text())
    return raw["weights"], float(raw["bias"]), float(raw["threshold"])


def score(kind: str, head: str, value: str, *, timed: bool = False) -> float:
    """The model's probability that a reader keeps the item."""
    weights, bias, _ = _model()
    z = bias + sum(weights.get(f, 0.0) for f in features(kind, head, value, timed=timed))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def keep(kind: str, head: str, value: str, *, timed: bool = False) -> bool:
    """Whether the item stays: always for a kept key, else when its score reaches the
    threshold chosen on the development labels."""
    if kind == "attr" and head in KEPT_KEYS:
        return True
    return score(kind, head, value, timed=timed) >= _model()[2]
