"""Whether a CJK sentence states the limit a question asks for: "最多罚到多少钱" is
answered by the row that says "上限 | 不超过20元", before a sentence about the same fee
that gives its daily rate ("每天收取5元的逾期费").

A question that asks the most (or the least) of something (:data:`_MOST_ASKED`) wants
the cap a page sets, and a page writes a cap in words of its own: "上限", "封顶",
"不超过", "最多" (:data:`_MOST_SAID`); the same for the floor ("至少", "不低于",
"下限"). The ranking (:mod:`deepcite.citations.sentence_ranking`) weighs such a sentence
more; it needs no word of the question beyond the asking of a limit.
"""

from __future__ import annotations

import re

#: Questions that ask the highest or largest allowed (not "最高档": a setting).
_MOST_ASKED = re.compile("(?:最(?:多|高|长|久|大)|上限|封顶|至多)(?![档挡级速])")
#: ... and the lowest or smallest.
_LEAST_ASKED = re.compile("(?:最(?:少|低|短|小)|下限|至少)(?![档挡级速])")
#: How a page writes a cap, and a floor.
_MOST_SAID = re.compile("上限|封顶|不超过|不得超过|不能超过|最多|最高|最长|至多|以内|为限")
_LEAST_SAID = re.compile("下限|不低于|不少于|不得低于|最少|最低|至少|起步|以上")
_DIGIT = re.compile(r"\d")


def states_limit(sentence: str, question: str) -> bool:
    """Whether ``sentence`` writes, beside a number, the kind of limit ``question``
    asks for: a cap for "最多/最高/上限", a floor for "最少/最低/至少"."""
    if not _DIGIT.search(sentence):
        return False
    if _MOST_ASKED.search(question):
        return bool(_MOST_SAID.search(sentence))
    if _LEAST_ASKED.search(question):
        return bool(_LEAST_SAID.search(sentence))
    return False


__all__ = ["states_limit"]
