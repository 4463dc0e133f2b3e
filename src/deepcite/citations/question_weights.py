"""A question's terms weighed over one candidate pool, and how much of them a sentence holds.

:class:`Weights` is what :mod:`deepcite.citations.question_match` builds from a question
(:func:`~deepcite.citations.question_match.weigh`) and what every later test of a
sentence reads: its coverage of the question's weight, how many of the question's things
it names (in CJK, stretches of a chain of character pairs, not pairs), and whether that
is enough to be about the question. Kept apart from the building so the weighing rules
can grow without the type every caller holds moving with them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

CHAIN_SHARE = 0.6  # share of a one-chain CJK question's pairs a relevant sentence holds
#: What follows a Chinese verb in place of its complement ("建于", "建了" for "建成").
VERB_TAILS = ("于", "了", "过", "在")

#: Chinese and Japanese words of degree and manner ("通常", "默认", "大约"; and every
#: "最..." superlative, "最多", "最长"), and those that say what kind of answer is wanted
#: ("どのくらいの*頻度*", "多长*时间*", as "often" and "period" in English,
#: :data:`QUESTION_FILLER`): a question says them, its source says the fact another way
#: ("毎日更新"), and they name nothing the sources must say
#: (:func:`~deepcite.citations.question_match.unsaid_feature`).
CJK_DEGREE_WORDS = frozenset((
    "一般", "通常", "平时", "大概", "大约", "大致", "默认", "平均", "总共", "一共", "需要", "左右",
    "应该", "建议", "必须", "至少", "实际", "正常", "普通", "一次", "每次", "现在", "目前",
    "普段", "大体", "最大", "最小", "全部", "合計", "必要",
    "頻度", "频率", "频次", "次数", "回数", "时间", "時間", "时长", "期間", "期间", "数量", "数目",
    "程度", "大小", "长度", "長さ", "距离", "距離", "间隔", "間隔", "周期",
    # manner and repetition ("重新开" for "再次开机", "一直开着" for "连续使用")
    "平常", "重新", "再次", "一直", "连续", "持续", "马上", "立即", "立刻", "本身", "自己", "自动",
    # a little more or less of it ("弱一点", "快一些": the page writes "较低强度")
    "一点", "一些", "一下",
    # complements of direction ("折叠起来有多高": folded, "折叠后高度为1350毫米")
    "起来", "下来", "出来", "上去", "下去", "过来", "回来", "回去"))


@dataclass(frozen=True)
class Weights:
    """The question's terms with their weights over one candidate pool."""

    weight: dict[str, float]
    key: frozenset[str]
    #: The question's CJK content pairs in chains, one per word-like stretch
    #: (:func:`~deepcite.text.cjk_terms.cjk_chains`); empty for a question without CJK.
    chains: tuple[tuple[str, ...], ...] = ()
    #: All the question's CJK terms (the chains' and those across a function character).
    cjk: frozenset[str] = frozenset()
    #: The question's terms that no candidate sentence holds.
    absent: frozenset[str] = frozenset()
    #: The question's grammatical subject, if found
    #: (:func:`~deepcite.citations.question_names.grammatical_subject`).
    named: frozenset[str] = frozenset()
    #: The question's words that name its subject's kind ("module",
    #: :data:`~deepcite.citations.question_names.KIND_WORDS`).
    kinds: frozenset[str] = frozenset()
    #: The question's consecutive words, as pairs of terms.
    pairs: frozenset[tuple[str, str]] = frozenset()
    #: The question's one-character CJK words (:func:`~deepcite.text.cjk_terms.cjk_singles`):
    #: a sentence holding one matches more, and one without it is not held to it.
    singles: tuple[str, ...] = ()
    #: Without a named subject, the question's words that name a document of the pool
    #: (:func:`~deepcite.citations.question_names.title_names`): "tarfile" in "How do I
    #: encrypt a tarfile archive?".
    mentioned: frozenset[str] = frozenset()
    #: The question's words that name a document of the pool
    #: (:func:`~deepcite.citations.question_names.title_names`),
    #: whether or not it has a grammatical subject: the things it asks about that the
    #: sources have a page of.
    titled: frozenset[str] = frozenset()
    #: What a yes/no question asks of its named subject that no document naming the
    #: subject says (:func:`~deepcite.citations.question_match.unsaid_feature`): "parallel"
    #: in "Does csv support reading a
    #: file in parallel?" when no csv passage says it.
    unsaid: frozenset[str] = frozenset()
    #: The pairs of the attribute a CJK question asks of its subject (``_CJK_ATTRIBUTE``
    #: of :mod:`deepcite.citations.question_match`),
    #: or, in a yes/no CJK question, of the whole words no source holds ("蒸蛋糕" in
    #: "稻香 R5 支持蒸蛋糕吗"): meaning cannot vouch for a sentence without them.
    attribute: frozenset[str] = frozenset()

    @property
    def total(self) -> float:
        return sum(self.weight.values()) or 1.0

    def coverage(self, terms: Iterable[str]) -> float:
        """Share of the question's weight that ``terms`` (a sentence's) match."""
        found = set(terms)
        return sum(w for t, w in self.weight.items() if t in found) / self.total

    def matched(self, terms: Iterable[str]) -> int:
        """How many distinct question terms ``terms`` hold; in CJK, how many stretches
        of a chain of pairs (one word is several pairs: "ハヤブサ" is one match, not
        three)."""
        found = set(terms)
        if not self.cjk:
            return len(self.weight.keys() & found)
        units = len((self.weight.keys() - self.cjk) & found) + len(set(self.singles) & found)
        for chain in self.chains:
            if len(chain) == 1 and chain[0] not in found and len(chain[0]) == 2 and any(
                    chain[0][0] + tail in found for tail in VERB_TAILS):
                units += 1  # "建成" asked, "建于" said: one verb, its complement differs
                continue
            inside = False
            for t in chain:
                units += t in found and not inside
                inside = t in found
        return units

    def enough(self, terms: Iterable[str]) -> bool:
        """Whether ``terms`` hold enough of the question to be about it: two of its
        terms (or CJK stretches) when it has two, its one term when it has one. A CJK
        question that is one chain of pairs ("云溪古镇离上海有多远", no particle to cut it)
        needs :data:`CHAIN_SHARE` of that chain: its first word alone is its subject,
        not the question."""
        found = set(terms)
        others = self.weight.keys() - self.cjk
        held = set(self.singles) & found
        if len(self.chains) == 1 and not others:
            # a seam or a word of degree is no part of what the chain names
            chain = [t for t in self.chains[0] if t in self.weight
                     and t not in CJK_DEGREE_WORDS] or list(self.chains[0])
            share = sum(t in found for t in chain)
            if share >= max(1, math.ceil(CHAIN_SHARE * len(chain))):
                return True
            return bool(held) and share >= 1  # "扫" and the chain's word: two things
        return self.matched(found) >= min(2, len(others) + len(self.chains) + len(held))

    def absent_share(self) -> float:
        """Share of the question's weight in terms no candidate holds."""
        return sum(self.weight[t] for t in self.absent) / self.total

    def key_share(self, terms: Iterable[str]) -> float:
        """Share of the key phrase's weight that ``terms`` match (1 without a key)."""
        if not self.key:
            return 1.0
        found = set(terms)
        whole = sum(self.weight[t] for t in self.key)
        return sum(self.weight[t] for t in self.key if t in found) / (whole or 1.0)


__all__ = ["CHAIN_SHARE", "CJK_DEGREE_WORDS", "VERB_TAILS", "Weights"]
