"""Whether a CJK sentence's range holds the case a question states.

A page writes its rules by ranges: a fee "第1至30天 | 每册每天0.1元" and
"第31天起 | 每册每天0.2元", opening hours "正月初二至初七每天10:00–16:00", a season
"1月15日至2月20日". A question states one case inside one of them: "超期**两个月**了"
(60 days, in the "第31天起" row), "**大年初五**几点关门" (inside 初二至初七). The
question's words share nothing with the range, so the ranking
(:mod:`deepcite.citations.sentence_ranking`) is told here which sentence's range holds
the case (:func:`case_in_range`) and weighs it more.

Three kinds of case, each compared only with ranges of its own kind:

- a span of time, in days ("两个月" 60, "三周" 21, "45天"), against "第A至B天",
  "A-B天", "第A天起", "A天以上", "超过A天", "A天以内", "前A天";
- a day of the lunar new year ("初五", "正月初五", "大年初五" 5) against "初A至初B";
- a date ("2月1日", "2月1号") against "M月D日至M月D日" (or "至D日"), across the new
  year too.
"""

from __future__ import annotations

import math
import re

_HAN = "零〇一二两三四五六七八九十"
_HAN_VALUE = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5,
              "六": 6, "七": 7, "八": 8, "九": 9}
_NUMBER = rf"(?:\d+|[{_HAN}]+)"
_DAYS = {"天": 1, "日": 1, "周": 7, "星期": 7, "礼拜": 7, "月": 30, "年": 365}
_UNIT = "(?:个)?(?:天|日|周|星期|礼拜|月|年)"

#: A span the question states ("两个月", "45天"), not a rate ("每天") nor an order
#: ("第二天") nor a date ("5月"), nor the period a question asks a count in ("一年能
#: 停多少天", "一天最多借几本": the page's "每年", not a case inside "365天内").
_SPAN_ASKED = re.compile(rf"(?<![每第\d{_HAN}])(?P<n>{_NUMBER})\s?(?P<u>个月|个星期|{_UNIT})"
                         r"(?![\d号])(?!\s?(?:能|可|最|内|里|之内|一共|总共|共|累计))")
#: A range of a span a page writes: from A to B, from A on, up to B.
_JOIN = r"\s?(?:至|到|~|～|-|－|—|–)\s?"
_SPAN_BETWEEN = re.compile(rf"(?<![月\d])第?(?P<a>{_NUMBER})\s?(?:{_UNIT})?{_JOIN}"
                           rf"第?(?P<b>{_NUMBER})\s?(?P<u>{_UNIT})")
_SPAN_FROM = re.compile(rf"(?:第(?P<a>{_NUMBER})\s?(?P<u>{_UNIT})(?:起|以后|之后|开始|及以后)"
                        rf"|(?P<a2>{_NUMBER})\s?(?P<u2>{_UNIT})(?:以上|及以上|后)"
                        rf"|(?:超过|超出|满)(?P<a3>{_NUMBER})\s?(?P<u3>{_UNIT}))")
_SPAN_UPTO = re.compile(rf"(?:前(?P<b>{_NUMBER})\s?(?P<u>{_UNIT})"
                        rf"|(?<!超过)(?<!超出)(?P<b2>{_NUMBER})\s?(?P<u2>{_UNIT})(?:以内|之内|内)"
                        rf"|(?:不超过|不满|未满)(?P<b3>{_NUMBER})\s?(?P<u3>{_UNIT}))")

#: A day of the lunar new year ("初五", "正月初五", "大年初五").
_LUNAR_ASKED = re.compile(rf"(?:正月|大年)?初(?P<d>[{_HAN}]{{1,2}})")
_LUNAR_RANGE = re.compile(rf"初(?P<a>[{_HAN}]{{1,2}})\s?(?:至|到|~|～|-|－|—|–)\s?"
                          rf"(?:正月)?初?(?P<b>[{_HAN}]{{1,2}})")

_DAY = r"(?:日|号|號)"
_DATE_ASKED = re.compile(rf"(?P<m>{_NUMBER})月(?P<d>{_NUMBER}){_DAY}")
_DATE_RANGE = re.compile(r"(?P<m1>\d{1,2})月(?P<d1>\d{1,2})日\s?(?:至|到|~|～|-|－|—|–)\s?"
                         r"(?:(?P<m2>\d{1,2})月)?(?P<d2>\d{1,2})日")


def number(text: str) -> int | None:
    """``text`` as a whole number: Arabic digits or Chinese numerals up to 99
    ("两" 2, "十五" 15, "二十" 20, "三十一" 31); ``None`` when it is neither."""
    if text.isdigit():
        return int(text)
    if not text or any(c not in _HAN for c in text):
        return None
    if "十" not in text:
        return _HAN_VALUE[text] if len(text) == 1 else None
    tens, _, ones = text.partition("十")
    if len(tens) > 1 or len(ones) > 1 or "十" in ones:
        return None
    return (_HAN_VALUE[tens] if tens else 1) * 10 + (_HAN_VALUE[ones] if ones else 0)


def _days(amount: str, unit: str) -> int | None:
    value = number(amount)
    if value is None:
        return None
    return value * _DAYS[unit.removeprefix("个")]


def _spans_asked(question: str) -> list[int]:
    return [days for found in _SPAN_ASKED.finditer(question)
            if (days := _days(found.group("n"), found.group("u"))) is not None]


def _span_ranges(sentence: str) -> list[tuple[float, float]]:
    ranges: list[tuple[float, float]] = []
    for found in _SPAN_BETWEEN.finditer(sentence):
        low, high = _days(found["a"], found["u"]), _days(found["b"], found["u"])
        if low is not None and high is not None and low < high:
            ranges.append((low, high))
    for found in _SPAN_FROM.finditer(sentence):
        amount, unit = next((found[a], found[u]) for a, u in (("a", "u"), ("a2", "u2"),
                                                                 ("a3", "u3")) if found[a])
        if (low := _days(amount, unit)) is not None:
            ranges.append((low, math.inf))
    for found in _SPAN_UPTO.finditer(sentence):
        amount, unit = next((found[b], found[u]) for b, u in (("b", "u"), ("b2", "u2"),
                                                                 ("b3", "u3")) if found[b])
        if (high := _days(amount, unit)) is not None:
            ranges.append((0, high))
    return ranges


def _lunar(question: str, sentence: str) -> bool:
    days = [d for found in _LUNAR_ASKED.finditer(question)
            if (d := number(found["d"])) is not None]
    if not days:
        return False
    for found in _LUNAR_RANGE.finditer(sentence):
        low, high = number(found["a"]), number(found["b"])
        if low is not None and high is not None and any(low <= d <= high for d in days):
            return True
    return False


def _date(question: str, sentence: str) -> bool:
    asked = [(m, d) for found in _DATE_ASKED.finditer(question)
             if (m := number(found["m"])) is not None and (d := number(found["d"])) is not None]
    if not asked:
        return False
    for found in _DATE_RANGE.finditer(sentence):
        first = (int(found["m1"]), int(found["d1"]))
        last = (int(found["m2"] or found["m1"]), int(found["d2"]))
        for day in asked:
            inside = (first <= day <= last if first <= last  # across the new year:
                      else day >= first or day <= last)  # "12月20日至1月5日"
            if inside:
                return True
    return False


def case_words(question: str) -> set[str]:
    """The character pairs of the cases ``question`` states ("大年初五": 大年, 年初,
    初五; "两个月": 两个, 个月): the case asked, which a page writes another way (a
    range, in digits), never words the sources must say as the question does."""
    pairs: set[str] = set()
    for pattern in (_SPAN_ASKED, _LUNAR_ASKED, _DATE_ASKED):
        for found in pattern.finditer(question):
            text = found.group(0)
            pairs.update(text[i:i + 2] for i in range(len(text) - 1))
    return pairs


def case_in_range(sentence: str, question: str) -> bool:
    """Whether a range ``sentence`` writes holds the case ``question`` states: a span
    of time (in days), a day of the lunar new year or a date (see the module docs)."""
    spans = _spans_asked(question)
    if spans and any(low <= days <= high for low, high in _span_ranges(sentence)
                     for days in spans):
        return True
    return _lunar(question, sentence) or _date(question, sentence)


__all__ = ["case_in_range", "case_words", "number"]
