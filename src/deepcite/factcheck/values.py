"""The values a claim states - numbers with their units, percentages, amounts of money,
years, dates, versions, names - and whether a source's sentence states the same ones.

A draft goes wrong mostly in its values: "30 days" where the source says 90, 2019 for
2021, another person's name, "does not" for "does". Word overlap cannot see any of
that (the wrong sentence shares every other word with the right one), so a check
reads the values out of both sentences and compares them slot by slot: a number with
the number of the same unit (``30 days`` against ``12 weeks`` compares 2,592,000
seconds with 7,257,600, so ``2 weeks`` and ``14 days`` agree), a year with a year or a
date's year, a percentage with a percentage, money in one currency. Each value keeps
its place and its text as written, so a contradiction names both: "draft: 30 days;
source [2]: 90 days".

Polarity is compared too: a negation on one side only ("does not encrypt" against
"encrypts"), or one of a pair of opposites on each side ("enabled"/"disabled",
"before"/"after"), is the source saying the opposite.

Dates are read by :mod:`~deepcite.factcheck.dates`, units sized by
:mod:`~deepcite.factcheck.units`; negation and opposites are
:mod:`~deepcite.factcheck.negation`, names :mod:`~deepcite.factcheck.names`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from deepcite.factcheck.bounds import (
    AGE_GROUP,
    AGED_BOUND,
    APPROX_SHARE,
    bound_words,
    bounded,
    setting_of_default,
)
from deepcite.factcheck.compound import compound, plain_key, plain_number
from deepcite.factcheck.dates import date_values
from deepcite.factcheck.durations import as_durations
from deepcite.factcheck.numberwords import (
    NUMBER_WORD,
    NUMBER_WORDS_ALL,
    clock_word_values,
    half_values,
    one_currency_values,
    part_values,
    word_number,
)
from deepcite.factcheck.referring import referred
from deepcite.factcheck.units import CURRENCIES, DIMENSIONS, FREE, SAME_UNITS, unit_of
from deepcite.factcheck.value import Value, ValueKind
from deepcite.factcheck.versions import of_platform, series_values
from deepcite.text.stem import stem
from deepcite.text.stopwords import STOPWORDS

__all__ = ["APPROX_SHARE", "Value", "ValueKind", "bound_words", "extract_values"]

_VERSION = re.compile(r"(?<![\w.])[vV]?\d+(?:\.\d+){2,}(?![\w.]*\d)")
_NUMBER = re.compile(
    r"(?P<currency>[$\u20ac\u00a3\u00a5])?\s?"
    r"(?<![A-Za-z0-9_.,:])(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\d]|\.\d|,\d{3})"
    r"(?P<scale>\s?(?:thousand|million|billion|trillion)\b|(?:bn|[kKMB])(?![A-Za-z]))?"
    r"(?:\s?(?P<percent>%|percent\b|per\s+cent\b|per cent\b))?")
# "one of five in the country", "one of only 12 worldwide": a number of a group where
# nothing names what it counts (a noun after the number counts it: "one of five
# children" is five children).
_ONE_OF = re.compile(
    rf"\bone of (?:only |just |the )?(?P<number>\d+|(?:{NUMBER_WORDS_ALL})"
    rf"(?:[\s-]+(?:{NUMBER_WORDS_ALL}))*)(?=\s*(?:[,.;:!?)]|$)|\s+(?:in|on|at|across|"
    r"around|nationwide|worldwide|anywhere|left|still|ever|so far)\b)", re.IGNORECASE)
_SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9,
           "b": 1e9, "trillion": 1e12}
# Units of Chinese and Japanese text longer than one character ("公顷", "分钟").
_CJK_UNITS = ("平方公里", "平方米", "公顷", "分钟", "小时", "秒钟", "毫秒", "个月", "星期", "公里",
              "千米", "公斤", "千克", "万元", "亿元", "時間", "ヶ月", "か月", "キロ")
_UNIT_WORD = re.compile(r"[ \t]?-?[ \t]?(?P<unit>[A-Za-z\u00C0-\u024F]+|"
                        + "|".join(_CJK_UNITS)
                        + r"|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af])")
_BEFORE_WORDS = re.compile(r"[A-Za-z][A-Za-z-]*")
_CLOCK = re.compile(r"(?<![\d:])(?P<hour>[01]?\d|2[0-3]):(?P<minute>[0-5]\d)"
                    r"(?:\s?(?P<half>[ap]\.?m\.?))?(?![\d:])|"
                    # "9 am", "5.30pm", "1 p.m.": an hour of the clock without a colon
                    r"(?<![\d:.,])(?P<hour12>1[0-2]|0?[1-9])(?:\.(?P<minute12>[0-5]\d))?"
                    r"\s?(?P<half12>[ap]\.m\.|[ap]m\b)|"
                    r"\b(?P<word>noon|midday|midnight)\b", re.IGNORECASE)
# Words after a number that are not what it counts ("$49 per month", "3 times each").
# Words between a number and what it counts.
_UNIT_ADJECTIVES = frozenset("""monthly daily weekly yearly annual active new registered
    paying total additional extra more full-time part-time permanent regular consecutive
    straight whole""".split())  # noqa: SIM905
# ("2.0 onwards": "onwards" is a bound, read by :func:`bounded`)
_NOT_UNITS = frozenset({"per", "each", "every", "plus", "or", "and", "to", "onwards", "onward",
                        "upwards"})
# A word describing what a number counts, before it ("eleven farming families", "37
# licensed vessels"): a participle or adjective followed by a plural noun.
_DESCRIBING = re.compile(r"(?:ing|ed|al|ic|ive|ous)$")
# A share in words, before "of" ("about half of the output", "two thirds of visitors",
# "a quarter of the land"): a percentage, so that "half" against "two thirds" differs.
_FRACTION = re.compile(
    r"\b(?P<count>an?|one|two|three|four)?[\s-]*(?P<part>half|thirds?|quarters?|fifths?)"
    r"(?=\s+of\b)", re.IGNORECASE)
_PARTS = {"half": 2.0, "third": 3.0, "quarter": 4.0, "fifth": 5.0}
_COUNTS = {"a": 1.0, "an": 1.0, "one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0}
# How often, in one word: "renewed twice" is "renewed 2 times".
# ("once" only before a period: "once the loan ends" and "at once" count nothing)
_TIMES = re.compile(r"\b(?P<word>twice|thrice|once(?=\s+(?:a|an|per|every|each)\s))\b",
                    re.IGNORECASE)
_TIMES_VALUE = {"once": 1, "twice": 2, "thrice": 3}
# How often, without a number: "every year", "annually" - one period, in seconds, so
# that "every two years" (a number of years) contradicts it.
_PERIODS = {"second": 1.0, "minute": 60.0, "hour": 3600.0, "day": 86400.0,
            "week": 604800.0, "fortnight": 1209600.0, "month": 2592000.0,
            "quarter": 7776000.0, "year": 31536000.0, "fortnightly": 1209600.0,
            "quarterly": 7776000.0,
            "hourly": 3600.0, "daily": 86400.0, "weekly": 604800.0, "monthly": 2592000.0,
            "yearly": 31536000.0, "annually": 31536000.0, "annual": 31536000.0}
# "the first hour", "the first week": one of the unit ("last year", "next week" say
# when, not how long; "the first day of the month" which day).
_FIRST_UNIT = re.compile(r"\bthe\s+first\s+(?P<unit>minute|hour|day|week|month)\b"
                         r"(?!\s+of\b)", re.IGNORECASE)
_DURATION_BEFORE = re.compile(
    r"\b(?:lasts?|lasted|takes?|took|for|within|in|after|over|under|than|about|around|"
    r"nearly|almost|only|just|up\s+to|at\s+(?:least|most))\s+$", re.IGNORECASE)
# "the timeout is a minute", "which was a week": how long, where no noun follows ("is a
# day ticket" is a kind of ticket)
_BEING = re.compile(r"\b(?:is|are|was|were|be|been)\s+$", re.IGNORECASE)
_ENDS_PHRASE = re.compile(r"\s*(?:[,.;:)!?]|$|\s+(?:unless|until|and|or|but|if|when|so|by|"
                          r"at|on|in|before|after|per|each|long|max|maximum)\b)",
                          re.IGNORECASE)
# "book a month in advance", "a week ahead", "a year ago": after it, how far off
_DURATION_AFTER = re.compile(r"\s+(?:in advance|ahead|beforehand|before|earlier|ago|"
                             r"later|early)\b", re.IGNORECASE)
# "a week", "per day" just after a number with nothing it counts: the number is how many
# times ("two a week")
_A_PERIOD = re.compile(r"\s+(?:a|an|per|each|every)\s+(?:day|week|fortnight|month|year)\b",
                       re.IGNORECASE)
_EVERY_BEFORE = re.compile(r"\b(?:every|each)\s+$", re.IGNORECASE)
# "every half hour", "every quarter of an hour": how often, in parts of an hour
_EVERY_PART = re.compile(r"\b(?:every|each)\s+(?:(?P<half>half)(?:\s+an|-)?\s*hour|"
                         r"quarter(?:\s+of\s+an|-)\s*hour)\b", re.IGNORECASE)
# ("$12/month", "£9/day": a slash just after an amount is "per")
_EVERY = re.compile(r"(?:\b(?:every|each|per|an?)\s+|(?<=\w)/)(?P<period>second|minute|hour|"
                    r"day|week|fortnight|month|quarter|year)\b|\b(?:every|each)\s+(?P<season>spring|"
                    r"summer|autumn|winter)\b|\b(?P<adverb>hourly|daily|weekly|"
                    r"fortnightly|monthly|quarterly|yearly|annually|annual)\b",
                    re.IGNORECASE)


# No price at all: "dogs travel free", "free parking", "at no extra cost" ("free of",
# "free to", "free time", "gluten-free" and "free-range" are no price).
_FREE = re.compile(
    r"\b(?:free of charge|for free|at no (?:extra |additional )?(?:cost|charge)|"
    r"costs? nothing|without (?:paying|payment|charge)|"
    r"(?<![-\w])free(?![-\w])(?!\s+(?:of|from|to|time|software|will|speech|trial)\b)"
    # (the verb: "free up memory", "doesn't free any space", "frees the lock")
    r"(?!\s+(?:up|any|some|the|a|an|its|their|your|disk|memory|space|storage)\b))",
    re.IGNORECASE)


def _before(text: str, at: int) -> str:
    """The nearest content word of the three words before ``at`` ("port" of "on port
    9090", "version" of "version is 4.2.1"), stemmed; "" when there is none."""
    words = _BEFORE_WORDS.findall(text[max(0, at - 48):at])[-3:]
    for word in reversed(words):
        lower = word.lower()
        if lower not in STOPWORDS:
            return stem(lower)
    return ""




def _number_value(text: str, match: re.Match[str], number: float, *, currency: str = "",
                  scale: str = "", percent: bool = False) -> Value:
    scale = scale.strip().lower()
    amount = number * _SCALES.get(scale, 1.0) if scale else number
    start, end = match.start(), match.end()
    while start < end and text[start].isspace():
        start += 1
    if percent:
        return Value("percent", plain_key(amount), text[start:end], start, end, amount, "%")
    unit_match = _UNIT_WORD.match(text, end)
    for _ in range(2):  # "1.2 million monthly users": what is counted is users
        if unit_match is None:
            break
        following = _UNIT_WORD.match(text, unit_match.end())
        if following is None:
            break
        word, then = unit_match.group("unit").lower(), following.group("unit")
        # a describing word ("farming families") or a noun naming the kind ("allotment
        # plots", "ship models") before the plural noun counted
        describing = (bool(_DESCRIBING.search(word)) or not word.endswith("s")) \
            and len(word) > 2 and word not in STOPWORDS and word not in _NOT_UNITS \
            and unit_of(word) not in DIMENSIONS and unit_of(word) not in CURRENCIES \
            and then.islower() and then.endswith("s") \
            and then.lower() not in STOPWORDS and not then.lower().endswith("ss")
        if word not in _UNIT_ADJECTIVES and not describing:
            break
        unit_match = following
    unit = ""
    if unit_match is not None:
        word = unit_match.group("unit")
        # a capitalised word after a number is a name ("in 2019 Larkspur opened"),
        # unless it is a unit's abbreviation ("16 MB", "20 EUR")
        counted = (word.lower() not in STOPWORDS and word.lower() not in _NOT_UNITS
                   and not word[0].isupper()) \
            or word.lower() in DIMENSIONS or word.lower() in CURRENCIES
        if currency and unit_of(word) not in CURRENCIES:
            counted = False  # "$49 per month": the amount is in dollars
        if counted:
            unit = unit_of(word)
            if not currency and unit in CURRENCIES:
                currency = CURRENCIES[unit]
            end = unit_match.end()
    before = _before(text, start)
    if not currency and unit in _PENCE and (unit != "p" or text[end - 2:end - 1].isdigit()):
        # "10p", "20 pence": hundredths of a pound, so that "10p" meets "£0.10"
        amount /= 100.0
        return Value("money", plain_key(amount), text[start:end].strip(), start, end, amount,
                     "gbp", "money", before)
    if not currency and before in CURRENCIES and not unit:
        # "EUR 40"; not "520 euros for four weeks", whose weeks are no euros
        currency = CURRENCIES[before]
    if currency:
        return Value("money", plain_key(amount), text[start:end].strip(), start, end, amount,
                     currency, "money", before)
    dimension, size = DIMENSIONS.get(unit, ("", 1.0))
    # a year, also before a noun in the singular ("her 1931 paper", "the 2021 report");
    # a count is of things in the plural ("2048 tokens")
    singular_noun = bool(unit) and not dimension and not currency \
        and unit not in SAME_UNITS.values() and unit_match is not None \
        and not unit_match.group("unit").lower().endswith("s")
    if ((not unit or singular_noun) and scale == "" and float(number).is_integer()
            and 1500 <= number <= 2199 and "," not in match.group(0)):
        return Value("year", f"{int(number):04d}", match.group(0).strip(), start,
                     match.end(), number)
    # an identifier's digits ("AES-256", "SHA-1") are shown with its letters
    prefix = re.search(r"[A-Za-z]+-$", text[max(0, start - 12):start])
    if prefix is not None:
        start -= len(prefix.group(0))
    return Value("number", plain_key(amount), text[start:end].strip(), start, end,
                 amount * size, unit, dimension, before, "" if unit else _after(text, end))


_PENCE = frozenset({"p", "pence", "penny", "penni"})
_CLAUSE_END = re.compile(r"[,;:.!?()\u3002\uff0c\uff1b]")
# a verb saying what the value is, just before a number in words ("is two", "defaults to
# three"), and the end of its clause after it
_SAID_AS = re.compile(r"\b(?:is|are|was|were|be|remains|stays|defaults\s+to|set\s+to)\s+$",
                      re.IGNORECASE)
_BARE_END = re.compile(r"\s*(?:[,;:.!?)]|$)")


def _after(text: str, at: int) -> str:
    """The first content word of the four after ``at`` in its clause, stemmed; ""."""
    rest = text[at:at + 48]
    cut = _CLAUSE_END.search(rest)
    words = _BEFORE_WORDS.findall(rest[:cut.start()] if cut else rest)[:4]
    return next((stem(w.lower()) for w in words if w.lower() not in STOPWORDS), "")


def _elided(text: str, match: re.Match[str], values: Sequence[Value]) -> Value | None:
    """A number word after "and", "or", "but" or a comma whose noun is the one an
    earlier number of the clause counts, with that number's unit; else None."""
    number = word_number(match.group(0))
    if number < 2 or _RANGE_AFTER.match(text, match.end()):
        # ("four or five modules": the range's own noun, not the earlier number's)
        return None
    # (a clock time's key, "10:00", is no plain number: it counts nothing)
    earlier = [v for v in values if v.end <= match.start() and v.kind == "number" and v.unit
               and v.amount is not None and plain_number(v.key)
               and not _SENTENCE_BREAK.search(text[v.end:match.start()])]
    if not earlier or not _JOINING.search(text[earlier[-1].end:match.start()]):
        return None
    model = earlier[-1]
    size = (model.amount or 0.0) / (plain_number(model.key) or 1.0)
    return Value("number", plain_key(number), match.group(0), match.start(), match.end(),
                 number * size, model.unit, model.dimension, model.before)


_SENTENCE_BREAK = re.compile(r"[.!?]\s")
# "four or five modules", "six to eight weeks": a number word opening a range
_RANGE_AFTER = re.compile(r"\s*(?:\s(?:or|to)\s|-|\u2013)\s*(?:\d|[a-z]+\s+[a-z])",
                          re.IGNORECASE)
# "one" as a pronoun: after an article, a demonstrative or an ordinal
_ONE_PRONOUN = re.compile(r"\b(?:the|this|that|each|which|another|other|same|first|second|"
                          r"third|last|next|new|old|older|newer)\s+$", re.IGNORECASE)
# "way" after a number word: "one way" (a ticket, a trip; "one way or another") and
# "two-way", "three-way" describe a thing, counting nothing
_WAY = re.compile(r"[ \t-]ways?\b", re.IGNORECASE)
_JOINING = re.compile(r"\b(?:and|or|but|while|whereas)\b|[,;]", re.IGNORECASE)


_OF_WHAT = re.compile(r"^\s+of\s+[a-z]+\s+$")
# "a staff of", "a team of", "a fleet of" just before a number with nothing after it.
_COUNTED_BEFORE = re.compile(r"\b(?:a|an|its|their|the)\s+(?P<noun>[a-z]+)\s+of\s+$")
# Groups whose number is of people: "a team of five" counts what "seven people" does
# (only in "a team of N": "12 teams" are teams).
_GROUPS_OF_PEOPLE = frozenset("""team crew squad workforce committee panel choir board
    staff band cast""".split())  # noqa: SIM905


def _after_amount(text: str, at: int, values: Sequence[Value]) -> bool:
    """Whether a value, or "once"/"twice"/"N times", ends just before ``at`` with no
    punctuation between ("4 euros a month", "twice a day", "3 days per week"), or with
    only what it is of between ("24,000 litres of milk a day")."""
    gap = len(text[:at]) - len(text[:at].rstrip())
    end = at - gap
    if end <= 0:
        return False
    if any(value.end < end and value.unit and _OF_WHAT.match(text[value.end:at])
           for value in values):
        return True
    if gap > 1:
        return False
    return any(value.end == end for value in values) or bool(
        re.search(r"\b(?:once|twice|thrice|times)$", text[:end], re.IGNORECASE))


def _every(text: str, value: Value) -> Value:
    """``value`` as how often, "every" shown with it, when "every" stands before it."""
    if value.dimension != "time":
        return value
    every = _EVERY_BEFORE.search(text[max(0, value.start - 8):value.start])
    if every is None:
        return value
    start = value.start - (len(every.group(0)))
    return dataclasses.replace(value, dimension="period", unit="every", start=start,
                               text=text[start:value.end])


def _of_setting(text: str, value: Value) -> Value:
    """A bounded setting's default ("waits up to `lock_wait` (default 30 minutes)")
    named by the word before the bound, as the bound's own value would be ("wait"),
    not by "default"."""
    at = setting_of_default(text, value) if value.bound else None
    return value if at is None else dataclasses.replace(value, before=_before(text, at))


def extract_values(text: str) -> list[Value]:
    """The values ``text`` states, in order of place (see the module docs)."""
    taken: list[tuple[int, int]] = []
    values = date_values(text, taken)
    values += half_values(text, taken)
    values += part_values(text, taken)
    values += one_currency_values(text, taken)
    values += series_values(text, taken)
    values += [dataclasses.replace(v, before=_before(text, v.start))
               for v in clock_word_values(text, taken)]
    for match in _CLOCK.finditer(text):
        if any(a < match.end() and match.start() < b for a, b in taken):
            continue
        if match.group("word"):
            hour, minute, half = (0 if match.group("word").lower() == "midnight" else 12), 0, ""
        elif match.group("hour12"):
            hour, half = int(match.group("hour12")), match.group("half12").lower()
            minute = int(match.group("minute12") or 0)
            if half.startswith("a") and hour == 12:
                hour = 0  # "12 am" is midnight
        else:
            hour, half = int(match.group("hour")), (match.group("half") or "").lower()
            minute = int(match.group("minute"))
        if half.startswith("p") and hour < 12:
            hour += 12
        minutes = hour * 60 + minute
        values.append(Value("number", f"{minutes // 60:02d}:{minutes % 60:02d}",
                            match.group(0), match.start(), match.end(), float(minutes),
                            "clock", "clock", _before(text, match.start())))
        taken.append((match.start(), match.end()))
    for match in _ONE_OF.finditer(text):
        # "one of five in the country": how many there are of its kind
        number = match.group("number")
        amount = float(number) if number.isdigit() else word_number(number)
        values.append(Value("number", plain_key(amount), match.group(0), match.start(),
                            match.end(), amount, "one of"))
        taken.append((match.start(), match.end()))
    for match in AGE_GROUP.finditer(text):
        dimension, size = DIMENSIONS["year"]
        age = float(match.group("age"))
        values.append(Value("number", plain_key(age), match.group(0), match.start(), match.end(),
                            age * size, "year", dimension, _before(text, match.start()), "",
                            "max" if match.group("side").lower() == "under" else "min"))
        taken.append((match.start(), match.end()))
    for match in _EVERY_PART.finditer(text):
        seconds = 1800.0 if match.group("half") else 900.0
        values.append(Value("number", plain_key(seconds / 60), match.group(0), match.start(),
                            match.end(), seconds, "every", "period"))
        taken.append((match.start(), match.end()))
    for match in _VERSION.finditer(text):
        if not any(a < match.end() and match.start() < b for a, b in taken):
            values.append(Value("version", match.group(0).lstrip("vV"), match.group(0),
                                match.start(), match.end(), before=_before(text, match.start())))
            taken.append((match.start(), match.end()))
    for match in _NUMBER.finditer(text):
        if any(a < match.end() and match.start() < b for a, b in taken):
            continue
        raw = match.group("number").replace(",", "")
        symbol = match.group("currency") or ""
        values.append(_number_value(text, match, float(raw),
                                    currency=CURRENCIES.get(symbol, ""),
                                    scale=match.group("scale") or "",
                                    percent=bool(match.group("percent"))))
        taken.append((match.start(), match.end()))
    for match in _FRACTION.finditer(text):
        if any(a < match.end() and match.start() < b for a, b in taken) or re.search(
                r"\band\s+$", text[max(0, match.start() - 5):match.start()]):
            continue  # "three and a half hours" is an amount of hours
        part = match.group("part").lower().rstrip("s")
        count = _COUNTS.get((match.group("count") or "a").lower(), 1.0)
        share = 100.0 * count / _PARTS[part]
        start = match.start() + len(match.group(0)) - len(match.group(0).lstrip())
        values.append(Value("percent", plain_key(share), text[start:match.end()], start,
                            match.end(), share, "%"))
        taken.append((start, match.end()))
    for match in NUMBER_WORD.finditer(text):
        if any(a < match.end() and match.start() < b for a, b in taken):
            continue
        number = word_number(match.group(0))
        if _ONE_PRONOUN.search(text, 0, match.start()) and match.group(0).lower() == "one":
            continue  # "the second one waits", "this one": no count
        if _WAY.match(text, match.end()) and (match.group(0).lower() == "one"
                                              or text.startswith("-", match.end())):
            continue  # "one way", "a one-way ticket", "a two-way radio": no count of ways
        unit = _UNIT_WORD.match(text, match.end())
        if AGED_BOUND.search(text, 0, match.start()):
            # "children under sixteen may not", as "under 16" is: an age
            values.append(_number_value(text, match, float(number)))
            continue
        # "one of", "no one": a number word counts only before the thing it counts,
        # or where it leaves out the thing an earlier number counts ("six sailings a
        # day in summer and three in winter")
        if unit is None or unit.group("unit").lower() in STOPWORDS:
            counted = _COUNTED_BEFORE.search(text, 0, match.start())
            if counted is not None and (unit is None or _CLAUSE_END.match(
                    text, match.end()) or match.end() == len(text)):
                # "a staff of twelve", "a fleet of six": the noun before "of" is what
                # the number counts
                values.append(Value("number", plain_key(number), match.group(0),
                                    match.start(), match.end(), float(number),
                                    "people" if counted.group("noun") in _GROUPS_OF_PEOPLE
                                    else unit_of(counted.group("noun")), "",
                                    _before(text, match.start())))
                taken.append((match.start(), match.end()))
                continue
            if _A_PERIOD.match(text, match.end()):
                # "two a week", "three a day": how many times, as "twice a week" is
                values.append(Value("number", plain_key(number), match.group(0), match.start(),
                                    match.end(), float(number), "time", "",
                                    _before(text, match.start())))
                continue
            elided = _elided(text, match, values)
            if elided is not None:
                values.append(elided)
            elif _SAID_AS.search(text, 0, match.start()) and _BARE_END.match(text, match.end()):
                # "the default number of workers is two": the number is the value said,
                # as "is 2" is (where it leaves out no thing an earlier number counts:
                # "six sailings in summer; in winter there are four")
                values.append(_number_value(text, match, float(number)))
            continue
        values.append(_number_value(text, match, float(number)))
    for match in _TIMES.finditer(text):
        if not any(a < match.end() and match.start() < b for a, b in taken):
            amount = float(_TIMES_VALUE[match.group("word").lower()])
            values.append(Value("number", plain_key(amount), match.group(0), match.start(),
                                match.end(), amount, "time", "", _before(text, match.start())))
    for match in _EVERY.finditer(text):
        if any(a < match.end() and match.start() < b for a, b in taken):
            continue
        # "each summer": once a year, as "every year" is
        period = "year" if match.group("season") else (
            match.group("period") or match.group("adverb")).lower()
        base = _PERIODS.get(period.rstrip("s"), _PERIODS.get(period))
        if base is None:
            continue
        head = "per" if match.group(0).startswith("/") else match.group(0).split()[0].lower()
        if head in ("a", "an", "per") and not _after_amount(text, match.start(), values):
            # "lasts a week", "within a month": how long, one of the unit ("a day
            # ticket" is neither)
            if head in ("a", "an") and (_DURATION_BEFORE.search(
                    text[max(0, match.start() - 12):match.start()])
                    or _DURATION_AFTER.match(text, match.end())
                    or (_BEING.search(text[max(0, match.start() - 8):match.start()])
                        and _ENDS_PHRASE.match(text, match.end()))):
                values.append(Value("number", "1", match.group(0), match.start(),
                                    match.end(), base, period, "time",
                                    _before(text, match.start())))
            continue
        values.append(Value("number", plain_key(base), match.group(0), match.start(),
                            match.end(), base, "every", "period"))
    for match in _FREE.finditer(text):
        # "free" is a price of nothing, so that "Dogs travel free" meets "for 2 pounds"
        if not any(a < match.end() and match.start() < b for a, b in taken):
            values.append(Value("money", "0", match.group(0), match.start(), match.end(),
                                0.0, FREE, "money", _before(text, match.start())))
    for match in _FIRST_UNIT.finditer(text):
        # "the first hour is free" against "the first 30 minutes are free": one hour
        if not any(a < match.end() and match.start() < b for a, b in taken):
            named = match.group("unit").lower()
            values.append(Value("number", "1", match.group(0), match.start(), match.end(),
                                _PERIODS[named], named, "time", _before(text, match.start())))
    # "every 15 minutes", "every two years": how often, not how long
    values = [_every(text, v) for v in values]
    values = [of_platform(text, _of_setting(text, bounded(text, v))) for v in values]
    # "of which 42", "52 electric ones": the earlier count's noun
    # "30m" in a line on waiting: minutes
    return compound(text, referred(text, as_durations(
        text, sorted(values, key=lambda value: value.start))))
