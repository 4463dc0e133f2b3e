"""Times of day in Chinese, Japanese and Korean sentences, and the one a question asks.

A question that asks "几点" is answered by a clock time, not by the "周六" of the same
line; of a span of opening hours ("9:00–17:30") by its end for "几点关门" and its start
for "几点开门" or "几点以后"; and of the times of a day written as two spans
("9:00–11:30，14:00–16:30") by those of the part of the day it names ("下午几点",
"晚上几点": the afternoon's and evening's, from 12:00 on). Kept apart from
:mod:`deepcite.citations.cjk_answers`, which calls :func:`_clock_times` for a date
asked and :func:`_hours_said` for the words a span of hours says.
"""

from __future__ import annotations

import itertools
import re

from deepcite.citations.cjk_values import _DATES, _HAN_DIGITS
from deepcite.text.cjk_terms import cjk_terms

Span = tuple[int, int, str]


def _dates(sentence: str) -> list[Span]:
    """The dates and times of ``sentence``, a longer one first where two overlap."""
    found: list[Span] = []
    for pattern in _DATES:
        found += [(m.start(), m.end(), m.group(0).strip()) for m in pattern.finditer(sentence)
                  if m.group(0).strip()
                  and not any(a < m.end() and m.start() < b for a, b, _ in found)]
    return found


#: A question that asks for a time of day ("几点关门", "什么时间开始"): a clock time
#: answers it, not the "周六" or "每天" of the same line.
_CLOCK_ASKED = re.compile("几点|什么时间|何時|몇\\s?시에")
#: A clock time: digits with 点/時/시 or a colon.
_CLOCK_VALUE = re.compile(r"\d\s?[点點時시]|[点點時시]\s?\d|[:：]\d|"
                          rf"[{_HAN_DIGITS}]\s?[点點時시](?!间)")
#: What asks for the end of a span of hours ("几点关门", "最晚几点", "几点下班") and
#: what asks for its start ("几点开门", "几点开始").
_END_ASKED = re.compile("关门|关闭|打烊|下班|结束|截止|停止|最晚|闭馆|閉店|終了|마감")
_START_ASKED = re.compile("开门|开放|营业|上班|开始|最早|开馆|開店|開始|시작|以后|之后|以降")
#: What joins the two ends of a span of hours ("8:00—21:00", "23:00至次日7:00").
_HOURS_JOIN = re.compile(r"\s?(?:至|到|~|～|-|－|—|–)\s?(?:次日|第二天|翌日)?\s?")


def _hours_said(sentence: str, question: str) -> list[str]:
    """The words of ``question`` that ask for the start or the end of a span of hours
    ("几点**关门**", "几点**开始**") when ``sentence`` writes such a span
    ("周六、周日：8:00—21:00"): its two ends say when it opens and when it closes."""
    asked = [m.group(0) for m in (_END_ASKED.search(question), _START_ASKED.search(question))
             if m]
    if not asked or not _CLOCK_ASKED.search(question):
        return []
    clocks = sorted(s for s in _dates(sentence) if _CLOCK_VALUE.search(s[2]))
    if not any(_HOURS_JOIN.fullmatch(sentence[a[1]:b[0]])
               for a, b in itertools.pairwise(clocks)):
        return []
    return [t for word in asked for t in cjk_terms(word)]


def _clock_times(sentence: str, question: str, found: list[Span]) -> list[Span]:
    """For a question that asks for a time of day (:data:`_CLOCK_ASKED`), the clock
    times of ``found`` only, when there are any; of a span of hours ("8:00—21:00"),
    its end for "几点关门" and its start for "几点开门" (:data:`_END_ASKED`,
    :data:`_START_ASKED`). Any other question keeps ``found``."""
    if not _CLOCK_ASKED.search(question):
        return found
    clocks = sorted(s for s in found if _CLOCK_VALUE.search(s[2]))
    if not clocks:
        return found
    ends = {id(b) for a, b in itertools.pairwise(clocks)
            if _HOURS_JOIN.fullmatch(sentence[a[1]:b[0]])}
    starts = {id(a) for a, b in itertools.pairwise(clocks)
              if _HOURS_JOIN.fullmatch(sentence[a[1]:b[0]])}
    if _END_ASKED.search(question) and not _START_ASKED.search(question):
        clocks = [s for s in clocks if id(s) not in starts]
    elif _START_ASKED.search(question) and not _END_ASKED.search(question):
        clocks = [s for s in clocks if id(s) not in ends]
    return _of_the_part_asked(clocks, question)


#: Words for the afternoon and evening, and for the morning, as a question names the
#: part of the day it asks about ("下午几点开门", "早上几点开门").
_LATER = re.compile("下午|晚上|傍晚|夜里|夜间|午後|오후|저녁|밤")
_EARLIER = re.compile("上午|早上|早晨|清晨|凌晨|午前|오전|아침")
_HOUR = re.compile(r"(\d{1,2})\s?[:：点點時시]")


def _of_the_part_asked(clocks: list[Span], question: str) -> list[Span]:
    """``clocks`` of the part of the day ``question`` names, from 12:00 on for "下午",
    "晚上", before it for "上午", "早上" (a time written "下午3点" is 15:00); all of
    them when it names none, or none of them is of that part."""
    later, earlier = _LATER.search(question), _EARLIER.search(question)
    if bool(later) == bool(earlier):
        return clocks

    def hour(text: str) -> int | None:
        found = _HOUR.search(text)
        if found is None:
            return None
        value = int(found.group(1))
        return value + 12 if value < 12 and _LATER.search(text) else value

    kept = [s for s in clocks
            if (h := hour(s[2])) is not None and (h >= 12) == bool(later)]
    return kept or clocks
