"""Opinions: what the speaker finds a thing to be ("volunteering is so rewarding", "I find it
empowering", "it's been really calming"), kept as the thing and the words that judge it.

An opinion needs a thing of its own: a noun or gerund phrase before the verb, or "it" / "this"
/ "that" pointing back to what the turn last spoke of (the object of its last fact). Only words
that judge (``_JUDGING``) make an opinion: "it was great" says too little to keep. Calling a
thing important, key or crucial says what the speaker values.
"""

from __future__ import annotations

from turngraph.extract import vocab as v
from turngraph.extract.clauses import Clause, glue, is_finite, is_past, is_verb
from turngraph.extract.findings import TurnState
from turngraph.extract.lexicon import lemma
from turngraph.extract.phrases import doing_phrase, gerund, strip_articles

# Adjectives that say how a thing is felt or judged, specific enough to remember.
_JUDGING = frozenset(
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
_PRAISE = frozenset(
    "awesome amazing great fun wonderful fantastic incredible lovely beautiful cool nice "
    "best unforgettable".split()
)
# Adjectives that say the speaker holds a thing dear: "family is everything" aside, these.
_VALUING = frozenset("important key crucial essential vital necessary".split())
_COPULAS = frozenset(
    "is 's are 're was were been be feels felt seems seemed sounds sounded can become "
    "becomes became".split()
)
# Words between a thing and its verb: "dancing has kept me going", "yoga really helps".
_BEFORE_VERB = frozenset(
    "has have had does do did really always just also truly definitely sure".split()
)
_INTENSIFIERS = frozenset(
    (
        "so really super very such pretty quite incredibly truly always also just a an been "
        "be definitely totally honestly absolutely extremely kinda sorta kind sort of still "
        "both often sometimes actually seriously surprisingly especially even more most "
        "sooo soo insanely crazy"
    ).split()
)
_POINTING = frozenset(("it", "this", "that", "which", "they"))
# Attribute keys whose values are things "it" may point back to.
_THINGS = frozenset("likes hobbies habits goals learning values education opinions".split())
# Nouns that say little but carry the adjective before them: "a fulfilling experience".
_PLAIN_NOUNS = frozenset("experience thing feeling journey process time moment".split())
# Nouns that judge what they name: "was a challenge", "is a blessing".
_JUDGING_NOUNS = frozenset(
    "challenge struggle relief blessing nightmare lifesaver game-changer joy pleasure "
    "privilege dream escape must must-have".split()
)
# Subjects that are no thing the speaker judges.
_NOT_TOPICS = frozenset(
    (
        "you your he she we i my life everything anything something nothing things "
        "there here what who everyone everybody someone nobody people mine yours his her "
        "their"
    ).split()
)
# A phrase that stops on one of these was cut from a longer one.
_DANGLING = frozenset(
    "a an the of to for with on in at by about from based and or my during into after "
    "before".split()
)
# Words that show the "topic" is a clause of its own: "winning must have been thrilling".
_CUT_OFF = frozenset("not n't never 've 'd 'll".split())
MAX_TOPIC_WORDS = 8
MAX_VALUE_WORDS = 8
# Verbs that need what follows them: "made me think how much ...".
_UNFINISHED = frozenset("think realize realise wonder see know feel reflect".split())
# Words that open a clause of their own: "when times are hard" judges no thing.
_SUBORDINATE = frozenset("when if because since while as though although unless until".split())
# Words that may follow a judgement without it judging them: "rewarding too", "tough but".
_AFTER_JUDGEMENT = frozenset(
    "to for when too though tho honestly lol haha now lately sometimes at in with but yet and "
    "as because cause since especially if".split()
)
# Verbs that say what a thing does for the speaker.
_EFFECT_VERBS = frozenset(
    "helps helped keeps kept gets got fuels fueled lets gives gave makes made brings "
    "brought reminds reminded calms inspires inspired motivates motivated relaxes "
    "teaches taught allow allows creates create help keep get fuel give make bring remind "
    "calm inspire motivate teach".split()
)
_LOOSE_ENDS = frozenset(
    "i we me us any some every more big great little much be want all too".split()
)
_NEEDS_OBJECT = frozenset(
    "make makes made give gives gave get gets got help helps helped put stay keep feel "
    "remember".split()
)
# Verbs whose object may be a clause: "so rewarding to know I'm making a difference".
_KNOWING = frozenset("know see realize realise hear think".split())
_EFFECT_BREAKS = frozenset("but because cause when which how what why who where that".split())
_SUBJECTS = frozenset("i we you he she they it".split())
_LISTENER = frozenset("you your yourself yours".split())
# Words before the verb of a clause inside the subject: "things that bring us joy", "this
# plaque I keep on my desk".
_THAT = frozenset("that who which".split())
_RELATIVES = _THAT | frozenset("i we you they he she".split())
_VAGUE_THINGS = frozenset("moments moment things thing stuff times experiences feelings".split())
# What a thing may bring to anyone: "pets bring so much joy", "can have a big effect".
_GOOD_EFFECTS = frozenset("difference effect impact joy happiness comfort peace bond way".split())
_DEMONSTRATIVES = frozenset("that this these those".split())
_REFLEXIVES = frozenset("myself ourselves yourself themselves himself herself".split())
_TIMES = frozenset("today tonight yesterday week weekend day time month year morning".split())


class OpinionRules(TurnState):
    """How the speaker judges things: the ``opinions`` and ``values`` keys."""

    topic: str  # what the turn last spoke of, for "it" / "this"

    def _opinion(self, clause: Clause) -> bool:
        """Record the opinions said in ``clause`` ("X is so ADJ, and Y is ADJ"); whether the
        clause is one, so that nothing else is read from it."""
        words = clause.words
        lows = [w.lower() for w in words]
        if clause.subject == "self" and clause.verb == "find":
            # "I find it so empowering", "I find pottery relaxing"
            at = next((i for i, w in enumerate(lows) if w in ("find", "found", "finding")), -1)
            topic_end, judged = _object_then_judgement(lows, at + 1)
            if topic_end < 0:
                return False
            return self._keep_opinion(words[at + 1 : topic_end], lows[topic_end:], judged)
        # "I love all kinds of music but jazz is my favorite": a clause about the speaker may
        # go on to judge something else after a comma, "and" or "but".
        # "Support from loved ones is vital" reads like an imperative until its "is".
        ordered = clause.subject == "imperative" and not any(
            w in _COPULAS or _effect_at(lows, j) for j, w in enumerate(lows[:7])
        )
        # "Playing it helps me ...": a gerund subject, not a dropped "I".
        # "Pictures really have a way of ...": a plural subject read as a verb
        gerund_led = clause.elided and (
            lows[0].endswith("ing") or (lows[0].endswith("s") and lows[0] not in v.BE | v.HAVE)
        )
        own = (clause.subject in ("self", "person", "you") and not gerund_led) or ordered
        whole = False
        known = len(self.out.attributes)
        for n, (start, end) in enumerate(_segments(lows, own=own)):
            said = lows[start:end]
            how = _how_at(said)
            if how and self._keep_how(words[start + how : end]):
                whole = whole or n == 0
                continue
            at = next(
                (
                    i
                    for i, w in enumerate(said[:9])
                    # not the verb of a relative clause: "things that bring us joy is ..."
                    if (w in _COPULAS and (i == 0 or said[i - 1] not in _THAT))
                    or (_effect_at(said, i) and (i < 2 or said[i - 1] not in _RELATIVES))
                ),
                -1,
            )
            if (n == 0 and own) or at <= 0:
                continue
            if self._keep_opinion(
                words[start : start + at], said[at:], None, words[start:end][at:]
            ):
                whole = whole or n == 0
        # "Losing my job gave me the push ...": the speaker's own doing is an event as well,
        # unless the clause said it is a doing they enjoy ("baking for people is something
        # I enjoy").
        liked = any(a.key == "likes" for a in self.out.attributes[known:])
        return whole and (not gerund_led or liked)

    def _keep_opinion(
        self,
        topic_words: list[str],
        said: list[str],
        judged: int | None,
        as_said: list[str] | None = None,
    ) -> bool:
        """Keep what is said of a thing (``said``, lower case; ``as_said``, as written)."""
        found = self._topic_of(topic_words, said)
        if found is None:
            return False
        topic, lows, owner = found
        i = judged if judged is not None else 0
        while i < len(said) and (said[i] in _COPULAS or said[i] in _INTENSIFIERS):
            i += 1
        # Praise says little of a thing, but of a doing it says the speaker enjoys it:
        # "connecting with fellow gamers is always awesome".
        # and of a named thing it says what the speaker thinks of it ("Little Women was
        # amazing"): a title or a place, not a common noun ("the party was awesome").
        named = topic[:1].isupper() and topic.casefold() not in (self.speaker.casefold(), "i")
        doing = (_is_doing(topic.lower().split()) or named) and not owner
        adjectives = _judgements(said[i:], praise=doing)
        if not adjectives and lows[0] not in _POINTING:
            # "art's awesome for showing us who we really are"
            adjectives = _good_for(said[i:], room=MAX_VALUE_WORDS - len(lows))
        if not adjectives:
            if lows[0] not in _POINTING and _enjoyed(said[i:]):
                # "Being a positive role model for them is something I enjoy"
                self.out.attribute(self._speaker(), "likes", topic)
                self.topic = topic
                return True
            at_to = said.index("to") if "to" in said else len(said)
            noun = _judging_noun(said[:at_to]) if lows[0] == "it" else ""
            # "it's been a dream to have a family": having a family, a dream
            effect = noun or _what_it_does(as_said or said, room=MAX_VALUE_WORDS - len(lows))
            if effect:
                # "painting helps me explore my identity", "dance is my stress relief"
                self.out.attribute(self._speaker(), "opinions", f"{topic}: {effect}")
                self.topic = topic
                return True
            praised = i < len(said) and (said[i] in _PRAISE or said[i] in v.ADJECTIVES)
            person = lows[-1] in v.KIN or lows[-1] in v.FAMILY_WORDS  # "my mom was ..."
            if lows[0] not in _POINTING and not praised and not person:
                # "contemporary is my top pick. It's so expressive"; not "the creativity is
                # awesome. Plus, making it is so calming", where "it" is still the pottery
                self.topic = topic
            return False
        speaker = self._speaker()
        if adjectives[0] in _VALUING:
            self.out.attribute(speaker, "values", topic)
        else:
            self.out.attribute(speaker, "opinions", f"{topic}: {' and '.join(adjectives)}")
        self.topic = topic
        return True

    def _keep_how(self, words: list[str]) -> bool:
        """ "(It's so cool how) fantasy stories allow me to explore other cultures": the
        thing, and what the speaker marvels that it does."""
        lows = [w.lower() for w in words]
        window = list(enumerate(lows[: MAX_TOPIC_WORDS + 1]))[1:]
        # a modal or a verb of effect first: "minor tweaks to the system can make ..."
        verb = next((j for j, w in window if w in _EFFECT_VERBS or w in v.MODALS), -1)
        if verb < 0:
            verb = next((j for j, w in window if is_finite(w)), -1)
        if verb < 0:
            return False
        found = self._topic_of(words[:verb], lows[verb:])
        effect = _what_it_does(words[verb:], mine=False, room=MAX_VALUE_WORDS - verb)
        if found is None or not effect or found[1][0] in _POINTING:
            return False
        self.out.attribute(self._speaker(), "opinions", f"{found[0]}: {effect}")
        self.topic = found[0]
        return True

    def _topic_of(
        self, topic_words: list[str], said: list[str]
    ) -> tuple[str, list[str], str] | None:
        """The thing a clause speaks of, from the words before its verb: (the thing, its
        words in lower case, whose it is when the listener's); None when it names none."""
        while topic_words and topic_words[0].lower() in v.DISCOURSE | {"and", "but", "so"}:
            topic_words = topic_words[1:]
        owner = ""
        if topic_words and topic_words[0].lower() == "your":
            # "your perseverance is inspiring": the listener's, said by the speaker
            if not self.addressee or self.addressee.casefold() in ("user", "assistant"):
                return None
            owner, topic_words = f"{self.addressee}'s ", topic_words[1:]
        topic_words = strip_articles(topic_words)
        while topic_words and topic_words[-1].lower() in _BEFORE_VERB:
            topic_words = topic_words[:-1]  # "dancing has kept me going", "yoga really helps"
        lows = [w.lower() for w in topic_words]
        if (
            not lows
            or len(lows) > MAX_TOPIC_WORDS
            or any(w in v.MODALS or w in _CUT_OFF for w in lows)
            # a doing may say whose ("starting my own store"), and so may what the speaker
            # does with a thing ("this plaque I keep on my desk"); a thing may not ("my life")
            or any(w in _NOT_TOPICS for w in (lows[:1] if _is_doing(lows) else _head(lows)))
            or all(w in _TIMES for w in lows)
            or lows[-1] in _DANGLING
            or lows[0] in _SUBORDINATE
            or lows[0] in v.PREPOSITIONS  # "(one) of my favorites"
            or lows[-1] in _VAGUE_THINGS
            or (len(lows) == 1 and (is_past(lows[0]) or lows[0].endswith("ed")))
        ):
            return None  # not "those moments", not "focused" cut from "resilient and focused"
        if any(w in ',;:!?()"' for w in lows):
            return None
        if lows[0] in _POINTING:
            if len(lows) > 1:
                return None
            topic = self.topic
            if lows[0] == "they" and not topic.lower().endswith("s"):
                return None  # "they" stands for things, as "non-fiction books" do
            if lows[0] == "it" and _extraposed(said):
                # "it's so rewarding to see it pay off": what "it" stands for comes after
                # ("it was great to see you" stands for nothing to keep)
                topic = _deferred(said)
            if not topic:
                return None
        else:
            if "it" in lows[1:] and self.topic and lows[0].endswith("ing"):
                # "Guitar's mostly my thing. Playing it helps me ...": playing guitar
                topic_words = [self.topic if w.lower() == "it" else w for w in topic_words]
                lows = [w.lower() for w in topic_words]
            if "you" in lows[1:] and self.addressee and lows[lows.index("you") - 1] == "like":
                # "working with passionate people like you"
                topic_words = [self.addressee if w.lower() == "you" else w for w in topic_words]
                lows = [w.lower() for w in topic_words]
            # "being a role model for them" names a doing; "making it" does not, and nor
            # does a doing of the listener's ("starting your own business")
            doing_words = [] if _is_doing(lows) else lows
            subject = any(w in _SUBJECTS for w in lows[1:])
            if (
                any(w in _LISTENER for w in lows[1:])
                or lows[-1] in _SUBJECTS  # cut after a subject: "the recipe I"
                or (subject and not _contact_clause(lows))
            ):
                return None
            # "that place" is a thing; "that" alone is not
            pointing = [
                w
                for j, w in enumerate(doing_words)
                if w in v.PRONOUN_OBJECTS
                and not (w in _DEMONSTRATIVES and j + 1 < len(doing_words))
            ]
            if (
                pointing
                or lows[0] in v.SUBJECT_PRONOUNS
                or lows[0] in v.PRONOUN_OBJECTS
                or lows[0] in v.ADVERBS | v.HEDGES  # "and hopefully have an impact"
                or (len(lows) > 1 and lows[1] in v.PRONOUN_OBJECTS - _REFLEXIVES)
            ):
                return None
            first = topic_words[0]
            if first[1:].islower() and first.casefold() not in self.known:
                first = first.lower()  # "Watching the sunset is ..." at a sentence's start
            topic = owner + " ".join([first, *topic_words[1:]])
        return glue(topic), lows, owner

    def _follow_topic(
        self, actions: int, attributes: int, topic: str, *, about_listener: bool, planned: bool
    ) -> None:
        """What the clause just read spoke of becomes what "it" points to, unless the clause
        named its topic itself ("but jazz is my favorite")."""
        if self.topic != topic:
            return
        if planned:
            # "I can make a special experience for my customers. It's tough": what is only
            # planned is not what "it" is.
            self.topic = ""
            return
        said = ""
        if len(self.out.actions) > actions:
            said = self.out.actions[-1].object or self.out.actions[-1].place or ""
        elif len(self.out.attributes) > attributes and self.out.attributes[-1].key in _THINGS:
            said = self.out.attributes[-1].value  # a liking or a goal; not "mom", not a city
        words = said.lower().split()
        if words and words[-1] not in _DANGLING and not (len(words) == 1 and is_past(words[0])):
            self.topic = said  # not "mentored", not "a story based"
        elif about_listener:
            # "You're so dedicated to your studio, it's inspiring": what "it" points to is
            # the listener's, and unknown.
            self.topic = ""


def _segments(lows: list[str], *, own: bool) -> list[tuple[int, int]]:
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
            any(lows[j] in _COPULAS or _effect_at(lows, j) for j in range(i + 2, nxt))
            and ((own and start == 0) or any(w in _COPULAS or is_finite(w) for w in lows[start:i]))
        ):
            continue  # "conversations about X and Y are so necessary": one subject
        out.append((start, i))
        start = i + 1 if lows[i] in (",", ";", "that") else i
    out.append((start, len(lows)))
    return out


def _contact_clause(lows: list[str]) -> bool:
    """ "plaque I keep on my desk": a noun, then "I" and what the speaker does with it."""
    at = next((j for j, w in enumerate(lows) if w in ("i", "we")), -1)
    return 1 <= at < len(lows) - 1 and not _is_doing(lows) and lows[0] not in _SUBJECTS


def _head(lows: list[str]) -> list[str]:
    """The words of a thing before a contact clause ("plaque" of "plaque I keep ...")."""
    return lows[: lows.index("i")] if _contact_clause(lows) and "i" in lows else lows


def _is_doing(lows: list[str]) -> bool:
    """ "starting my own store", "being a role model": a gerund phrase."""
    return lows[0].endswith("ing") and (lows[0] not in v.ING_WORDS or lows[0] == "being")


def _how_at(lows: list[str]) -> int:
    """In "it's so cool how ...": where what follows "how" starts; 0 when it is not that."""
    if len(lows) < 5 or lows[0] not in ("it", "its") or "how" not in lows[1:7]:
        return 0
    at = lows.index("how")
    marvel = [w for w in lows[1:at] if w not in _COPULAS and w not in _INTENSIFIERS]
    if len(marvel) != 1 or (marvel[0] not in _PRAISE and marvel[0] not in _JUDGING):
        return 0
    while at + 1 < len(lows) and lows[at + 1] in ("much", "just", "even", "a", "little"):
        at += 1  # "how much playing a game can help us grow"
    return at + 1


def _enjoyed(said: list[str]) -> bool:
    """ "something I really enjoy", "what I love most": the speaker likes the thing."""
    if len(said) < 3 or said[0] not in ("something", "what", "one"):
        return False
    rest = [w for w in said[1:5] if w not in ("of", "the", "things", "thing", "really", "truly")]
    return rest[:1] == ["i"] and len(rest) > 1 and rest[1] in ("enjoy", "love", "like", "adore")


def _effect_at(lows: list[str], i: int) -> bool:
    """Whether ``lows[i]`` is a verb saying what a thing does for the speaker: "helps me",
    "really helps keep me motivated", "fuels my creativity"."""
    if lows[i] in ("has", "have") and lows[i + 1 : i + 3] == ["a", "way"]:
        return True  # "nature has a way of bringing peace"
    if lows[i] in ("go", "goes") and lows[i + 1 : i + 4] == ["a", "long", "way"]:
        return True  # "a little kindness can go a long way"
    if lows[i] in _EFFECT_VERBS | {"have", "has", "can"} and any(
        w in _GOOD_EFFECTS for w in lows[i + 1 : i + 5]
    ):
        return True  # "little acts of kindness can have a big effect"
    return lows[i] in _EFFECT_VERBS and any(
        w in ("me", "my", "us", "our", "life") for w in lows[i + 1 : i + 3]
    )


def _what_it_does(said: list[str], *, mine: bool = True, room: int = 7) -> str:
    """ "helps me explore my identity", "is my stress relief", "'s a fun way to express my
    feelings": what a thing does or is for the speaker, in a few words; "" when it is not
    about the speaker."""
    lows = [w.lower() for w in said]
    i = 0
    while i < len(lows) and lows[i] in v.MODALS:
        i += 1  # "can help us grow"
    modal = i
    while i < len(lows) and lows[i] in _COPULAS | {"has", "been", "like", "kind", "of"}:
        i += 1
    copular = i > modal
    if copular and i + 1 < len(lows) and lows[i] == "what" and lows[i + 1] in _EFFECT_VERBS:
        i, copular = i + 1, False  # "are what get me through tough times"
    # "have become like family to me", "is like air"; not "feels like all my work paid off"
    simile = "like" in lows[modal:i] and not any(
        w in ("feels", "felt", "feel", "seems", "seemed", "sounds") for w in lows[modal:i]
    )
    out: list[str] = []
    for j, w in enumerate(said[i:], start=i):
        low = w.lower()
        nxt = lows[j + 1] if j + 1 < len(lows) else ""
        if low in _EFFECT_BREAKS and out and out[-1] in _UNFINISHED:
            return ""  # "made me think how much ...": cut before it says what
        if w in ',;:!?()"-' or low in _EFFECT_BREAKS or (low == "so" and nxt in _SUBJECTS):
            break
        if low in ("so", "such", "really", "truly", "always", "just", "much"):
            continue  # "brings me so much joy"
        if out and low in ("and", "or") and len(out) >= 3 and out[-1] not in ("me", "us"):
            if is_verb(out[-1]) and out[-2] in ("me", "us"):
                return ""  # "helped me accept and grow into ...": the rest is needed
            break
        out.append(low if not w[1:].islower() or not w[:1].isupper() else w)
        if len(out) >= max(4, min(room, 7)):
            break  # an opinion stays short: the thing and what it does in a few words
    to_me = any(w in ("me", "my", "us", "our", "life") for w in out)  # before "to me" goes
    while out and out[-1] in _DANGLING | _LOOSE_ENDS:
        out.pop()  # "give us strength to tackle any" -> "give us strength to tackle"
    if out and out[-1] in _NEEDS_OBJECT and len(out) > 3 and out[-2] == "to":
        out = out[:-2]  # "help us stay motivated to make ...": what it does, up to "to"
    if out and (out[-1] in _NEEDS_OBJECT or out[-1] in _UNFINISHED):
        return ""  # "make a big ...", "made me reflect on how ...": cut before what it is
    # "can have a big effect", "make a difference": an effect in the world, not on the speaker
    mine = mine and not any(w in _GOOD_EFFECTS for w in out)
    # "was a challenge", "is a blessing": a judgement of its own, about the speaker or not
    judging_noun = (
        copular and len(out) > 1 and out[0] in ("a", "an") and out[1] in _JUDGING_NOUNS | {"way"}
    )
    mine = mine and not judging_noun
    if len(out) < 2 or (mine and not to_me):
        return ""
    if copular and not (
        out[0] in ("my", "our") or "way" in out[:4] or out[0] in ("an", "a") or simile
    ):
        return ""  # "is part of my life" says less than it seems; "is my escape" says it
    return " ".join(out)


def _doing_word(word: str) -> bool:
    """ "being", "seeing": a verb in -ing; not "empowering", "amazing", which judge."""
    judging = word in _JUDGING or word in _PRAISE or word in v.ING_WORDS
    return word.endswith("ing") and is_verb(word) and not judging


def _whole_doing(doing: str) -> bool:
    """A doing said whole: "seeing my vision happen"; not "getting lost in", "being reminded
    why", "seeing how the audience related to what I", "being working with"."""
    words = doing.lower().split()
    return (
        2 <= len(words) <= MAX_TOPIC_WORDS
        and words[-1] not in _DANGLING | _EFFECT_BREAKS | _SUBJECTS
        and not (words[0] == "being" and words[1].endswith("ing"))
        # "seeing how friendship ...": a question word with too little after it
        and not any(w in _EFFECT_BREAKS and len(words) - j < 3 for j, w in enumerate(words))
    )


def _extraposed(said: list[str]) -> bool:
    """ "is so great to see you", "was awesome being out there": "it" stands for what
    follows the judgement, not for anything said before."""
    for j, w in enumerate(said[:7]):
        if (w == "to" and j + 1 < len(said) and is_verb(said[j + 1])) or _doing_word(w):
            return bool(_judgements(said[:j], praise=True) or _judging_noun(said[:j]))
    return False


def _deferred(said: list[str]) -> str:
    """ "is so rewarding to have my hard work pay off" -> "having my hard work pay off"."""
    doing_at = next((j for j, w in enumerate(said[:6]) if _doing_word(w)), -1)
    if doing_at > 0 and "to" not in said[:doing_at] and _judgements(said[:doing_at], praise=True):
        # "it was awesome being out there", "it's awesome seeing my vision happen"
        rest = ["I" if w == "i" else w for w in said[doing_at + 1 :]]
        doing = glue(doing_phrase(Clause(words=[], verb=said[doing_at], rest=rest)))
        if _whole_doing(doing) and not any(w in _LISTENER for w in rest):
            return doing
    if said[:8].count("to") > 1 and said[said.index("to") + 1 : said.index("to") + 2] == ["me"]:
        said = [w for j, w in enumerate(said) if j not in (said.index("to"), said.index("to") + 1)]
    if "to" not in said[:6]:
        return ""  # "it's important to me to put my words into action" read past "to me"
    at = said.index("to")
    if at + 1 >= len(said) or not is_verb(said[at + 1]):
        return ""
    if not _judgements(said[:at], praise=True) and not _judging_noun(said[:at]):
        return ""  # neither "so rewarding to ..." nor "a dream to ..."
    verb = lemma(said[at + 1])
    rest = said[at + 2 :]
    if "your" in rest or "you" in rest:
        return ""  # about the listener: who they are is not a topic of the speaker's
    if verb not in _KNOWING and any(
        w in _SUBJECTS and rest[j - 1] not in _EFFECT_BREAKS for j, w in enumerate(rest)
    ):
        return ""  # "comforting knowing I'm ...": a clause, not a thing ("what they did" is)
    rest = ["I" if w == "i" else w for w in rest]
    doing = glue(doing_phrase(Clause(words=[], verb=gerund(verb), rest=rest)))
    return doing if _whole_doing(doing) else ""


def _judging_noun(said: list[str]) -> str:
    """ "'s been a dream", "is a must", "was a fulfilling experience": the words that judge;
    "" when there are none."""
    words = [w for w in said if (w not in _COPULAS and w not in _INTENSIFIERS) or w in ("a", "an")]
    if len(words) == 2 and words[0] in ("a", "an") and words[1] in _JUDGING_NOUNS:
        return " ".join(words)
    plain = len(words) == 3 and words[0] in ("a", "an") and words[2] in _PLAIN_NOUNS
    if plain and (words[1] in _JUDGING or words[1] in _PRAISE):
        return " ".join(words)
    return ""


def _good_for(said: list[str], *, room: int) -> list[str]:
    """ "awesome for showing us who we really are": the praise and what it is good for, as
    one judgement; [] when the words are not that."""
    if len(said) < 3 or said[0] not in _PRAISE | _JUDGING or said[1] != "for":
        return []
    if not _doing_word(said[2]):
        return []
    doing = doing_phrase(Clause(words=[], verb=said[2], rest=said[3:])).split()
    doing = doing[: max(2, room - 2)]
    while doing and doing[-1] in _DANGLING | _LOOSE_ENDS | _EFFECT_BREAKS:
        doing.pop()
    return [f"{said[0]} for {' '.join(doing)}"] if len(doing) >= 2 else []


def _adjective(word: str) -> bool:
    """A word that reads as an adjective after "and": "creative", "beautiful", "peaceful"."""
    return word in v.ADJECTIVES or (
        len(word) > 4 and word.endswith(("ive", "ful", "ous", "ing", "able", "ible", "ic"))
    )


def _judgements(said: list[str], *, praise: bool = False) -> list[str]:
    """ "rewarding and fulfilling" -> both; "great" -> none; a noun after the adjective
    ("a tough road") makes it describe that noun, not the thing: none."""
    out: list[str] = []
    i = 0
    while i < len(said) and (said[i] in _COPULAS or said[i] in _INTENSIFIERS):
        i += 1
    while i < len(said):
        w = said[i]
        if w in _JUDGING or w in _VALUING or (praise and w in _PRAISE):
            out.append(w)
        elif out and said[i - 1] in ("and", "but", "&") and _adjective(w):
            out.append(w)  # "so relaxing and creative": the second is judged too
        elif not out or (w not in ("and", "but", "yet", "&") and w not in _INTENSIFIERS):
            break
        i += 1
    followed = i < len(said) and said[i].isalpha() and not _doing_word(said[i])
    if out and followed and said[i] not in _AFTER_JUDGEMENT:
        return []  # "a tough road", "important part of my life": about another noun
    return out[:2]


def _object_then_judgement(lows: list[str], start: int) -> tuple[int, int]:
    """In "find it so empowering": where the judged object ends and its judgement starts."""
    for j in range(start, min(len(lows), start + MAX_TOPIC_WORDS + 1)):
        k = j
        while k < len(lows) and lows[k] in _INTENSIFIERS:
            k += 1
        if k < len(lows) and (lows[k] in _JUDGING or lows[k] in _VALUING) and j > start:
            return j, 0
    return -1, 0
