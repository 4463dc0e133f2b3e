"""What a question names: its subject, the page its object is, whether it asks yes or no.

A sentence from a page about another thing answers another question, however many of
the question's words it shares ("the json module" for logging's JSON output), so the
answer must name what the question is about (:mod:`deepcite.citations.question_match`
weighs and judges with these). Word order tells which of two named things a question is
about where titles cannot: "Does *logging* support structured JSON output?". The
question's words that name nothing - its filler, the kind of its subject - are here
too, as reading names needs them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from deepcite.text.cjk import has_cjk
from deepcite.text.cjk_terms import cjk_terms
from deepcite.text.stem import term
from deepcite.text.stopwords import STOPWORDS
from deepcite.text.words import WORD

#: Question words that say what kind of answer is wanted, not what it is about.
QUESTION_FILLER = frozenset({"many", "much", "name", "named", "year", "kind", "type",
                             "called", "which", "whose", "long", "often", "years",
                             "decade", "century", "date", "period", "percent", "percentage",
                             "number", "amount"})

#: Words that name the kind of thing a question's subject is ("the statistics *module*",
#: "the Path *class*"): said beside the subject's name, they are part of the subject, not
#: of what is asked about it, and a sentence holding one ("This module provides ...")
#: does not hold the aspect (:func:`aspect_missed`).
KIND_WORDS = frozenset(term(word) for word in (
    "module", "modules", "package", "packages", "library", "libraries", "class",
    "classes", "function", "functions", "method", "methods", "type", "types", "object",
    "objects", "attribute", "attributes", "tool", "command", "program", "api"))

#: The opening of an English question whose grammatical subject follows it: "Does the
#: csv module ...", "Can heapq ...", "How does asyncio ...", "When was shlex ...". After
#: a question word, a form of "be" is no auxiliary ("What is the purpose of ...": the
#: word after it is what is asked, not what it is asked about).
_SUBJECT_OPENING = re.compile(
    r"^\s*(?:(?P<wh>how|what|why|when|where|which|who)\s+)?"
    r"(?P<aux>does|do|did|can|could|will|would|should|is|are|was|were|has|have|had|may"
    r"|might|must|shall)\s+(?P<det>(?:the|a|an|my|your|our|its|their|this|that|these"
    r"|those)\s+)?(?P<word>[A-Za-z0-9_\u00C0-\u024F]+)(?:[.\s]+(?P<next>[A-Za-z]+))?",
    re.IGNORECASE)
_BE = frozenset(("is", "are", "was", "were"))
#: Words after the opening that are no subject to look for: pronouns and "there".
_NO_SUBJECT = frozenset(("i", "you", "we", "they", "it", "he", "she", "one", "there",
                         "this", "that", "these", "those", "someone", "anyone", "anything",
                         "something", "everything", "not"))

def grammatical_subject(question: str) -> frozenset[str]:
    """The term of the named grammatical subject of an English question with an
    auxiliary ("Does *logging* support structured JSON output?" -> ``log``; "How does
    *asyncio* integrate with ...?" -> ``asyncio``; "Can the *csv* module ...?").

    Only a name: a bare word (no article: "logging", "heapq"), a capitalised one, or
    one followed by a word naming its kind (:data:`KIND_WORDS`: "the csv module"). "Where
    should *a value* go ..." has a common noun for subject, which the answer need not
    repeat. Empty when the subject is the asker ("How do I ...", "Can I ..."), after
    "What is ..." (its word is what is asked), or without such an opening.

    The question is about that thing: a sentence from a page about another thing
    ("the json module" for logging's JSON output) that does not name it answers some
    other question, however many of the question's other words it shares. Titles
    cannot tell which of two named things the question is about; word order can.
    """
    match = _SUBJECT_OPENING.match(question)
    if not match:
        return frozenset()
    word = match.group("word")
    lower = word.lower()
    if lower in _NO_SUBJECT or lower in STOPWORDS or len(word) < 2:
        return frozenset()
    if match.group("wh") and match.group("aux").lower() in _BE:
        return frozenset()
    kind = term((match.group("next") or "").lower()) in KIND_WORDS
    if match.group("det") and not kind and not word[:1].isupper():
        return frozenset()
    return frozenset({term(lower)})


def named_subject(question: str) -> frozenset[str]:
    """What ``question`` is about by name: its grammatical subject
    (:func:`grammatical_subject`), else the words it names as a thing of a kind ("How
    do I compute the kurtosis of my data with the *statistics* module?"): the word
    before one of :data:`KIND_WORDS` after "the" ("a small function" names nothing)."""
    found = grammatical_subject(question)
    if found:
        return found
    if has_cjk(question):
        return cjk_subject(question)
    words = WORD.findall(question)
    return frozenset(
        term(word.lower()) for before, word, kind in zip(words, words[1:], words[2:], strict=False)
        if before.lower() == "the" and term(kind.lower()) in KIND_WORDS
        and content_name(word))


#: A Latin name at the opening of a Chinese or Japanese question ("csv 模块可以 ...",
#: "pathlib は ..."), or one followed by a word for its kind ("用 logging 模块把 ...").
_CJK_LEADING_NAME = re.compile(r"^\s*(?P<name>[A-Za-z][A-Za-z0-9_.]*)")
_CJK_KIND_NAME = re.compile(
    r"(?P<name>[A-Za-z][A-Za-z0-9_.]*)\s*(?:模块|模組|库|函数|类|包|工具|モジュール|ライブラリ"
    r"|クラス|関数|パッケージ|모듈|라이브러리|함수|클래스)")
#: A CJK question's opening phrase before its first topic or possessive particle
#: ("云溪古镇*的*镇长是谁", "ハヤブサ*の*ライセンス", "青鸟*は* ..."): the thing it asks about.
_CJK_TOPIC = re.compile(r"^\s*(?P<phrase>[^\s的のはが，,、？?]{2,10}?)(?:的|の|は|が)")


def cjk_subject(question: str) -> frozenset[str]:
    """What a Chinese or Japanese question is about by name: a Latin name at its
    opening or before a word for its kind ("csv 模块可以读取 Parquet 文件吗" -> ``csv``),
    else the character pairs of its opening phrase before its first possessive or topic
    particle ("云溪古镇的镇长是谁" -> 云溪 溪古 古镇). Empty when it has neither.

    As in English (:func:`grammatical_subject`), a sentence from a page about another
    thing that does not name it answers some other question (:func:`subject_missed`)."""
    for pattern in (_CJK_LEADING_NAME, _CJK_KIND_NAME):
        found = pattern.search(question)
        if found:
            first = WORD.findall(found.group("name"))
            if first and content_name(first[0]):
                return frozenset({term(first[0].lower())})
    topic = _CJK_TOPIC.match(question)
    if topic and has_cjk(topic.group("phrase")):
        return frozenset(cjk_terms(topic.group("phrase")))
    return frozenset()


#: A product's model name in a CJK question: letters and digits ("S3", "W3"), or
#: letters, a hyphen and digits ("AP-60"), as manuals name their models.
_MODEL_NAME = re.compile(r"(?<![A-Za-z0-9])(?P<letters>[A-Za-z]{1,4})(?P<join>-?)\d{1,4}"
                         r"(?![A-Za-z0-9.])")


def model_names(question: str) -> frozenset[str]:
    """The terms of the model names a CJK question writes ("S3过了保修期" -> ``s3``,
    "AP-60本身有多重" -> ``ap``, the word a sentence's terms hold of it): too short
    for a content word, yet what the question is about when a page names several
    models or another page writes the noun asked."""
    if not has_cjk(question):
        return frozenset()
    return frozenset(term(m.group("letters").lower()) if m.group("join")
                     else term(m.group(0).lower()) for m in _MODEL_NAME.finditer(question))


#: A document title that opens with its subject's name and a separator: "tarfile — Read
#: and write tar archive files", "Flask: web development".
_TITLE_NAME = re.compile(r"^\s*(?P<name>[A-Za-z][A-Za-z0-9_.]*)\s*(?:—|–|-|:|\|)\s+\S")


def title_names(titles: Iterable[str]) -> frozenset[str]:
    """The names ``titles`` open with (:data:`_TITLE_NAME`), as terms: what each document
    is the page of. A question word that is one of them names a thing whatever its place
    in the question ("How do I encrypt a *tarfile* archive?": the object, not the
    subject), and a sentence from a page about another thing that does not name it is no
    answer (:func:`subject_missed`)."""
    names = set()
    for title in titles:
        found = _TITLE_NAME.match(title)
        words = WORD.findall(found.group("name")) if found else []
        if words and content_name(words[0]):
            names.add(term(words[0].lower()))
    return frozenset(names)


def yes_no(question: str) -> bool:
    """Whether ``question`` asks yes or no of a thing: an English one that opens with an
    auxiliary ("Does csv ...", "Can the heapq module ..."), a Chinese one that ends in
    吗 or asks 是否/能否/可否, a Japanese one that ends in ますか/できますか without a
    question word."""
    match = _SUBJECT_OPENING.match(question)
    if match:
        return not match.group("wh")
    if not has_cjk(question):
        return False
    stripped = question.strip().rstrip("?？。!！ ")
    return stripped.endswith(("吗", "嗎", "么")) or any(
        word in question for word in ("是否", "能否", "可否")) or (
        stripped.endswith("か") and not any(word in question for word in _JA_WH))


#: Japanese question words: a question holding one asks what, not whether.
_JA_WH = ("何", "いつ", "どこ", "だれ", "誰", "どの", "どれ", "どう", "なぜ", "いくつ", "いくら")



def content_name(word: str) -> bool:
    """Whether ``word`` may be a name: three letters or more, no function word, no
    word that says what kind of answer is wanted."""
    lower = word.lower()
    return len(lower) >= 3 and lower not in STOPWORDS and lower not in QUESTION_FILLER


__all__ = [
    "KIND_WORDS",
    "QUESTION_FILLER",
    "cjk_subject",
    "content_name",
    "grammatical_subject",
    "model_names",
    "named_subject",
    "title_names",
    "yes_no",
]
