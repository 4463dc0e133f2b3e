"""Stemming: one crude English stemmer, so that inflections of a word meet.

Deterministic and cheap (it runs on every word of every source a report cites), and
deliberately timid: :func:`stem` strips only ``-ing``, ``-ed``, ``-es`` and ``-s`` from
words that keep four letters, so "engines" meets "engine" and nothing meets what it
should not. :func:`term` is the fuller normalisation questions need (they paraphrase
their answer's sentence): a plural's :func:`singular`, an irregular past's present
("became" -> "become"), :func:`stem`, a doubled consonant undone and a final "e"
dropped. The search index stems with tantivy's own Snowball stemmer, inside the index.
"""

from __future__ import annotations

from deepcite.text.stopwords import STOPWORDS
from deepcite.text.words import WORD

_KEPT_DOUBLE = frozenset("lsz")  # "called" -> "call", "passed" -> "pass", "buzzed" -> "buzz"
#: Irregular past forms and their present: a question asks "When did the college
#: become coeducational?" of a source saying it "became" so, and "did ... win", "did
#: ... begin", "did ... lead" meet "won", "began", "led" only through this table.
#: Forms that are words of their own as well ("found", "left", "saw", "rose") are not in it.
_IRREGULAR = {
    past: present
    for present, forms in {
        "become": "became", "begin": "began begun", "bring": "brought", "build": "built",
        "buy": "bought", "catch": "caught", "choose": "chose chosen", "draw": "drew drawn",
        "drive": "drove driven", "eat": "ate eaten", "fall": "fell fallen",
        "fight": "fought", "fly": "flew flown", "forbid": "forbade forbidden",
        "forget": "forgot forgotten", "freeze": "froze frozen", "give": "gave given",
        "grow": "grew grown", "hold": "held", "know": "knew known", "lead": "led",
        "lose": "lost", "make": "made", "meet": "met", "pay": "paid", "ride": "rode",
        "run": "ran", "say": "said", "sell": "sold", "send": "sent",
        "shake": "shook shaken", "sing": "sang sung", "sink": "sank sunk",
        "speak": "spoke spoken", "spend": "spent", "stand": "stood", "steal": "stole stolen",
        "strike": "struck", "swim": "swam swum", "take": "took taken", "teach": "taught",
        "tell": "told", "think": "thought", "throw": "threw thrown",
        "wear": "wore worn", "win": "won", "write": "wrote written",
    }.items()
    for past in forms.split()
}


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


# Stems of words already seen. Verifying a long report stems the same few thousand
# words hundreds of thousands of times; the cap keeps an endless stream of new words
# (numbers, names) from growing it without bound.
_STEMS: dict[str, str] = {}
_STEMS_MAX = 200_000


def stem(word: str) -> str:
    """A crude English stem, so ``engines`` in a claim meets ``engine`` in a source."""
    found = _STEMS.get(word)
    if found is None:
        found = _stem(word)
        if len(_STEMS) >= _STEMS_MAX:
            _STEMS.clear()
        _STEMS[word] = found
    return found


def stems(text: str) -> set[str]:
    """Stemmed content words of ``text`` (``stem`` of each of ``content_words(text)``)."""
    return {stem(w) for w in (word.lower() for word in WORD.findall(text))
            if len(w) >= 3 and w not in STOPWORDS}


def term(word: str) -> str:
    """``word`` lower-cased and crudely stemmed, so "refused" meets "refuse".

    Its :func:`singular`, an irregular past form's present ("became" -> "become"), then
    :func:`stem` and a final "e" dropped: questions
    paraphrase their answer's sentence, and a missed inflection costs the one shared
    word a short question has.
    """
    plain = singular(word.lower())
    plain = _IRREGULAR.get(plain, plain)
    lower = plain
    if not lower.endswith("ss"):  # "class", "process": no plural "s" to strip
        lower = stem(lower)
    if (lower != plain and plain.endswith(("ing", "ed")) and len(lower) >= 4
            and lower[-1] == lower[-2] and lower[-1] not in _KEPT_DOUBLE):
        lower = lower[:-1]  # "transmitting" -> "transmit", as "transmit" is
    if len(lower) > 4 and lower.endswith("e") and lower[:-1] not in STOPWORDS:
        return lower[:-1]  # "theme" must not become "them"
    return lower


def singular(word: str) -> str:
    """A plural's singular (lower case in, lower case out), so "committees" meets
    "committee" and "boxes" meets "box": the stem alone strips "es" from the first and
    nothing from the second. Words ending in "ss", "us" or "is" are left as they are."""
    if len(word) > 5 and word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("xes", "ches", "shes", "sses", "zzes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word
