"""Record ids in the ``table:key`` form the memory API uses (``session:01j...``).

Keys are time-ordered (48-bit milliseconds, then 80 random bits) in lower-case Crockford
base32, so ids sort by creation and survive percent-encoding in a URL path.
"""

from __future__ import annotations

import secrets
import time

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"


def new_key() -> str:
    value = (int(time.time() * 1000) << 80) | secrets.randbits(80)
    return "".join([_ALPHABET[(value >> shift) & 31] for shift in _SHIFTS])


_SHIFTS = tuple(range(125, -1, -5))  # 26 digits of 5 bits, most significant first


def new_id(table: str) -> str:
    """A fresh id such as ``turn:01jd3k...``."""
    return f"{table}:{new_key()}"


def entity_ref(entity_type: str, key: str) -> str:
    """The reference of an entity: ``entity:<type>/<normalized name>``."""
    return f"entity:{entity_type}/{key}"
