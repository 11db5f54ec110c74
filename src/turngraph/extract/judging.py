"""The words and small readings behind opinions: which adjectives judge, which verbs say what
a thing does for the speaker, and how a clause's parts are found ("X is so ADJ, and Y ...",
"it's ADJ to/V-ing ...", "X helps me ..."). Pure functions over lower-cased words; the
reader that uses them is ``opinions.OpinionRules``.
"""

from __future__ import annotations

from turngraph.extract import vocab as v
from turngraph.extract.clauses import glue, is_finite, is_verb
from turngraph.extract.lexicon import lemma
from turngraph.extract.phrases import doing_of, gerund

# Adjectives that say how a thing is felt or judged, specific enough to remember.
JUDGING = frozenset(
    (
        "rewarding fulfilling peaceful calming relaxing therapeutic empowering inspiring "
        "motivating uplifting soothing healing freeing liberating meaningful cathartic "
        "challenging tough difficult hard scary overwhelming stressful exhausting tiring "
        "draining frustrating nerve-wracking satisfying enjoyable refreshing energizing "
        "eye-opening life-changing powerful emotional touching heartwarming magical "
        "comforting calm soul-nourishing tranquil serene humbling intense hectic chaotic "
        "exciting thrilling fascinating captivating interesting educational informative "
        "helpful valuable precious priceless worthwhile expressive graceful delicious "
        "tasty addictive relaxed special significant rough nerve-racking stressful creamy "
        "yummy moist flavorful"
    ).split()
)
# Adjectives of plain praise: an opinion only of a doing ("hiking with friends is awesome").
PRAISE = frozenset(
    "awesome amazing great fun wonderful fantastic incredible lovely beautiful cool nice "
    "best unforgettable".split()
)
# Adjectives that say the speaker holds a thing dear: "family is everything" aside, these.
VALUING = frozenset("important key crucial essential vital necessary".split())
COPULAS = frozenset(
    "is 's are 're was were been be feels felt seems seemed sounds sounded can become "
    "becomes became".split()
)
# Words between a thing and its verb: "dancing has kept me going", "yoga really helps".
BEFORE_VERB = frozenset(
    "has have had does do did really always just also truly definitely sure totally "
    "honestly seriously actually literally".split()
)
INTENSIFIERS = frozenset(
    (
        "so really super very such pretty quite incredibly truly always also just a an been "
        "be definitely totally honestly absolutely extremely kinda sorta kind sort of still "
        "both often sometimes actually seriously surprisingly especially even more most "
        "sooo soo insanely crazy"
    ).split()
)
POINTING = frozenset(("it", "this", "that", "which", "they"))
# Attribute keys whose values are things "it" may point back to.
THINGS = frozenset("likes hobbies habits goals learning values education opinions".split())
# Nouns that say little but carry the adjective before them: "a fulfilling experience".
PLAIN_NOUNS = frozenset("experience thing feeling journey process time moment".split())
# Nouns that judge what they name: "was a challenge", "is a blessing".
JUDGING_NOUNS = frozenset(
    "challenge struggle relief blessing nightmare lifesaver game-changer joy pleasure "
    "privilege dream escape must must-have".split()
)
# Subjects that are no thing the speaker judges.
NOT_TOPICS = frozenset(
    (
        "you your he she we i my life everything anything something nothing things "
        "there here what who everyone everybody someone nobody people mine yours his her "
        "their"
    ).split()
)
# A phrase that stops on one of these was cut from a longer one.
DANGLING = frozenset(
    "a an the of to for with on in at by about from based and or my during into after "
    "before".split()
)
# Words that show the "topic" is a clause of its own: "winning must have been thrilling".
CUT_OFF = frozenset("not n't never 've 'd 'll".split())
MAX_TOPIC_WORDS = 8
MAX_VALUE_WORDS = 8
# Verbs that need what follows them: "made me think how much ...".
UNFINISHED = frozenset("think realize realise wonder see know feel reflect".split())
# Words that open a clause of their own: "when times are hard" judges no thing.
SUBORDINATE = frozenset("when if because since while as though although unless until".split())
# Words that may follow a judgement without it judging them: "rewarding too", "tough but".
AFTER_JUDGEMENT = frozenset(
    "to for when too though tho honestly lol haha now lately sometimes at in with but yet and "
    "as because cause since especially if".split()
)
# Verbs that say what a thing does for the speaker.
EFFECT_VERBS = frozenset(
    "helps helped keeps kept gets got fuels fueled lets gives gave makes made brings "
    "brought reminds reminded calms inspires inspired motivates motivated relaxes "
    "teaches taught allow allows allowed creates create help keep get fuel give make bring remind "
    "calm inspire motivate teach".split()
)
# Effects complete with their object alone: "inspires me", "calms me".
SAID_WHOLE = frozenset(
    "inspires inspired inspire motivates motivated motivate calms calmed calm relaxes relaxed "
    "relax energizes energized energize".split()
)
LOOSE_ENDS = frozenset(
    "i we me us any some every more big great little much be want all too ever".split()
)
NEEDS_OBJECT = frozenset(
    "make makes made give gives gave get gets got help helps helped put stay keep feel "
    "remember".split()
)
# Doings that say nothing alone: "having", "getting".
LIGHT_DOINGS = frozenset("having getting doing making being seeing taking going".split())
# Verbs whose object may be a clause: "so rewarding to know I'm making a difference".
KNOWING = frozenset("know see realize realise hear think".split())
EFFECT_BREAKS = frozenset("but because cause when which how what why who where that".split())
_TRAILING = DANGLING | LOOSE_ENDS  # what a judged thing never ends with
_TRAILING_OR_BREAK = _TRAILING | EFFECT_BREAKS
SUBJECTS = frozenset("i we you he she they it".split())
LISTENER = frozenset("you your yourself yours".split())
# Words before the verb of a clause inside the subject: "things that bring us joy", "this
# plaque I keep on my desk".
THAT = frozenset("that who which".split())
RELATIVES = THAT | frozenset("i we you they he she".split())
VAGUE_THINGS = frozenset("moments moment things thing stuff times experiences feelings".split())
# What a thing may bring to anyone: "pets bring so much joy", "can have a big effect".
GOOD_EFFECTS = frozenset("difference effect impact joy happiness comfort peace bond way".split())
DEMONSTRATIVES = frozenset("that this these those".split())
REFLEXIVES = frozenset("myself ourselves yourself themselves himself herself".split())
TIMES = frozenset("today tonight yesterday week weekend day time month year morning".split())


def segments(lows: list[str], *, own: bool) -> list[tuple[int, int]]:
    """Where the parts of a clause start and end: at a comma, and at "and" or "but" when
    what follows has a verb of being ("..., and running is rewarding"; not "expressive and
    powerful"). ``own``: the clause has a subject and verb of its own before any cut."""
    # "I agree that education and infrastructure are key": after the speaker's own verb,
    # "that" opens what they judge.
    marks = (",", ";", "but", "and", "that") if own else (",", ";", "but", "and")
    cuts = [i for i, w in enumerate(lows) if w in marks]
    out: list[tuple[int, int]] = []
    start = 0
    for n, i in enumerate(cuts):
        nxt = cuts[n + 1] if n + 1 < len(cuts) else len(lows)
        if i <= start:
            continue
        if lows[i] in ("but", "and") and not (
            any(lows[j] in COPULAS or effect_at(lows, j) for j in range(i + 2, nxt))
            and ((own and start == 0) or any(w in COPULAS or is_finite(w) for w in lows[start:i]))
        ):
            continue  # "conversations about X and Y are so necessary": one subject
        out.append((start, i))
        start = i + 1 if lows[i] in (",", ";", "that") else i
    out.append((start, len(lows)))
    return out


def contact_clause(lows: list[str]) -> bool:
    """ "plaque I keep on my desk": a noun, then "I" and what the speaker does with it."""
    at = next((j for j, w in enumerate(lows) if w in ("i", "we")), -1)
    return 1 <= at < len(lows) - 1 and not is_doing(lows) and lows[0] not in SUBJECTS


def thing_head(lows: list[str]) -> list[str]:
    """The words of a thing before a contact clause ("plaque" of "plaque I keep ...")."""
    return lows[: lows.index("i")] if contact_clause(lows) and "i" in lows else lows


def is_doing(lows: list[str]) -> bool:
    """ "starting my own store", "being a role model": a gerund phrase."""
    return lows[0].endswith("ing") and (lows[0] not in v.ING_WORDS or lows[0] == "being")


def how_at(lows: list[str]) -> int:
    """In "it's so cool how ...": where what follows "how" starts; 0 when it is not that."""
    if len(lows) < 5 or lows[0] not in ("it", "its") or "how" not in lows[1:7]:
        return 0
    at = lows.index("how")
    marvel = [w for w in lows[1:at] if w not in COPULAS and w not in INTENSIFIERS]
    if len(marvel) != 1 or (marvel[0] not in PRAISE and marvel[0] not in JUDGING):
        return 0
    while at + 1 < len(lows) and lows[at + 1] in ("much", "just", "even", "a", "little"):
        at += 1  # "how much playing a game can help us grow"
    return at + 1


def enjoyed(said: list[str]) -> bool:
    """ "something I really enjoy", "what I love most": the speaker likes the thing."""
    if len(said) < 3 or said[0] not in ("something", "what", "one"):
        return False
    rest = [w for w in said[1:5] if w not in ("of", "the", "things", "thing", "really", "truly")]
    return rest[:1] == ["i"] and len(rest) > 1 and rest[1] in ("enjoy", "love", "like", "adore")


def effect_at(lows: list[str], i: int) -> bool:
    """Whether ``lows[i]`` is a verb saying what a thing does for the speaker: "helps me",
    "really helps keep me motivated", "fuels my creativity"."""
    if lows[i] in ("has", "have") and lows[i + 1 : i + 3] == ["a", "way"]:
        return True  # "nature has a way of bringing peace"
    if lows[i] in ("go", "goes") and lows[i + 1 : i + 4] == ["a", "long", "way"]:
        return True  # "a little kindness can go a long way"
    if lows[i] in EFFECT_VERBS | {"have", "has", "can"} and any(
        w in GOOD_EFFECTS for w in lows[i + 1 : i + 5]
    ):
        return True  # "little acts of kindness can have a big effect"
    return lows[i] in EFFECT_VERBS and any(
        w in ("me", "my", "us", "our", "life") for w in lows[i + 1 : i + 3]
    )


def what_it_does(said: list[str], *, mine: bool = True, room: int = 7) -> str:
    """ "helps me explore my identity", "is my stress relief", "'s a fun way to express my
    feelings": what a thing does or is for the speaker, in a few words; "" when it is not
    about the speaker."""
    lows = [w.lower() for w in said]
    i = 0
    while i < len(lows) and lows[i] in v.MODALS:
        i += 1  # "can help us grow"
    modal = i
    while i < len(lows) and lows[i] in COPULAS | {"has", "been", "like", "kind", "of"}:
        i += 1
    copular = i > modal
    if copular and i + 1 < len(lows) and lows[i] == "what" and lows[i + 1] in EFFECT_VERBS:
        i, copular = i + 1, False  # "are what get me through tough times"
    # "have become like family to me", "is like air"; not "feels like all my work paid off"
    simile = "like" in lows[modal:i] and not any(
        w in ("feels", "felt", "feel", "seems", "seemed", "sounds") for w in lows[modal:i]
    )
    out: list[str] = []
    for j, w in enumerate(said[i:], start=i):
        low = w.lower()
        nxt = lows[j + 1] if j + 1 < len(lows) else ""
        if low in EFFECT_BREAKS and out and out[-1] in UNFINISHED:
            return ""  # "made me think how much ...": cut before it says what
        if w in ',;:!?()"-' or low in EFFECT_BREAKS or (low == "so" and nxt in SUBJECTS):
            break
        if low in ("so", "such", "really", "truly", "always", "just", "much"):
            continue  # "brings me so much joy"
        if out and low in ("and", "or") and out[-1] in v.FEELINGS and nxt in v.FEELINGS:
            out.append(low)  # "made me so calm and peaceful"
            continue
        if out and low in ("and", "or") and len(out) >= 3 and out[-1] not in ("me", "us"):
            if is_verb(out[-1]) and out[-2] in ("me", "us"):
                return ""  # "helped me accept and grow into ...": the rest is needed
            break
        out.append(low if not w[1:].islower() or not w[:1].isupper() else w)
        if len(out) >= max(4, min(room, 7)):
            if len(out) > 3 and out[-2] == "to" and is_verb(out[-1]) and j + 1 < len(said):
                out = out[:-2]  # "a great chance for me to show ...": cut before its object
            break  # an opinion stays short: the thing and what it does in a few words
    cut = next((j for j, w in enumerate(out) if w in CUT_OFF or w == "never"), -1)
    if cut >= 0:
        out = out[:cut]  # "my favorite and never gets old": my favorite
        if any(w in SUBJECTS for w in out):
            return ""  # "a bond I haven't felt since": a clause of its own
    if len(out) == 2 and out[0] in SAID_WHOLE and out[1] in ("me", "us"):
        return " ".join(out)  # "nature inspires me": nothing more is needed
    to_me = any(w in ("me", "my", "us", "our", "life") for w in out)  # before "to me" goes
    while out and out[-1] in _TRAILING:
        out.pop()  # "give us strength to tackle any" -> "give us strength to tackle"
    if out and out[-1] in NEEDS_OBJECT and len(out) > 3 and out[-2] == "to":
        out = out[:-2]  # "help us stay motivated to make ...": what it does, up to "to"
    if out and (out[-1] in NEEDS_OBJECT or out[-1] in UNFINISHED):
        return ""  # "make a big ...", "made me reflect on how ...": cut before what it is
    # "can have a big effect", "make a difference": an effect in the world, not on the speaker
    mine = mine and not any(w in GOOD_EFFECTS for w in out)
    # "was a challenge", "is a blessing": a judgement of its own, about the speaker or not
    judging_noun = (
        copular and len(out) > 1 and out[0] in ("a", "an") and out[1] in JUDGING_NOUNS | {"way"}
    )
    mine = mine and not judging_noun
    if len(out) < 2 or (mine and not to_me):
        return ""
    if copular and not (
        out[0] in ("my", "our") or "way" in out[:4] or out[0] in ("an", "a") or simile
    ):
        return ""  # "is part of my life" says less than it seems; "is my escape" says it
    return " ".join(out)


def doing_word(word: str) -> bool:
    """ "being", "seeing": a verb in -ing; not "empowering", "amazing", which judge."""
    judging = word in JUDGING or word in PRAISE or word in v.ING_WORDS
    return word.endswith("ing") and is_verb(word) and not judging


def whole_doing(doing: str, *, alone: bool = False) -> bool:
    """A doing said whole: "seeing my vision happen"; not "getting lost in", "being reminded
    why", "seeing how the audience related to what I", "being working with"."""
    words = doing.lower().split()
    # one word may be enough after a noun that judges ("a dream to adopt": adopting); after
    # "important to remember (and ...)" it is cut short
    alone = alone and len(words) == 1 and words[0] not in LIGHT_DOINGS
    return (
        (alone or 2 <= len(words) <= MAX_TOPIC_WORDS)
        and words[-1] not in DANGLING | EFFECT_BREAKS | SUBJECTS
        and words[-1].split("'")[0] not in SUBJECTS  # "thinking he's ..." cut short
        and words[-1] not in VALUING | JUDGING | PRAISE  # "for such an important" cut short
        and not (len(words) > 1 and words[0] == "being" and words[1].endswith("ing"))
        # "seeing how friendship ...": a question word with too little after it
        and not any(w in EFFECT_BREAKS and len(words) - j < 3 for j, w in enumerate(words))
    )


def extraposed(said: list[str]) -> bool:
    """ "is so great to see you", "was awesome being out there": "it" stands for what
    follows the judgement, not for anything said before."""
    for j, w in enumerate(said[:7]):
        if (w == "to" and j + 1 < len(said) and is_verb(said[j + 1])) or doing_word(w):
            return bool(judgements(said[:j], praise=True) or judging_noun(said[:j]))
    return False


def deferred(said: list[str]) -> str:
    """ "is so rewarding to have my hard work pay off" -> "having my hard work pay off"."""
    doing_at = next((j for j, w in enumerate(said[:6]) if doing_word(w)), -1)
    if doing_at > 0 and "to" not in said[:doing_at] and judgements(said[:doing_at], praise=True):
        # "it was awesome being out there", "it's awesome seeing my vision happen"
        rest = ["I" if w == "i" else w for w in said[doing_at + 1 :]]
        doing = glue(doing_of(said[doing_at], rest))
        if whole_doing(doing) and not any(w in LISTENER for w in rest):
            return doing
    if said[:8].count("to") > 1 and said[said.index("to") + 1 : said.index("to") + 2] == ["me"]:
        said = [w for j, w in enumerate(said) if j not in (said.index("to"), said.index("to") + 1)]
    if "to" not in said[:6]:
        return ""  # "it's important to me to put my words into action" read past "to me"
    at = said.index("to")
    if at + 1 >= len(said) or not is_verb(said[at + 1]):
        return ""
    if not judgements(said[:at], praise=True) and not judging_noun(said[:at]):
        return ""  # neither "so rewarding to ..." nor "a dream to ..."
    verb = lemma(said[at + 1])
    rest = said[at + 2 :]
    bare = all(w in ("up", "out", "off", "on", "down", "back", "happen", "work") for w in rest[1:])
    if rest[:1] and rest[0] in v.PRONOUN_OBJECTS - REFLEXIVES and bare:
        return ""  # "key to keep it up" ("helping them learn" says enough)
    if "your" in rest or "you" in rest:
        return ""  # about the listener: who they are is not a topic of the speaker's
    if verb not in KNOWING and any(
        w in SUBJECTS and rest[j - 1] not in EFFECT_BREAKS for j, w in enumerate(rest)
    ):
        return ""  # "comforting knowing I'm ...": a clause, not a thing ("what they did" is)
    rest = ["I" if w == "i" else w for w in rest]
    doing = glue(doing_of(gerund(verb), rest))
    if rest[:1] == ["and"] and len(rest) > 1 and is_verb(rest[1]):
        # "to remember and appreciate those who served": both doings
        second = doing_of(gerund(lemma(rest[1])), rest[2:])
        doing = glue(f"{gerund(verb)} and {second}")
    return doing if whole_doing(doing, alone=bool(judging_noun(said[:at]))) else ""


def judging_noun(said: list[str]) -> str:
    """ "'s been a dream", "is a must", "was a fulfilling experience": the words that judge;
    "" when there are none."""
    words = [w for w in said if (w not in COPULAS and w not in INTENSIFIERS) or w in ("a", "an")]
    if len(words) == 2 and words[0] in ("a", "an") and words[1] in JUDGING_NOUNS:
        return " ".join(words)
    plain = len(words) == 3 and words[0] in ("a", "an") and words[2] in PLAIN_NOUNS
    if plain and (words[1] in JUDGING or words[1] in PRAISE):
        return " ".join(words)
    return ""


def good_for(said: list[str], *, room: int) -> list[str]:
    """ "awesome for showing us who we really are": the praise and what it is good for, as
    one judgement; [] when the words are not that."""
    if len(said) < 3 or said[0] not in PRAISE | JUDGING or said[1] != "for":
        return []
    if not doing_word(said[2]):
        return []
    doing = doing_of(said[2], said[3:]).split()
    doing = doing[: max(2, room - 2)]
    while doing and doing[-1] in _TRAILING_OR_BREAK:
        doing.pop()
    return [f"{said[0]} for {' '.join(doing)}"] if len(doing) >= 2 else []


def adjective(word: str) -> bool:
    """A word that reads as an adjective after "and": "creative", "beautiful", "peaceful"."""
    return word in v.ADJECTIVES or (
        len(word) > 4 and word.endswith(("ive", "ful", "ous", "ing", "able", "ible", "ic"))
    )


def judgements(said: list[str], *, praise: bool = False) -> list[str]:
    """ "rewarding and fulfilling" -> both; "great" -> none; a noun after the adjective
    ("a tough road") makes it describe that noun, not the thing: none."""
    out: list[str] = []
    i = 0
    while i < len(said) and (said[i] in COPULAS or said[i] in INTENSIFIERS):
        i += 1
    while i < len(said):
        w = said[i]
        if w in JUDGING or w in VALUING or (praise and w in PRAISE):
            out.append(w)
        elif out and said[i - 1] in ("and", "but", "&") and adjective(w):
            out.append(w)  # "so relaxing and creative": the second is judged too
        elif not out or (w not in ("and", "but", "yet", "&") and w not in INTENSIFIERS):
            break
        i += 1
    followed = i < len(said) and said[i].isalpha() and not doing_word(said[i])
    if out and followed and said[i] not in AFTER_JUDGEMENT:
        return []  # "a tough road", "important part of my life": about another noun
    return out[:2]


def object_then_judgement(lows: list[str], start: int) -> tuple[int, int]:
    """In "find it so empowering": where the judged object ends and its judgement starts."""
    for j in range(start, min(len(lows), start + MAX_TOPIC_WORDS + 1)):
        k = j
        while k < len(lows) and lows[k] in INTENSIFIERS:
            k += 1
        if k < len(lows) and (lows[k] in JUDGING or lows[k] in VALUING) and j > start:
            return j, 0
    return -1, 0
