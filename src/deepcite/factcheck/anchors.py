"""A claim worded far from its source whose values place it: a sentence ranked near the
top stating one of the claim's values exactly, and another of its slots otherwise
("About 1,240 patients took part at 68 sites" against "The trial enrolled 1,240 adults
at 86 sites"). Its words alone leave the claim's subject unfound; the value it shares
ties the sentence to the claim, and the other value contradicts it.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.factcheck.agreement import agrees, agrees_as_count, same_slot
from deepcite.factcheck.clauses import shown
from deepcite.factcheck.judgement import Conflict, Judgement, quote_of_sentence
from deepcite.factcheck.passages import Sentence, values_of
from deepcite.factcheck.value import Value

__all__ = ["ANCHOR_CANDIDATES", "anchored", "anchored_clash"]

#: How many of the sentences ranked for a claim are read for its values.
ANCHOR_CANDIDATES = 3
#: The smallest number that places a sentence by itself (not "2 rooms", "3 days").
_DISTINCT = 10.0


def _anchor(value: Value, theirs: Sequence[Value]) -> bool:
    """Whether ``value`` is one of ``theirs`` and says enough to place the sentence: a
    number of something counted or measured, large enough to be that one."""
    if value.kind not in ("number", "money", "percent") or value.dimension == "period" \
            or value.amount is None or abs(value.amount) < _DISTINCT or not value.unit:
        return False
    return any(agrees(value, other) or agrees_as_count(value, other) for other in theirs)


def anchored_clash(values: Sequence[Value], ranked: Sequence[tuple[float, Sentence]]
                   ) -> tuple[Sentence, Value, Value] | None:
    """Of the first sentences ``ranked`` for a claim with ``values``, the first stating
    one of them (:func:`_anchor`) and, for another, a different value of its slot
    counting the same thing; with the claim's value and the sentence's."""
    for _, sentence in ranked[:ANCHOR_CANDIDATES]:
        theirs = values_of(sentence.text)
        anchors = [v for v in values if _anchor(v, theirs)]
        if not anchors:
            continue
        for value in values:
            if value in anchors or not value.unit or value.dimension == "period":
                continue
            if any(agrees(value, other) for other in theirs):
                continue
            other = next((o for o in theirs if same_slot(value, o) and o.unit == value.unit
                          and not any(agrees(o, a) for a in anchors)), None)
            if other is not None:
                return sentence, value, other
    return None


def anchored(text: str, values: Sequence[Value],
              ranked: Sequence[tuple[float, Sentence]]) -> Judgement | None:
    """A sentence ranked near the top stating one of the claim's values and another of
    them otherwise (:func:`anchored_clash`)."""
    found = anchored_clash(values, ranked)
    if found is None:
        return None
    sentence, value, other = found
    score = next(score for score, s in ranked if s is sentence)
    return Judgement("contradicted", score, (quote_of_sentence(sentence),),
                     (Conflict(shown(value, text), shown(other, sentence.text), 0),))
