"""How people say that something about them started, changed or ended, in whole sentences.

The clause rules read a sentence verb by verb; the facts here are said in set shapes that
cross clauses or need no verb at all, and they are the ones that change over months: a first
day at a new employer ("first week as charge nurse at La Fe"), a manager or supervisor named
("my manager, Katrin Vogel"), a partner ("I'm seeing someone new, his name is Sam"; "we broke
up"), a pet named or lost ("Tango died this morning"), a sport or hobby taken up or dropped
("I've stopped bouldering", "done with crochet", "swimming now"), a phone bought, a course of
study at a school, the city someone works "here in". Only what the user says of themselves
counts; an assistant's turn states no fact about anyone.
"""

from __future__ import annotations

import re

from turngraph.extract import gazetteers as gz
from turngraph.extract import vocab as v
from turngraph.extract.base import RawAction
from turngraph.extract.clauses import is_verb
from turngraph.extract.clauses import tokens as tokenize
from turngraph.extract.findings import TurnState
from turngraph.extract.folded import Folded
from turngraph.extract.phrases import capitalize, noun_phrase
from turngraph.extract.timeref import resolve_time

_NAME = r"[A-Z][\w'-]+(?: [A-Z][\w'-]+)?"
# "Hana passed and entered Shuyukan High School!": a school begun by the speaker or someone
# named (capitals read as written: a school's name is capitalized).
_SCHOOL_WORD = re.compile(r"\b(?:School|College|University|Academy|Gymnasium)\b")
_ENTERED_SCHOOL = re.compile(
    r"(?<!\w)(?<!\w['-])(?P<who>I|(?!(?:My|Our|The|His|Her|Their|This|That|We|He|She|They|It|Hello|"
    r"Hi|And|But|So|Also|Then|Yesterday|Today)\b)[A-Z][a-z][\w'-]{0,40})\b[^.!?;]{0,40}?"
    r"\b(?:entered|"
    r"got into|got accepted "
    r"(?:at|to|into)|was accepted (?:at|to|into)|transferred to|moved to) "
    r"(?P<school>(?:[A-Z][\w'&.-]*\s+){0,4}(?:School|College|University|Academy|Gymnasium))\b"
)
_TITLES = r"(?:(?:prof|professor|dr|doctor|mr|mrs|ms|miss)\.?\s+)"
_FIRST_AT = Folded(
    r"\b(?:(?:my )?first (?:full |whole |proper |real |(?:\d|two|three|four|few|couple of) )?"
    r"(?:day|week|month|shift|days|weeks|months)|"
    r"(?:day|week|month) one)(?: back)? "
    r"(?:as (?:an? |the )?(?P<job>[\w -]{2,40}?) )?(?:at|with) (?P<org>[\w&.' -]{2,40})",
)
_BOSSES = (
    r"line manager|team lead|manager|boss|supervisor|advisor|adviser|head teacher|headteacher|"
    r"principal|director|head chef|head of department|department head"
)
_MY_BOSS = Folded(
    r"\b(?P<det>my|our|the) (?P<old>old |former |ex |previous )?(?:new |current )?"
    r"(?P<kin>" + _BOSSES + r")\b(?P<comma>,)?\s+"
    r"(?:is (?:now |called |named )?|was )?" + _TITLES + r"?(?P<name>[\w'-]+(?: [\w'-]+)?)",
)
_SEEING = Folded(
    r"\b(?:I'm|I am|we're) (?:seeing|dating) someone(?: new)?\b.{0,60}?\b(?:his|her|their) "
    r"name(?:'s| is) (?P<name>[\w'-]+)",
)
# "I've started seeing someone, Tiago, ...", "I'm seeing someone. Lucía, she's ...".
_SEEING_APPOSED = re.compile(
    r"\b(?i:seeing|dating) someone(?: new)?(?:,|\.|:| -| \u2014)\s*"
    r"(?P<name>[A-Z][\w'-]+)(?=[,.!]| -)"
)
# "I've been seeing Tom for a month": a name said right after the verb (case kept).
_SEEING_NAMED = re.compile(
    r"\b(?:I'm|I am|I've been|I have been|I've started|I have started|I started)\s+"
    r"(?:(?i:seeing|dating))\s+(?P<name>[A-Z][\w'-]+)\b"
)
_PROPOSED = Folded(r"\bI proposed to (?P<name>[\w'-]+)\b")
_ENGAGED = Folded(r"\b(?:we|I) (?:just )?got engaged\b")
_BROKE_UP = Folded(
    r"\b(?:(?:me|I) and (?P<a>[\w'-]+)|(?<!\w)(?<!\w['-])(?P<b>[\w'-]{1,40}) and I|we) "
    r"(?:have |finally |just )*"
    r"(?:broke|broken|split) up\b",
)
_MY_PARTNER = Folded(
    r"\bmy (?P<kin>boyfriend|girlfriend|partner|fianc[eé]e?|babe|bae)\s+(?P<name>[\w'-]+)",
)
# "my dog's name is Pixel", "my cat is called Luna", "our puppy is named Bo".
_PET_NAME_IS = Folded(
    r"\b(?:my|our) (?P<species>" + "|".join(sorted(gz.PETS, key=len, reverse=True)) + r")"
    r"(?:'s name is| is called| is named) "
    r"(?!(?:a|an|the|so|very|really|after|for|that|this|because|like|by|from|in|on|with|to|"
    r"it|me|him|her|them|what|when|but|and|or)\b)(?P<name>[\w'-]+)",
)
_PETS = "|".join(sorted(gz.PETS, key=len, reverse=True))
# "my cat, Cobre, is ...", "Cobre, my cat, is ...": a pet named in apposition (case kept).
_MY_PET_APPOSED = re.compile(
    r"\b(?:[Mm]y|[Oo]ur) (?:new |little |old |rescue )?(?P<species>" + _PETS + r"),\s+"
    r"(?P<name>[A-Z][\w'-]+)\s*[,.!;]"
    r"|(?<!\w)(?<!\w['-])(?P<name2>[A-Z][\w'-]{0,40}), (?:my|our) (?:new |little |old |rescue )?"
    r"(?P<species2>" + _PETS + r")\b"
)
# "we picked up a dog from the shelter. His name is Bóson": a pet taken in, then named.
_TOOK_IN = Folded(
    r"\b(?:got|adopted|picked up|brought home|rescued|took in|taken in|adopting)\s+"
    r"(?:a|an|our|my)\s+(?:new |rescue |little |second )?(?P<species>" + _PETS + r")\b"
)
_CALLED = re.compile(
    r"\b(?:[Hh]is|[Hh]er|[Ii]ts) name(?:'s| is) (?P<name>[A-Z][\w'-]+)|"
    r"\b(?:named|called) (?P<name2>[A-Z][\w'-]+)"
)
_HER_NAME_IS = Folded(r"\b(?:her|his|its) name is (?P<name>[\w'-]+)")
# "passed" alone only where nothing follows that it could have passed ("Hana passed and
# entered Shuyukan High School" passed an exam).
_PASSED = r"passed(?=\s*(?:[.,;!]|$|(?:last|yesterday|this|on|today|in (?:her|his) sleep)\b))"
_DIED = Folded(
    r"^(?:(?:my|our) (?:(?:old|dear|sweet|beloved|little|poor) )?(?:(?P<kind>[a-z]+),? )?)?"
    r"(?P<name>[A-Z][\w'-]+),? (?:died|passed away|" + _PASSED + r"|was put down|"
    r"had to be put down|is gone)\b",
)
# What opens a sentence before the news itself: "Sad news:", "Oh, and", "Well,", "Sadly,".
_NEWS_LEAD = re.compile(
    r"^(?:(?:(?:sad|bad|some|other|big|terrible|awful) news|oh|well|so|and|also|but|sadly|"
    r"unfortunately|anyway|alas|ok|okay|update|heartbroken)\b\s*[,:;.!-]*\s*){1,3}",
    re.IGNORECASE,
)
# "our cat died": a pet without its name.
_PET_DIED = Folded(
    r"^(?:sadly,? )?(?:my|our) (?:(?:old|dear|sweet|beloved|little|poor) )?(?P<kind>[a-z]+) "
    r"(?:died|passed away|" + _PASSED + r"|was put down|had to be put down|is gone)\b",
)
_ACTIVITY = (
    r"(?P<what>(?:[a-z]+ing|(?:(?:acoustic|electric|bass|classical|jazz) )?"
    r"(?:yoga|pilates|pottery|crochet|football|soccer|tennis|golf|chess|"
    r"rugby|cricket|basketball|volleyball|badminton|squash|karate|judo|boxing|kickboxing|"
    r"ballet|salsa|piano|guitar|drums|violin|crossfit|parkour|bouldering|triathlon|"
    r"marathon running|5-a-side football|five-a-side football|padel|netball|hockey|baseball|"
    r"softball|handball|lacrosse|pickleball|fencing|archery|taekwondo|aikido|jiu-jitsu|"
    r"muay thai|water polo)))"
)
_STOPPED = Folded(
    r"(?:^(?:(?:also|and|oh|so|well|anyway|ok|okay|update)\b[,:!]?\s*){0,2}|\bI(?:'ve| have)?\s+|"
    r"\bI'm\s+)(?:also\s+|finally\s+|just\s+|officially\s+)*"
    r"(?:stopped|quit|gave up|given up|dropped|done with|finished with|over|packed in)\s+"
    r"(?:going to |playing |doing )?" + _ACTIVITY + r"\b",
)
_STARTED = Folded(
    r"\bI(?:'ve| have)?\s+(?:also\s+|just\s+|finally\s+|actually\s+|recently\s+)*"
    r"(?:started|took up|taken up|picked up|got into|begun|began)\s+"
    r"(?:a |an |doing |going |playing (?:the )?)?" + _ACTIVITY + r"\b",
)
_JOINED_CLUB = Folded(
    r"\bI(?:'ve| have)?\s+(?:also\s+|just\s+|finally\s+)*(?:joined|join|signed up for|"
    r"started)\s+(?:(?:a|an|the|my|our|her|his|their|your|this|that|some) )?(?:local )?"
    r"(?!(?:a|an|the|my|our|her|his|their|your|this|that|some)\b)"
    r"(?P<what>[a-z-]+(?: [a-z-]+)?) (?:club|class|classes|team|league|course|lessons|gym)\b",
)
# "Aker Solutions, my employer, ...", "my employer is Equinor".
_MY_EMPLOYER = Folded(
    r"(?<![\w&])(?<![\w&.'-][.'-])(?P<org>[A-Z][\w&.'-]{0,40}(?: [A-Z][\w&.'-]{0,40}){0,3}),? "
    r"(?:is |are )?(?:now )?my "
    r"(?:current |new )?(?:employer|company|workplace)\b|\bmy (?:current |new )?"
    r"(?:employer|company) (?:is |are |now is )(?P<org2>[\w&.' -]{2,40})",
)
_NOW_INSTEAD = Folded(r"(?:^|[.!;] )" + _ACTIVITY + r" now\b")
_I_GO = Folded(
    r"\bI go (?P<what>bouldering|climbing|running|swimming|cycling|hiking|skiing|surfing|"
    r"rowing|dancing|skating|fishing|sailing|kayaking|jogging)\b",
)
_PHONE = Folded(
    # "my son sent me an iPhone 13", "Arjun got me a Pixel": a gift is the speaker's phone
    r"\b(?:my|(?:bought|got|getting|get)(?: me)?|upgraded to|switched to|ordered|"
    r"(?:sent|gave|given|gifted) me)\s+"
    r"(?:a |an |the |my |new |shiny )*"
    r"(?P<phone>(?:apple |google |samsung )?(?:iphone|pixel|galaxy|samsung|oneplus|xiaomi|"
    r"huawei|nokia|motorola|fairphone)(?: (?:[a-z]?\d{1,3}[a-z+]{0,3}|pro|max|plus|ultra|mini|"
    r"lite|fe|a\d{1,2}|s\d{1,2}))*)\b",
)
_STUDY_AT = Folded(
    r"\b(?:doing|started|starting|began|begun|finishing|enrolled in|studying for|first "
    r"(?:day|week|month|semester|term|year) of) (?:my |a |an |the )?(?:part-time |full-time )?"
    r"(?P<degree>msc|ma|mba|phd|masters|master's|bachelor's|bachelors|ba|bsc|degree|doctorate|"
    r"postdoc)(?: (?:in|of) (?P<field>[\w -]{2,40}?))? (?:at|in) (?P<school>[\w&.' -]{2,40})",
)
# "I've gone fully vegetarian", "I'm doing keto at the moment", "switched to vegan".
_DIET_NOW = Folded(
    r"\bI(?:'ve| have|'m| am)?\s+(?:just |now |finally |officially |also |recently |actually )*"
    r"(?:gone|going|went|turned|become|became|switched to|doing|started|on)\s+"
    r"(?:fully |full |completely |strictly |totally |mostly |a |the )*"
    r"(?P<diet>vegetarian|vegan|pescatarian|keto|paleo|plant-based|gluten-free|dairy-free|"
    r"carnivore|low-carb)\b",
)
# "she's put me on a Mediterranean diet", "I'm on a low-FODMAP diet".
_ON_DIET = Folded(
    r"\b(?:put me on|I'm on|I am on|I've gone on|I went on|I've started|I started|I'm starting|"
    r"I switched to|I've switched to|I'm going on)\s+(?:a |the )?(?:strict |new |proper )?"
    r"(?P<diet>[a-z][a-z-]+) diet\b",
)
_NOT_DIETS = frozenset(
    "healthy healthier better balanced normal special crash good bad new strict proper".split()
)
# "Arroios, where I live", "my flat in Levenshulme": where the speaker lives (case kept).
_WHERE_I_LIVE = re.compile(
    r"(?<!\w)(?<!\w['-])(?P<place>[A-Z][\w'-]{0,40}(?: [A-Z][\w'-]{0,40}){0,2}),? where I "
    r"(?:live|now live|'m living|"
    r"am living|'m based)\b"
)
_MY_HOME_IN = re.compile(
    r"\b(?:[Mm]y|[Oo]ur) (?:new |little |tiny |own |rented )?(?:flat|apartment|house|place|home|"
    r"studio)\s+in\s+(?P<place>[A-Z][\w'-]+(?: [A-Z][\w'-]+){0,2})"
)
# "I teach chemistry at Escola Secundária Camões": where the speaker works (case kept).
_TEACH_AT = re.compile(
    r"\bI (?:teach|lecture)(?: [a-z]+){0,2} at (?P<org>[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){0,4})"
)
# "came in as sous chef", "started there as a junior analyst": a job title taken up.
_CAME_IN_AS = Folded(
    r"\b(?:came in|started|joined|hired|taken on|brought in|took over)(?: [a-z]+){0,2}? as "
    r"(?:an? |the )?(?P<job>[a-z][a-z -]{1,40}?)(?=[,.!?;]| at | in | for | since | from |$)",
)
# "I have accepted an offer from DBS Bank, as Vice President": an employer (and title) taken.
_ACCEPTED_AT = re.compile(
    r"\bI(?:'ve| have)?(?: just| finally| officially)? (?i:accepted) "
    r"(?:an? |the )?(?:new )?(?:offer|job|position|role|post)"
    r"(?: (?:there|here))? (?:from|at|with) "
    r"(?P<org>[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){0,4})"
    r"(?:,? as (?:an? |the )?(?P<job>[^,.;!?]{2,40}))?"
)
# "the GP switched me from propranolol to candesartan", "my boss moved me to nights", "the
# doctor put me on statins": something someone did to the speaker, which changed their state.
_DONE_TO_ME = re.compile(
    r"\b(?P<verb>switched|moved|put|transferred|promoted|started|changed) me "
    r"(?:from [\w' -]{1,40}? )?(?P<prep>to|on|onto) (?P<what>[\w' -]{2,40}?)"
    r"(?= yesterday| last| this| on | in |[,.;!?]|$)",
    re.I,
)
_HERE_IN = Folded(
    r"\b(?:I'm|I am|we're|we are|based)\b[^.!?]{0,60}?\bhere in (?P<place>[\w -]{2,30})"
)
# What "started a ... class" or "joined a ... group" says that is no pastime.
_NOT_ACTIVITIES = frozenset(
    "new job work school project book support study reading writing meeting working "
    "something nothing anything everything feeling getting going doing being having "
    "thinking looking trying seeing dating talking living using taking "
    # what one starts that is no pastime by itself ("started caring more about", "started
    # teaching people how", "started transitioning"), or not without what is played
    "playing teaching helping learning caring transitioning making saving planning "
    "preparing focusing struggling healing recovering questioning wondering".split()
)
# Words before a pastime that are not part of it ("joined a new tennis club").
_ACTIVITY_LEADS = frozenset("new local nearby different another".split())
_BOSS_WORDS = (
    "manager",
    "boss",
    "supervisor",
    "advisor",
    "adviser",
    "lead",
    "principal",
    "director",
    "head",
)
# Capitalized words after "seeing someone." that open a sentence rather than name anyone.
_NOT_PARTNERS = frozenset("she he they it we i his her their its who".split())
# "first week at a new company": no name of one.
_GENERIC_LEADS = frozenset("a an the my our this that new another".split())
_WORKPLACES = frozenset(
    "company startup firm job place office hospital school agency bank shop store "
    "restaurant team".split()
)
_NOT_SURNAMES = frozenset("is was and but so who wants said says has had will just also".split())
_HABITS = frozenset("smoking drinking vaping snacking gambling biting swearing".split())
_SCHOOL_ENDS = frozenset(
    "and but so which where because now this next last lol done finished over".split()
)
_STUDYING_FOR = Folded(
    r"\b(?:I'm|I am|I've been) (?:also |currently |now )?(?:studying|preparing|revising) for "
    r"(?:the |a |an |my )?(?P<what>[\w -]{3,60}?(?:certification|certificate|exam|exams|"
    r"qualification|license|licence|test|bar))\b",
)
# "kunle landed in toronto", "my mum moved to Cádiz": where someone now lives.
_ARRIVED = Folded(
    r"(?<!\w)(?<!\w['-])(?P<who>[A-Z][\w'-]{0,40}) (?:has |just |finally )*"
    r"(?:landed in|moved to|relocated to|"
    r"settled in|moved back to) (?P<place>[\w -]{2,30})",
)
_SEEING_LATER = Folded(r"\b(?:seeing|dating) someone(?: new)?\b")
_NAME_IS = Folded(r"\b(?:his|her|their) name(?:'s| is) (?P<name>[\w'-]+)")
# "Walks for Tango. My dog.": a name, then what it is.
_NAME_THEN_PET = Folded(
    r"(?<!\w)(?<!\w['-])(?P<name>[A-Z][\w'-]{0,40})[.!]\s+(?:my|our) (?P<species>"
    + "|".join(sorted(gz.PETS, key=len, reverse=True))
    + r")\b",
)
_PHONE_CASE = {"iphone": "iPhone", "oneplus": "OnePlus"}
_DEGREE_CASE = {"msc": "MSc", "mba": "MBA", "phd": "PhD", "ma": "MA", "ba": "BA", "bsc": "BSc"}
_KIN_STATUS = {"fiance": "engaged", "fiancé": "engaged", "fiancee": "engaged", "fiancée": "engaged"}


def _named(words: list[str]) -> list[str]:
    """A capitalized name without the lower-case words after it ("Emídio Navarro done")."""
    end = next((i for i, w in enumerate(words) if i and not w[:1].isupper()), len(words))
    return words[:end]


def _phone_name(text: str) -> str:
    return " ".join(_PHONE_CASE.get(w.lower(), capitalize(w)) for w in text.split())


class ChangeRules(TurnState):
    """Whole-sentence shapes of facts that start, change and end (see the module)."""

    def _changes(self, sentence: str) -> None:
        if self.ctx.role != "user" or self.speaker in ("user", "assistant"):
            return
        low = sentence.lower()
        if "first" in low or " one at " in low:
            self._first_at(sentence)
        if any(w in low for w in _BOSS_WORDS):
            self._managers(sentence)
        self._partners(sentence, low)
        self._pets_named(sentence)
        self._activities(sentence)
        for phone in _PHONE.finditer(sentence):
            self.out.attribute(self._speaker(), "phone_model", _phone_name(phone.group("phone")))
        study = _STUDY_AT.search(sentence)
        if study:
            self._studies(study)
        self._home_work_diet(sentence, low)
        entered = _ENTERED_SCHOOL.search(sentence) if _SCHOOL_WORD.search(sentence) else None
        if entered and (
            entered.group("who") == "I" or entered.group("who").lower() not in gz.NOT_NAMES
        ):
            who = entered.group("who")
            person = self._speaker() if who == "I" else self.out.entity(who, "person")
            self._school(person, entered.group("school").split())
        here = _HERE_IN.search(sentence) if "here in" in low else None
        if here:
            self._location(self._speaker(), tokenize(here.group("place")))
        studying = _STUDYING_FOR.search(sentence)
        if studying:
            self.out.attribute(self._speaker(), "learning", studying.group("what"))
        done = _DONE_TO_ME.search(sentence) if " me " in low else None
        if done:
            self._done_to_me(sentence, done)
        for arrived in _ARRIVED.finditer(sentence):
            who = arrived.group("who")
            if who.casefold() in self.people and who.casefold() != self.speaker.casefold():
                self._location(self.people[who.casefold()], tokenize(arrived.group("place")))

    def _turn_changes(self, text: str) -> None:
        """Shapes that cross sentences: "I'm seeing someone new. His name is Sam", "walks for
        Tango. My dog." """
        if self.ctx.role != "user" or self.speaker in ("user", "assistant"):
            return
        seeing = _SEEING_LATER.search(text)
        name = _NAME_IS.search(text[seeing.end() : seeing.end() + 120]) if seeing else None
        if name is None and seeing is not None:
            name = _SEEING_APPOSED.search(text, seeing.start())
        if name is not None:
            partner = capitalize(name.group("name"))
            if partner.lower() not in gz.NOT_NAMES | _NOT_PARTNERS:
                self._person(partner)
                self.used.add(self.out.entity(partner, "person").casefold())
                self.out.relation(self._speaker(), "partner_of", partner)
                self.out.attribute(self._speaker(), "partner", partner)
                self.out.attribute(self._speaker(), "relationship_status", "dating")
        if _STOPPED.search(text):  # "Quit running. Swimming now."
            for m in _NOW_INSTEAD.finditer(text):
                if m.group("what").lower() not in _HABITS:
                    self.out.attribute(self._speaker(), "hobbies", m.group("what").lower())
        for m in _MY_EMPLOYER.finditer(text):
            org = self._words(m.group("org") or m.group("org2"))
            if org and org[0].lower() not in _GENERIC_LEADS:
                self._employer(self._speaker(), org)
        took = _TOOK_IN.search(text)
        called = _CALLED.search(text, took.end(), took.end() + 200) if took else None
        if took and called:
            pet_name = called.group("name") or called.group("name2")
            if pet_name.lower() not in gz.NOT_NAMES:
                self._pet(self._speaker(), took.group("species").lower(), pet_name)
        for m in _NAME_THEN_PET.finditer(text):
            if m.group("name").lower() not in gz.NOT_NAMES:
                self._pet(self._speaker(), m.group("species").lower(), m.group("name"))

    def _words(self, text: str) -> list[str]:
        """A name said after a preposition, capitalized when the turn is in lower case."""
        words = tokenize(text)
        if self.lowercase:
            words = [capitalize(w) for w in words]
        return words

    def _home_work_diet(self, sentence: str, low: str) -> None:
        """Where the speaker lives and works, their diet and title, said in passing."""
        if "where i" in low or " in " in low:
            for home in (*_WHERE_I_LIVE.finditer(sentence), *_MY_HOME_IN.finditer(sentence)):
                place = home.group("place").split()
                if place[0].lower() not in gz.NOT_NAMES:
                    self._location(self._speaker(), place)
        teach = _TEACH_AT.search(sentence) if " at " in sentence else None
        if teach:
            self._employer(self._speaker(), _named(teach.group("org").split()))
        for diet in _DIET_NOW.finditer(sentence):
            self.out.attribute(self._speaker(), "diet", diet.group("diet").lower())
        on_diet = _ON_DIET.search(sentence) if "diet" in low else None
        if on_diet and on_diet.group("diet").lower() not in _NOT_DIETS:
            said = on_diet.group("diet")  # as said: "Mediterranean diet", "low-FODMAP diet"
            named = said.lower() if said.lower() in v.DIETS else f"{said} diet"
            self.out.attribute(self._speaker(), "diet", named)
        came = _CAME_IN_AS.search(sentence) if " as " in low else None
        if came:
            self._job(self._speaker(), tokenize(came.group("job")))
        took = _ACCEPTED_AT.search(sentence) if "accepted" in low else None
        if took:
            self._employer(self._speaker(), _named(took.group("org").rstrip(".").split()))
            if took.group("job"):
                self._job(self._speaker(), tokenize(took.group("job")))

    def _done_to_me(self, sentence: str, m: re.Match[str]) -> None:
        """ "the GP switched me to candesartan yesterday": something done to the speaker, an
        event of theirs, dated when the sentence says when (and only then)."""
        what = " ".join(f"{m.group('prep')} {m.group('what')}".split()[:6])
        self._event(f"be {m.group('verb').lower()}", what, sentence)

    def _event(self, verb: str, what: str, sentence: str, *, undated: bool = False) -> None:
        """An event of the speaker's that ``sentence`` reports, dated by the time it says (a
        time after the turn is a plan, not when it happened). Without such a time there is
        none, unless ``undated``."""
        when = resolve_time(sentence, self.ctx.observed_at)
        if when is not None and when.when > self.ctx.observed_at:
            when = None
        if when is None and not undated:
            return
        who = self._speaker()
        self.out.actions.append(
            RawAction(
                who,
                verb,
                what,
                f"{who} {sentence}"[:240],
                when.when if when else None,
                precision=when.precision if when else None,
            )
        )

    def _first_at(self, sentence: str) -> None:
        m = _FIRST_AT.search(sentence)
        if m is None:
            return
        org = self._words(m.group("org"))
        if org and org[0][:1].isupper():
            org = _named(org)  # "First full week at Emídio Navarro done!"
        elif org and self.lowercase:
            org = noun_phrase(org, 3)  # "first 2 weeks at feedzai done", all in lower case
        # "at a new hospital" names none; "at Westmead Hospital" does
        generic = org and (
            org[0].lower() in _GENERIC_LEADS or (len(org) == 1 and org[0].lower() in _WORKPLACES)
        )
        if org and (org[0][:1].isupper() or self.lowercase) and not generic:
            self._employer(self._speaker(), org)
            # "yesterday was my first shift at X": the day the job began, as an action
            self._event("start", f"work at {' '.join(org)}", sentence)
        if m.group("job"):
            self._job(self._speaker(), tokenize(m.group("job")))

    def _managers(self, sentence: str) -> None:
        for m in _MY_BOSS.finditer(sentence):
            name = m.group("name")
            words = name.split()
            own = m.group("det").lower() == "my"
            if not own and (m.group("comma") is None or not words[0][:1].isupper()):
                continue  # "our director, Helena Marques,": "the"/"our" only in apposition
            if m.group("kin").lower() == "director" and not own and "," not in sentence[m.end() :]:
                continue  # "the director, Paulo Antunes, wants": a name set off on both sides
            if not words[0][:1].isupper() and not self.lowercase:
                continue
            if words[0].lower() in gz.NOT_NAMES:
                continue
            if words[0].islower() and (is_verb(words[0]) or words[0] in v.ADVERBS):
                continue  # "my boss keeps hinting": no one called Keeps
            words = [w for w in words if w[:1].isupper() or self.lowercase][:2]
            if len(words) > 1 and (
                words[1].lower() in gz.NOT_NAMES
                or not words[1].isalpha()
                or (words[1].islower() and (is_verb(words[1]) or words[1] in _NOT_SURNAMES))
            ):
                words = words[:1]  # "my supervisor prof chen wants": Chen
            person = self.out.entity(" ".join(capitalize(w) for w in words), "person")
            self._person(person)
            self.used.add(person.casefold())
            me = self._speaker()
            self.out.relation(person, "manages", me)
            if not m.group("old"):
                self.out.attribute(me, "manager", person)

    def _partners(self, sentence: str, low: str) -> None:
        named: str | None = None
        status: str | None = None
        m = _SEEING.search(sentence) if "someone" in low else None
        if m:
            named, status = m.group("name"), "dating"
        if named is None and ("seeing" in low or "dating" in low):
            m = _SEEING_NAMED.search(sentence)  # "seeing someone, Tiago": _turn_changes
            if m and m.group("name").lower() not in gz.NOT_NAMES | _NOT_PARTNERS:
                named, status = m.group("name"), "dating"
        m = _PROPOSED.search(sentence) if "proposed" in low else None
        if m and "?" not in sentence:
            named, status = m.group("name"), "engaged"
        if _ENGAGED.search(sentence):
            status = "engaged"
        m = _MY_PARTNER.search(sentence) if "my " in low else None
        if (
            m
            and named is None
            and m.group("name").lower() not in gz.NOT_NAMES
            and (m.group("name")[:1].isupper() or self.lowercase)
        ):
            named = m.group("name")
            status = status or _KIN_STATUS.get(m.group("kin").lower(), "dating")
        if named and named.lower() not in gz.NOT_NAMES:
            partner = self.out.entity(capitalize(named.rstrip("'s")), "person")
            self._person(partner)
            self.used.add(partner.casefold())
            self.out.relation(self._speaker(), "partner_of", partner)
            self.out.attribute(self._speaker(), "partner", partner)
        if status:
            self.out.attribute(self._speaker(), "relationship_status", status)
        m = _BROKE_UP.search(sentence) if "up" in low else None
        if m:
            self.out.attribute(self._speaker(), "relationship_status", "single")
            ex = m.group("a") or m.group("b")
            if ex and ex.lower() not in ("we", "i", "me"):
                other = capitalize(ex)
                self.out.attribute(self._speaker(), "partner", other, negated=True)
                self.out.relation(self._speaker(), "partner_of", other, negated=True)

    def _pets_named(self, sentence: str) -> None:
        for pet in _MY_PET_APPOSED.finditer(sentence):
            name = pet.group("name") or pet.group("name2")
            species = (pet.group("species") or pet.group("species2")).lower()
            said = name.lower()  # "Sadly, our dog passed away": no dog called Sadly
            if said not in gz.NOT_NAMES and said not in v.ADVERBS and said not in v.DISCOURSE:
                self._pet(self._speaker(), species, name)
        m = _PET_NAME_IS.search(sentence)
        if m:
            self._pet(self._speaker(), m.group("species").lower(), capitalize(m.group("name")))
        m = _HER_NAME_IS.search(sentence) if self.last_species else None
        if m and not m.group("name")[:1].isupper() and self.lowercase:
            self._pet(self._speaker(), self.last_species, capitalize(m.group("name")))
        told = _NEWS_LEAD.sub("", sentence)  # "Sad news: Bamse died", "Oh, and our cat died"
        m = _DIED.search(told)
        said = m.group("name").lower() if m else ""
        a_name = said not in gz.NOT_NAMES and said not in gz.PETS and said not in v.KIN
        named = m.group("name") if m and a_name else None  # not "our dog", "my mom"
        if named:
            # A pet that died is no longer had (for a person, no pet relationship ends).
            self.out.relation(self._speaker(), "has_pet", named, negated=True)
        m = m if m and m.group("kind") else _PET_DIED.search(told)
        kind = m.group("kind").lower() if m and m.group("kind") else ""
        if kind in gz.PETS:
            # "our cat Misu died", "my dog died": the speaker no longer has that pet
            self.out.attribute(self._speaker(), "pets", gz.SPECIES_OF.get(kind, kind), negated=True)
        if named or kind in gz.PETS:
            # "Our Mithu passed away on Sunday morning": the speaker lost them, then
            self._event("lose", named or f"the {kind}", sentence, undated=True)

    def _activities(self, sentence: str) -> None:
        me = None
        for m in _STOPPED.finditer(sentence):
            if m.group("what").lower() in _HABITS or m.group("what").lower() in _NOT_ACTIVITIES:
                continue  # a habit kicked, which the clause rules record as one
            me = me or self._speaker()
            self.out.attribute(me, "hobbies", m.group("what").lower(), negated=True)
        for pattern in (_STARTED, _I_GO, _JOINED_CLUB):
            for m in pattern.finditer(sentence):
                what = m.group("what").lower()
                if what.split()[0] in _ACTIVITY_LEADS and " " in what:
                    what = what.split(maxsplit=1)[1]
                if what.split()[0] not in _NOT_ACTIVITIES | _ACTIVITY_LEADS:
                    self.out.attribute(me or self._speaker(), "hobbies", what)

    def _studies(self, m: re.Match[str]) -> None:
        degree = m.group("degree").lower()
        said = _DEGREE_CASE.get(degree, degree)
        field = m.group("field")
        me = self._speaker()
        self.out.attribute(me, "learning", f"{said} in {field}" if field else said)
        school = self._words(m.group("school"))
        ends = [
            i
            for i, w in enumerate(school)
            if w.lower() in _SCHOOL_ENDS
            or (
                w.lower() in ("in", "on", "since", "from")
                and i + 1 < len(school)
                and school[i + 1].lower() in gz.WEEKDAY_MONTH | v.TIME_WORDS
            )
        ]
        school = school[: ends[0] if ends else 4]  # "Globis University in October"
        if school and school[0][:1].isupper() and school[0].lower() not in gz.NOT_NAMES:
            self._school(me, school)
