"""A setting a claim says is on or off against a table row's cell saying the other:
"`delete_removed` is switched on by default" against "| `delete_removed` | bool |
`false` |".

A configuration reference lists each setting's default in a table: the row names the
setting in its first cell and gives its state as ``true``/``false`` (``yes``/``no``,
``on``/``off``, ``enabled``/``disabled``). The claim's words ("switched on", "enabled")
are none of the cell's, so no word or value compares them; the state does.
"""

from __future__ import annotations

import re

from deepcite.factcheck.judgement import Conflict, Judgement, quote_of_sentence
from deepcite.factcheck.negation import negated
from deepcite.factcheck.passages import Pool, Sentence
from deepcite.factcheck.terms import terms_of
from deepcite.text.tables import markdown_cells

__all__ = ["claimed_state", "switch_clash", "switched_row"]

_ON = re.compile(r"\b(?:switched|turned|set|left)\s+on\b|\benabled\b|\bactive\b|"
                 r"\bon\s+by\s+default\b|\btrue\b", re.IGNORECASE)
_OFF = re.compile(r"\b(?:switched|turned|set|left)\s+off\b|\bdisabled\b|\binactive\b|"
                  r"\boff\s+by\s+default\b|\bfalse\b", re.IGNORECASE)
_CELL_STATES = {"true": True, "yes": True, "on": True, "enabled": True,
                "false": False, "no": False, "off": False, "disabled": False}


def claimed_state(text: str) -> tuple[str, bool] | None:
    """The words of ``text`` saying a setting is on or off, and which; None where it
    says neither or both. A negation turns it ("is not enabled" is off)."""
    on, off = _ON.search(text), _OFF.search(text)
    if on is not None and off is None:
        return on.group(0), not negated(text)
    if off is not None and on is None:
        return off.group(0), negated(text)
    return None


def _cell_state(cell: str) -> bool | None:
    return _CELL_STATES.get(cell.strip().strip("`*_\"'").lower())


def switch_clash(text: str, claim_terms: frozenset[str],
                 pool: Pool) -> tuple[Sentence, str, str] | None:
    """The table row naming the claim's setting in its first cell whose state cell
    says otherwise than the claim (the column the claim names - "by default" - where
    the row has several), with the claim's words and the row's; None where no row
    does, or one agrees."""
    claimed = claimed_state(text)
    if claimed is None:
        return None
    words, state = claimed
    for sentence in pool.sentences:
        if not sentence.text.lstrip().startswith("|"):
            continue
        cells = markdown_cells(sentence.text)
        named = terms_of(cells[0]) if cells else frozenset()
        if len(cells) < 2 or not named or not named <= claim_terms:
            continue
        heads = markdown_cells(sentence.header)
        states = [(index, found) for index, cell in enumerate(cells[1:], start=1)
                  if (found := _cell_state(cell)) is not None]
        if len(states) > 1:
            # the column the claim names ("by default"), else no one cell is its
            states = [(index, found) for index, found in states if index < len(heads)
                      and terms_of(heads[index]) & claim_terms]
        if len(states) != 1:
            continue
        index, found = states[0]
        if found == state:
            return None
        return sentence, words, f"{cells[0]}: {cells[index]}"
    return None


def switched_row(text: str, claim_terms: frozenset[str], pool: Pool) -> Judgement | None:
    """:func:`switch_clash` as a contradiction, or None."""
    found = switch_clash(text, claim_terms, pool)
    if found is None:
        return None
    return Judgement("contradicted", 0.0, (quote_of_sentence(found[0]),),
                     (Conflict(found[1], found[2], 0),))
