"""A short word the sources write whole that a Chinese question spreads out.

People say in a phrase what a page names in a compound: "办一整**年**的**卡**" for the
page's "年卡", "**月**底前的**费**用" for its "月费". The question then holds none of the
word's character pairs, and the row that answers ("年卡 | 288 元/年") shares nothing
with it. :func:`spread_words` finds such words: a word of two or three characters that
a source writes on its own (a chain of its own, :func:`~deepcite.text.cjk_terms.cjk_chains`:
between particles, function characters or punctuation), whose characters the question
writes in order within one short stretch (:data:`MAX_BETWEEN` characters between them
in all) but never together. :func:`widened` counts each as a word of the question, at
:data:`SPREAD_FACTOR` of the weight it would have said outright.

Guards against chance: only words the sources use as words, no function character or
numeral in the word (a lone "一" or "的" is everywhere), the stretch inside one run of
the question with its question words cut out, and nothing spread over more than
:data:`MAX_BETWEEN` characters.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Sequence
from dataclasses import replace

from deepcite.citations.question_weights import Weights
from deepcite.text.cjk import CJK_RUN
from deepcite.text.cjk_terms import FUNCTION_CHARS, NUMERAL_CHARS, QUESTION_WORD, cjk_chains

#: A spread word weighs this share of what it would weigh said outright.
SPREAD_FACTOR = 0.6
#: At most this many characters stand between the word's characters in the question.
MAX_BETWEEN = 3


def _words(texts: Sequence[str]) -> set[str]:
    """The words of two or three characters ``texts`` write on their own: a chain of
    one pair, or of two pairs that overlap ("包月" "月卡" -> 包月卡)."""
    found: set[str] = set()
    for text in texts:
        for chain in cjk_chains(text):
            if len(chain) == 1 and len(chain[0]) == 2:
                found.add(chain[0])
            elif (len(chain) == 2 and len(chain[0]) == len(chain[1]) == 2
                  and chain[0][1] == chain[1][0]):
                found.add(chain[0] + chain[1][1])
    return {w for w in found if CJK_RUN.fullmatch(w)
            and not any(ch in FUNCTION_CHARS or ch in NUMERAL_CHARS for ch in w)}


def _stretch(word: str, run: str) -> str:
    """The stretch of ``run`` that writes ``word``'s characters in order, apart, within
    :data:`MAX_BETWEEN` characters between them in all; empty when none does."""
    gap = "".join(f"{re.escape(ch)}[^{re.escape(ch)}]{{0,{MAX_BETWEEN}}}?" for ch in word[:-1])
    for match in re.finditer(gap + re.escape(word[-1]), run):
        if len(match.group(0)) - len(word) <= MAX_BETWEEN:
            return match.group(0)
    return ""


def _spread(question: str, texts: Sequence[str]) -> dict[str, str]:
    """Each word of ``texts`` that ``question`` spreads out, with its stretch."""
    runs = CJK_RUN.findall(QUESTION_WORD.sub(" ", question))
    found: dict[str, str] = {}
    for word in sorted(_words(texts)):
        if word in question:
            continue
        stretch = next((s for s in (_stretch(word, run) for run in runs) if s), "")
        if stretch:
            found[word] = stretch
    return found


def spread_words(question: str, texts: Sequence[str]) -> list[str]:
    """The words of ``texts`` (see :func:`_words`) that ``question`` spreads out: their
    characters in order within one short stretch of one CJK run, never together."""
    return list(_spread(question, texts))


def spread_chains(question: str, texts: Sequence[str],
                  held: Collection[str]) -> list[tuple[str, ...]]:
    """The pairs of each word ``question`` spreads out (of ``texts``), one chain a word,
    then the stretch it is spread over as one more chain ("年的卡"); not a word any of
    whose pairs the question holds already (in ``held``)."""
    found: list[tuple[str, ...]] = []
    for word, stretch in _spread(question, texts).items():
        chain = tuple(word[i:i + 2] for i in range(len(word) - 1))
        if not any(p in held for p in chain):
            found += [chain, (stretch,)]
    return found


def widened(weights: Weights, chains: Sequence[tuple[str, ...]],
            pool: Sequence[Sequence[str]]) -> Weights:
    """``weights`` with each spread word of ``chains`` (:func:`spread_chains`: a word's
    chain, then its stretch) as a chain of the question's, each pair weighted
    :data:`SPREAD_FACTOR` of its rarity over ``pool`` (terms per sentence). A pair of
    the question no source writes that holds a character of the stretch ("整年" of
    "一整年的卡", the seam "卡要" after it) is the phrase the word stands for, no word
    the sources miss: it is dropped."""
    if not chains:
        return weights
    total = max(len(pool), 1)
    added: dict[str, float] = {}
    stretched = ""
    words = list(chains[0::2])
    for chain, stretch in zip(chains[0::2], chains[1::2], strict=True):
        stretched += stretch[0]
        for pair in chain:
            df = sum(pair in terms for terms in pool)
            added[pair] = SPREAD_FACTOR * math.log(1 + (total - df + 0.5) / (df + 0.5))
    dropped = {t for t in weights.absent if set(t) & set(stretched)}
    weight = {t: w for t, w in weights.weight.items() if t not in dropped}
    return replace(weights, weight={**weight, **added}, absent=weights.absent - dropped,
                   cjk=weights.cjk | added.keys(), chains=(*weights.chains, *words))


__all__ = ["MAX_BETWEEN", "SPREAD_FACTOR", "spread_chains", "spread_words", "widened"]
