"""Whole-sentence patterns of chat: names, contacts, birthdays, favorites, pets and family
mentions, shared photos and set phrases of praise or gratitude."""

from __future__ import annotations

import re

from turngraph.extract import gazetteers as gz
from turngraph.extract import vocab as v
from turngraph.extract.base import RawAction
from turngraph.extract.clauses import Clause, glue
from turngraph.extract.clauses import tokens as tokenize
from turngraph.extract.findings import TurnState
from turngraph.extract.folded import Folded
from turngraph.extract.lexicon import lemma
from turngraph.extract.phrases import (
    doing_of,
    doing_phrase,
    gerund,
    is_condition,
    list_items,
    names_nothing,
    noun_phrase,
    prep_phrases,
    strip_articles,
)
from turngraph.extract.timeref import resolve_time

_EMAIL = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}\.[\w.-]{1,63}")
_PHONE = re.compile(r"(?<![\w+])\+?\d[\d ().-]{6,18}\d")
_YOU_HAVE_PET = re.compile(
    r"\b(?i:you) (?:have|got|adopted) (?:a|an|two) ("
    + "|".join(sorted(gz.PETS, key=len, reverse=True))
    + r")s? (?:named|called) ([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)(?: and ([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+))?"
)
_SPECIES = Folded(
    r"\b(" + "|".join(sorted(gz.PETS | {"puppie", "kittie"}, key=len, reverse=True)) + r")s?\b"
)

_PHOTO = Folded(
    r"\b(?:here'?s|here is|this is|check out|look at|take a look at|sharing|sending you|i took)"
    r" (?:a|the|this|my|some|another) (?:quick |recent |new |cute |little )?"
    r"(?:photo|pic|picture|shot|snap|snapshot|selfie)s? (?:of|from) (.{3,80})",
)
# "my kids Sora (6) and Ren (3)": a plural kin word and the two names it lists.
_KIN_LIST = re.compile(
    r"\b(?i:my) (kids|children|sons|daughters|sisters|brothers|siblings|parents),? "
    r"([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)(?: \(\d{1,2}\))?,? (?:and|&) ([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)\b"
)
# "my back pain is finally gone", "my migraines have cleared up": a condition that ended.
_CONDITION_GONE = Folded(
    r"\bmy ((?:[a-z'-]+ ){0,3}?[a-z'-]+) (?:is|are|has|have|'s)(?: finally| completely| totally"
    r"| all| now| pretty much)* (?:gone|over|cured|healed|cleared up|went away)\b",
)
_MEANS_A_LOT = Folded(
    r"^(?:\w+,\s*)?((?:your|the|all your|all the|our) [\w' ]{3,40}?) (?:really |truly )?"
    r"(?:means?|meant) (?:a lot|so much|the world|everything)",
)
_GERUND_PRAISE = Folded(
    r"^(?:[^,]{0,60},\s*)?([a-z]+ing(?: up| out| around| outside| outdoors)?)"
    r"(?: '?s| is| has been| was)? (?:really |so |such |just |always )?"
    r"(?:a |an |my )?(?:really |so |super )?(?:fun|great|awesome|amazing|relaxing|therapeutic|"
    r"rewarding|fulfilling|calming|soothing|my passion|my favorite|the best|a blast|a great way|"
    r"a fun way|a good way|a nice way|a wonderful way|a huge part of my life|my thing|my escape|"
    r"my happy place|life|therapy|my therapy|my haven|my passion|my stress fix)\b",
)
# "Eagles have always mesmerized me": what moves the speaker is something they like.
_MOVES_ME = Folded(
    r"^(?:[^,]{0,60},\s*)?((?:the )?[A-Za-z][A-Za-z' -]{0,40}?)\s+(?:(?:have|has|had|'ve)\s+)?"
    r"(?:always |really |truly |just |totally |never stopped |kind of |kinda )?"
    r"(?:mesmeri[sz]ed?|fascinated?|captivated?|intrigued?|enchanted?|amazed?)\s+me\b",
)
_THING_PRAISE = Folded(
    r"^(?:[^,]{0,60},\s*)?((?:my )?[A-Za-z]+(?: [a-z]+)?)"
    r"(?: '?s| is| are| has always been|'s always been) (?:always |just |really |truly )?"
    r"(?:a (?:huge|big) part of my life|(?:my|our) "
    r"(?:\w+ )?(?:haven|passion|therapy|escape|happy place|stress fix|stress relief|thing|jam|"
    r"muse|outlet|comfort|release|"
    r"chill time|safe place|sanctuary)|therapy for me)\b",
)
_SUBJECT = r"^(?:[^,]{0,40},\s*)?((?:my )?[A-Za-z]+(?: [a-z]+){0,2})"
# "Dancing brings me joy", "Turtles really bring me peace".
_BRINGS_ME_JOY = Folded(
    _SUBJECT + r" (?:really |truly |always |just )?brings? me (?:so much |a lot of |such |real )?"
    r"(?:joy|peace|happiness|comfort|calm)\b",
)
# "Pottery's so relaxing", "Running is really rewarding": what the speaker enjoys doing.
_IS_SO_GOOD = Folded(
    _SUBJECT + r"(?:'s| is| are| has been) (?:so |really |super |very |always |just |such )*"
    r"(?:relaxing|calming|therapeutic|rewarding|fulfilling|soothing|peaceful|satisfying|"
    r"inspiring|energizing|uplifting|freeing)\b",
)
# "Family time matters to me", "my health is so important to me": what the speaker values.
_MATTERS_TO_ME = Folded(
    _SUBJECT + r" (?:really |truly |just )?(?:matters?|means? (?:so much|everything|the world|"
    r"a lot|the most)|"
    r"(?:is|are) (?:so |really |very |super )?important) to me\b",
)
# "I realize the importance of self-care", "we both know the importance of ...".
_IMPORTANCE_OF = Folded(
    r"\b(?:I|we)\b[^.!?]{0,40}?\b(?:understand|know|see|realize|realise|learned|learnt|"
    r"value|appreciate|recognize|get)s?\b[^.!?]{0,12}?\bthe (?:importance|value) of "
    r"([^.!?,;]{3,80})",
)
_NOTHING_LIKE = Folded(r"\bthere(?:'?s| is) nothing (?:quite )?like ([^.,!?;]{3,80})")
_IT_MATTERS_TO = Folded(
    r"\bit'?s (?:so |really |very |super )?(?:important|crucial|essential|key|vital) to (\w+) "
    r"([^.!?,;]{2,60})",
)
_HOW_IMPORTANT = Folded(
    r"\bhow important (?:it is to (\w+) ([^.,!?;]{2,60})|([a-z][^.,!?;]{2,60}?) (?:is|are)\b)",
)
_FIRST_PERSON_OBJECT = Folded(r"\b(?:me|us|I|we)\b")
_IT_IS_GREAT = Folded(
    r"^(?:[^,]{0,40},\s*)?it(?:'?s|'s been| is| was| has been) "
    r"(?:so |really |always |just |super )?(?:great|nice|fun|awesome|amazing|wonderful|"
    r"rewarding|fulfilling|relaxing) (?:to (\w+)|([a-z]+ing))\b ?(.{0,80})",
)
_DREAM = Folded(
    r"\b(?:my (?:\w+ )?(?:dream|goal|plan|hope|aim|mission)(?: (?:this|for the|for this) \w+)?"
    r"(?: is|'s| has always been| was)|it'?s (?:been )?"
    r"(?:a|my) (?:dream|goal)(?: of mine)?|i'?ve always wanted|i have always wanted) to (\w+) "
    r"(.{2,80})",
)
_FAVORITE_ASKED = Folded(r"\bfavorite ([a-z]+(?: [a-z]+)?)\s*\?+\s*([^.!?\n,]{2,60})")
_BIRTHDAY_ASKED = Folded(
    r"\bmy birthday\b[^.!?\n]{0,40}\?+\s*(?:it'?s|its|it is)\s+((?:jan|feb|mar|apr|may|jun|jul|aug|"
    r"sep|oct|nov|dec)[a-z]* \d{1,2}|\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
    r"[a-z]*)",
)
_BIRTHDAY_WHEN = Folded(
    r"\b(?:it'?s|its|today is|tomorrow is|had) my (?:actual )?birthday(?: party)? (?:today|"
    r"tomorrow|yesterday|on \w+|last \w+)|\b(?:today|tomorrow|yesterday) (?:is|was) my "
    r"(?:actual )?birthday",
)
_PLACE_BORN = re.compile(
    r"(?:^|[,.!] |\bI was )(?i:born and raised|born|raised) in ([A-Z][\w'-]+(?: [A-Z][\w'-]+)?)|"
    r"(?:^|[,.!] )([A-Z][\w'-]+(?: [A-Z][\w'-]+)?)[- ]born\b"
)
_PLACE_BASED = re.compile(r"(?:^|[,.!] )([A-Z][\w'-]+(?: [A-Z][\w'-]+)?)[- ]based\b")
_GROUP_CALLED = re.compile(
    r"\b(?i:in|on the board of|for|with|of) (?:a|an|the|our|my) (?:local )?(?:band|team|club|choir|"
    r"charity|group|league|crew|orchestra|society|nonprofit|startup) (?:called|named) "
    r"([A-Z][\w'&-]*(?: [A-Z][\w'&-]*){0,3})"
)
_IS_MY_FAVORITE = re.compile(
    r"^(?:\w+,\s*)?([A-Z][\w'-]*(?: [A-Z&][\w'-]*){0,4}) (?:is|are) "
    r"(?:definitely |probably |still )?"
    r"my (?:all-time |absolute |new )?favorite (book|movie|film|show|series|band|song|album|"
    r"game|food|dish|place|city|artist|author|singer|team|sport|snack|drink|color|season)\b"
)
# "these figurines I bought yesterday": a thing and what the speaker did with it.
_THING_I_DID = re.compile(
    r"\b(?:[Tt]hese|[Tt]his|[Tt]he|[Tt]hat|[Tt]hose) ((?:[a-z]+ ){0,2}[a-z]+) I (?:just )?"
    r"(bought|made|got|painted|found|took|wrote|built|baked|cooked|knitted|picked up|drew|"
    r"planted|adopted|read|"
    r"watched|saw|visited|tried|finished|met)"
    r"(?: (yesterday|today|last \w+|this \w+|on \w+))?\b"
)
_FIRST_DAY = re.compile(
    r"\b(?i:first) (?:day|week) (?:at|with) ([A-Z][\w&'-]*(?: [A-Z][\w&'-]*){0,2})"
)
_AS_A_NATIONAL = Folded(
    r"\bas an? (" + "|".join(sorted(v.NATIONALITIES)) + r") (?:person|woman|man|guy|girl|citizen|"
    r"native|expat)\b",
)
_MY_NAME = re.compile(r"\b(?i:my (?:full )?name is) ([A-Z][\w'-]*(?: [A-Z][\w'-]*){0,3})")
_FIRST_PERSON = Folded(r"\b(?:my|me|I)\b")
_PHONE_CUE = re.compile(r"\b(my (?:phone|number|cell|mobile)|call me at|reach me at|text me)")
_BIRTHDAY_IS = Folded(r"\bmy birthday is (?:on )?(.{3,40})")
_BORN_ON = re.compile(r"\bI was born on (.{3,40})")
_LIST_BREAK = re.compile(r"\s+(?:and|but|so|,)\s+")
_FAVORITE_IS = Folded(
    r"(?:\bmy |^|[,:] ?)(?:all[- ]time )?favorite ([a-z]+(?: [a-z]+)?)"
    r"(?: of all time| ever)? (?:is|are|has to be|would be|=) (.{1,60})",
)
# "My favorite is the banana split sundae": a favorite of no stated kind.
_MY_FAVORITE_BARE = Folded(
    r"\bmy (?:all[- ]time |absolute |top )?(?:favou?rite|fave)(?: one)? (?:is|was|has to be|"
    r"would be) (.{2,60})",
)
_MY_HOBBIES = Folded(
    r"\bmy (?:main |favorite |new |big )?hobb(?:y is|ies are|ies include) (.{1,120})"
)
_SPARE_TIME = Folded(r"\bin my (?:free|spare) time,? I (?:do|play|make|like to do) (.{1,60})")
_MY_TITLE = Folded(r"\bmy (?:new )?(?:job title|title|role|position|job) is (?:now )?(.{1,60})")
_MY_PET = re.compile(
    r"\b(?:[Mm]y|[Oo]ur) (" + "|".join(sorted(gz.PETS, key=len, reverse=True)) + r")s?,? "
    r"(?:named |called )?([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)(?: and ([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+))?"
)
# "Our cat Misu died last week": a pet named as it is lost (right after its name) is not
# one the speaker has.
_PET_GONE = re.compile(
    r"\W{0,3}(?:(?:sadly|just|finally|recently|has|had|was|got)\s+){0,2}"
    r"(?:died|passed away|passed|was put down|put down|is gone|ran away)\b",
    re.IGNORECASE,
)
_GONE_ROOM = 40  # characters after a pet's name read for its loss
_THEIR_NAME = re.compile(
    r"\b(?:[Hh]er|[Hh]is|[Ii]ts|[Tt]heir) names? (?:is|are) "
    r"([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+(?:(?:, | and |, and | & )[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)*)"
)
_NAME_SEP = re.compile(r", and |, | and | & ")
_NAME_AGE = re.compile(r"\b([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+) \((\d{1,2})\)")
_STATUS_OF_KIN = {
    "wife": "married",
    "husband": "married",
    "spouse": "married",
    "boyfriend": "dating",
    "girlfriend": "dating",
    "fiance": "engaged",
    "fiancee": "engaged",
}


def _thing(phrase: str) -> str:
    """A sentence's subject when it names something of its own ("dancing", "family time");
    "" for a pronoun or the listener's ("it", "your support", "making it")."""
    words = _subject(phrase).split()
    if words[-1] in v.PRONOUN_OBJECTS:
        return ""  # "making it": what "it" is was said elsewhere
    if len(words) == 1 and words[0] in _LIGHT_GERUNDS:
        return ""  # "Having fun with friends is the best": having alone names nothing
    return "" if words[0] in _NOT_A_THING else " ".join(words)


_NOT_A_THING = v.PRONOUN_OBJECTS | v.SUBJECT_PRONOUNS | {"your", "the"}
_POSSESSIVES = frozenset("my our his her their your its".split())
_LIGHT_GERUNDS = frozenset("having getting doing making taking being giving keeping".split())


_PART_BREAK = re.compile(r",\s*")
_OPENERS = frozenset("my and but so plus also honestly yeah yes oh well ok okay tbh".split())


def _subject(phrase: str) -> str:
    """ "Turtles really" -> "turtles", "my family" -> "family": the subject without the adverbs
    before its verb or the speaker's possessive."""
    words = phrase.lower().split()
    while len(words) > 1 and words[0] in _OPENERS:
        words = words[1:]
    while len(words) > 1 and words[-1] in v.ADVERBS:
        words.pop()
    return " ".join(words)


class PatternRules(TurnState):
    """Facts said by set phrases rather than by a clause's structure."""

    def _turn_patterns(self, text: str) -> None:
        """Phrases that run across sentences: "favorite food? tacos al pastor", "can you
        remember my birthday? its july 2", "Tehran born, Vancouver based"."""
        if self.ctx.role != "user" or len(text) > 4000:
            return
        # Each pattern below runs only where its literal words are (a substring test first).
        asked = "?" in text
        low = text.lower()
        for fav in _FAVORITE_ASKED.finditer(text) if asked else ():
            value = noun_phrase(tokenize(fav.group(2)), 5)
            if value and not names_nothing(value):
                key = "favorite_" + fav.group(1).lower().replace(" ", "_")
                self.out.attribute(self._speaker(), key, " ".join(value))
        m = _BIRTHDAY_ASKED.search(text) if asked else None
        if m:
            self.out.attribute(self._speaker(), "birthday", m.group(1).strip())
        m = _BIRTHDAY_WHEN.search(text)
        if m:
            when = resolve_time(m.group(0), self.ctx.observed_at)
            if when is not None and when.precision == "day":
                self.out.attribute(self._speaker(), "birthday", f"{when.when:%B} {when.when.day}")
        for pattern, key, cues in (
            (_PLACE_BORN, "hometown", ("born", "raised")),
            (_PLACE_BASED, "location", ("based",)),
        ):
            for said in pattern.finditer(text) if any(c in low for c in cues) else ():
                place = self._place(tokenize(next(g for g in said.groups() if g)))
                if place:
                    self.out.attribute(self._speaker(), key, place)
                    self.out.relation(
                        self._speaker(), "from" if key == "hometown" else "lives_in", place
                    )
        called = "called" in text or "named" in text
        for group in _GROUP_CALLED.finditer(text) if called else ():
            member = self._last_named_before(text, group.start())
            name = self.out.entity(group.group(1), "organization")
            self.used.add(name.casefold())
            self.out.relation(member or self._speaker(), "member_of", name)
        for first in _FIRST_DAY.finditer(text) if "first " in text else ():
            self._employer(self._speaker(), tokenize(first.group(1)))
        m = _AS_A_NATIONAL.search(text)
        if m:
            self.out.attribute(self._speaker(), "nationality", m.group(1).capitalize())

    def _last_named_before(self, text: str, end: int) -> str:
        """The person named last before ``end`` in this sentence, if any ("my friend Omar
        plays bass in a band called The Dunes": Omar)."""
        start = max(text.rfind(".", 0, end), text.rfind("!", 0, end), text.rfind("?", 0, end))
        for word in reversed(tokenize(text[start + 1 : end])[-12:]):
            if word.casefold() in self.people and word.casefold() != self.speaker.casefold():
                return self.people[word.casefold()]
            if word.lower() in ("i", "we", "me", "my"):
                return ""
        return ""

    def _patterns(self, sentence: str) -> None:
        low = sentence.lower()
        if self.ctx.role == "user" and len(sentence) < 400:
            self._idioms(sentence)
        m = _KIN_LIST.search(sentence) if self.ctx.role == "user" and "my " in low else None
        if m and self.speaker not in ("user", "assistant"):
            # "my kids Sora (6) and Ren (3)", "my sisters Ana and Bea": each of them
            for name in (m.group(2), m.group(3)):
                if name.lower() not in gz.NOT_NAMES:
                    self.people.setdefault(name.casefold(), name)
                    self._kin_relation(v.KIN[m.group(1).lower()], name)
        # Each pattern needs a word that most sentences lack: look for it before scanning.
        m = _MY_NAME.search(sentence) if "name" in low else None
        if m:
            self.out.attribute(self._speaker(), "name", m.group(1))
        m = _EMAIL.search(sentence) if "@" in sentence else None
        if m and _FIRST_PERSON.search(sentence):
            self.out.attribute(self._speaker(), "email", m.group(0))
        m = _PHONE.search(sentence) if _PHONE_CUE.search(low) else None
        if m:
            self.out.attribute(self._speaker(), "phone", " ".join(m.group(0).split()))
        m = (
            (_BIRTHDAY_IS.search(sentence) or _BORN_ON.search(sentence))
            if "birthday" in low or "born" in low
            else None
        )
        if m:
            when = " ".join(tokenize(m.group(1))[:4]).strip(" ,.")
            when = _LIST_BREAK.split(when)[0]
            self.out.attribute(self._speaker(), "birthday", when)
        m = _FAVORITE_IS.search(sentence) if "favorite" in low else None
        if m:
            what = m.group(1).lower().replace(" ", "_")
            value = " ".join(noun_phrase(tokenize(m.group(2)), 5))
            self.out.attribute(self._speaker(), f"favorite_{what}", value)
        m = _MY_FAVORITE_BARE.search(sentence) if "fav" in low else None
        if m:
            value = " ".join(noun_phrase(tokenize(m.group(1)), 6))
            if value and not names_nothing(value.split()):
                self.out.attribute(self._speaker(), "opinions", f"{value}: my favorite")
        m = (
            (_MY_HOBBIES.search(sentence) or _SPARE_TIME.search(sentence))
            if "hobb" in low or "time" in low
            else None
        )
        if m:
            for item in list_items(tokenize(m.group(1))):
                self.out.attribute(self._speaker(), "hobbies", item)
        if "my " in low or "our " in low:
            m = _MY_TITLE.search(sentence)
            if m:
                title = noun_phrase(tokenize(m.group(1)), 5)
                if title and title[-1].lower() in gz.JOB_WORDS:
                    self.out.attribute(self._speaker(), "job_title", " ".join(title))
            for m in _MY_PET.finditer(sentence):
                if _PET_GONE.match(sentence, m.end(), m.end() + _GONE_ROOM):
                    continue  # "Our cat Misu died last week": not a pet the speaker has now
                for name in (m.group(2), m.group(3)):
                    if name and name.lower() not in gz.NOT_NAMES:
                        self._pet(self._speaker(), m.group(1).lower(), name)
        if self.ctx.role == "assistant" and self.addressee:
            for m in _YOU_HAVE_PET.finditer(sentence):
                owner = self.out.entity(self.addressee, "person")
                for name in (m.group(2), m.group(3)):
                    if name:
                        self._pet(owner, m.group(1).lower(), name)

    def _idioms(self, sentence: str) -> None:
        """Set phrases of chat that state a fact about the speaker: "here's a pic of my new
        bike", "your support means a lot", "painting is so relaxing", "my dream is to ..."."""
        m = _PHOTO.search(sentence)
        if m:
            what = noun_phrase(tokenize(m.group(1)), 6)
            if what and not names_nothing(what):
                self.out.actions.append(
                    RawAction(
                        self._speaker(),
                        "share",
                        f"photo of {' '.join(what)}",
                        f"{self.speaker} shared a photo of {' '.join(what)}",
                    )
                )
        m = _MEANS_A_LOT.search(sentence)
        if m:
            what = strip_articles(tokenize(m.group(1)))
            if what and len(what) <= 6 and not names_nothing(what):
                self.out.actions.append(
                    RawAction(
                        self._speaker(),
                        "appreciate",
                        " ".join(what),
                        f"{self.speaker} appreciates {' '.join(what)}",
                    )
                )
        # Each comma-separated part may praise something of its own: "pottery's so relaxing,
        # and running is really rewarding".
        for part in _PART_BREAK.split(sentence)[:4]:
            m = (
                _GERUND_PRAISE.match(part)
                or _THING_PRAISE.match(part)
                or _BRINGS_ME_JOY.match(part)
                or _IS_SO_GOOD.match(part)
            )
            liked = _thing(m.group(1)) if m else ""
            if liked:
                self.out.attribute(self._speaker(), "likes", liked)
            m = _MOVES_ME.match(part)
            moving = _thing(m.group(1)) if m else ""
            if moving and moving.split()[0] not in _POSSESSIVES and len(moving.split()) <= 4:
                self.out.attribute(self._speaker(), "likes", moving)
            m = _MATTERS_TO_ME.match(part)
            valued = _thing(m.group(1)) if m else ""
            if valued:
                self.out.attribute(self._speaker(), "values", valued)
        m = _HOW_IMPORTANT.search(sentence) if _FIRST_PERSON_OBJECT.search(sentence) else None
        if m:
            # "reminds me of how important kindness and compassion are"; "reminded me how
            # important it is to make a difference"
            verb, said = (m.group(1) or "").lower(), tokenize(m.group(2) or "")
            if verb == "try" and said[:1] == ["and"] and len(said) > 1:
                verb, said = said[1].lower(), said[2:]  # "to try and make a difference"
            valued = (
                doing_of(gerund(lemma(verb)), said)
                if verb
                else " ".join(noun_phrase(tokenize(m.group(3)), 6))
            )
            if valued and not names_nothing(valued.split()):
                self.out.attribute(self._speaker(), "values", valued)
        m = _CONDITION_GONE.search(sentence) if "my " in sentence.lower() else None
        if m and is_condition(tokenize(m.group(1))):
            # "my back pain is finally gone": the condition has ended
            gone = " ".join(strip_articles(tokenize(m.group(1))))
            self.out.attribute(self._speaker(), "health", gone, negated=True)
        m = _NOTHING_LIKE.search(sentence)
        if m:
            # "There's nothing like the energy in a stadium during a game"
            said = tokenize(m.group(1))
            what = noun_phrase(said, 6)
            pps = prep_phrases(said)[:1]  # "the energy in a stadium"
            if what and pps and pps[0][0] in ("in", "at", "of", "on"):
                what = [*what, pps[0][0], *pps[0][1]]
            liked = " ".join(what)
            if liked and not names_nothing(liked.split()):
                self.out.attribute(self._speaker(), "likes", liked)
        m = _IT_MATTERS_TO.search(sentence)
        if m and m.start() > 0:
            # "Reminds me it's important to cultivate a loving environment" (at the start of
            # a sentence the opinion reader has it already)
            verb, said = m.group(1).lower(), tokenize(m.group(2))
            valued = doing_of(gerund(lemma(verb)), said)
            cut = valued.split()[-2:-1] in (["a"], ["an"], ["the"])  # "cultivating a loving"
            # "key to keep it up": what "it" is was said elsewhere
            cut = cut or (
                said[:1] != [] and said[0].lower() in v.PRONOUN_OBJECTS and len(said) <= 2
            )
            if (
                len(valued.split()) >= 2
                and not cut
                and not any(w.lower() in ("you", "your") for w in said)
            ):
                self.out.attribute(self._speaker(), "values", valued)
        m = _IMPORTANCE_OF.search(sentence)
        if m:
            # "we both understand the importance of making connections": what is valued
            said = tokenize(m.group(1))
            # a doing keeps its "and ...": "making connections and enjoying life's moments"
            valued = glue(" ".join(said[:8])) if said[0].lower().endswith("ing") else ""
            valued = valued or " ".join(noun_phrase(said, 7))
            if valued and not names_nothing(valued.split()):
                self.out.attribute(self._speaker(), "values", valued)
        m = _IT_IS_GREAT.match(sentence)
        if m:
            doing = gerund(lemma(m.group(1).lower())) if m.group(1) else m.group(2).lower()
            rest = doing_of(doing, tokenize(m.group(3) or ""))
            said = rest.split()
            perceiving = said[0] in ("seeing", "hearing", "knowing", "being") if said else True
            ends_on_pronoun = bool(said) and said[-1].lower() in v.PRONOUN_OBJECTS
            listener = any(w.lower() in ("you", "your") for w in said)  # "great to fuel your ideas"
            bare = said[:1] in (["having"], ["getting"], ["doing"], ["making"], ["taking"])
            if (
                rest
                and not (bare and len(said) == 1)  # "great to have that support": having what
                and not perceiving
                and not ends_on_pronoun
                and not listener
                and not names_nothing(said[1:] or ["x"])
            ):
                self.out.attribute(self._speaker(), "likes", rest)
        m = _DREAM.search(sentence)
        if m:
            goal = doing_phrase(
                Clause(words=[], verb=lemma(m.group(1).lower()), rest=tokenize(m.group(2)))
            )
            if goal and len(goal.split()) >= 2:
                self.out.attribute(self._speaker(), "goals", goal)

    def _pet_names(self, sentence: str) -> None:
        """ "her name is Luna" after a pet was mentioned; "Sora (6)" gives an age."""
        m = _SPECIES.search(sentence)
        if m:
            self.last_species = m.group(1).lower()
        m = _IS_MY_FAVORITE.search(sentence)
        if m and m.group(1).split()[0].lower() not in v.PRONOUN_OBJECTS | v.SUBJECT_PRONOUNS:
            key = "favorite_" + m.group(2).lower()
            self.out.attribute(self._speaker(), key, m.group(1))
        m = _THING_I_DID.search(sentence)
        if m and self.ctx.role == "user":
            what = strip_articles(tokenize(m.group(1)))
            when = resolve_time(m.group(3) or "", self.ctx.observed_at)
            if what and not names_nothing(what):
                self.out.actions.append(
                    RawAction(
                        self._speaker(),
                        lemma(m.group(2).lower()),
                        " ".join(what),
                        f"{self.speaker}: {m.group(0)}"[:240],
                        when.when if when else None,
                        precision=when.precision if when else None,
                    )
                )
        m = _THEIR_NAME.search(sentence) if self.last_species else None
        for name in _NAME_SEP.split(m.group(1)) if m else ():
            self._pet(self._speaker(), self.last_species, name)  # "Pepper, Precious and Panda"
        for m in _NAME_AGE.finditer(sentence) if "(" in sentence else ():
            if m.group(1).casefold() in self.people:
                self.out.attribute(self.people[m.group(1).casefold()], "age", m.group(2))

    def _pet(self, owner: str, species: str, name: str) -> None:
        pet = self.out.retype(name, "animal")  # not a person after all
        species = gz.SPECIES_OF.get(species, species)
        self.used.add(pet.casefold())
        self.out.relation(owner, "has_pet", pet)
        self.out.attribute(pet, "species", species)
        self.out.attribute(owner, "pets", species)  # what "Does she have pets?" asks

    def _kin_mentions(self, clause: Clause) -> None:
        """ "my husband and kids", "my brother Felix", "Emma, my sister": family and relations."""
        words = clause.words
        if self.ctx.role != "user" or self.speaker in ("user", "assistant"):
            return
        for i, w in enumerate(words):
            if w.lower() not in ("my", "our") or i + 1 >= len(words):
                continue
            j = i + 1
            while j < len(words) and words[j].lower() in (
                "little",
                "older",
                "younger",
                "big",
                "baby",
                "twin",
                "best",
                "two",
                "three",
            ):
                j += 1
            if j >= len(words):
                continue
            kin = words[j].lower()
            if kin in v.FAMILY_WORDS:
                count = words[i + 1].lower() if words[i + 1].lower() in ("two", "three") else ""
                self.out.attribute(self._speaker(), "family", f"{count} {kin}".strip())
            status = _STATUS_OF_KIN.get(kin)
            if status and not (i > 0 and words[i - 1].lower() in ("ex", "former", "late")):
                self.out.attribute(self._speaker(), "relationship_status", status)
            if kin not in v.KIN:
                continue
            k = j + 1
            if k < len(words) and words[k] == ",":
                k += 1
            if k < len(words) and words[k].casefold() in self.people:
                self._kin_relation(v.KIN[kin], self.people[words[k].casefold()])
            elif kin in v.FAMILY_WORDS and k < len(words) and words[k].lower() == "and":
                nxt = words[k + 1].lower() if k + 1 < len(words) else ""
                if nxt in v.FAMILY_WORDS:
                    self.out.attribute(self._speaker(), "family", nxt)
        for i in range(len(words) - 3):
            if (
                words[i].casefold() in self.people
                and words[i + 1] == ","
                and words[i + 2].lower() == "my"
                and words[i + 3].lower() in v.KIN
            ):
                self._kin_relation(v.KIN[words[i + 3].lower()], self.people[words[i].casefold()])

    def _kin_relation(self, kind: str, other_name: str) -> None:
        me = self._speaker()
        other = self.out.entity(other_name, "person")
        self.used.add(other.casefold())
        if other.casefold() == me.casefold():
            return
        if kind == "sibling":
            self.out.relation(me, "sibling_of", other)
        elif kind == "parent":
            self.out.relation(other, "parent_of", me)
        elif kind == "child":
            self.out.relation(me, "parent_of", other)
        elif kind == "spouse":
            self.out.relation(me, "married_to", other)
        elif kind == "partner":
            self.out.relation(me, "partner_of", other)
        elif kind == "boss":
            self.out.relation(other, "manages", me)
        elif kind == "colleague":
            self.out.relation(me, "colleague_of", other)
        elif kind == "relative":
            self.out.relation(me, "relative_of", other)
        else:
            self.out.relation(me, "friend_of", other)

    # -- one clause ----------------------------------------------------------------------------
