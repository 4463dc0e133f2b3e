"""A table row denying what a claim says of one of the things it names: "| Windows |
Not supported; use WSL2 |" against "runs natively on Linux, macOS and Windows".

The row is a sentence of its own that says only the thing's name and the denial, so
it is never the claim's subject by its words; yet its first cell names one of the
claim's things and another cell denies one of the claim's words ("supported" is
"runs"), which contradicts the claim.
"""

from __future__ import annotations

from deepcite.factcheck.judgement import Conflict, Judgement, quote_of_sentence
from deepcite.factcheck.negation import denied, negated
from deepcite.factcheck.passages import Pool, Sentence
from deepcite.factcheck.terms import terms_of
from deepcite.text.tables import markdown_cells

__all__ = ["denied_row", "row_denial"]


def denied_row(text: str, claim_terms: frozenset[str], pool: Pool) -> Judgement | None:
    """:func:`row_denial` as a contradiction, or None."""
    found = row_denial(text, claim_terms, pool)
    if found is None:
        return None
    return Judgement("contradicted", 0.0, (quote_of_sentence(found[0]),),
                     (Conflict(found[1], found[2], 0),))


def row_denial(text: str, claim_terms: frozenset[str],
               pool: Pool) -> tuple[Sentence, str, str] | None:
    """The table row whose first cell names one of the claim's things and another cell
    denies one of the claim's other words, with the thing and the denial; None without
    one (or when the claim denies those words itself)."""
    denies = {term for words in denied(text) for term in terms_of(words)}
    for sentence in pool.sentences:
        if not sentence.text.startswith("|"):
            continue
        cells = markdown_cells(sentence.text)
        if len(cells) < 2 or set(cells[0]) <= set("-: "):
            continue
        named = terms_of(cells[0])
        if not named or not named <= claim_terms:
            continue
        for cell in cells[1:]:
            shared = (terms_of(cell) & claim_terms) - named
            if negated(cell) and shared and not (shared | named) & denies:
                return sentence, cells[0], f"{cells[0]}: {cell}"
    return None
