"""The write contract: normalize and check every input before anything is written.

Each function either returns a clean value or raises :class:`ValidationError` naming the
field (``entities[2].description``) and, where it helps, the entity.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import regex

from turngraph.config import Limits
from turngraph.errors import TooLargeError, ValidationError

MEMORY_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_TYPE_RE = re.compile(r"^[a-z][a-z0-9_]*$")
# Characters stripped from both ends of an entity name: quotes, brackets and sentence
# punctuation that cling to names copied from prose ("Acme Corp." / "(Alice)").
_EDGE_PUNCT = (
    "'\"`\u201c\u201d\u2018\u2019\u00ab\u00bb\u2039\u203a()[]{}<>.,;:!?\u00a1\u00bf\u2026*_~"
)
_WS_RE = re.compile(r"\s+")
_SLUG_SPLIT_RE = re.compile(r"[\W_]+", re.UNICODE)
# Unicode's control characters (category Cc: U+0000-U+001F and U+007F-U+009F), found in one
# scan; multi-line text may hold line breaks and tabs.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_CONTROL_IN_LINES = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def check_text(value: object, *, field: str, multiline: bool = False, **context: Any) -> str:
    """Return ``value`` if it is a string fit for storage, else raise naming ``field``."""
    if not isinstance(value, str):
        raise ValidationError(
            f"{field} must be a string, not {type(value).__name__}", field=field, **context
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError(
            f"{field} is not valid Unicode text (it holds a lone surrogate)", field=field, **context
        ) from None
    bad = (_CONTROL_IN_LINES if multiline else _CONTROL).search(value)
    if bad:
        raise ValidationError(
            f"{field} contains the control character U+{ord(bad.group()):04X}",
            field=field,
            **context,
        )
    return value


def _bounded(value: str, limit: int, *, field: str, **context: Any) -> str:
    if len(value) > limit:
        raise TooLargeError(
            f"{field} is {len(value):,} characters; the limit is {limit:,}",
            field=field,
            limit=limit,
            **context,
        )
    return value


def required_text(
    value: object, *, field: str, limit: int, multiline: bool = False, **context: Any
) -> str:
    """A non-blank string within ``limit`` characters, stripped of surrounding whitespace."""
    text = check_text(value, field=field, multiline=multiline, **context).strip()
    if not text:
        raise ValidationError(f"{field} must not be empty", field=field, **context)
    return _bounded(text, limit, field=field, **context)


def normalize_labels(labels: object, limits: Limits) -> list[str]:
    """A turn's labels (or a filter by labels): strings, each checked like any text (no lone
    surrogate, no NUL), stripped, unique, at most ``limits.labels_per_turn``."""
    if labels is None:
        return []
    if isinstance(labels, str) or not isinstance(labels, Sequence):
        raise ValidationError("labels must be a list of strings", field="labels")
    out: list[str] = []
    for i, label in enumerate(labels):
        text = required_text(label, field=f"labels[{i}]", limit=limits.label_chars)
        if text not in out:
            out.append(text)
    if len(out) > limits.labels_per_turn:
        raise ValidationError(f"at most {limits.labels_per_turn} labels per turn", field="labels")
    return out


def optional_text(value: object, *, field: str, limit: int, multiline: bool = False) -> str | None:
    if value is None:
        return None
    text = check_text(value, field=field, multiline=multiline).strip()
    return _bounded(text, limit, field=field) if text else None


def validate_memory_name(name: object) -> str:
    if not isinstance(name, str) or not MEMORY_NAME_RE.match(name):
        raise ValidationError(
            f"invalid memory name {name!r}: use 1-64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit",
            field="name",
        )
    return name


def normalize_name(name: object, *, field: str, limit: int) -> tuple[str, str]:
    """Return ``(display, key)`` for an entity name.

    ``key`` is what makes two spellings one entity: NFKC, case-folded, whitespace collapsed,
    surrounding quotes, brackets and punctuation removed. ``display`` keeps the caller's case.
    """
    # Tabs and newlines are allowed here: they collapse to single spaces below.
    text = check_text(name, field=field, multiline=True)
    # The same few names come again turn after turn: short ones are remembered.
    return (_remembered_name if len(text) <= 256 else _normalized_name)(text, field, limit)


def _normalized_name(text: str, field: str, limit: int) -> tuple[str, str]:
    display = _visible(_WS_RE.sub(" ", unicodedata.normalize("NFKC", text)))
    display = _WS_RE.sub(" ", display).strip().strip(_EDGE_PUNCT).strip()
    if not any(unicodedata.category(ch)[0] in "LNS" for ch in display):
        raise ValidationError(
            f"{field} has no letter, digit or symbol once invisible characters, whitespace and "
            "punctuation are removed",
            field=field,
            name=text,
        )
    _bounded(display, limit, field=field)
    return display, name_key(display)


_remembered_name = functools.lru_cache(maxsize=1024)(_normalized_name)


# Never part of a name as it reads: every default-ignorable code point (the Unicode property
# Default_Ignorable_Code_Point: bidirectional and format controls, zero-width spaces, the
# combining grapheme joiner, variation selectors, Hangul fillers, Khmer inherent vowels, ...)
# and the Braille blank, which is not in the property but renders as nothing. A display name
# keeps the joiners and variation selectors that shape what comes before them (emoji
# sequences, scripts that need a zero-width non-joiner) inside it; its key drops them all, so
# the spellings with and without them are one entity.
_IGNORABLE = regex.compile(r"[\p{Default_Ignorable_Code_Point}\u2800]")
_HIDDEN = regex.compile(
    r"[[\p{Default_Ignorable_Code_Point}\u2800]--[\u200c\u200d\p{Variation_Selector}]]",
    flags=regex.VERSION1,
)


# Joiners at the ends join nothing; a variation selector selects a form of a symbol, a digit
# or a Han ideograph, and of nothing else.
_LOOSE_ENDS = regex.compile(r"^[\u200c\u200d]+|[\u200c\u200d]+$")
_IDLE_SELECTOR = regex.compile(
    r"(?<![\p{S}\p{N}\p{Han}\p{Variation_Selector}])\p{Variation_Selector}"
)


def _visible(text: str) -> str:
    return _LOOSE_ENDS.sub("", _IDLE_SELECTOR.sub("", _HIDDEN.sub("", text)))


def name_key(display: str) -> str:
    """The normalized lookup key of an entity name (see :func:`normalize_name`)."""
    folded = unicodedata.normalize("NFKC", display).casefold()
    folded = _IGNORABLE.sub("", "".join(ch for ch in folded if unicodedata.category(ch) != "Cf"))
    return _WS_RE.sub(" ", folded).strip().strip(_EDGE_PUNCT).strip()


def check_triple_entities(triples: object, *, field: str) -> None:
    """The entities of caller-supplied triples meet the graph API's rules: a name with
    something visible in it, a type of letters, digits and underscores (not silently stored
    as ``other``). Other faults of the triples' shape are left to their parser to name."""
    if not isinstance(triples, Sequence) or isinstance(triples, str | bytes):
        return
    for i, triple in enumerate(triples):
        if not isinstance(triple, Mapping):
            continue
        for part in ("entity", "target"):
            value = triple.get(part)
            if not isinstance(value, Mapping):
                continue
            where = f"{field}[{i}].{part}"
            if isinstance(value.get("name"), str):
                normalize_name(value["name"], field=f"{where}.name", limit=200)
            if value.get("type") is not None:
                normalize_type(value["type"], field=f"{where}.type", limit=64)


def check_speaker(value: object, *, limit: int = 200) -> str | None:
    """A speaker's name as stored: None stays None; a name that is nothing visible (only
    invisible characters, whitespace or punctuation, like ``"..."``) is refused, since the
    speaker's facts would have no one to belong to."""
    if value is None:
        return None
    normalize_name(value, field="speaker", limit=limit)
    return _WS_RE.sub(" ", _visible(str(value))).strip()


def normalize_type(value: object, *, field: str, limit: int) -> str:
    """Entity and relationship types: lower snake case (``works_at``, ``organization``)."""
    text = required_text(value, field=field, limit=limit)
    norm = re.sub(r"[\s\-]+", "_", unicodedata.normalize("NFKC", text).lower())
    if not _TYPE_RE.match(norm):
        raise ValidationError(
            f"{field} {text!r} must be a word of letters, digits and underscores, "
            "starting with a letter",
            field=field,
        )
    return norm


def slugify(title: str) -> str:
    """A URL-friendly slug from a title: accents dropped, words joined by '-', at most 64."""
    decomposed = unicodedata.normalize("NFKD", title)
    plain = "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn").casefold()
    words = [w for w in _SLUG_SPLIT_RE.split(plain) if w]
    slug = ""
    for word in words:
        candidate = f"{slug}-{word}" if slug else word
        if len(candidate) > 64:
            break
        slug = candidate
    if not slug and words:
        slug = words[0][:64]
    return slug or "observation"


def parse_datetime(value: object, *, field: str) -> datetime:
    """An aware UTC datetime from a datetime or an ISO-8601 string; naive means UTC."""
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise ValidationError(
                f"{field} {value!r} is not an ISO-8601 date or datetime", field=field
            ) from None
    else:
        raise ValidationError(
            f"{field} must be a datetime or an ISO-8601 string, not {type(value).__name__}",
            field=field,
        )
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    try:
        return dt.astimezone(UTC)
    except OverflowError:  # an offset that steps outside years 1-9999
        raise ValidationError(
            f"{field} {value!s:.64} is outside the calendar in UTC: use a time between "
            "0001-01-01 and 9999-12-31 (UTC)",
            field=field,
        ) from None


def normalize_tags(tags: object, *, limits: Limits, field: str = "tags") -> list[str]:
    """Tags: stripped, lower-cased, de-duplicated in first-seen order."""
    if tags is None:
        return []
    if isinstance(tags, str) or not isinstance(tags, Iterable):
        raise ValidationError(f"{field} must be a list of strings", field=field)
    out: list[str] = []
    for i, tag in enumerate(tags):
        clean = required_text(tag, field=f"{field}[{i}]", limit=limits.tag_chars).lower()
        clean = _WS_RE.sub(" ", unicodedata.normalize("NFKC", clean))
        if clean not in out:
            out.append(clean)
    if len(out) > limits.tags_per_observation:
        raise TooLargeError(
            f"{field} has {len(out)} tags; the limit is {limits.tags_per_observation}",
            field=field,
        )
    return out


def check_confidence(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValidationError("confidence must be a number between 0 and 1", field="confidence")
    if not (0.0 <= float(value) <= 1.0):
        raise ValidationError(f"confidence {value} is outside 0..1", field="confidence")
    return float(value)


def check_weight(value: object, *, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValidationError(f"{field} must be a number", field=field)
    weight = float(value)
    if not math.isfinite(weight) or weight < 0:
        raise ValidationError(f"{field} must be a finite number >= 0, not {value}", field=field)
    return weight


def validate_file_path(path: object, *, limits: Limits, field: str = "path") -> str:
    """A relative POSIX path inside the memory's appendix: no '..', no absolute paths."""
    text = check_text(path, field=field)
    if not text.strip():
        raise ValidationError(f"{field} must not be empty", field=field)
    if text.startswith("/") or re.match(r"^[A-Za-z]:", text):
        raise ValidationError(
            f"{field} {text!r} is absolute; give a path relative to the memory's appendix",
            field=field,
            path=text,
        )
    if "\\" in text:
        raise ValidationError(
            f"{field} {text!r} uses '\\'; separate folders with '/'", field=field, path=text
        )
    parts = text.split("/")
    for part in parts:
        if part in ("..", "."):
            raise ValidationError(
                f"{field} {text!r} contains '{part}'; appendix paths cannot leave or "
                "re-enter folders",
                field=field,
                path=text,
            )
        if not part:
            raise ValidationError(f"{field} {text!r} has an empty segment", field=field, path=text)
        if part != part.strip():
            raise ValidationError(
                f"{field} {text!r} has a segment with surrounding spaces", field=field, path=text
            )
    return _bounded(text, limits.file_path_chars, field=field)


# ---------------------------------------------------------------------------------------------
# Entity and relationship drafts


@dataclass(frozen=True, slots=True)
class EntityDraft:
    name: str
    key: str
    type: str | None
    description: str | None  # None only from extraction: an existing entity keeps its own
    retrieval_queries: tuple[str, ...]
    memory_category: str | None = None


@dataclass(frozen=True, slots=True)
class RelationshipDraft:
    source: str
    source_key: str
    type: str
    target: str
    target_key: str
    description: str | None
    weight: float | None
    memory_category: str | None = None


@dataclass(frozen=True, slots=True)
class RelationshipKey:
    source_key: str
    type: str
    target_key: str


_ENTITY_FIELDS = {"name", "type", "description", "retrieval_queries"}
_REL_FIELDS = {"source", "type", "target", "description", "weight"}


def _as_mapping(item: object, *, field: str, allowed: set[str]) -> Mapping[str, Any]:
    if hasattr(item, "model_dump"):
        item = item.model_dump()
    if not isinstance(item, Mapping):
        raise ValidationError(f"{field} must be an object, not {type(item).__name__}", field=field)
    unknown = sorted(set(item) - allowed)
    if unknown:
        raise ValidationError(
            f"{field} has unknown field(s) {', '.join(map(str, unknown))}; "
            f"allowed: {', '.join(sorted(allowed))}",
            field=field,
        )
    return item


def _as_list(value: object, *, field: str) -> Sequence[Any]:
    if value is None:
        return []
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise ValidationError(f"{field} must be a list", field=field)
    return list(value)


def parse_entities(raw: object, *, limits: Limits, field: str = "entities") -> list[EntityDraft]:
    """Validate entity inputs; repeats of one name in a write merge (later wins)."""
    items = _as_list(raw, field=field)
    if len(items) > limits.entities_per_write:
        raise TooLargeError(
            f"{field} has {len(items)} entities; the limit per write is "
            f"{limits.entities_per_write}",
            field=field,
        )
    drafts: dict[str, EntityDraft] = {}
    for i, item in enumerate(items):
        f = f"{field}[{i}]"
        data = _as_mapping(item, field=f, allowed=_ENTITY_FIELDS)
        if "name" not in data:
            raise ValidationError(f"{f}.name is required", field=f"{f}.name")
        name, key = normalize_name(data["name"], field=f"{f}.name", limit=limits.entity_name_chars)
        etype = None
        if data.get("type") is not None:
            etype = normalize_type(data["type"], field=f"{f}.type", limit=limits.entity_type_chars)
        raw_desc = data.get("description")
        if raw_desc is None or (isinstance(raw_desc, str) and not raw_desc.strip()):
            raise ValidationError(
                f"entity {name!r} ({f}) needs a non-empty description: it is what recall "
                "matches on, so an entity without one could never be found",
                field=f"{f}.description",
                entity=name,
            )
        description = required_text(
            raw_desc,
            field=f"{f}.description",
            limit=limits.description_chars,
            multiline=True,
            entity=name,
        )
        queries: list[str] = []
        for j, q in enumerate(
            _as_list(data.get("retrieval_queries"), field=f"{f}.retrieval_queries")
        ):
            text = required_text(
                q, field=f"{f}.retrieval_queries[{j}]", limit=limits.retrieval_query_chars
            )
            if text not in queries:
                queries.append(text)
        if len(queries) > limits.retrieval_queries_per_entity:
            raise TooLargeError(
                f"{f}.retrieval_queries has {len(queries)} queries; the limit is "
                f"{limits.retrieval_queries_per_entity}",
                field=f"{f}.retrieval_queries",
                entity=name,
            )
        prior = drafts.get(key)
        if prior is not None:
            merged = list(prior.retrieval_queries) + [
                q for q in queries if q not in prior.retrieval_queries
            ]
            queries = merged[: limits.retrieval_queries_per_entity]
            etype = etype or prior.type
            name = prior.name
        drafts[key] = EntityDraft(name, key, etype, description, tuple(queries))
    return list(drafts.values())


def parse_relationships(
    raw: object, *, limits: Limits, field: str = "relationships"
) -> list[RelationshipDraft]:
    """Validate relationship inputs; a repeat of one (source, type, target) keeps the last."""
    items = _as_list(raw, field=field)
    if len(items) > limits.relationships_per_write:
        raise TooLargeError(
            f"{field} has {len(items)} relationships; the limit per write is "
            f"{limits.relationships_per_write}",
            field=field,
        )
    drafts: dict[tuple[str, str, str], RelationshipDraft] = {}
    for i, item in enumerate(items):
        f = f"{field}[{i}]"
        data = _as_mapping(item, field=f, allowed=_REL_FIELDS)
        for required in ("source", "type", "target"):
            if required not in data:
                raise ValidationError(f"{f}.{required} is required", field=f"{f}.{required}")
        source, skey = normalize_name(
            data["source"], field=f"{f}.source", limit=limits.entity_name_chars
        )
        target, tkey = normalize_name(
            data["target"], field=f"{f}.target", limit=limits.entity_name_chars
        )
        rtype = normalize_type(
            data["type"], field=f"{f}.type", limit=limits.relationship_type_chars
        )
        if skey == tkey:
            raise ValidationError(
                f"{f} links {source!r} to itself; a relationship needs two different entities",
                field=f,
            )
        description = optional_text(
            data.get("description"),
            field=f"{f}.description",
            limit=limits.description_chars,
            multiline=True,
        )
        weight = None
        if data.get("weight") is not None:
            weight = check_weight(data["weight"], field=f"{f}.weight")
        drafts[(skey, rtype, tkey)] = RelationshipDraft(
            source, skey, rtype, target, tkey, description, weight
        )
    return list(drafts.values())


def parse_relationship_refs(raw: object, *, limits: Limits, field: str) -> list[RelationshipKey]:
    """Relationship identities ``{source, type, target}`` (for explicit removal)."""
    out: list[RelationshipKey] = []
    for i, item in enumerate(_as_list(raw, field=field)):
        f = f"{field}[{i}]"
        data = _as_mapping(item, field=f, allowed={"source", "type", "target"})
        for required in ("source", "type", "target"):
            if required not in data:
                raise ValidationError(f"{f}.{required} is required", field=f"{f}.{required}")
        _, skey = normalize_name(
            data["source"], field=f"{f}.source", limit=limits.entity_name_chars
        )
        _, tkey = normalize_name(
            data["target"], field=f"{f}.target", limit=limits.entity_name_chars
        )
        rtype = normalize_type(
            data["type"], field=f"{f}.type", limit=limits.relationship_type_chars
        )
        out.append(RelationshipKey(skey, rtype, tkey))
    return out


def parse_names(raw: object, *, limits: Limits, field: str) -> list[tuple[str, str]]:
    return [
        normalize_name(item, field=f"{field}[{i}]", limit=limits.entity_name_chars)
        for i, item in enumerate(_as_list(raw, field=field))
    ]


def parse_paths(raw: object, *, limits: Limits, field: str) -> list[str]:
    paths: list[str] = []
    for i, item in enumerate(_as_list(raw, field=field)):
        path = validate_file_path(item, limits=limits, field=f"{field}[{i}]")
        if path not in paths:
            paths.append(path)
    if len(paths) > limits.files_per_observation:
        raise TooLargeError(
            f"{field} references {len(paths)} files; the limit is {limits.files_per_observation}",
            field=field,
        )
    return paths


def description_words(text: str) -> frozenset[str]:
    """The words of a description, for telling a material change from a cosmetic one."""
    return frozenset(re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold()))


def fingerprint(operation: str, payload: Mapping[str, Any]) -> str:
    """A canonical hash of a write request, for idempotency: key order and spacing don't count."""
    blob = json.dumps(
        {"op": operation, "payload": payload},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=_json_default,
    )
    # A lone surrogate is refused by validation, which may run after the fingerprint.
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


MAX_JSON_DEPTH = 32


def check_json_value(value: object, *, field: str, depth: int = 0) -> None:
    """A JSON value fit for storage and for every response: nested at most ``MAX_JSON_DEPTH``
    deep, every string and key valid text (no lone surrogate, no NUL)."""
    if depth > MAX_JSON_DEPTH:
        raise ValidationError(f"{field} is nested deeper than {MAX_JSON_DEPTH} levels", field=field)
    if isinstance(value, str):
        check_text(value, field=field, multiline=True)
    elif isinstance(value, dict):
        for key, item in value.items():
            check_text(key, field=f"{field} key", multiline=True)
            check_json_value(item, field=field, depth=depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            check_json_value(item, field=field, depth=depth + 1)
    elif isinstance(value, float) and not math.isfinite(value):
        raise ValidationError(f"{field} holds a number JSON cannot carry ({value})", field=field)


def _json_default(value: object) -> object:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (tuple, frozenset, set)):
        return sorted(value) if isinstance(value, (set, frozenset)) else list(value)
    if hasattr(value, "__dataclass_fields__"):
        return {k: getattr(value, k) for k in value.__dataclass_fields__}
    raise TypeError(f"cannot fingerprint {type(value).__name__}")


@dataclass(frozen=True, slots=True)
class ObservationFields:
    """An observation's own fields, validated; ``None`` means "not given"."""

    title: str | None = None
    content: str | None = None
    category: str | None = None
    tags: list[str] | None = None
    observed_at: datetime | None = None
    confidence: float | None = None
    source: str | None = None


def parse_observation_fields(
    *,
    title: object,
    content: object,
    category: object,
    tags: object,
    observed_at: object,
    confidence: object,
    source: object,
    limits: Limits,
) -> ObservationFields:
    """Validate whichever observation fields were given (``None`` = not given)."""
    return ObservationFields(
        title=None
        if title is None
        else required_text(title, field="title", limit=limits.title_chars),
        content=None if content is None else check_content(content, limits=limits),
        category=None
        if category is None
        else required_text(category, field="category", limit=limits.category_chars).lower(),
        tags=None if tags is None else normalize_tags(tags, limits=limits),
        observed_at=None
        if observed_at is None
        else parse_datetime(observed_at, field="observed_at"),
        confidence=check_confidence(confidence),
        source=optional_text(source, field="source", limit=limits.source_chars),
    )


def check_content(content: object, *, limits: Limits) -> str:
    """Content is stored exactly as given: checked, never stripped or rewritten."""
    text = check_text(content, field="content", multiline=True)
    if not text.strip():
        raise ValidationError("content must not be empty", field="content")
    if len(text) > limits.content_hard_chars:
        raise TooLargeError(
            f"content is {len(text):,} characters; the hard limit is "
            f"{limits.content_hard_chars:,}. Split it into several observations, or store the "
            "source as an appendix file (put_file) and reference it by path",
            field="content",
            limit=limits.content_hard_chars,
        )
    return text


def content_warnings(content: str | None, *, limits: Limits) -> list[str]:
    """A warning when content is past the soft cap of an observation."""
    soft = limits.content_soft_chars
    if content is None or len(content) <= soft:
        return []
    return [
        f"content is {len(content):,} characters, over the ~{soft:,} an observation should "
        "hold: consider splitting it into several observations, or moving the source into an "
        "appendix file and referencing it by path"
    ]


MAX_OFFSET = 2**62


def page_bounds(limit: object, offset: object, *, maximum: int) -> tuple[int, int]:
    """A checked page: ``limit`` clamped to ``maximum``, ``offset`` non-negative."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValidationError("limit must be a positive integer", field="limit")
    if isinstance(offset, bool) or not isinstance(offset, int) or not 0 <= offset <= MAX_OFFSET:
        raise ValidationError(f"offset must be an integer from 0 to {MAX_OFFSET}", field="offset")
    return min(limit, maximum), offset
