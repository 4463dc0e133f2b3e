"""Steps for a Chinese how-to question whose key word no source writes.

"会员卡被偷了怎么补办" asks what to do; the page says "会员卡遗失后，请携带身份证到前台
办理补卡": no source writes "偷", "补办" only as "补卡", and weighed as absent words
they leave no sentence relevant, so the user got "nothing answers this" over the very
step asked for. :func:`steps_by_other_words` is the ranking's last resort for such a
question: the sentences that give a step (:func:`~deepcite.citations.intent.gives`) and
hold the question's other words - each of its words (chains,
:func:`~deepcite.text.cjk_terms.cjk_chains`) held whole counts one, one held only by its
characters counts half its share of them - when they hold more than :data:`MIN_SHARE`
of the question's words that way and one of them whole. A sentence on the subject that
shares nothing else ("使用跑步机前，请先系好安全夹" for "跑步机皮带打滑了怎么处理")
stays out: nothing is then better than a step for something else.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.citations.candidates import Sentence
from deepcite.citations.intent import Intent, gives
from deepcite.text.cjk_synonyms import synonym_terms
from deepcite.text.cjk_terms import cjk_chains

#: Share of the question's words a step must hold more than (whole, or half by its
#: characters): its subject alone is not enough.
MIN_SHARE = 0.5
#: At most this many steps are given.
MAX_STEPS = 2


def _word(chain: Sequence[str]) -> str:
    """The characters of a chain of overlapping pairs: ("会员", "员卡") -> 会员卡."""
    return chain[0] + "".join(pair[1:] for pair in chain[1:])


def _share(question_chains: Sequence[Sequence[str]], sentence: Sentence) -> tuple[float, int]:
    """How much of the question's words ``sentence`` holds (see the module docs), and
    how many of them whole."""
    held = set(sentence.about) | set(synonym_terms(sentence.text))
    score, whole = 0.0, 0
    for chain in question_chains:
        if all(pair in held for pair in chain):
            score, whole = score + 1, whole + 1
            continue
        word = _word(chain)
        score += 0.5 * sum(ch in sentence.text for ch in word) / len(word)
    return score / len(question_chains), whole


def steps_by_other_words(question: str, sentences: Sequence[Sentence]) -> list[Sentence]:
    """The steps that answer ``question`` (a Chinese how-to) by its other words, best
    first, scores set; empty when none holds enough of it (see the module docs)."""
    chains = cjk_chains(question, question=True)
    if not chains:
        return []
    found: list[Sentence] = []
    for sentence in sentences:
        if not gives(Intent.HOWTO, sentence.text):
            continue
        share, whole = _share(chains, sentence)
        if whole and share > MIN_SHARE:
            sentence.score = sentence.coverage = share
            found.append(sentence)
    found.sort(key=lambda s: (-s.score, s.rank, s.position))
    return found[:MAX_STEPS]


__all__ = ["MAX_STEPS", "MIN_SHARE", "steps_by_other_words"]
