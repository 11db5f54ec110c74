"""A learned filter on extracted items: drops the attributes and actions that a careful
reader would call wrong or not worth keeping ("face | hurdles", "watch | bunch",
"opinions | picture: interesting" said of the other person's photo).

A logistic model over features of the item (its kind, its key or verb, the words of its
value, whether it is dated) and of the sentence it came from (a modal or "let's" just before
its verb, who the sentence's subject is, a question, a reaction that opens the turn),
trained on the development precision labels by ``benchmarks/train_item_filter.py``; its
weights ship as ``item_filter.json`` beside this module. Facts that say who someone is
(employer, location, family, partner, pets and the like) and ended facts are never dropped. Scoring
an item costs a sentence split and a dictionary lookup per feature.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections import Counter
from importlib import resources

_WORD = re.compile(r"[a-z0-9+#']+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_PRONOUNS = frozenset("i me my we us our you your it its them they their this that".split())
# Words that, within four words before an item's verb, make it something other than a
# thing done: "we can help", "I'll make a list", "planning a few", "want to try".
_BEFORE = frozenset(
    (
        "will 'll ll can could would 'd should let's lets wanna want wants to going gonna "
        "plan planning hope hoping trying try need needs might may must love like keep "
        "always never"
    ).split()
)
# A value ending on one of these was cut ("of my", "how the first one", "right").
_DANGLING = frozenset(
    "my your our their his her the a an of to for with and or but in on at by from that "
    "this what how which who right too".split()
)
_QUANTITY = frozenset("few bunch ton lot lots some any last one ones how what all more".split())
_REACTION = frozenset(
    "wow congrats congratulations thanks thank sounds glad awesome amazing great nice cool "
    "that's that lol haha omg oh".split()
)
_SUBJECTS = ("i", "we", "you", "he", "she", "they", "it")
_NEGATION = frozenset("not never no".split())
# The keys of what someone thinks, likes and does: judged. Every other key says who someone
# is (employer, location, family, partner, pets, diet...) and is never dropped.
JUDGED_KEYS = frozenset("opinions likes values goals habits hobbies learning".split())


class TurnText:
    """A turn read once for the filter, however many items it gave: its sentences, their
    words, and the sentences each word is in (the first :data:`POSTINGS` of them), so an item
    costs a few lookups, not a pass over the turn."""

    def __init__(self, text: str) -> None:
        text = _straight(text)
        self.sentences = _SENTENCE.split(text)
        self.words = [_WORD.findall(s.lower()) for s in self.sentences]
        self.where: dict[str, list[int]] = {}
        for i, said in enumerate(self.words):
            for word in dict.fromkeys(said):
                found = self.where.setdefault(word, [])
                if len(found) < POSTINGS:
                    found.append(i)
        self.photo = "[shares" in text
        self.length = min(sum(len(said) for said in self.words) // 10, 5)

    def sentence_of(self, words: list[str]) -> int:
        """The sentence sharing the most words with the item (the first of equals)."""
        shared: Counter[int] = Counter()
        for word in words:
            shared.update(self.where.get(word, ()))
        return min(shared, key=lambda i: (-shared[i], i)) if shared else 0


POSTINGS = 64


def features(
    kind: str, head: str, value: str, text: str | TurnText, *, timed: bool = False
) -> list[str]:
    """The features of an item: ``kind`` (attr or action), ``head`` (its key, or its verb),
    ``value`` (its value, or its object and place), the turn it came from (its text, or the
    text read once), and whether it is dated."""
    turn = text if isinstance(text, TurnText) else TurnText(text)
    value = _straight(value)
    words = _WORD.findall(value.lower())
    heads = _WORD.findall(head.lower())
    out = [f"kind={kind}", f"head={kind}:{head.lower().strip()}", f"len={min(len(words), 6)}"]
    if timed:
        out.append("timed")
    if words:
        out += [f"first={words[0]}", f"last={words[-1]}"]
        out += [f"w={w}" for w in dict.fromkeys(words)]
        if words[0].endswith("ing"):
            out.append("gerund")
        if any(w in _PRONOUNS for w in words):
            out.append("pronoun")
        if words[-1] in _DANGLING:
            out.append("dangling")
        if words[0] in _QUANTITY:
            out.append("quantity")
    if ":" in value:
        out.append("opinion")
    at_sentence = turn.sentence_of(words + heads)
    sentence, said = turn.sentences[at_sentence], turn.words[at_sentence]
    if sentence.strip().endswith("?"):
        out.append("question")
    if sentence.strip().endswith("!"):
        out.append("exclaimed")
    if "you" in said or "your" in said:
        out.append("you")
    if said and said[0] in _REACTION:
        out.append(f"opens={said[0]}")
    if sentence == turn.sentences[0]:
        out.append("first_sentence")
    if turn.photo:
        out.append("photo")
    if _NEGATION & set(said) or "n't" in sentence.lower():
        out.append("negation")
    out.append(f"turn_len={turn.length}")
    if len(words) == 1 and words[0] not in said:
        out.append("not_said")
    # Where the item's verb (or key, or first word) sits in its sentence, and what is before.
    key = (heads[:1] or words[:1] or [""])[0][:4]
    at = next((i for i, w in enumerate(said) if key and w.startswith(key)), None)
    if at is None and words:
        at = next((i for i, w in enumerate(said) if w.startswith(words[0][:4])), None)
    if at is None:
        out.append("unplaced")
    else:
        out += [f"before={w}" for w in said[max(0, at - 4) : at] if w in _BEFORE]
        if at < 3:
            out.append("early")
        subjects = [w for w in said[max(0, at - 5) : at] if w in _SUBJECTS]
        if subjects:
            out.append(f"subject={subjects[-1]}")
    return out


def _straight(text: str) -> str:
    """Curly apostrophes (U+2019, U+2018) as straight ones: "I've" however it was typed."""
    return text.replace("\u2019", "'").replace("\u2018", "'")


@functools.cache
def _model() -> tuple[dict[str, float], float, float]:
    raw = json.loads(resources.files(__package__).joinpath("item_filter.json").read_text())
    return raw["weights"], float(raw["bias"]), float(raw["threshold"])


def score(kind: str, head: str, value: str, text: str | TurnText, *, timed: bool = False) -> float:
    """The model's probability that a reader keeps the item."""
    weights, bias, _ = _model()
    found = features(kind, head, value, text, timed=timed)
    z = bias + sum(weights.get(f, 0.0) for f in found)
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def keep(kind: str, head: str, value: str, text: str | TurnText, *, timed: bool = False) -> bool:
    """Whether the item stays: always for a key that is not judged, else when its score
    reaches the threshold chosen on the development labels."""
    if kind == "attr" and head not in JUDGED_KEYS:
        return True
    return score(kind, head, value, text, timed=timed) >= _model()[2]
