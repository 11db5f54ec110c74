"""Casual chat text made regular before any pattern reads it.

"im 27", "i dont eat meat", "gonna move to berlin", "🎉 got the job!!" become "I'm 27",
"I don't eat meat", "going to move to berlin", ". got the job!": the first person
capitalized, missing apostrophes restored, common chat shorthand spelled out, curly quotes
straightened, emoji turned into sentence breaks. Only whole words are rewritten, one pass, by
dictionary lookup: linear in the text.
"""

from __future__ import annotations

import re
import unicodedata

from turngraph.extract.folded import Folded

# Whole-word rewrites, keyed by the lower-case word. Ambiguous words ("ill", "id", "were",
# "its", "lets", "well") are left alone.
SHORTHAND = {
    "i": "I",
    "im": "I'm",
    "ive": "I've",
    "i'm": "I'm",
    "i've": "I've",
    "i'll": "I'll",
    "i'd": "I'd",
    "dont": "don't",
    "doesnt": "doesn't",
    "didnt": "didn't",
    "cant": "can't",
    "wont": "won't",
    "isnt": "isn't",
    "arent": "aren't",
    "wasnt": "wasn't",
    "werent": "weren't",
    "havent": "haven't",
    "hasnt": "hasn't",
    "hadnt": "hadn't",
    "shouldnt": "shouldn't",
    "wouldnt": "wouldn't",
    "couldnt": "couldn't",
    "aint": "ain't",
    "thats": "that's",
    "whats": "what's",
    "theres": "there's",
    "youre": "you're",
    "theyre": "they're",
    "youve": "you've",
    "theyve": "they've",
    "weve": "we've",
    "hes": "he's",
    "shes": "she's",
    "u": "you",
    "ur": "your",
    "ya": "you",
    "gonna": "going to",
    "wanna": "want to",
    "gotta": "have to",
    "tryna": "trying to",
    "kinda": "kind of",
    "sorta": "sort of",
    "bc": "because",
    "b/c": "because",
    "cuz": "because",
    "coz": "because",
    "'cause": "because",
    "rn": "right now",
    "tmrw": "tomorrow",
    "tmr": "tomorrow",
    "tmrrw": "tomorrow",
    "yrs": "years",
    "yr": "year",
    "bday": "birthday",
    "b-day": "birthday",
    "fav": "favorite",
    "fave": "favorite",
    "favourite": "favorite",
    "colour": "color",
    "fam": "family",
    "bf": "boyfriend",
    "gf": "girlfriend",
    "hubby": "husband",
    "w/": "with",
    "pls": "please",
    "plz": "please",
    "abt": "about",
    "ppl": "people",
    "btw": "by the way",
    "tbh": "to be honest",
    "idk": "I don't know",
    "imo": "in my opinion",
    "edu": "education",
    "convo": "conversation",
    "mins": "minutes",
    "hrs": "hours",
    "wk": "week",
    "wks": "weeks",
    "mo": "month",
    "mos": "months",
    "thx": "thanks",
    "ty": "thanks",
}
_WORD = re.compile(r"[A-Za-z][A-Za-z'/-]*")
_TITLE_DOT = re.compile(r"\b(Mr|Mrs|Ms|Dr|Prof|St|Sr|Jr|Mt)\.(?= [A-Z])")
_SPACES = re.compile(r"[ \t\u00a0]+")
_REPEATS = re.compile(r"([!?.])\1+")
# "ill" is "I'll" before a verb ("ill switch to", "ill probably go").
_ILL = Folded(
    r"\bill(?= (?:be|go|have|get|switch|try|do|see|call|make|take|send|start|need|let|check|"
    r"probably|just|never|always|definitely|def|text|bring|ask|tell|look|keep|stop|move)\b)",
)
_CAUSE = Folded(r"(?<![\w'])'(?:cause|cuz|cos)\b")
# Laughter and similar tags end what was said before them.
_LAUGH = Folded(r"(?<!\s)\s+\b(?:lol|lmao|lmfao|rofl|haha+|hehe+|jk|xd)\b")


_HIGH = re.compile("[\u2001-\U0010ffff]")


def _is_emoji(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return cat == "So" or (cat == "Cn" and ord(ch) > 0x1F000) or 0x1F000 <= ord(ch) <= 0x1FAFF


# "last Fri", "on Tues": a weekday written short after a word that dates it.
_DAYS = {
    "mon": "Monday", "tue": "Tuesday", "tues": "Tuesday", "wed": "Wednesday",
    "thu": "Thursday", "thur": "Thursday", "thurs": "Thursday", "fri": "Friday",
    "sat": "Saturday", "sun": "Sunday",
}  # fmt: skip
_DAY_STEMS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_SHORT_DAY = Folded(r"\b(last|next|this|on|since|by) (" + "|".join(_DAYS) + r")\b\.?")


_BLANKS = re.compile(r"[ \t]{2,}|\t")


def normalize(text: str) -> str:
    """``text`` with casual spellings regularized (see the module docstring)."""
    text = (
        text.replace("\u2019", "'")
        .replace("\u2018", "'")
        .replace("\u201c", "")
        .replace("\u201d", "")
        .replace('"', "")
        .replace("\u2013", " - ")
        .replace("\u2014", " - ")
        .replace(" & ", " and ")
    )
    if "  " in text or "\t" in text:
        text = _BLANKS.sub(" ", text)  # "St.  John's", "maybe  ill  switch"
    if _HIGH.search(text):
        text = "".join(
            ". " if _is_emoji(ch) else ("" if ch in "\ufe0f\u200d" else ch) for ch in text
        )
    # Each rewrite below runs only where a plain substring test says it may apply.
    if "!!" in text or "??" in text or ".." in text:
        text = _REPEATS.sub(r"\1", text)
    if "." in text:  # "Ms. Clara Tan" is one name, not the end of a sentence
        text = _TITLE_DOT.sub(r"\1", text)
    if "'" in text:
        text = _CAUSE.sub("because", text)
    low = text.lower()
    if any(f" {day}" in low for day in _DAY_STEMS):
        text = _SHORT_DAY.sub(lambda m: f"{m.group(1)} {_DAYS[m.group(2).lower()]}", text)

    if any(tag in low for tag in ("lol", "lmao", "lmfao", "rofl", "haha", "hehe", "jk", "xd")):
        text = _LAUGH.sub(".", text)
    if "ill " in low:
        text = _ILL.sub("I'll", text)
    # Most messages have no word to rewrite: a look at each word's lower case says so, without
    # a call per word.
    words = _WORD.findall(text)
    if any(_fix(w) != w for w in words if w.lower() in SHORTHAND or w[:2].lower() == "i'"):
        text = _WORD.sub(lambda m: _fix(m.group(0)), text)
    if "  " in text or "\t" in text or "\u00a0" in text:  # else each run is one space already
        text = _SPACES.sub(" ", text)
    return text.strip()


def _fix(word: str) -> str:
    low = word.lower()
    if low in SHORTHAND:
        out = SHORTHAND[low]
        # Keep a capital where the writer put one ("Gonna" -> "Going to").
        return out[0].upper() + out[1:] if word[0].isupper() and out[0].islower() else out
    if low.startswith("i'") and low[2:] in ("m", "ve", "ll", "d"):
        return "I" + word[1:]
    return word
