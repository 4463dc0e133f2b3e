"""Values a Chinese question asks per unit, and frequencies written with their 每.

A question that counts per unit of time ("马达**一分钟**震多少下", "**每小时**多少")
asks a rate, which a page writes with its second unit ("42000次/分钟", "3次/分"): the
rate in that unit answers it, not the "42000次" cut from it nor another number of the
same row. And a page that gives a frequency ("建议**每两个月**清洁一次") is quoted as
written: "两个月" alone is a span, not how often.
"""

from __future__ import annotations

import re

#: The ways a page writes a rate's second unit, by the unit a question counts per.
_PER_UNIT = {
    "秒": "秒钟|秒|s", "分": "分钟|分|min", "时": "小时|时|h", "天": "天|日",
    "周": "周|星期", "月": "月", "年": "年",
}
#: "一分钟 ... 多少", "每小时 ... 几": the unit counted per, before the question word
#: in the same clause.
_RATE_ASKED = re.compile(
    r"(?:每|一|1)\s?个?(?P<u>秒钟?|分钟|小时|钟头|天|日|周|星期|月|年)"
    r"[^，。？！,.?!\s]{0,8}?(?:多少|几)")
_UNIT_KEY = {"秒": "秒", "秒钟": "秒", "分钟": "分", "小时": "时", "钟头": "时", "天": "天",
             "日": "天", "周": "周", "星期": "周", "月": "月", "年": "年"}
#: "每" as a frequency's: not "每次"/"每个" (a count of each), which no span follows.
_EVERY = "每毎"
#: A question that asks how often ("多久要擦一次", "隔多长时间换", "频率"), not how long
#: a thing lasts ("滤网能用多长时间": "建议每6个月更换" answers it with "6个月").
_HOW_OFTEN = re.compile(r"(?:多久|多长时间|几天|几个月|几周|几年)[^，。？！,.?!]{0,8}?[一1]次"
                        r"|隔多久|隔多长|隔几|频率|多频繁|多常")


def asked_rate(question: str) -> str | None:
    """The units, as a regex for :func:`deepcite.citations.cjk_answers.wanted_units`,
    of a rate ``question`` asks per a unit of time ("一分钟震多少下": "次/分钟",
    "次/分", "rpm" not), ``None`` when it counts per none."""
    asked = _RATE_ASKED.search(question)
    if not asked:
        return None
    per = _PER_UNIT[_UNIT_KEY[asked.group("u")]]
    return rf"[^\d\s/|，。、；]{{0,3}}?\s?/\s?(?:{per})(?![A-Za-z])"


def with_every(sentence: str, found: list[tuple[int, int, str]], question: str,
               spans_of_time: re.Pattern[str]) -> list[tuple[int, int, str]]:
    """``found`` with a span of time that the page writes after 每 ("每两个月清洁一次")
    quoted with it when ``question`` asks how often (:data:`_HOW_OFTEN`): the frequency
    as written, not the span alone."""
    if not _HOW_OFTEN.search(question):
        return found
    out = []
    for start, end, text in found:
        if start > 0 and sentence[start - 1] in _EVERY and spans_of_time.fullmatch(text):
            start -= 1
            text = sentence[start:end]
        out.append((start, end, text))
    return out
