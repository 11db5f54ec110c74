"""Word forms: stems for comparing words across inflections, lemmas of common irregular verbs.

Shared by the rule extractor (an action's verb is reported as its lemma) and the extraction
benchmark (which compares what was said with what was extracted across word forms).
"""

from __future__ import annotations

import re

from turngraph.extract.vocab import VERBS as KNOWN_VERBS

# Irregular verb forms -> lemma. Regular forms are handled by suffix rules.
IRREGULAR = {
    "am": "be", "is": "be", "are": "be", "was": "be", "were": "be", "been": "be", "being": "be",
    "'m": "be", "'re": "be", "'s": "be",
    "has": "have", "had": "have", "'ve": "have", "having": "have",
    "does": "do", "did": "do", "done": "do", "doing": "do",
    "went": "go", "gone": "go", "goes": "go", "going": "go",
    "ate": "eat", "eaten": "eat", "became": "become", "began": "begin", "begun": "begin",
    "bought": "buy", "brought": "bring", "built": "build", "came": "come", "caught": "catch",
    "chose": "choose", "chosen": "choose", "drank": "drink", "drew": "draw", "drawn": "draw",
    "drove": "drive", "driven": "drive", "felt": "feel", "fell": "fall", "fallen": "fall",
    "flew": "fly", "flown": "fly", "forgot": "forget", "found": "find", "gave": "give",
    "given": "give", "got": "get", "gotten": "get", "grew": "grow", "grown": "grow",
    "heard": "hear", "held": "hold", "hit": "hit", "kept": "keep", "knew": "know",
    "known": "know", "led": "lead", "left": "leave", "lent": "lend", "lost": "lose",
    "made": "make", "met": "meet", "paid": "pay", "ran": "run", "read": "read", "rode": "ride",
    "said": "say", "sang": "sing", "sung": "sing", "sat": "sit", "saw": "see", "seen": "see",
    "sent": "send", "set": "set", "shot": "shoot", "showed": "show", "shown": "show",
    "sold": "sell", "spent": "spend", "spoke": "speak", "spoken": "speak", "stood": "stand",
    "swam": "swim", "taught": "teach", "thought": "think", "threw": "throw", "told": "tell",
    "took": "take", "taken": "take", "understood": "understand", "woke": "wake", "won": "win",
    "wore": "wear", "wrote": "write", "written": "write", "hung": "hang", "dug": "dig",
    "fought": "fight", "sought": "seek", "slept": "sleep", "meant": "mean", "broke": "break",
    "broken": "break", "struck": "strike", "stuck": "stick", "ridden": "ride", "sank": "sink",
    "put": "put", "let": "let", "cut": "cut", "quit": "quit", "shut": "shut", "hurt": "hurt",
    "cost": "cost", "beat": "beat", "bet": "bet", "fed": "feed", "fled": "flee", "bled": "bleed",
    "lit": "light", "rang": "ring", "rung": "ring", "stole": "steal",
    "tore": "tear", "torn": "tear", "froze": "freeze", "frozen": "freeze", "hid": "hide",
    "shook": "shake", "swore": "swear", "wept": "weep", "wound": "wind",
    "dealt": "deal", "dreamt": "dream", "learnt": "learn", "spelt": "spell", "burnt": "burn",
    "moved": "move", "loved": "love", "lived": "live", "liked": "like", "used": "use",
    "hoped": "hope", "baked": "bake", "hiked": "hike", "danced": "dance", "joined": "join",
    "tried": "try", "cried": "cry", "studied": "study", "married": "marry", "carried": "carry",
    "stopped": "stop", "planned": "plan", "shopped": "shop", "dropped": "drop",
    "chatted": "chat", "jogged": "jog", "hugged": "hug", "admitted": "admit",
    "died": "die", "dying": "die", "lied": "lie", "tied": "tie",
}  # fmt: skip
_VOWELS = set("aeiou")
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def lemma(word: str) -> str:
    """The dictionary form of an English verb form ("went" -> "go", "adopted" -> "adopt").

    Irregular forms come from a table; regular ones lose -ing, -ed or -s by simple rules
    that are right for the common verbs of conversation and harmless elsewhere.
    """
    w = word.lower().strip("'")
    if w in IRREGULAR:
        return IRREGULAR[w]
    for suffix in ("ing", "ed"):
        if w.endswith(suffix) and len(w) > len(suffix) + 2:
            base = w[: -len(suffix)]
            if base + "e" in KNOWN_VERBS and base not in KNOWN_VERBS:
                return base + "e"  # promoted -> promote, living -> live
            if base in KNOWN_VERBS:
                return base
            if len(base) > 2 and base[-1] == base[-2] and base[-1] not in "lsz":
                return base[:-1]  # stopping -> stop
            if base.endswith("i") and suffix == "ed":
                return base[:-1] + "y"  # tried -> try
            if _needs_e(base):
                return base + "e"  # baking -> bake
            return base
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
        return w[:-1]
    return w


def _needs_e(base: str) -> bool:
    """Whether a stem lost a silent e ("bak" -> "bake"): consonant-vowel-consonant endings."""
    if len(base) < 3 or base[-1] in _VOWELS or base[-1] in "wxy":
        return False
    if base.endswith(("v", "c", "z")) or base.endswith(("at", "iz", "ok", "ak", "ik", "os")):
        return True
    return base[-2] in _VOWELS and base[-3] not in _VOWELS and len(base) <= 4


def stem(word: str) -> str:
    """A crude stem for comparing words across forms: "painting", "painted" -> "paint";
    "loves", "loved", "love" -> "lov". Only for matching, never shown."""
    w = lemma(word)
    for suffix in (
        "ations",
        "ation",
        "ions",
        "ion",
        "ness",
        "ment",
        "ing",
        "ed",
        "es",
        "ly",
        "s",
        "e",
        "y",
    ):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            break
    if len(w) > 3 and w[-1] == w[-2]:
        w = w[:-1]
    return w


def words(text: str) -> list[str]:
    """Lower-case word tokens (apostrophes inside words kept)."""
    return _WORD.findall(text.lower().replace("\u2019", "'"))
