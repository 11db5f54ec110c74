"""One canonical key per attribute, whatever the spelling or phrasing.

"favourite colour", "Favorite Color" and "favorite_color" are one key; so are "allergy",
"allergic_to" and "allergies", or "job", "role" and "job_title". Every extractor's keys (the
rules', a language model's, a caller's triples) pass through :func:`canonical_key` when they
are applied, so corrections and history hold across phrasings.
"""

from __future__ import annotations

import re
import unicodedata

_NON_WORD = re.compile(r"[^a-z0-9]+")
# Spelling variants inside a key.
_SPELLING = {"favourite": "favorite", "fav": "favorite", "colour": "color", "flavour": "flavor"}
# Whole keys that mean a canonical one.
SYNONYMS = {
    "allergy": "allergies",
    "allergic_to": "allergies",
    "allergic": "allergies",
    "food_allergies": "allergies",
    "job": "job_title",
    "title": "job_title",
    "role": "job_title",
    "position": "job_title",
    "occupation": "job_title",
    "profession": "job_title",
    "job_role": "job_title",
    "company": "employer",
    "workplace": "employer",
    "works_for": "employer",
    "work_place": "employer",
    "city": "location",
    "current_city": "location",
    "current_location": "location",
    "residence": "location",
    "lives_in": "location",
    "home": "location",
    "home_town": "hometown",
    "born_in": "hometown",
    "birthplace": "hometown",
    "place_of_birth": "hometown",
    "origin": "hometown",
    "from": "hometown",
    "like": "likes",
    "interest": "likes",
    "interests": "likes",
    "preference": "likes",
    "preferences": "likes",
    "dislike": "dislikes",
    "pet": "pets",
    "hobby": "hobbies",
    "language": "languages",
    "skill": "skills",
    "goal": "goals",
    "value": "values",
    "priorities": "values",
    "opinion": "opinions",
    "views": "opinions",
    "plan": "goals",
    "plans": "goals",
    "habit": "habits",
    "routine": "habits",
    "condition": "health",
    "health_condition": "health",
    "medical_condition": "health",
    "illness": "health",
    "degree": "education",
    "marital_status": "relationship_status",
    "status": "relationship_status",
    "birth_date": "birthday",
    "date_of_birth": "birthday",
    "dob": "birthday",
    "nickname": "preferred_name",
    "diet_type": "diet",
    "dietary_preference": "diet",
    "dietary_restriction": "diet",
    "university": "school",
    "college": "school",
    "learns": "learning",
    "studying": "learning",
    "kids": "family",
    "children": "family",
    "family_members": "family",
}


def canonical_key(key: str) -> str:
    """``key`` in snake case, spelled one way, and mapped to its canonical name."""
    text = _NON_WORD.sub("_", unicodedata.normalize("NFKC", key).lower()).strip("_")
    parts = [_SPELLING.get(p, p) for p in text.split("_") if p]
    text = "_".join(parts)
    if text.startswith("favorite_") or text == "favorite":
        return text
    return SYNONYMS.get(text, text)
