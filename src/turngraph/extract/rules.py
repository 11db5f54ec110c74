"""RuleExtractor: offline, deterministic English extraction from patterns and small word lists.

Per sentence, in order: instructions (imperatives aimed at the agent), then claims that are
questioned, hedged or negated (kept apart as uncertainties, yielding no facts), then facts:
attributes and relations from first-person and named-subject patterns, and actions from
past-tense clauses with their time resolved against the turn's. The first person is the
turn's speaker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from turngraph.extract import gazetteers as gz
from turngraph.extract.base import (
    RawAction,
    RawAttribute,
    RawEntity,
    RawExtraction,
    RawInstruction,
    RawRelation,
    RawUncertainty,
    TurnContext,
)
from turngraph.extract.timeref import resolve_time

# A sentence ends at . ! ? followed by a space or the end (so "a@b.com" and "3.5" stay whole).
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[^\s.!?]))+(?:[.!?]+|$)")
_TOKEN = re.compile(r"[A-Za-z\u00c0-\u024f0-9][\w'&.-]*")
_CONNECTORS = {"of", "de", "la", "le", "da", "van", "von", "der", "del", "&"}
# Where a value phrase ends.
_BOUNDARY = re.compile(
    r"\s*(?:[,;:!?()\"]|\.(?:\s|$)|\s-\s|\s(?:and|but|because|so|since|when|while|which|who|"
    r"whom|though|although|after|before|until|if|for|with|to|at|in|on|as|yesterday|today|"
    r"tonight|tomorrow|last|ago|this|next|now|anymore|recently|lately|again|too|either)\b)",
    re.I,
)
_ARTICLE = re.compile(r"^(?:a|an|the|some)\s+", re.I)

_HEDGE = re.compile(
    r"\b(i think|i guess|i suppose|i believe|i heard|i'm not sure|i am not sure|not sure|maybe|"
    r"perhaps|probably|possibly|might|may be|may have|could be|apparently|supposedly|rumou?red|"
    r"i wonder|seems like|seems to|i doubt)\b",
    re.I,
)
_NEGATION = re.compile(r"\b(?:not|never|no longer)\b|n't\b", re.I)
_YES_NO = re.compile(r"^(is|are|was|were|does|did|has|have|had|will)\s+(?!you\b|ya\b)", re.I)
_INSTR_ADVERB = re.compile(
    r"^(?:please\s+)?(?:(?:from now on|going forward|in (?:the )?future),?\s+)?"
    r"(always|never|don't|do not|avoid|stop)\s+(\w+)",
    re.I,
)
_INSTR_IMPERATIVE = re.compile(r"^(?:please\s+)?(\w+)\b", re.I)
_INSTR_WANT = re.compile(
    r"^i(?: would|'d)? (?:want|need|like|prefer) (?:you|your (?:replies|answers|responses)) to\b",
    re.I,
)
_CALL_ME = re.compile(r"^(?:please\s+)?(?:just\s+)?call me\s+([A-Z][\w'-]*)", re.I)

_NAME = r"([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)"
_FIRST = r"(?:\bI|^I)"


@dataclass
class _Builder:
    ctx: TurnContext
    entities: dict[str, RawEntity] = field(default_factory=dict)
    attributes: list[RawAttribute] = field(default_factory=list)
    relations: list[RawRelation] = field(default_factory=list)
    actions: list[RawAction] = field(default_factory=list)
    instructions: list[RawInstruction] = field(default_factory=list)
    uncertainties: list[RawUncertainty] = field(default_factory=list)

    def entity(self, name: str, etype: str) -> str:
        name = re.sub(r"(?:'s|[-'\"])$", "", name.strip())
        key = name.casefold()
        known = self.entities.get(key)
        if known is None or (known.type == "other" and etype != "other"):
            self.entities[key] = RawEntity(known.name if known else name, etype)
        return self.entities[key].name

    def speaker(self) -> str:
        return self.entity(self.ctx.speaker, "person")

    def attribute(self, entity: str, key: str, value: str, *, negated: bool = False) -> None:
        value = value.strip()
        if value and not any(
            a.entity == entity and a.key == key and a.value.casefold() == value.casefold()
            for a in self.attributes
        ):
            self.attributes.append(RawAttribute(entity, key, value, negated))

    def relation(self, subject: str, label: str, obj: str) -> None:
        rel = RawRelation(subject, label, obj)
        if subject.casefold() != obj.casefold() and rel not in self.relations:
            self.relations.append(rel)

    def result(self) -> RawExtraction:
        return RawExtraction(
            entities=tuple(self.entities.values()),
            attributes=tuple(self.attributes),
            relations=tuple(self.relations),
            actions=tuple(self.actions),
            instructions=tuple(self.instructions),
            uncertainties=tuple(self.uncertainties),
        )


def _phrase(text: str, max_words: int = 6) -> str:
    """The noun phrase at the start of ``text``, up to a boundary word or punctuation."""
    m = _BOUNDARY.search(text)
    value = text[: m.start()] if m else text
    value = value.strip().rstrip(".")
    words = value.split()
    return " ".join(words[:max_words])


def _value(text: str, max_words: int = 6) -> str:
    return _ARTICLE.sub("", _phrase(text, max_words))


class RuleExtractor:
    """The default extractor: English patterns and word lists, no model, a few ms a turn."""

    name = "rules-en-v1"

    def extract(self, text: str, context: TurnContext) -> RawExtraction:
        b = _Builder(context)
        normalized = text.replace("\u2019", "'").replace("\u2018", "'")
        for m in _SENTENCE.finditer(normalized):
            sentence = m.group(0).strip()
            if sentence:
                self._sentence(sentence, b)
        return b.result()

    # -- one sentence ------------------------------------------------------------------------

    def _sentence(self, sentence: str, b: _Builder) -> None:
        if self._instruction(sentence, b):
            return
        names = self._names(sentence, b)
        body = sentence.rstrip(".!? ")
        if sentence.endswith("?"):
            if _YES_NO.match(sentence):
                about = self._about(names, b)
                if about:
                    b.uncertainties.append(RawUncertainty(about, f"asked, not stated: {body}?"))
            return
        hedge = _HEDGE.search(sentence)
        if hedge:
            about = self._about(names, b) or self._claim_subject(body, names, b)
            if about:
                b.uncertainties.append(
                    RawUncertainty(about, f"hedged ('{hedge.group(0)}'): {body}")
                )
            return
        if _NEGATION.search(sentence):
            if self._negated_preference(body, b):
                return
            # Only a negated *claim* is kept: one that would have been a fact unnegated.
            about = self._claim_subject(_NEGATION.sub(" ", body), names, b)
            if about:
                b.uncertainties.append(RawUncertainty(about, f"negated claim: {body}"))
            return
        self._facts(body, names, b)
        self._action(body, names, b)

    def _claim_subject(self, body: str, names: dict[str, str], b: _Builder) -> str | None:
        """Whom ``body`` would state a fact about, found on a scratch builder."""
        scratch = _Builder(b.ctx)
        self._facts(" ".join(body.split()), names, scratch)
        for attr in scratch.attributes:
            return b.entity(attr.entity, scratch.entities[attr.entity.casefold()].type)
        for rel in scratch.relations:
            return b.entity(rel.subject, scratch.entities[rel.subject.casefold()].type)
        return None

    def _about(self, names: dict[str, str], b: _Builder) -> str | None:
        speaker = b.ctx.speaker.casefold()
        for name in names:
            if name.casefold() != speaker:
                return name
        return None

    # -- named entities ------------------------------------------------------------------------

    def _names(self, sentence: str, b: _Builder) -> dict[str, str]:
        """Capitalized spans, typed: {name: type}. Greeting vocatives are not entities."""
        tokens = list(_TOKEN.finditer(sentence))
        spans: list[tuple[int, int]] = []
        i = 0
        while i < len(tokens):
            if self._capitalized(tokens, i):
                j = i
                while j + 1 < len(tokens) and (
                    self._capitalized(tokens, j + 1)
                    or (
                        tokens[j + 1].group(0).lower() in _CONNECTORS
                        and j + 2 < len(tokens)
                        and self._capitalized(tokens, j + 2)
                    )
                ):
                    j += 1
                spans.append((i, j))
                i = j + 1
            else:
                i += 1
        found: dict[str, str] = {}
        for i, j in spans:
            start, end = tokens[i].start(), tokens[j].end()
            name = sentence[start:end].rstrip(".'")
            if name.lower().endswith("'s"):
                name = name[:-2]
            if self._vocative(sentence, start, end):
                continue
            if i == 0 and i == j and not self._known_name(name, b):
                continue  # a capital that only starts the sentence says nothing
            etype = self._type(name, sentence, start, end, b)
            if etype is None:
                continue
            found[b.entity(name, etype)] = etype
        return found

    def _known_name(self, name: str, b: _Builder) -> bool:
        low = name.lower()
        return (
            low in gz.FIRST_NAMES
            or low in gz.PLACES
            or low in gz.ORGANIZATIONS
            or low in gz.PRODUCTS
            or name.casefold() == b.ctx.speaker.casefold()
            or (name.isupper() and len(name) > 1)
            or name.casefold() in b.entities
        )

    def _capitalized(self, tokens: list[re.Match[str]], i: int) -> bool:
        word = tokens[i].group(0)
        if not word[0].isupper() or re.search(r"'(t|ve|re|ll|d|m)$", word, re.I):
            return False
        low = word.lower().rstrip(".")
        if low in gz.NOT_NAMES or low in gz.WEEKDAY_MONTH or low == "i":
            return False
        if low.endswith("'s") and low[:-2] in gz.NOT_NAMES:
            return False
        return not low.isdigit()

    def _vocative(self, sentence: str, start: int, end: int) -> bool:
        before = sentence[:start].rstrip().lower()
        after = sentence[end:].lstrip()
        greeting = re.search(
            r"(^|\b)(hey|hi|hello|thanks|thank you|wow|congrats|congratulations|oh|yes|yeah|"
            r"sure|aww?|haha|sorry|bye|dear|ok|okay|great|cool|nice|good|awesome|so)$",
            before,
        )
        if (greeting or not before or before.endswith(",")) and (not after or after[0] in ",!?."):
            return True
        return before.endswith(",") and (not after or after[0] in "!?.")

    def _type(self, name: str, sentence: str, start: int, end: int, b: _Builder) -> str | None:
        low = name.lower()
        words = low.split()
        before = sentence[:start].lower()
        after = sentence[end:].lower()
        if name.casefold() == b.ctx.speaker.casefold() or (
            b.ctx.addressee and name.casefold() == b.ctx.addressee.casefold()
        ):
            return "person"
        if all(w.rstrip(".") in gz.JOB_WORDS for w in words) or (
            words[0] in gz.JOB_WORDS and len(words) > 1 and words[1] in ("of", "at")
        ):
            return None  # a job title, recorded as an attribute, not an entity
        if low in gz.LANGUAGES:
            return None
        if low in gz.PRODUCTS:
            return "product"
        if low in gz.ORGANIZATIONS or words[-1].rstrip(".") in gz.ORG_WORDS:
            return "organization"
        if low in gz.PLACES or words[-1] in gz.PLACE_WORDS:
            return "place"
        if words[-1] in gz.EVENT_WORDS:
            return "event"
        if re.search(r"\b(named|called)\s*$", before) and re.search(
            r"\b(" + "|".join(sorted(gz.PETS)) + r")\b", before
        ):
            return "animal"
        if re.search(
            r"\b(my|our|his|her|their)\s+(\w+\s+)?(sister|brother|mom|mother|dad|father|son|"
            r"daughter|wife|husband|friend|partner|boss|colleague|cousin|aunt|uncle|"
            r"grandma|grandpa|kid|child|niece|nephew|neighbor|girlfriend|boyfriend)\s*$",
            before,
        ):
            return "person"
        if re.search(r"\b(work(?:s|ed|ing)? (?:at|for)|joined|hired by|employed by)\s*$", before):
            return "organization"
        if (
            re.search(
                r"\b(live[sd]? in|living in|moved to|move to|from|visit(?:ed|ing)?|trip to|"
                r"travel(?:l?ed)? to|in|to|near)\s*$",
                before,
            )
            and len(words) <= 3
        ):
            return "place" if words[0] not in gz.FIRST_NAMES else "person"
        if words[0] in gz.FIRST_NAMES:
            return "person"
        if re.match(r"^\s*(said|says|told|is|was|and i|texted|called|asked)\b", after):
            return "person"
        if name.isupper() and len(name) <= 6:
            return "other"
        return "other"

    # -- instructions ----------------------------------------------------------------------------

    def _instruction(self, sentence: str, b: _Builder) -> bool:
        if b.ctx.role not in ("user", "system"):
            return False
        text = sentence.strip().rstrip(".!")
        call = _CALL_ME.match(text)
        if call:
            name = call.group(1)
            b.instructions.append(RawInstruction(f"call the user {name}", f"{text}."))
            b.attribute(b.speaker(), "preferred_name", name)
            return True
        adverb = _INSTR_ADVERB.match(text)
        first = _INSTR_IMPERATIVE.match(text)
        if (
            (adverb and adverb.group(2).lower() in gz.AGENT_VERBS)
            or _INSTR_WANT.match(text)
            or (first and first.group(1).lower() in gz.DIRECT_AGENT_VERBS)
        ):
            label = re.sub(r"^(please\s+)?(always\s+)?", "", text, flags=re.I)
            label = " ".join(label.split()[:6]).lower()
            b.instructions.append(RawInstruction(label, f"{text}."))
            return True
        return False

    # -- facts -----------------------------------------------------------------------------------

    def _negated_preference(self, body: str, b: _Builder) -> bool:
        m = re.search(
            rf"{_FIRST} (?:don't|do not|no longer|never) (?:really )?(like|love|enjoy|eat|drink|"
            rf"play|have)\s+(.+)",
            body,
        )
        if not m:
            return False
        value = _value(m.group(2))
        if not value:
            return False
        key = "pets" if m.group(1).lower() == "have" else "likes"
        b.attribute(b.speaker(), key, value, negated=True)
        return True

    def _facts(self, body: str, names: dict[str, str], b: _Builder) -> None:
        self._first_person_facts(body, b)
        self._family(body, names, b)
        self._third_person_facts(body, names, b)

    def _org_after(self, text: str, b: _Builder) -> str | None:
        m = re.match(r"\s*(?:the\s+)?" + _NAME, text)
        if not m:
            return None
        name = m.group(1).rstrip(".")
        if name.lower() in gz.NOT_NAMES:
            return None
        return b.entity(name, "organization")

    def _place_after(self, text: str, b: _Builder) -> str | None:
        m = re.match(r"\s*(?:the\s+)?" + _NAME, text)
        if not m or m.group(1).lower() in gz.NOT_NAMES:
            return None
        return b.entity(m.group(1).rstrip("."), "place")

    def _first_person_facts(self, body: str, b: _Builder) -> None:
        m = re.search(r"\b(?i:my name is)\s+" + _NAME, body)
        if m:
            b.attribute(b.speaker(), "name", m.group(1))
        m = re.search(rf"{_FIRST}(?:'m| am) (\d{{1,3}})(?: years old|\b(?! \w))", body)
        m = m or re.search(rf"{_FIRST} (?:just )?turned (\d{{1,3}})\b", body)
        if m and 0 < int(m.group(1)) < 130:
            b.attribute(b.speaker(), "age", m.group(1))
        m = re.search(r"[\w.+-]+@[\w-]+\.[\w.-]+", body)
        if m and re.search(r"\b(my|me|I)\b", body):
            b.attribute(b.speaker(), "email", m.group(0))
        m = re.search(r"(?<!\w)\+?\d[\d\s().-]{7,}\d", body)
        if m and re.search(
            r"\b(my (?:phone|number|cell|mobile)|call me at|reach me at)", body, re.I
        ):
            b.attribute(b.speaker(), "phone", re.sub(r"\s+", " ", m.group(0)))
        m = re.search(r"\b(?i:my birthday is) (?:on )?(.+)|\bI was born on (.+)", body)
        if m:
            b.attribute(b.speaker(), "birthday", _phrase(m.group(1) or m.group(2), 4))
        m = re.search(
            rf"{_FIRST}(?:'m| am| just got| got| recently got)\s+(?:now\s+)?"
            r"(married|single|engaged|divorced|widowed|separated)\b",
            body,
        )
        if m:
            b.attribute(b.speaker(), "relationship_status", m.group(1).lower())
        # Work: "I work at Acme as Head of Platform", "I joined Globex", "promoted to CTO".
        m = re.search(
            rf"{_FIRST} (?:now |currently |still )?(?:work|am working|'m working) (?:at|for) (.+)",
            body,
        )
        m = m or re.search(
            rf"{_FIRST} (?:just |recently )?"
            r"(?:joined|started (?:a new job |working )?at|got (?:a job|hired) at) (.+)",
            body,
        )
        if m:
            org = self._org_after(m.group(1), b)
            if org:
                b.attribute(b.speaker(), "employer", org)
                b.relation(b.speaker(), "works_at", org)
        m = (
            re.search(r"\bas (?:a |an |the |our )?(.+)", body)
            if re.search(
                rf"{_FIRST} (?:now |currently )?(?:work|started|joined|am working|'m working)", body
            )
            else None
        )
        m = m or re.search(
            rf"{_FIRST} (?:just |recently )?(?:got |was |'ve been |have been )?"
            r"promoted to (?:a |an |the )?(.+)",
            body,
        )
        m = m or re.search(rf"{_FIRST} (?:just |recently )?became (?:a |an |the )?(.+)", body)
        m = m or re.search(
            r"\bmy (?:new )?(?:job title|title|role|position) is (?:now )?(?:a |an |the )?(.+)",
            body,
            re.I,
        )
        if m:
            title = _phrase(re.split(r"\s+(?:at|for|in)\s+", m.group(1))[0], 5)
            if title and any(w.lower().strip(".") in gz.JOB_WORDS for w in title.split()):
                b.attribute(b.speaker(), "job_title", title)
        m = re.search(rf"{_FIRST}'?m (?:a |an )((?:\w+ ){{0,2}}\w+?)(?: at (.+))?$", body)
        if m and m.group(1).split()[-1].lower() in gz.JOB_WORDS:
            b.attribute(b.speaker(), "job_title", m.group(1))
            if m.group(2):
                org = self._org_after(m.group(2), b)
                if org:
                    b.attribute(b.speaker(), "employer", org)
                    b.relation(b.speaker(), "works_at", org)
        # Place: "I live in Lisbon", "I moved to Berlin", "I'm based in Paris".
        m = re.search(
            rf"{_FIRST} (?:now |currently |still |just |recently |actually )?"
            r"(?:live|am living|'m living|moved|relocated|'m based|am based|'m staying|settled)"
            r" (?:in|to|back to) (.+)",
            body,
        )
        if m:
            place = self._place_after(m.group(1), b)
            if place:
                b.attribute(b.speaker(), "location", place)
                b.relation(b.speaker(), "lives_in", place)
        # Preferences.
        m = re.search(
            rf"{_FIRST} (?:really |absolutely |just |also )?"
            r"(love|like|enjoy|adore|hate|dislike|can't stand|detest) (.+)",
            body,
        )
        if m:
            value = _value(m.group(2))
            if value and not re.match(
                r"(it|that|this|them|you|to|how|what|when|where|why|which|who|the way|"
                r"seeing|hearing|being able)\b",
                value,
                re.I,
            ):
                key = (
                    "likes"
                    if m.group(1).lower() in ("love", "like", "enjoy", "adore")
                    else "dislikes"
                )
                b.attribute(b.speaker(), key, value)
        m = re.search(r"\bmy favou?rite (\w+(?: \w+)?) (?:is|are) (.+)", body, re.I)
        if m:
            b.attribute(
                b.speaker(), f"favorite_{m.group(1).lower().replace(' ', '_')}", _value(m.group(2))
            )
        m = re.search(r"\bmy hobb(?:y is|ies are|ies include) (.+)", body, re.I)
        if m:
            for part in re.split(r",\s*|\s+and\s+", m.group(1)):
                if _value(part):
                    b.attribute(b.speaker(), "hobbies", _value(part))
        pets = "|".join(sorted(gz.PETS, key=len, reverse=True))
        m = re.search(
            r"\b(?:I have|I've got|I got|I adopted|we have|(?i:my)) (?:a |an |two |new )?"
            rf"(?:little )?({pets})s?(?: (?:named|called) ([A-Z]\w+))?",
            body,
        )
        if m and (m.group(2) or not body.lower().startswith("my")):
            value = f"{m.group(1)} {m.group(2)}" if m.group(2) else m.group(1)
            b.attribute(b.speaker(), "pets", value)
            if m.group(2):
                b.entity(m.group(2), "animal")
        m = re.search(rf"{_FIRST} (?:manage|lead|run) (?:the )?" + _NAME, body)
        if m and m.group(1).lower() not in gz.NOT_NAMES:
            b.relation(
                b.speaker(),
                "manages",
                b.entity(
                    m.group(1),
                    "organization" if m.group(1).split()[-1].lower() in gz.ORG_WORDS else "other",
                ),
            )
        m = re.search(rf"{_FIRST} (?:speak|am learning|'m learning|'m fluent in) (.+)", body)
        if m:
            for part in re.split(r",\s*|\s+and\s+|\s+or\s+", m.group(1)):
                word = part.strip().split(" ")[0] if part.strip() else ""
                if word.lower() in gz.LANGUAGES:
                    b.attribute(b.speaker(), "languages", word.capitalize())
        m = re.search(rf"{_FIRST}'?m (?:a )?member of (?:the )?" + _NAME, body)
        if m:
            b.relation(b.speaker(), "member_of", b.entity(m.group(1), "organization"))

    def _family(self, body: str, names: dict[str, str], b: _Builder) -> None:
        for m in re.finditer(
            r"\b(?i:my) (?:[a-z]+ )?(?i:(sister|brother|sibling|mom|mother|dad|father|son|daughter|"
            r"kid|child|wife|husband|spouse|partner|friend|best friend|boss|manager))\s*,?\s+"
            + _NAME,
            body,
        ):
            kin, name = m.group(1).lower(), m.group(2)
            if name.split()[0].lower() in gz.NOT_NAMES:
                continue
            other = b.entity(name.rstrip("."), "person")
            me = b.speaker()
            if kin in ("sister", "brother", "sibling"):
                b.relation(me, "sibling_of", other)
            elif kin in ("son", "daughter", "kid", "child"):
                b.relation(me, "parent_of", other)
            elif kin in ("mom", "mother", "dad", "father"):
                b.relation(other, "parent_of", me)
            elif kin in ("wife", "husband", "spouse"):
                b.relation(me, "married_to", other)
            elif kin in ("boss", "manager"):
                b.relation(other, "manages", me)
            elif kin == "partner":
                b.relation(me, "partner_of", other)
            else:
                b.relation(me, "friend_of", other)
        married = re.search(rf"{_FIRST}'?m married to " + _NAME, body)
        if married:
            b.relation(b.speaker(), "married_to", b.entity(married.group(1), "person"))
        report = re.search(_NAME + r" reports to me\b", body)
        if report:
            b.relation(b.speaker(), "manages", b.entity(report.group(1), "person"))

    def _third_person_facts(self, body: str, names: dict[str, str], b: _Builder) -> None:
        for name, etype in names.items():
            if etype != "person" or name.casefold() == b.ctx.speaker.casefold():
                continue
            esc = re.escape(name)
            m = re.search(
                rf"\b{esc} (?:now |currently |still )?"
                r"(?:lives|is living|moved|is based|resides) (?:in|to) (.+)",
                body,
            )
            if m:
                place = self._place_after(m.group(1), b)
                if place:
                    b.attribute(name, "location", place)
                    b.relation(name, "lives_in", place)
            m = re.search(
                rf"\b{esc} (?:now |currently |still )?(?:works|is working) (?:at|for) (.+)", body
            )
            m = m or re.search(rf"\b{esc} (?:just |recently )?joined (.+)", body)
            if m:
                org = self._org_after(m.group(1), b)
                if org:
                    b.attribute(name, "employer", org)
                    b.relation(name, "works_at", org)
            m = re.search(rf"\b{esc} is (?:married to|engaged to) " + _NAME, body)
            if m:
                b.relation(name, "married_to", b.entity(m.group(1), "person"))
            m = re.search(
                rf"\b{esc} is my (sister|brother|friend|best friend|wife|husband|boss|mom|dad|"
                r"mother|father|son|daughter)\b",
                body,
                re.I,
            )
            if m:
                self._family(f"my {m.group(1)} {name}", names, b)

    # -- actions ---------------------------------------------------------------------------------

    def _action(self, body: str, names: dict[str, str], b: _Builder) -> None:
        subjects = ["I", "we", *names]
        pattern = (
            r"(?:^|\b|(?<=\s))(" + "|".join(re.escape(s) for s in subjects) + r")\s+"
            r"(?:just\s+|finally\s+|recently\s+|also\s+|actually\s+|even\s+)?([a-z]+)\b(.*)"
        )
        for m in re.finditer(pattern, body):
            subject, verb, rest = m.group(1), m.group(2).lower(), m.group(3)
            if not (
                verb in gz.IRREGULAR_PAST or (verb.endswith("ed") and verb not in gz.NOT_ACTIONS)
            ):
                continue
            actor = b.speaker() if subject in ("I", "we") else subject
            obj_text = re.sub(r"^\s*(?:to|at|with|into|on|for|in)\s+", " ", rest)
            obj = _phrase(obj_text.strip(), 6) or None
            when = resolve_time(body, b.ctx.observed_at)
            occurred = (
                when[0] if when else (b.ctx.observed_at if re.search(r"\bjust\b", body) else None)
            )
            summary = f"{actor} {verb}{rest}".strip()
            b.actions.append(RawAction(actor, verb, obj, summary[:300], occurred))
            return
