"""Names that carry a number ("HTTP/3", "Python 4", "version 8", "SHA-4"): a question
asking about one is answered only by sources that name it.

"What is the default port that http.client uses for HTTP/3?" shares "default", "port",
"http" and "client" with the http.client page, which speaks of HTTP/1.1 only; "How do I
generate a version 8 UUID?" shares "version" and "UUID" with "the UUID version number
(1 through 5 ...)". Word overlap and meaning both rate such sentences close, since the
number is one short token among the question's words; yet it is what makes the thing
asked about another thing. When no candidate sentence holds the name with its number,
side by side, the sources do not speak of it, and the honest reply is "not found"
(:func:`deepcite.citations.sentence_ranking.rank_sentences`).

Only names: a number right after a word that names a release ("version 8 UUID"), or
joined to a word by "/" or "-" ("SHA-4", "HTTP/3 support"), or right after a
capitalised word or an acronym ("Python 4") when what follows the number is no counted
noun or unit ("8 workers", "30 seconds", "level 9 compression" say how many or how much, in
words a source writes its own way). Years are left out: "June 2011" is written "June
6, 2011".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from deepcite.text.cjk import CJK_RUN
from deepcite.text.stem import term
from deepcite.text.stopwords import STOPWORDS

#: A word, then a number after a space, "/" or "-", then what follows it.
_NUMBERED = re.compile(
    r"(?P<word>[A-Za-z][A-Za-z0-9]*)(?P<joint>\s+|/|-)(?P<number>\d+(?:\.\d+)*)"
    r"(?![\d.]*[A-Za-z0-9])(?P<after>\s*\S*)")
#: Lower-case words that name a release by its number.
_RELEASE_WORDS = frozenset(("version", "release", "revision", "edition", "generation",
                            "v"))
#: Words before a number that count or order rather than name ("top 10", "first 3").
_COUNTING = frozenset(("top", "first", "last", "next", "previous", "over", "under",
                       "about", "around", "than", "least", "most", "only", "every",
                       "per", "each", "step", "steps", "page", "pages", "line", "lines",
                       "item", "items", "number", "no"))


def _is_year(number: str) -> bool:
    return number.isdigit() and len(number) == 4 and 1000 <= int(number) <= 2999


def numbered_names(question: str) -> list[tuple[str, str]]:
    """The names with a number ``question`` asks about, each as (the word's term, the
    number's terms joined by "."): ``[("http", "3")]`` for "... for HTTP/3?"."""
    text = CJK_RUN.sub(" ", question)
    found = []
    for match in _NUMBERED.finditer(text):
        word, number, after = match.group("word"), match.group("number"), match.group("after")
        lower = word.lower()
        if lower in STOPWORDS or lower in _COUNTING or _is_year(number):
            continue
        if match.group("joint") in ("/", "-"):  # one token as written: "HTTP/3 support"
            found.append((term(lower), number))
            continue
        # What follows: the question's end, punctuation or a name - not a counted noun.
        following = after.strip().strip("?.,;:!)\"'")
        counted = bool(following) and following[:1].islower()
        # "version 8 identifier": what follows a release's number is what it versions
        if lower in _RELEASE_WORDS or (word[:1].isupper() and not counted):
            found.append((term(lower), number))
    return found


def _holds(terms: Sequence[str], word: str, number: Sequence[str]) -> bool:
    """Whether ``terms`` (a text's, in order) hold ``word`` right before ``number``'s
    parts: "HTTP/1.1" holds http 1 1, so ("http", "1.1") and ("http", "1"); or the two
    written as one word ("HTTP3", "uuid8")."""
    size = len(number)
    joined = word + number[0]
    return joined in terms or any(
        terms[i] == word and list(terms[i + 1:i + 1 + size]) == list(number)
        for i in range(len(terms) - size))


def unnamed(question: str, texts: Iterable[Sequence[str]]) -> list[str]:
    """The numbered names of ``question`` (:func:`numbered_names`) that none of
    ``texts`` (each a sentence's or title's terms, in order) holds, as written
    ("http 3"): what the sources never speak of."""
    wanted = numbered_names(question)
    if not wanted:
        return []
    pool = [list(terms) for terms in texts]
    return [f"{word} {number}" for word, number in wanted
            if not any(_holds(terms, word, number.split(".")) for terms in pool)]


__all__ = ["numbered_names", "unnamed"]
