"""Opinions: what the speaker finds a thing to be ("volunteering is so rewarding", "I find it
empowering", "it's been really calming"), kept as the thing and the words that judge it.

An opinion needs a thing of its own: a noun or gerund phrase before the verb, or "it" / "this"
/ "that" pointing back to what the turn last spoke of (the object of its last fact). Only words
that judge (``_JUDGING``) make an opinion: "it was great" says too little to keep. Calling a
thing important, key or crucial says what the speaker values.
"""

from __future__ import annotations

from turngraph.extract import vocab as v
from turngraph.extract.clauses import Clause, glue, is_finite, is_past
from turngraph.extract.findings import TurnState
from turngraph.extract.judging import (
    BEFORE_VERB,
    COPULAS,
    CUT_OFF,
    DANGLING,
    DEMONSTRATIVES,
    EFFECT_VERBS,
    INTENSIFIERS,
    LISTENER,
    MAX_TOPIC_WORDS,
    MAX_VALUE_WORDS,
    NOT_TOPICS,
    POINTING,
    PRAISE,
    REFLEXIVES,
    RELATIVES,
    SUBJECTS,
    SUBORDINATE,
    THAT,
    THINGS,
    TIMES,
    VAGUE_THINGS,
    VALUING,
    contact_clause,
    deferred,
    effect_at,
    enjoyed,
    extraposed,
    good_for,
    how_at,
    is_doing,
    judgements,
    judging_noun,
    object_then_judgement,
    segments,
    thing_head,
    what_it_does,
)
from turngraph.extract.phrases import strip_articles


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
            topic_end, judged = object_then_judgement(lows, at + 1)
            if topic_end < 0:
                return False
            return self._keep_opinion(words[at + 1 : topic_end], lows[topic_end:], judged)
        # "I love all kinds of music but jazz is my favorite": a clause about the speaker may
        # go on to judge something else after a comma, "and" or "but".
        # "Support from loved ones is vital" reads like an imperative until its "is".
        ordered = clause.subject == "imperative" and not any(
            w in COPULAS or effect_at(lows, j) for j, w in enumerate(lows[:7])
        )
        # "Playing it helps me ...": a gerund subject, not a dropped "I".
        # "Pictures really have a way of ...": a plural subject read as a verb
        gerund_led = clause.elided and (
            lows[0].endswith("ing") or (lows[0].endswith("s") and lows[0] not in v.BE | v.HAVE)
        )
        own = (clause.subject in ("self", "person", "you") and not gerund_led) or ordered
        whole = False
        known = len(self.out.attributes)
        for n, (start, end) in enumerate(segments(lows, own=own)):
            said = lows[start:end]
            how = how_at(said)
            if how and self._keep_how(words[start + how : end]):
                whole = whole or n == 0
                continue
            at = next(
                (
                    i
                    for i, w in enumerate(said[:9])
                    # not the verb of a relative clause: "things that bring us joy is ..."
                    if (w in COPULAS and (i == 0 or said[i - 1] not in THAT))
                    or (effect_at(said, i) and (i < 2 or said[i - 1] not in RELATIVES))
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
        while i < len(said) and (said[i] in COPULAS or said[i] in INTENSIFIERS):
            i += 1
        # Praise says little of a thing, but of a doing it says the speaker enjoys it:
        # "connecting with fellow gamers is always awesome".
        # and of a named thing it says what the speaker thinks of it ("Little Women was
        # amazing"): a title or a place, not a common noun ("the party was awesome").
        named = topic[:1].isupper() and topic.casefold() not in (self.speaker.casefold(), "i")
        doing = (is_doing(topic.lower().split()) or named) and not owner
        adjectives = judgements(said[i:], praise=doing)
        if not adjectives and lows[0] not in POINTING:
            # "art's awesome for showing us who we really are"
            adjectives = good_for(said[i:], room=MAX_VALUE_WORDS - len(lows))
        if not adjectives:
            if lows[0] not in POINTING and enjoyed(said[i:]):
                # "Being a positive role model for them is something I enjoy"
                self.out.attribute(self._speaker(), "likes", topic)
                self.topic = topic
                return True
            at_to = said.index("to") if "to" in said else len(said)
            noun = judging_noun(said[:at_to]) if lows[0] == "it" else ""
            # "it's been a dream to have a family": having a family, a dream
            effect = noun or what_it_does(as_said or said, room=MAX_VALUE_WORDS - len(lows))
            if effect:
                # "painting helps me explore my identity", "dance is my stress relief"
                self.out.attribute(self._speaker(), "opinions", f"{topic}: {effect}")
                self.topic = topic
                return True
            praised = i < len(said) and (said[i] in PRAISE or said[i] in v.ADJECTIVES)
            person = lows[-1] in v.KIN or lows[-1] in v.FAMILY_WORDS  # "my mom was ..."
            if lows[0] not in POINTING and not praised and not person:
                # "contemporary is my top pick. It's so expressive"; not "the creativity is
                # awesome. Plus, making it is so calming", where "it" is still the pottery
                self.topic = topic
            return False
        speaker = self._speaker()
        if adjectives[0] in VALUING:
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
        verb = next((j for j, w in window if w in EFFECT_VERBS or w in v.MODALS), -1)
        if verb < 0:
            verb = next((j for j, w in window if is_finite(w)), -1)
        if verb < 0:
            return False
        found = self._topic_of(words[:verb], lows[verb:])
        effect = what_it_does(words[verb:], mine=False, room=MAX_VALUE_WORDS - verb)
        if found is None or not effect or found[1][0] in POINTING:
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
        while topic_words and topic_words[-1].lower() in BEFORE_VERB:
            topic_words = topic_words[:-1]  # "dancing has kept me going", "yoga really helps"
        lows = [w.lower() for w in topic_words]
        if (
            not lows
            or len(lows) > MAX_TOPIC_WORDS
            or any(w in v.MODALS or w in CUT_OFF for w in lows)
            # a doing may say whose ("starting my own store"), and so may what the speaker
            # does with a thing ("this plaque I keep on my desk"); a thing may not ("my life")
            or any(w in NOT_TOPICS for w in (lows[:1] if is_doing(lows) else thing_head(lows)))
            or all(w in TIMES for w in lows)
            or lows[-1] in DANGLING
            or lows[0] in SUBORDINATE
            or lows[0] in v.PREPOSITIONS  # "(one) of my favorites"
            or lows[-1] in VAGUE_THINGS
            or (len(lows) == 1 and (is_past(lows[0]) or lows[0].endswith("ed")))
        ):
            return None  # not "those moments", not "focused" cut from "resilient and focused"
        if any(w in ',;:!?()"' for w in lows):
            return None
        if lows[0] in POINTING:
            if len(lows) > 1:
                return None
            topic = self.topic
            if lows[0] == "they" and not topic.lower().endswith("s"):
                return None  # "they" stands for things, as "non-fiction books" do
            if lows[0] == "it" and extraposed(said):
                # "it's so rewarding to see it pay off": what "it" stands for comes after
                # ("it was great to see you" stands for nothing to keep)
                topic = deferred(said)
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
            doing_words = [] if is_doing(lows) else lows
            subject = any(w in SUBJECTS for w in lows[1:])
            if (
                any(w in LISTENER for w in lows[1:])
                or lows[-1] in SUBJECTS  # cut after a subject: "the recipe I"
                or (subject and not contact_clause(lows))
            ):
                return None
            # "that place" is a thing; "that" alone is not
            pointing = [
                w
                for j, w in enumerate(doing_words)
                if w in v.PRONOUN_OBJECTS and not (w in DEMONSTRATIVES and j + 1 < len(doing_words))
            ]
            if (
                pointing
                or lows[0] in v.SUBJECT_PRONOUNS
                or lows[0] in v.PRONOUN_OBJECTS
                or lows[0] in v.ADVERBS | v.HEDGES  # "and hopefully have an impact"
                or (len(lows) > 1 and lows[1] in v.PRONOUN_OBJECTS - REFLEXIVES)
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
            if self.out.actions[-1].verb == "feel":
                return  # "I'm so thrilled. It's fulfilling": a feeling is no "it"
            said = self.out.actions[-1].object or self.out.actions[-1].place or ""
        elif len(self.out.attributes) > attributes and self.out.attributes[-1].key in THINGS:
            said = self.out.attributes[-1].value  # a liking or a goal; not "mom", not a city
        words = said.lower().split()
        if (
            words
            and words[-1] not in DANGLING
            and words[0] not in v.PREPOSITIONS  # not "of my favorites"
            and words[-1] not in v.KIN  # not "grandma": a person is no "it"
            and words[-1] not in v.FAMILY_WORDS
            and not (len(words) == 1 and is_past(words[0]))  # not "mentored"
        ):
            self.topic = said
        elif about_listener:
            # "You're so dedicated to your studio, it's inspiring": what "it" points to is
            # the listener's, and unknown.
            self.topic = ""
