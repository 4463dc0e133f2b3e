"""Names in a text: runs of capitalised words ("Uppsala University"), not a sentence's
first word unless it is a name elsewhere, nor months, units, abbreviations ("CEO", read
as the words it stands for) or the words of headings and title-case lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from deepcite.factcheck.dates import MONTHS
from deepcite.factcheck.units import CURRENCIES, DIMENSIONS
from deepcite.text.stopwords import STOPWORDS

__all__ = ["ABBREVIATIONS", "capitalised_inside", "initialisms", "language_at", "name_groups",
           "spelled_out"]

#: Abbreviations a draft writes for what a source spells out ("CEO", "chief executive"):
#: read as those words, never as names.
ABBREVIATIONS = {
    "ceo": "chief executive officer", "cfo": "chief financial officer",
    "cto": "chief technology officer", "coo": "chief operating officer",
    "cio": "chief information officer", "hq": "headquarters", "yoy": "year on year",
    "q1": "first quarter", "q2": "second quarter", "q3": "third quarter",
    "q4": "fourth quarter", "h1": "first half", "h2": "second half",
    "approx": "approximately", "govt": "government", "dept": "department",
    "config": "configuration",
}
_BREAKS = frozenset(",()\"\u201c\u201d")
_MONTH_NAMES = frozenset(MONTHS) | {"monday", "tuesday", "wednesday", "thursday", "friday",
                                     "saturday", "sunday"}
_CAPITAL_WORD = re.compile(r"[A-Z\u00C0-\u00DE][\w'\u2019-]*|[A-Z]{2,}\d*")
_TOKEN = re.compile(r"[A-Za-z\u00C0-\u024F][\w'\u2019-]*|\d\w*(?:[.,]\d+)*"
                    r"|[.!?:;,()\"\u201c\u201d]")



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
            and lower not in DIMENSIONS and lower not in CURRENCIES \
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
    ..."), a sentence's first word set off by a comma not counted ("Overnight, ..."
    opens with an adverb). Headings and title-case lines ("More on Lists") capitalise
    common words and are left out."""
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
                elif opening and line.startswith(",", token.end()):
                    pass  # "Overnight, from midnight ...": an opening set off, an adverb
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


# A language or nationality: "Italian", "Chinese", "Spanish", "French".
_LANGUAGE_SHAPE = re.compile(r"[A-Z][a-z]+(?:ian|ese|ish)")
_LANGUAGES = frozenset("""French Dutch German Greek Thai Swiss Welsh Irish Czech Basque
    Catalan Arabic Hebrew Latin Hindi Urdu Swahili Maori Gaelic""".split())  # noqa: SIM905
_IN_BEFORE = re.compile(r"\bin\s+$", re.IGNORECASE)
_NOUN_AFTER = re.compile(r"\s+[a-z]")


def language_at(text: str, start: int, end: int) -> bool:
    """Whether the name at ``start``..``end`` of ``text`` is a language or nationality
    ("courses in Italian", "Italian students") rather than a place or a person: a draft's
    "courses in Rome" is not contradicted by "courses in Italian", another kind of name
    in the same place. The shape alone would take "Adrian" for one, so the word must
    follow "in" or qualify a noun after it."""
    word = text[start:end]
    if not (_LANGUAGE_SHAPE.fullmatch(word) or word in _LANGUAGES):
        return False
    return bool(_IN_BEFORE.search(text, 0, start)) or bool(_NOUN_AFTER.match(text, end))


_CAPITALISED_RUN = re.compile(r"\b[A-Z][a-z]+(?:\s+(?:of\s+(?:the\s+)?)?[A-Z][a-z]+)+\b")


def initialisms(texts: Sequence[str]) -> frozenset[str]:
    """The initials, lower-cased, of the runs of capitalised words ``texts`` name ("raf"
    of "the Royal Air Force", "nhs" of "National Health Service"): a draft naming it so
    names what the sources name, not another thing."""
    found: set[str] = set()
    for text in texts:
        for run in _CAPITALISED_RUN.finditer(text):
            words = [w for w in run.group(0).split() if w[0].isupper()]
            if len(words) >= 2:
                found.add("".join(w[0] for w in words).lower())
    return frozenset(found)


_ACRONYM = re.compile(r"[A-Z]{2,6}")
_SMALL_WORDS = frozenset({"of", "the", "and", "for", "de", "du", "la", "&"})
_WORD_RUN = re.compile(r"[A-Za-z&]+")


def spelled_out(acronym: str, text: str) -> bool:
    """Whether ``text`` writes ``acronym`` ("RAF") out in full: a run of capitalised
    words whose initials are its letters ("the Royal Air Force"), small words between
    them aside ("Bank of England")."""
    if not _ACRONYM.fullmatch(acronym):
        return False
    words = [w for w in _WORD_RUN.findall(text)
             if w.lower() not in _SMALL_WORDS or w[0].isupper()]
    letters = len(acronym)
    for at in range(len(words) - letters + 1):
        run = words[at:at + letters]
        if all(w[0].isupper() and w[0] == c for w, c in zip(run, acronym, strict=True)):
            return True
    return False
