"""The terms of Chinese, Japanese and Korean text: character pairs that carry meaning.

A CJK run has no spaces, so relevance compares it by its overlapping character pairs
(:func:`deepcite.text.cjk.run_pairs`). Not every pair means something: ``的条`` in
``缓存的条目`` straddles a particle, ``されます`` is inflection, and a question that
counts such pairs as its terms misses the sentence that answers it (a pair no source
holds weighs as the question's subject would). So:

- a run is cut at **particles** (:data:`PARTICLES`: ``的 了 吗 の``; in Japanese every
  change between hiragana and kanji or katakana, since hiragana there is mostly
  particles and endings), and a pair never crosses a cut;
- a pair made only of **function characters** (:data:`FUNCTION_CHARS`, hiragana
  included) does not count: ``可以``, ``されま``;
- in a question, the **question words** (:data:`QUESTION_WORDS`: ``多久 多少 几 谁
  哪里 いつ どこ 何人``) are cut out first: they say what kind of answer is wanted, not
  what it is about (as "how many" in English, see
  :data:`deepcite.citations.question_match.QUESTION_FILLER`).

Deterministic and dictionary-free: the data here is a few dozen characters, and adding
a language is adding its particles and question words.
"""

from __future__ import annotations

import re

from deepcite.text.cjk import CJK_RUN

#: Characters that end a word in Chinese and Japanese: a pair across one is no word.
PARTICLES = frozenset("的了吗呢吧啊呀着么嘛")
#: One-character function words: a pair of two of them (or of hiragana) says nothing.
FUNCTION_CHARS = PARTICLES | frozenset(
    "是在和与或也都就而及把被对从向为于以之其这那个些可能会要将每有没不还又"
    "并且则所如若但因此该此已经被让给"  # Chinese
    "이가은는을를의에도와과로"  # Korean particles
)
_HIRAGANA = re.compile("[\u3040-\u309f]")
#: Question words of Chinese and Japanese, longest first (one regex alternation).
QUESTION_WORDS = (
    "多长时间", "多少时间", "什么时候", "什么地方", "哪一年", "为什么", "怎么样",
    "多久", "多长", "多少", "多大", "多高", "多远", "多重", "多深", "多宽", "多快", "多厚",
    "多老", "多频繁", "何时", "哪年", "哪天", "哪些",
    "哪个", "哪里", "哪儿", "在哪", "什么", "怎么", "怎样", "如何", "是否", "谁", "几", "哪",
    "どのくらい", "どれくらい", "どのぐらい", "どれぐらい", "どうやって", "いつ", "いくつ",
    "いくら", "何人", "何回", "何個", "何年", "何日", "何時", "何分", "何秒", "何件", "何",
    "どこ", "だれ", "誰", "どれ", "どの", "なぜ", "どう", "ですか", "ますか",
)
_QUESTION_WORD = re.compile("|".join(map(re.escape, QUESTION_WORDS)))


def _segments(run: str) -> list[str]:
    """``run`` cut at particles and at changes between hiragana and other characters."""
    pieces: list[str] = []
    current = ""
    for char in run:
        if char in PARTICLES:
            pieces.append(current)
            current = ""
            continue
        if current and bool(_HIRAGANA.match(char)) != bool(_HIRAGANA.match(current[-1])):
            pieces.append(current)
            current = ""
        current += char
    pieces.append(current)
    return [piece for piece in pieces if piece]


def _function(unit: str) -> bool:
    return all(ch in FUNCTION_CHARS or _HIRAGANA.match(ch) for ch in unit)


def cjk_terms(text: str, *, question: bool = False) -> list[str]:
    """The meaningful character pairs of the CJK runs of ``text``, in order.

    ``question``: cut the question words out first (see the module docs). A run of one
    character is its own term unless it is a function character; a lone character
    left between two cuts is not (it is an ending or a classifier far more often than
    a word).
    """
    return _pairs(text, question, strict=False)


def cjk_chains(text: str, *, question: bool = False) -> list[list[str]]:
    """The content pairs of ``text`` in chains: the pairs of one stretch with no
    particle or function character in it (``斑马缓存的条目在内存中`` -> ``[斑马 马缓
    缓存] [条目] [内存]``).

    One word is a chain of pairs, so pairs alone cannot say how many things a question
    names ("ハヤブサ" is three pairs and one name); chains can (see
    :func:`deepcite.citations.question_match.Weights.enough`).
    """
    chains: list[list[str]] = []
    for pair in _pairs(text, question, strict=True):
        if pair:
            if not chains or not chains[-1]:
                chains.append([])
            chains[-1].append(pair)
        elif chains and chains[-1]:
            chains.append([])
    return [chain for chain in chains if chain]


def _pairs(text: str, question: bool, *, strict: bool) -> list[str]:
    """The pairs of :func:`cjk_terms`; ``strict``: any pair with a function character
    is an empty string, a cut between chains."""
    if question:
        text = _QUESTION_WORD.sub(" ", text)
    found: list[str] = []
    for match in CJK_RUN.finditer(text):
        run = match.group(0)
        if len(run) == 1:
            found += [run] if not _function(run) else []
            found.append("")
            continue
        for segment in _segments(run):
            for i in range(len(segment) - 1):
                pair = segment[i:i + 2]
                if strict and any(ch in FUNCTION_CHARS or _HIRAGANA.match(ch) for ch in pair):
                    found.append("")
                elif not _function(pair):
                    found.append(pair)
            found.append("")
    return found if strict else [pair for pair in found if pair]


__all__ = ["FUNCTION_CHARS", "PARTICLES", "QUESTION_WORDS", "cjk_chains", "cjk_terms"]
