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
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass
from typing import Literal

from deepcite.text.stem import singular, stem
from deepcite.text.stopwords import STOPWORDS

__all__ = ["ABBREVIATIONS", "FALLING", "OPPOSITES", "RISING", "Value", "ValueKind", "agrees",
           "capitalised_inside", "denied", "extract_values", "name_groups", "negated",
           "opposites", "same_slot"]

ValueKind = Literal["number", "percent", "money", "year", "date", "version"]

_MONTHS = {name: index for index, names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
    ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
    ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
    ("december", "dec")), start=1) for name in names}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>1[5-9]\d\d|20\d\d|21\d\d)"
_DATES = [re.compile(pattern, re.IGNORECASE) for pattern in (
    r"\b(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})\b",
    rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b",
    rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b",
    rf"\b{_MONTH},?\s+{_YEAR}\b",
    r"(?P<year>\d{4})\s*年\s*(?:(?P<month>\d{1,2})\s*月\s*(?:(?P<day>\d{1,2})\s*日)?)?",
    r"(?P<year>\d{4})\s*년\s*(?:(?P<month>\d{1,2})\s*월\s*(?:(?P<day>\d{1,2})\s*일)?)?",
)]
# A month or a day of one without a year ("arrive in April", "on 5 May"), after a word
# that makes it a date (so the verb "may" is none).
_MONTH_PREFIX = (r"\b(?:in|on|by|until|till|since|from|to|of|early|late|mid|before|after|"
                 r"every|each|through|during)\s+")
_MONTH_ONLY = [re.compile(_MONTH_PREFIX + pattern + r"\b", re.IGNORECASE) for pattern in (
    rf"{_DAY}\s+(?:of\s+)?{_MONTH}", rf"{_MONTH}(?:\s+{_DAY}(?!\d))?")]
_VERSION = re.compile(r"(?<![\w.])[vV]?\d+(?:\.\d+){2,}(?![\w.]*\d)")
_NUMBER = re.compile(
    r"(?P<currency>[$\u20ac\u00a3\u00a5])?\s?"
    r"(?<![A-Za-z0-9_.,:])(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\d]|\.\d|,\d{3})"
    r"(?P<scale>\s?(?:thousand|million|billion|trillion)\b|(?:bn|[kKMB])(?![A-Za-z]))?"
    r"(?:\s?(?P<percent>%|percent\b|per\s+cent\b|per cent\b))?")
_SMALL_NUMBERS = """zero one two three four five six seven eight nine ten eleven twelve
    thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"""
_WORD_NUMBERS = {word: value for value, word in enumerate(_SMALL_NUMBERS.split())}
_WORD_NUMBERS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
                      "eighty": 80, "ninety": 90, "dozen": 12})
_MULTIPLIERS = {"hundred": 100, "thousand": 1000, "million": 1e6, "billion": 1e9}
_NUMBER_WORDS_ALL = "|".join(sorted([*_WORD_NUMBERS, *_MULTIPLIERS], key=len, reverse=True))
# A number in words, "three", "twenty-five", "three hundred", "one hundred and fifty".
_NUMBER_WORD = re.compile(
    rf"\b(?:{_NUMBER_WORDS_ALL})(?:(?:[\s-]+|\s+and\s+)(?:{_NUMBER_WORDS_ALL}))*\b",
    re.IGNORECASE)
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
                    r"(?:\s?(?P<half>[ap]\.?m\.?))?(?![\d:])", re.IGNORECASE)
# Words after a number that are not what it counts ("$49 per month", "3 times each").
# Words between a number and what it counts.
_UNIT_ADJECTIVES = frozenset("""monthly daily weekly yearly annual active new registered
    paying total additional extra more full-time part-time permanent regular""".split())  # noqa: SIM905
_NOT_UNITS = frozenset({"per", "each", "every", "plus", "or", "and", "to"})
# How often, in one word: "renewed twice" is "renewed 2 times".
# ("once" only before a period: "once the loan ends" and "at once" count nothing)
_TIMES = re.compile(r"\b(?P<word>twice|thrice|once(?=\s+(?:a|an|per|every|each)\s))\b",
                    re.IGNORECASE)
_TIMES_VALUE = {"once": 1, "twice": 2, "thrice": 3}
# How often, without a number: "every year", "annually" - one period, in seconds, so
# that "every two years" (a number of years) contradicts it.
_PERIODS = {"second": 1.0, "minute": 60.0, "hour": 3600.0, "day": 86400.0,
            "week": 604800.0, "month": 2592000.0, "year": 31536000.0,
            "hourly": 3600.0, "daily": 86400.0, "weekly": 604800.0, "monthly": 2592000.0,
            "yearly": 31536000.0, "annually": 31536000.0, "annual": 31536000.0}
_DURATION_BEFORE = re.compile(
    r"\b(?:lasts?|lasted|takes?|took|for|within|in|after|over|under|than|about|around|"
    r"nearly|almost|only|just)\s+$", re.IGNORECASE)
_EVERY_BEFORE = re.compile(r"\b(?:every|each)\s+$", re.IGNORECASE)
_EVERY = re.compile(r"\b(?:every|each|per|an?)\s+(?P<period>second|minute|hour|day|week|month|"
                    r"year)\b|\b(?P<adverb>hourly|daily|weekly|monthly|yearly|annually|annual)\b",
                    re.IGNORECASE)
_CURRENCIES = {"$": "usd", "dollar": "usd", "usd": "usd", "\u20ac": "eur", "euro": "eur",
               "eur": "eur", "\u00a3": "gbp", "pound": "gbp", "gbp": "gbp", "\u00a5": "jpy",
               "yen": "jpy", "jpy": "jpy", "yuan": "cny", "cny": "cny", "rmb": "cny",
               "\u5143": "cny", "\u5186": "jpy", "\uc6d0": "krw"}
# Units of one dimension, in a base unit: numbers of different units compare by size.
_UNIT_TABLES: dict[str, dict[tuple[str, ...], float]] = {
    "time": {("ms", "millisecond", "msec"): 0.001, ("s", "sec", "second", "secs"): 1,
             ("min", "minute", "mins"): 60, ("h", "hr", "hour", "hrs"): 3600,
             ("day",): 86400, ("week", "wk"): 604800, ("month",): 2592000,
             ("year", "yr"): 31536000, ("\u79d2",): 1, ("\u5206",): 60,
             ("\u5929", "\u65e5"): 86400, ("\u5468", "星期"): 604800,
             ("\u4e2a\u6708", "ヶ月", "か月"): 2592000, ("分钟",): 60,
             ("小时", "時間"): 3600, ("秒钟",): 1, ("毫秒",): 0.001},
    "data": {("b", "byte"): 1, ("kb", "kilobyte", "kib"): 1e3,
             ("mb", "megabyte", "mib"): 1e6, ("gb", "gigabyte", "gib"): 1e9,
             ("tb", "terabyte", "tib"): 1e12},
    "length": {("mm", "millimetre", "millimeter"): 0.001,
               ("cm", "centimetre", "centimeter"): 0.01, ("m", "metre", "meter"): 1,
               ("km", "kilometre", "kilometer", "公里", "千米"): 1000, ("mile", "mi"): 1609.344},
    "voltage": {("v", "volt"): 1, ("kv", "kilovolt"): 1000},
    "power": {("w", "watt"): 1, ("kw", "kilowatt"): 1000, ("mw", "megawatt"): 1e6},
    "energy": {("wh", "watt-hour"): 1, ("kwh", "kilowatt-hour"): 1000,
               ("mwh", "megawatt-hour"): 1e6},
    "rate": {("kbit", "kbit/s", "kbps"): 1e3, ("mbit", "mbit/s", "mbps"): 1e6,
             ("gbit", "gbit/s", "gbps"): 1e9},
    "mass": {("g", "gram"): 1, ("kg", "kilogram", "kilo", "公斤", "千克"): 1000,
             ("t", "tonne", "ton"): 1e6, ("lb", "pound"): 453.6},
}
_DIMENSIONS: dict[str, tuple[str, float]] = {
    name: (dimension, size) for dimension, table in _UNIT_TABLES.items()
    for names, size in table.items() for name in names}

_NEGATION = re.compile(
    r"\b(?:not|never|no|none|nobody|nothing|cannot|without|neither|nor)\b|n[\u2019']t\b|"
    r"不|没有|沒有|未|無|无|ない|ません|않|없|못", re.IGNORECASE)
# "no more than 30 days" bounds a value; it does not deny anything.
_NOT_NEGATION = re.compile(
    r"\b(?:no|not) (?:more|less|later|earlier|longer|fewer|greater|sooner|only)\b|"
    r"\bnot just\b|\bno matter\b|\bnot until\b", re.IGNORECASE)
#: Pairs of words of which a source saying one contradicts a claim saying the other.
OPPOSITES: tuple[tuple[str, str], ...] = (
    ("enabled", "disabled"), ("enable", "disable"), ("allowed", "forbidden"),
    ("allowed", "banned"), ("permitted", "banned"), ("permitted", "forbidden"),
    ("permitted", "prohibited"), ("legal", "illegal"), ("lawful", "unlawful"),
    ("increasing", "decreasing"), ("growing", "shrinking"), ("grew", "shrank"),
    ("alive", "dead"), ("present", "absent"), ("winner", "loser"),
    ("allowed", "prohibited"), ("allow", "forbid"), ("allow", "prohibit"),
    ("increase", "decrease"), ("increased", "decreased"), ("increases", "decreases"),
    ("rise", "fall"), ("rose", "fell"), ("before", "after"), ("more", "fewer"),
    ("more", "less"), ("higher", "lower"), ("larger", "smaller"), ("bigger", "smaller"),
    ("faster", "slower"), ("longer", "shorter"), ("required", "optional"),
    ("mandatory", "optional"), ("public", "private"), ("always", "never"),
    ("included", "excluded"), ("include", "exclude"), ("open", "closed"),
    ("accept", "reject"), ("accepted", "rejected"), ("accepts", "rejects"),
    ("minimum", "maximum"), ("first", "last"), ("earliest", "latest"), ("most", "least"),
    ("primary", "secondary"), ("best", "worst"),
    ("synchronous", "asynchronous"), ("online", "offline"), ("internal", "external"),
    ("success", "failure"), ("succeeded", "failed"), ("true", "false"), ("on", "off"),
    ("win", "lose"), ("won", "lost"), ("gain", "loss"), ("profit", "loss"),
    ("above", "below"), ("over", "under"), ("inside", "outside"), ("encrypted",
    "unencrypted"), ("supported", "unsupported"), ("available", "unavailable"),
    ("free", "paid"), ("cheaper", "costlier"), ("easier", "harder"), ("north", "south"),
    ("east", "west"), ("weekly", "monthly"), ("daily", "weekly"), ("monthly", "yearly"),
    ("monthly", "annually"), ("daily", "monthly"), ("hourly", "daily"),
)
#: Abbreviations a draft writes for what a source spells out ("CEO", "chief executive"):
#: read as those words, never as names.
ABBREVIATIONS = {
    "ceo": "chief executive officer", "cfo": "chief financial officer",
    "cto": "chief technology officer", "coo": "chief operating officer",
    "cio": "chief information officer", "hq": "headquarters", "yoy": "year on year",
    "q1": "first quarter", "q2": "second quarter", "q3": "third quarter",
    "q4": "fourth quarter", "h1": "first half", "h2": "second half",
    "approx": "approximately", "govt": "government", "dept": "department",
}
_BREAKS = frozenset(",()\"\u201c\u201d")
_MONTH_NAMES = frozenset(_MONTHS) | {"monday", "tuesday", "wednesday", "thursday", "friday",
                                     "saturday", "sunday"}
_CAPITAL_WORD = re.compile(r"[A-Z\u00C0-\u00DE][\w'\u2019-]*|[A-Z]{2,}\d*")
_TOKEN = re.compile(r"[A-Za-z\u00C0-\u024F][\w'\u2019-]*|\d\w*(?:[.,]\d+)*"
                    r"|[.!?:;,()\"\u201c\u201d]")


@dataclass(frozen=True)
class Value:
    """One value of a text: what it is, how it compares, where and how it is written.

    ``key`` is what equal values share (the number as written in base form, ``2021`` or
    ``2021-03`` for dates); ``amount`` is a number's size in the base unit of its
    ``dimension`` (seconds, bytes, metres, grams) or its plain size; ``unit`` is the word
    after it (``day``, ``employee``, ``%``, a currency), ``before`` the content word
    before it (``version``, ``port``), which tell values of one slot from another.
    ``text`` is the value as written, with its unit; ``start``/``end`` its place.
    """

    kind: ValueKind
    key: str
    text: str
    start: int
    end: int
    amount: float | None = None
    unit: str = ""
    dimension: str = ""
    before: str = ""
    #: For a number without a unit, the content word after it in its clause ("150 of
    #: them are juniors": ``junior``), which tells its slot where no word before does.
    after: str = ""
    #: A bound written before it: ``min`` ("more than", "over", "at least"), ``max``
    #: ("less than", "under", "up to", "at most"), ``approx`` ("about", "around",
    #: "nearly"), else "".
    bound: str = ""


# Words that count the same things ("240 people", "240 employees").
_SAME_UNITS = {word: group[0] for group in (
    ("people", "person", "persons", "employee", "employees", "staff", "worker", "workers",
     "visitor", "visitors", "attendee", "attendees", "guest", "guests", "spectator",
     "spectators", "participant", "participants", "inhabitant", "inhabitants",
     "resident", "residents"),
    ("user", "users", "customer", "customers", "client", "clients"),
) for word in group}


def _unit(word: str) -> str:
    lower = word.lower()
    if lower in _SAME_UNITS:
        return _SAME_UNITS[lower]
    if lower in _DIMENSIONS or lower in _CURRENCIES:
        return lower
    one = singular(lower)
    return one if one in _DIMENSIONS or one in _CURRENCIES else stem(lower)


def _before(text: str, at: int) -> str:
    """The nearest content word of the three words before ``at`` ("port" of "on port
    9090", "version" of "version is 4.2.1"), stemmed; "" when there is none."""
    words = _BEFORE_WORDS.findall(text[max(0, at - 48):at])[-3:]
    for word in reversed(words):
        lower = word.lower()
        if lower not in STOPWORDS:
            return stem(lower)
    return ""


def _date_values(text: str, taken: list[tuple[int, int]]) -> list[Value]:
    values: list[Value] = []
    for pattern in _DATES:
        for match in pattern.finditer(text):
            if any(a < match.end() and match.start() < b for a, b in taken):
                continue
            year = int(match.group("year"))
            month_text = match.group("month")
            month = None
            if month_text:
                month = int(month_text) if month_text.isdigit() else _MONTHS.get(
                    month_text.lower().rstrip("."))
            day = match.group("day") if "day" in pattern.groupindex else None
            if month is not None and not 1 <= month <= 12:
                continue
            key = f"{year:04d}" + (f"-{month:02d}" if month else "") + (
                f"-{int(day):02d}" if day and month else "")
            kind: ValueKind = "date" if month else "year"
            values.append(Value(kind, key, match.group(0).strip(), match.start(),
                                match.end(), float(year)))
            taken.append((match.start(), match.end()))
    for match in (m for pattern in _MONTH_ONLY for m in pattern.finditer(text)):
        name = match.group("month")
        if any(a < match.end() and match.start() < b for a, b in taken) \
                or not name[0].isupper():  # "in may", "on march": the verbs
            continue
        month = _MONTHS[name.lower().rstrip(".")]
        day = match.group("day")
        start = match.start("month") if not day else min(match.start("month"),
                                                         match.start("day"))
        key = f"--{month:02d}" + (f"-{int(day):02d}" if day else "")
        values.append(Value("date", key, text[start:match.end()], start, match.end()))
        taken.append((start, match.end()))
    return values


def _number_value(text: str, match: re.Match[str], number: float, *, currency: str = "",
                  scale: str = "", percent: bool = False) -> Value:
    scale = scale.strip().lower()
    amount = number * _SCALES.get(scale, 1.0) if scale else number
    start, end = match.start(), match.end()
    while start < end and text[start].isspace():
        start += 1
    if percent:
        return Value("percent", _plain(amount), text[start:end], start, end, amount, "%")
    unit_match = _UNIT_WORD.match(text, end)
    for _ in range(2):  # "1.2 million monthly users": what is counted is users
        if unit_match is None or unit_match.group("unit").lower() not in _UNIT_ADJECTIVES:
            break
        following = _UNIT_WORD.match(text, unit_match.end())
        if following is None:
            break
        unit_match = following
    unit = ""
    if unit_match is not None:
        word = unit_match.group("unit")
        # a capitalised word after a number is a name ("in 2019 Larkspur opened"),
        # unless it is a unit's abbreviation ("16 MB", "20 EUR")
        counted = (word.lower() not in STOPWORDS and word.lower() not in _NOT_UNITS
                   and not word[0].isupper()) \
            or word.lower() in _DIMENSIONS or word.lower() in _CURRENCIES
        if currency and _unit(word) not in _CURRENCIES:
            counted = False  # "$49 per month": the amount is in dollars
        if counted:
            unit = _unit(word)
            if not currency and unit in _CURRENCIES:
                currency = _CURRENCIES[unit]
            end = unit_match.end()
    before = _before(text, start)
    if not currency and before in _CURRENCIES:
        currency = _CURRENCIES[before]
    if currency:
        return Value("money", _plain(amount), text[start:end].strip(), start, end, amount,
                     currency, "money", before)
    dimension, size = _DIMENSIONS.get(unit, ("", 1.0))
    # a year, also before a noun in the singular ("her 1931 paper", "the 2021 report");
    # a count is of things in the plural ("2048 tokens")
    singular_noun = bool(unit) and not dimension and not currency \
        and unit not in _SAME_UNITS.values() and unit_match is not None \
        and not unit_match.group("unit").lower().endswith("s")
    if ((not unit or singular_noun) and scale == "" and float(number).is_integer()
            and 1500 <= number <= 2199 and "," not in match.group(0)):
        return Value("year", f"{int(number):04d}", match.group(0).strip(), start,
                     match.end(), number)
    # an identifier's digits ("AES-256", "SHA-1") are shown with its letters
    prefix = re.search(r"[A-Za-z]+-$", text[max(0, start - 12):start])
    if prefix is not None:
        start -= len(prefix.group(0))
    return Value("number", _plain(amount), text[start:end].strip(), start, end,
                 amount * size, unit, dimension, before, "" if unit else _after(text, end))


_CLAUSE_END = re.compile(r"[,;:.!?()\u3002\uff0c\uff1b]")


def _after(text: str, at: int) -> str:
    """The first content word of the four after ``at`` in its clause, stemmed; ""."""
    rest = text[at:at + 48]
    cut = _CLAUSE_END.search(rest)
    words = _BEFORE_WORDS.findall(rest[:cut.start()] if cut else rest)[:4]
    return next((stem(w.lower()) for w in words if w.lower() not in STOPWORDS), "")


_BOUNDS = [(re.compile(r"\b(?:more than|over|above|at least|exceeding|upwards of|"
                       r"(?:larger|greater|bigger|longer|higher|heavier|older) than|"
                       r"no less than|no fewer than)\s+(?:a\s+)?$", re.IGNORECASE), "min"),
           (re.compile(r"\b(?:less than|fewer than|under|below|up to|at most|no more than|"
                       r"(?:smaller|shorter|lower|lighter|younger) than|"
                       r"not more than|a maximum of|maximum of)\s+(?:a\s+)?$", re.IGNORECASE),
            "max"),
           (re.compile(r"\b(?:about|around|roughly|approximately|nearly|almost|some|"
                       r"approx\.?|circa|ca\.|an estimated|estimated)\s+$",
                       re.IGNORECASE), "approx")]
#: How far an "about" value may be from the other and still agree.
APPROX_SHARE = 0.1


def _bounded(text: str, value: Value) -> Value:
    """``value`` with the bound written before it ("more than 800", "about 22,000")."""
    if value.kind not in ("number", "money", "percent"):
        return value
    before = text[max(0, value.start - 24):value.start]
    for pattern, bound in _BOUNDS:
        if pattern.search(before):
            return dataclasses.replace(value, bound=bound)
    return value


def _within(claim: Value, other: Value) -> bool:
    """Whether ``other``'s amount is within what the claim's bound allows."""
    mine, theirs = claim.amount, other.amount
    if mine is None or theirs is None:
        return False
    if math.isclose(mine, theirs, rel_tol=1e-6):
        return True
    if claim.bound and claim.bound == other.bound and claim.bound != "approx":
        return False  # "up to 1,000 notes" and "up to 500 notes" are two limits
    if claim.bound == "min":
        return theirs > mine and other.bound != "max"
    if claim.bound == "max":
        return theirs < mine and other.bound != "min"
    if other.bound == "min" and claim.bound != "max":
        return mine > theirs  # "1,200 users" is what "over 1,000 users" allows
    if other.bound == "max" and claim.bound != "min":
        return mine < theirs
    if "approx" in (claim.bound, other.bound):
        return abs(mine - theirs) <= APPROX_SHARE * max(abs(mine), abs(theirs))
    return False


def _elided(text: str, match: re.Match[str], values: Sequence[Value]) -> Value | None:
    """A number word after "and", "or", "but" or a comma whose noun is the one an
    earlier number of the clause counts, with that number's unit; else None."""
    number = _word_number(match.group(0))
    if number < 2:
        return None
    earlier = [v for v in values if v.end <= match.start() and v.kind == "number" and v.unit
               and v.amount is not None and float(v.key)
               and not _SENTENCE_BREAK.search(text[v.end:match.start()])]
    if not earlier or not _JOINING.search(text[earlier[-1].end:match.start()]):
        return None
    model = earlier[-1]
    size = (model.amount or 0.0) / float(model.key)
    return Value("number", _plain(number), match.group(0), match.start(), match.end(),
                 number * size, model.unit, model.dimension, model.before)


_SENTENCE_BREAK = re.compile(r"[.!?]\s")
_JOINING = re.compile(r"\b(?:and|or|but|while|whereas)\b|[,;]", re.IGNORECASE)


def _after_amount(text: str, at: int, values: Sequence[Value]) -> bool:
    """Whether a value, or "once"/"twice"/"N times", ends just before ``at`` with no
    punctuation between ("4 euros a month", "twice a day", "3 days per week")."""
    gap = len(text[:at]) - len(text[:at].rstrip())
    end = at - gap
    if gap > 1 or end <= 0:
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


def _word_number(words: str) -> float:
    """The number ``words`` spell ("three hundred and twenty-five" is 325)."""
    total, current = 0.0, 0.0
    for word in re.findall(r"[a-z]+", words.lower()):
        if word in _WORD_NUMBERS:
            current += _WORD_NUMBERS[word]
        elif word in _MULTIPLIERS:
            scale = _MULTIPLIERS[word]
            if scale == 100:
                current = max(current, 1.0) * scale
            else:
                total += max(current, 1.0) * scale
                current = 0.0
    return total + current


def _plain(amount: float) -> str:
    return f"{amount:.6g}"


def extract_values(text: str) -> list[Value]:
    """The values ``text`` states, in order of place (see the module docs)."""
    taken: list[tuple[int, int]] = []
    values = _date_values(text, taken)
    for match in _CLOCK.finditer(text):
        if any(a < match.end() and match.start() < b for a, b in taken):
            continue
        hour, half = int(match.group("hour")), (match.group("half") or "").lower()
        if half.startswith("p") and hour < 12:
            hour += 12
        minutes = hour * 60 + int(match.group("minute"))
        values.append(Value("number", f"{minutes // 60:02d}:{minutes % 60:02d}",
                            match.group(0), match.start(), match.end(), float(minutes),
                            "clock", "clock", _before(text, match.start())))
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
                                    currency=_CURRENCIES.get(symbol, ""),
                                    scale=match.group("scale") or "",
                                    percent=bool(match.group("percent"))))
        taken.append((match.start(), match.end()))
    for match in _NUMBER_WORD.finditer(text):
        if any(a < match.end() and match.start() < b for a, b in taken):
            continue
        number = _word_number(match.group(0))
        unit = _UNIT_WORD.match(text, match.end())
        # "one of", "no one": a number word counts only before the thing it counts,
        # or where it leaves out the thing an earlier number counts ("six sailings a
        # day in summer and three in winter")
        if unit is None or unit.group("unit").lower() in STOPWORDS:
            elided = _elided(text, match, values)
            if elided is not None:
                values.append(elided)
            continue
        values.append(_number_value(text, match, float(number)))
    for match in _TIMES.finditer(text):
        if not any(a < match.end() and match.start() < b for a, b in taken):
            amount = float(_TIMES_VALUE[match.group("word").lower()])
            values.append(Value("number", _plain(amount), match.group(0), match.start(),
                                match.end(), amount, "time", "", _before(text, match.start())))
    for match in _EVERY.finditer(text):
        if any(a < match.end() and match.start() < b for a, b in taken):
            continue
        period = (match.group("period") or match.group("adverb")).lower()
        base = _PERIODS.get(period.rstrip("s"), _PERIODS.get(period))
        if base is None:
            continue
        head = match.group(0).split()[0].lower()
        if head in ("a", "an", "per") and not _after_amount(text, match.start(), values):
            # "lasts a week", "within a month": how long, one of the unit ("a day
            # ticket" is neither)
            if head in ("a", "an") and _DURATION_BEFORE.search(text[max(0, match.start() - 12):
                                                            match.start()]):
                values.append(Value("number", "1", match.group(0), match.start(),
                                    match.end(), base, period, "time",
                                    _before(text, match.start())))
            continue
        values.append(Value("number", _plain(base), match.group(0), match.start(),
                            match.end(), base, "every", "period"))
    # "every 15 minutes", "every two years": how often, not how long
    values = [_every(text, v) for v in values]
    values = [_bounded(text, v) for v in values]
    return _compound(text, sorted(values, key=lambda value: value.start))


_JOINED = re.compile(r"\s*(?:,|and|,\s*and)?\s*")


_SHARED_UNIT = re.compile(r"\s*(?:or|and|to|-|\u2013)\s*")


def _share_units(text: str, values: list[Value]) -> list[Value]:
    """A number whose unit the next one carries ("12 or 24 volt", "9 to 5 days") with
    that unit."""
    shared = list(values)
    for index in range(len(shared) - 2, -1, -1):
        first, second = shared[index], shared[index + 1]
        if first.kind == second.kind == "number" and not first.unit and second.unit \
                and second.amount is not None and float(second.key) \
                and _SHARED_UNIT.fullmatch(text[first.end:second.start]):
            size = second.amount / float(second.key)
            shared[index] = dataclasses.replace(
                first, unit=second.unit, dimension=second.dimension,
                amount=float(first.key) * size)
    return shared


def _compound(text: str, values: list[Value]) -> list[Value]:
    """Values of one quantity written in parts ("2 hours and 40 minutes") as one."""
    values = _share_units(text, values)
    merged: list[Value] = []
    for value in values:
        last = merged[-1] if merged else None
        if (last is not None and last.dimension and last.dimension == value.dimension
                and last.dimension != "clock" and last.amount is not None
                and value.amount is not None and value.amount < last.amount
                and _JOINED.fullmatch(text[last.end:value.start])):
            amount = last.amount + value.amount
            merged[-1] = Value(last.kind, _plain(amount), text[last.start:value.end],
                               last.start, value.end, amount, last.unit, last.dimension,
                               last.before)
        else:
            merged.append(value)
    return merged


def same_slot(claim: Value, other: Value) -> bool:
    """Whether ``other`` is a value of the same kind of thing as ``claim``, so that a
    different one contradicts it: same dimension or unit, same currency, a year or date
    against a year or date."""
    if claim.kind in ("year", "date"):
        if claim.key.startswith("--") or other.key.startswith("--"):
            return claim.kind == other.kind == "date"  # a month against a month
        return other.kind in ("year", "date")
    if claim.kind != other.kind:
        return False
    if claim.kind in ("percent", "version"):
        return claim.kind == "percent" or claim.before == other.before
    if claim.kind == "money":
        return claim.unit == other.unit
    if _bare(other) and claim.before and claim.before == other.before:
        return True  # "timeout=30" is the timeout the claim gives in seconds
    if claim.dimension:
        return claim.dimension == other.dimension
    if claim.unit or other.unit:
        # units that are no measure ("under 16 get in", "under 12 enter") do not
        # part values the same word stands before ("children")
        plain = not (claim.unit in _DIMENSIONS or other.unit in _DIMENSIONS
                     or claim.unit in _SAME_UNITS.values() or other.unit in _SAME_UNITS.values())
        return claim.unit == other.unit or (plain and bool(claim.before)
                                            and claim.before == other.before)
    return (bool(claim.before) and claim.before == other.before) or (
        bool(claim.after) and claim.after == other.after)


def agrees(claim: Value, other: Value) -> bool:
    """Whether ``other`` states ``claim``'s value (a date agrees with its own year and
    month: "March 2021" with "5 March 2021")."""
    if claim.key.startswith("--") or other.key.startswith("--"):
        if claim.kind != "date" or other.kind != "date":
            return False
        mine, theirs = claim.key.lstrip("-"), other.key[other.key.find("-") + 1:] \
            if not other.key.startswith("--") else other.key.lstrip("-")
        if claim.key.startswith("--") and not other.key.startswith("--"):
            theirs = other.key[5:]  # "2017-04-05" -> "04-05"
        elif other.key.startswith("--") and not claim.key.startswith("--"):
            mine = claim.key[5:]
        shorter = min(len(mine), len(theirs))
        return bool(shorter) and mine[:shorter] == theirs[:shorter]
    if claim.kind in ("year", "date") and other.kind in ("year", "date"):
        shorter = min(len(claim.key), len(other.key))
        return claim.key[:shorter] == other.key[:shorter] and (
            claim.kind == "year" or len(other.key) >= len(claim.key))
    # the same number of the same unit is the same value, whatever word stands before
    # it ("Python 3.7", "version 3.7")
    loose = claim.kind == other.kind and claim.kind in ("number", "version") and (
        claim.unit == other.unit or (bool(claim.before) and claim.before == other.before))
    if not same_slot(claim, other) and not loose:
        return False
    if claim.amount is not None and other.amount is not None:
        if claim.dimension and _bare(other):
            return claim.key == other.key  # the number as written: "timeout=30"
        return _within(claim, other)
    return claim.key == other.key


def _bare(value: Value) -> bool:
    """A number with no unit or measure, named only by the word before it (code's
    ``timeout=30``, "port 9090")."""
    return value.kind == "number" and not value.unit and not value.dimension


def negated(text: str) -> bool:
    """Whether ``text`` denies something ("not", "never", "n't", "没有" ...), bounds like
    "no more than" aside."""
    return _NEGATION.search(_NOT_NEGATION.sub(" ", text)) is not None


_NEGATION_WORD = re.compile(
    r"(?:not|never|no|none|nobody|nothing|cannot|without|neither|nor|\w+n[\u2019']t)",
    re.IGNORECASE)
_CJK_NEGATION = re.compile(r"不|没有|沒有|未|無|无|ない|ません|않|없|못")
_PIECE = re.compile(r"[^,;:.!?\u3002\uff0c\uff1b\uff1a()]+")
_PIECE_WORD = re.compile(r"[\w'\u2019-]+")
#: How many words after a negation it governs ("does not use a camera").
DENIAL_REACH = 4


def denied(text: str) -> list[str]:
    """What each negation of ``text`` denies: the words after it within its clause
    ("use a camera" of "does not use a camera, so ..."); bounds such as "no more than"
    are no negation."""
    found: list[str] = []
    for piece in _PIECE.findall(_NOT_NEGATION.sub(" ", text)):
        words = _PIECE_WORD.findall(piece)
        for index, word in enumerate(words):
            if _NEGATION_WORD.fullmatch(word):
                found.append(" ".join(words[index + 1:index + 1 + DENIAL_REACH]))
        for match in _CJK_NEGATION.finditer(piece):
            found.append(piece[match.end():match.end() + DENIAL_REACH])
    return found


#: Words of going up and of going down: any of one against any of the other opposes.
RISING = frozenset("""increase increased increases increasing rise rises rose risen rising
    grew grow grows growing gained gain gains climbed climb climbs jumped jump jumps
    soared improved improve improves expanded expand expands""".split())  # noqa: SIM905
FALLING = frozenset("""decrease decreased decreases decreasing fall falls fell fallen
    falling declined decline declines declining dropped drop drops shrank shrink shrinks
    slumped worsened worsen reduced reduce reduces contracted""".split())  # noqa: SIM905


def opposites(claim_words: Set[str], other_words: Set[str]) -> tuple[str, str] | None:
    """A pair of opposites the two texts take sides on (the claim's word first), or None."""
    for ups, downs in ((RISING, FALLING), (FALLING, RISING)):
        rising = sorted(claim_words & ups)
        falling = sorted(other_words & downs)
        if rising and falling and not claim_words & downs and not other_words & ups:
            return rising[0], falling[0]
    for one, two in OPPOSITES:
        for mine, theirs in ((one, two), (two, one)):
            if mine in claim_words and theirs in other_words and theirs not in claim_words \
                    and mine not in other_words:
                return mine, theirs
    return None


def name_groups(text: str, known: Iterable[str] = ()) -> list[tuple[int, int]]:
    """``(start, end)`` of the runs of capitalised words in ``text``: names.

    A capitalised word opening a sentence is a name only when it is capitalised
    elsewhere too (``known``, lower-cased), or a run of them goes on after it; stop
    words, months and days are never names.
    """
    known_words = set(known)
    groups: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []
    opening = True

    def close() -> None:
        if run:
            groups.append((run[0][0], run[-1][1]))
            run.clear()

    for token in _TOKEN.finditer(text):
        word = token.group(0)
        if word in ".!?:;":
            close()
            opening = True
            continue
        if word in _BREAKS:
            close()
            continue
        lower = word.lower().removesuffix("'s").removesuffix("\u2019s")
        capital = _CAPITAL_WORD.fullmatch(word) is not None and not word[0].isdigit() \
            and lower not in _DIMENSIONS and lower not in _CURRENCIES \
            and lower not in ABBREVIATIONS
        calendar = lower in _MONTH_NAMES or lower.removesuffix("s") in _MONTH_NAMES
        if capital and word.lower() not in STOPWORDS and not calendar and (
                not opening or lower in known_words or (word.isupper() and len(word) > 1)):
            run.append((token.start(), token.end()))
        elif capital and opening and run == [] and word.lower() not in STOPWORDS \
                and not calendar:
            # a sentence's first word: a name only if the next word is capitalised too
            following = _TOKEN.search(text, token.end())
            if following is not None and _CAPITAL_WORD.fullmatch(following.group(0)) \
                    and following.group(0).lower() not in STOPWORDS:
                run.append((token.start(), token.end()))
            else:
                close()
        else:
            close()
        opening = False
    close()
    return groups


def capitalised_inside(texts: Sequence[str]) -> set[str]:
    """Lower-cased words that are names wherever they appear in ``texts``: written with
    a capital somewhere other than a sentence's start, or capitalised at every one of
    two or more places and never in lower case ("Tidewell is ...", "Tidewell does
    ..."). Headings and title-case lines ("More on Lists") capitalise common words and
    are left out."""
    found: set[str] = set()
    capital: dict[str, int] = {}
    lower: set[str] = set()
    for text in texts:
        for line in text.splitlines():
            title = _title_line(line)
            opening = True
            for token in _TOKEN.finditer(line):
                word = token.group(0)
                if word in ".!?:;":
                    opening = True
                    continue
                if word in _BREAKS:
                    continue
                key = word.lower()
                if word[:1].islower():
                    lower.add(key)
                elif not title and _CAPITAL_WORD.fullmatch(word) and not word[0].isdigit():
                    capital[key] = capital.get(key, 0) + 1
                    if not opening:
                        found.add(key)
                opening = False
    found.update(word for word, count in capital.items()
                 if count >= 2 and word not in lower and word not in STOPWORDS)
    return found


_LINE_WORD = re.compile(r"[A-Za-z\u00C0-\u024F][\w'\u2019-]*")


def _title_line(line: str) -> bool:
    """Whether ``line`` is a heading or written in title case."""
    stripped = line.lstrip()
    if stripped.startswith(("#", "=", "|")):
        return True
    words = [w for w in _LINE_WORD.findall(stripped) if w.lower() not in STOPWORDS]
    return len(words) >= 2 and sum(w[0].isupper() for w in words) >= 0.6 * len(words) \
        and not stripped.rstrip().endswith((".", "!", "?"))
