"""A name's short form: "Postgres" for "PostgreSQL", "Kube" is too short to say so.

A draft often writes a name by its first letters; a word of the claim's name of at least
:data:`MIN_SHORT` letters that opens a longer word of the source (same first letter,
case aside) names the same thing, not another.
"""

from __future__ import annotations

import re

__all__ = ["MIN_SHORT", "short_form_in"]

MIN_SHORT = 5
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def short_form_in(group: str, text: str) -> bool:
    """Whether every word of the name ``group`` is in ``text`` as written or as the
    start of a longer name word there (at least :data:`MIN_SHORT` letters), with at
    least one such short form."""
    words = {w.lower() for w in _WORD.findall(text)}
    shortened = False
    for word in _WORD.findall(group):
        low = word.lower()
        if low in words:
            continue
        if len(low) >= MIN_SHORT and any(
                w.startswith(low) and len(w) > len(low) for w in words):
            shortened = True
            continue
        return False
    return shortened
