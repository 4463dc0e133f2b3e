"""A term a page defines by its abbreviation, said wherever the abbreviation is.

A page writes a term once in full with its abbreviation in brackets ("洁净空气量（CADR）")
and then only the abbreviation: its table's column is "甲醛CADR", its rows give the
values. A question asks in the full term ("除甲醛的洁净空气量是多少"), so the row shares
none of its words. :func:`defined` reads the sources' definitions and
:func:`abbreviated_terms` gives a sentence that writes an abbreviation (in its text or
its table's header) the question's terms of the full term, as the ranking
(:mod:`deepcite.citations.sentence_ranking`) counts a near-synonym's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from deepcite.text.cjk_terms import cjk_terms

#: "洁净空气量（CADR）", "能效比(EER)": a CJK term, then a Latin abbreviation in brackets.
_DEFINED = re.compile(r"(?P<full>[\u4e00-\u9fff]{2,8})\s?[（(]\s?"
                      r"(?P<short>[A-Za-z][A-Za-z0-9.+\-]{1,9})\s?[）)]")


def defined(texts: Iterable[str]) -> dict[str, str]:
    """Each abbreviation ``texts`` define, with what stands before it (the full term
    at its end: "区别在于洁净空气量"); one defined two ways is left out (which one a
    sentence means is unknown)."""
    found: dict[str, set[str]] = {}
    for text in texts:
        for match in _DEFINED.finditer(text):
            found.setdefault(match.group("short"), set()).add(match.group("full"))
    return {short: next(iter(full)) for short, full in found.items() if len(full) == 1}


def abbreviated_terms(text: str, question: str, definitions: dict[str, str]) -> list[str]:
    """The question's terms of each full term whose abbreviation ``text`` writes as a
    word of its own (not inside a longer Latin word), when the question writes the full
    term."""
    terms: list[str] = []
    for short, full in definitions.items():
        # the term is the end of what stands before the bracket ("区别在于洁净空气量"):
        # its longest end the question writes
        said = next((full[i:] for i in range(len(full) - 1) if full[i:] in question), "")
        if said and re.search(rf"(?<![A-Za-z]){re.escape(short)}(?![A-Za-z])", text):
            terms.extend(t for t in cjk_terms(said) if t not in terms)
    return terms


__all__ = ["abbreviated_terms", "defined"]
