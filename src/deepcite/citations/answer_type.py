"""The kind of short answer a question wants, and the candidates of that kind in a sentence.

A grounded answer leads with a bold short answer only when it is of the kind asked for:
a year is no answer to "how many", a bare "250,000" drops the "£" and "per year" that
make it an answer to "how much did it cost", and "1794" is no answer to "when" when the
sentence says "the 1860s". So each kind has its own extraction, and a sentence without a
candidate of the kind gives no short answer at all (the cited sentence still answers).

Kinds: ``count`` (how many: a number with its noun), ``amount`` (how much: a number with
its currency or unit), ``date`` (when / what year: a date, year, year range, decade,
century or named period), ``person`` (who), ``place`` (where), ``name`` (what treaty,
which stadium: a proper name), ``score`` and ``other``.
"""

from __future__ import annotations

import re

from deepcite.citations.answer_patterns import (
    _AGE,
    _AMOUNT,
    _BARE_WH,
    _BARE_YEAR,
    _BARE_YEARS,
    _CAP,
    _CENTURIES,
    _CLAUSE,
    _COUNT,
    _DATE_PATTERNS,
    _DECADES,
    _ERAS,
    _IRREGULAR_PLURALS,
    _LEADING_CLAUSE,
    _MEASURED,
    _MONEY,
    _MONEY_BEFORE,
    _MONTHS,
    _NAMED,
    _NAMED_NUMBER,
    _NOT_COUNTED,
    _NOT_NAMES,
    _NOT_PERSON,
    _NOUN_WORD,
    _PEOPLE,
    _PERSON,
    _PLACE,
    _PLACE_CUES,
    _POSSESSIVE,
    _SCORE,
    _SHARE,
    _SPAN_NOUNS,
    _WEAK_DATES,
    _WEEKDAYS,
    _WH_NAME,
    _WH_WORD,
    _WORD_NUMBER,
)
from deepcite.citations.question_match import question_terms
from deepcite.text.cjk import has_cjk
from deepcite.text.stem import term
from deepcite.text.stopwords import STOPWORDS
from deepcite.text.words import WORD, contains_words

KINDS = ("score", "amount", "share", "age", "measure", "count", "date", "place", "person",
         "name")

# Things known by a proper name: "What treaty ended ...", "Which stadium hosted ...".
_NAMED_THINGS = (r"treaty|treaties|edict|war|battle|venue|stadium|arena|charity|charities"
                 r"|organi[sz]ation|company|companies|corporation|firm|team|club|band"
                 r"|university|college|church|ship|newspaper|magazine|novel|film|movie"
                 r"|show|programme|program|series|episode|song|album|award|prize|trophy"
                 r"|tournament|party|dynasty|empire|kingdom|religion|religions|language"
                 r"|network|channel|airport|museum|hospital|agency|brand"
                 # what a local news story or a post names: "which school", "which road"
                 r"|school|schools|business|businesses|shop|store|bakery|restaurant"
                 r"|hotel|pub|bank|library|station|road|street|race|festival|competition"
                 r"|society|association|committee|council|estate|app|website|game|book")
# One word may stand between: "What petroleum company", "Which German team".
_NAME_ASKED = re.compile(rf"\b(?:what|which)(?: [a-z]+)? ({_NAMED_THINGS})\b")
"""A ``name`` question; its group is the thing whose name is asked."""

_MONEY_VERBS = (r"cost|costs|pay|paid|pays|price|priced|spend|spent|worth|charge|charged"
                r"|earn|earned|earns|fund|funded|budget|salary|fee|fees|money|sold|sell"
                r"|raise|raised|invest|invested|receive|received|owe|owed|revenue")
# Money asked ("how much did it cost"): a currency sign or a currency's name answers.
_MONEY_ASKED = (rf"\bhow much\b.*\b(?:{_MONEY_VERBS})\b|\bhow much money\b"
                r"|\bwhat (?:was|is|were) the (?:cost|price|budget|salary|fee)\b")
_MONEY_QUESTION = re.compile(_MONEY_ASKED)
# "What was the robot nicknamed?": a name, and only the one the sentence gives right
# after the same word ("nicknamed Gus"), not any capitalised run ("a roux" is what a
# thing is called, and no name the sentence holds elsewhere answers).
_CALLED_ASKED = re.compile(r"^(?:what|which)\b.*\b(?:nicknamed|called|named|dubbed"
                           r"|known as)\s*\??$")
_CALLED_BEFORE = re.compile(r"\b(?:nicknamed|called|named|dubbed|known as)\s+(?:the\s+)?$",
                            re.IGNORECASE)
# Checked in order: the first that matches decides.
_QUESTION_KINDS: list[tuple[str, re.Pattern[str]]] = [
    # "Who scored to make it 10-7?" asks who: a score only when no who, when or where asks
    ("score", re.compile(r"^(?!.*\b(?:who|whom|whose|when|where)\b).*"
                         r"\b(?:score|result of the match)\b")),
    ("amount", re.compile(rf"{_MONEY_ASKED}"
                          r"|\bhow (?:far|tall|high|long|big|large|heavy|deep|wide|fast)\b"
                          r"(?! ago)(?! did| does| do| was| were| had| has)")),
    # "what portion of households": a percentage or a fraction, never a head count
    ("share", re.compile(r"\b(?:what|which) (?:percentage|percent|portion|proportion"
                         r"|fraction|share)\b")),
    ("age", re.compile(r"\bhow old\b|\b(?:at )?what age\b")),
    # "how much did output grow": a quantity with its unit ("24%", "3 tonnes") first
    ("measure", re.compile(r"\bhow much\b")),
    # "the population of": a count; "what province has a large population": a place
    ("count", re.compile(r"\bhow many\b|\bwhat number\b|\bthe number of\b"
                         r"|\bpopulation (?:of|was|is|were|in)\b"
                         r"|\b(?:what|how large|how big) (?:is|was|were) (?:the |its |their )?"
                         r"population\b")),
    ("date", re.compile(r"\bwhen\b|\b(?:what|which|in what) (?:year|years|decade|century"
                        r"|date|period|era|month|day|time period)\b|\bhow long ago\b"
                        r"|\bwhat time\b")),
    # "what northern province": one word may stand between the question word and noun
    ("place", re.compile(r"\bwhere\b|\b(?:what|which|in what)(?: [a-z]+)? (?:city|country"
                         r"|state|town|region|continent|county|province|place|location"
                         r"|island|river|nation)\b")),
    ("person", re.compile(r"\bwho\b|\bwhom\b|\bwhose\b|\b(?:full|last|first|family|maiden)"
                          r" name\b|\bsurname\b")),
    ("name", _NAME_ASKED),
    # "What was the robot nicknamed?", "What is the club called?": the name it goes by
    ("name", _CALLED_ASKED),
]



# deepcite.citations.cjk_answers is imported by the first question in Chinese, Japanese
# or Korean, inside the functions that need it: its patterns take a few hundredths of a
# second to compile, which every other question (and every start of `deepcite ask`)
# would pay for nothing.


def answer_type(question: str) -> str:
    """The kind of short answer ``question`` wants (see the module docs), or ``other``.

    A question word written with a capital inside the question is part of a name
    ("Which Doctor Who song ...", "the When Harry Met Sally soundtrack"), not what is
    asked; and only the first question word asks (a later "when" or "who" opens a
    clause).
    """
    if has_cjk(question):  # asked in Chinese or Japanese: its own question words
        from deepcite.citations import cjk_answers  # on first use (see above)

        cjk_kind = cjk_answers.question_kind(question)
        if cjk_kind is not None:
            return cjk_kind
    words = question.split()
    kept = [w for i, w in enumerate(words)
            if not (i and w[:1].isupper() and _WH_NAME.match(w))]
    lowered = _LEADING_CLAUSE.sub("", " ".join(kept).lower())
    # Only the first question word asks: "what does it lead to *when* working" is no
    # "when" question, "the player *who* was" no "who" one.
    first = _WH_WORD.search(lowered)
    if first is not None:
        lowered = lowered[:first.end()] + _BARE_WH.sub("_", lowered[first.end():])
    for kind, pattern in _QUESTION_KINDS:
        if pattern.search(lowered):
            return kind
    return "other"


def _asked(candidate: str, question: str, kind: str = "") -> bool:
    """Whether ``candidate`` is in the question: its subject, not its answer.

    For a name, person or place, also when every capitalised word of it is a word of
    the question ("Spanish-language" for "What agency did the Spanish version?"): the
    question's own name, reworded, is no answer."""
    needle = _POSSESSIVE.sub("", " ".join(candidate.lower().split()))
    asked = _POSSESSIVE.sub("", question.lower())
    if contains_words(asked, needle):
        return True
    if kind not in ("name", "person", "place"):
        return False
    capitals = {w.lower() for w in re.findall(r"[^\W\d_]+", candidate) if w[0].isupper()}
    return bool(capitals) and capitals <= set(re.findall(r"[^\W\d_]+", asked))


Span = tuple[int, int, str]


def _counts(sentence: str, question: str, *, whole: bool = True) -> list[Span]:
    """Numbers with the noun they count; a year ("in 1820") is no count.

    The noun is the word after the number, or the noun "how many" asks about when it
    follows within three words ("14 known moons" for "how many moons"). In a whole
    sentence (``whole``; not a short answer already cut out of one), when the question
    names what it counts: a bare number answers only where the sentence speaks of that
    noun ("Newton was 26" counts no interceptions), and a number of something else only
    where it does not ("13 games" in a sentence on the Panthers counts no Panthers, but
    "2 million inhabitants" may count the people asked about).
    """
    wanted = _counted_noun(question)
    mentioned = wanted is not None and whole and any(
        _same_noun(w, wanted) for w in _NOUN_WORD.findall(sentence))
    found: list[Span] = []
    for match in _COUNT.finditer(sentence):
        number = " ".join(match.group(0).split())
        if not any(ch.isdigit() for ch in number) and number.lower() in ("a", "one"):
            continue
        if _MONEY_BEFORE.search(sentence[:match.start()]):
            continue  # "a new £43 million gallery" is money, no count of galleries
        # the noun is before the next number: "11 miles two weeks" counts no weeks
        tail = sentence[match.end():][:60]
        tail = tail[:next((m.start() for m in _NEXT_NUMBER.finditer(tail) if m.start()),
                          len(tail))]
        following = _NOUN_WORD.findall(tail)[:3]
        noun_index = next((i for i, w in enumerate(following)
                           if wanted is not None and _same_noun(w, wanted)), None)
        if noun_index is None and following and following[0].lower() not in _NOT_COUNTED \
                and following[0][0].islower() and not following[0].endswith("ed") \
                and sentence[match.end():][:1] == " ":
            # "826 episodes", "two later astronaut groups"; not "the 1988 story"
            noun_index = next((i for i, w in enumerate(following)
                               if _plural(w) and w.lower() not in _NOT_COUNTED), None)
        if noun_index is None:
            if _BARE_YEAR.match(number.split()[-1]) or not any(c.isdigit() for c in number):
                continue  # "in 1820" is a year; "several" alone counts nothing
            if _NAMED_NUMBER.search(sentence[:match.start()]):
                continue  # "Apollo 17", "Super Bowl 50": part of a name
            if wanted is not None and whole and not mentioned:
                continue
            found.append((match.start(), match.end(), number))
            continue
        noun = following[noun_index]
        if wanted is not None and not _same_noun(noun, wanted) and (
                noun.lower() in _SPAN_NOUNS or mentioned or wanted == "people"):
            continue  # "13 years" is no number of interceptions
        end = sentence.index(noun, match.end()) + len(noun)
        found.append((match.start(), end, " ".join(sentence[match.start():end].split())))
    return found


_NEXT_NUMBER = re.compile(rf"\d|\b{_WORD_NUMBER}\b", re.IGNORECASE)

def _plural(word: str) -> bool:
    """Whether ``word`` reads as a plural noun a number can count."""
    lower = word.lower()
    return lower in _IRREGULAR_PLURALS or (
        len(lower) > 2 and lower.endswith("s") and not lower.endswith(("ss", "us", "is")))


def _counted_noun(question: str) -> str | None:
    """The noun "how many ..." (or "the number of ...") asks about: its first plural
    word, else its first word ("how many fishing boats does ..." -> "boats", "how many
    bridges cross" -> "bridges", "the number of times" -> "times")."""
    match = re.search(r"\b(?:how many|number of)\s+((?:[a-z]+\s+){0,3})",
                      question.lower() + " ")
    words = []
    for word in (match.group(1).split() if match else []):
        if word in STOPWORDS:
            break
        words.append(word)
    plural = [w for w in words if w.endswith("s") and not w.endswith("ss")]
    if not words and "population" in question.lower():
        return "people"  # "what is the population of ...": a number of people
    return plural[0] if plural else words[0] if words else None


def _named_thing(question: str) -> str | None:
    """The kind of thing a ``name`` question asks the name of ("what *treaty* ...")."""
    match = _NAME_ASKED.search(question.lower())
    return match.group(1) if match else None


def _same_noun(a: str, b: str) -> bool:
    if b == "people" and a.lower() in _PEOPLE:
        return True  # a population is counted in inhabitants, residents, people
    a, b = a.lower().rstrip("s"), b.lower().rstrip("s")
    return a == b or (len(a) > 4 and len(b) > 4 and a[:5] == b[:5])


def _dates(sentence: str, question: str) -> list[Span]:
    """Dates, ranges, decades, centuries and periods, longest first where they overlap."""
    lowered = question.lower()
    prefer = ("decade" if "decade" in lowered else "century" if "century" in lowered
              else None)
    spans: list[Span] = []
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer(sentence):
            start, end = match.span()
            if any(s <= start < e or s < end <= e for s, e, _ in spans):
                continue  # inside a longer date found first ("1963 to 1989")
            if pattern is _BARE_YEARS and _MEASURED.match(sentence[end:]):
                continue  # "some 1015 tonnes" is a quantity, not a year
            if (prefer == "decade" and pattern is not _DECADES) or (
                    prefer == "century" and pattern is not _CENTURIES):
                continue
            if pattern is _ERAS and re.search(
                    rf"\b{re.escape(match.group(0).split()[-1].lower())}\b", lowered):
                continue  # "the Song dynasty" is no time for "when was the Ming dynasty"
            spans.append((start, end, " ".join(match.group(0).split())))
    if spans or prefer is not None:
        return spans
    for pattern in _WEAK_DATES:
        for match in pattern.finditer(sentence):
            start, end = match.span()
            if not any(s <= start < e or s < end <= e for s, e, _ in spans):
                spans.append((start, end, " ".join(match.group(0).split())))
    return spans


def _names(sentence: str) -> list[Span]:
    """Capitalised runs that can be a person's name: not a place ("Central Asia", a run
    right after "in"/"at"/"from"), an institution or a month, nor an owner ("Genghis
    Khan's youngest son": the son is the person the sentence is about)."""
    found: list[Span] = []
    for match in _PERSON.finditer(sentence):
        words = match.group(0).split()
        while words and words[0] in _NOT_NAMES:
            words.pop(0)
        before = sentence[:match.start()].split()[-1:]
        if len(words) < 2 or any(w in _MONTHS or w in _NOT_PERSON for w in words) \
                or (before and before[0].lower() in _PLACE_CUES) \
                or words[-1].endswith(("'s", "\u2019s")):
            continue
        found.append((match.start(), match.end(), " ".join(words)))
    return found


def _proper_names(sentence: str) -> list[Span]:
    """Capitalised runs that name something ("the Edict of Nantes", "Levi's Stadium"):
    not a sentence's capitalised first word alone, an article, a month, nor a number
    left when an opening "In" is taken off ("In 1861")."""
    found: list[Span] = []
    for match in _NAMED.finditer(sentence):
        words = match.group(0).split()
        start = match.start()
        while words and words[0] in _NOT_NAMES:
            start += len(words.pop(0)) + 1
        if not words or words[0] in _MONTHS or words[0] in _WEEKDAYS or (
                not words[0][:1].isupper()) or (
                len(words) == 1 and not sentence[:start].strip()):
            continue
        found.append((start, match.end(), " ".join(words)))
    return found


def _position(order: dict[str, int], word: str) -> int | None:
    """Where ``word`` stands among the question's terms, inflections included ("ended"
    for "end": the shared stemmer keeps short words whole)."""
    found = order.get(word)
    if found is None:
        found = next((i for t, i in order.items()
                      if len(t) >= 3 and word.startswith(t) and len(word) - len(t) <= 3), None)
    return found


def _spans(kind: str, sentence: str, question: str, whole: bool) -> list[Span]:
    if kind == "count":
        return _counts(sentence, question, whole=whole)
    if kind == "age":
        return [(m.start(g), m.end(g), m.group(g)) for m in _AGE.finditer(sentence)
                for g in ("n", "m") if m.group(g)]
    if kind == "share":
        return [(m.start(), m.end(), " ".join(m.group(0).split()))
                for p in _SHARE for m in p.finditer(sentence)]
    if kind == "date":
        return _dates(sentence, question)
    if kind == "person":
        return _names(sentence)
    if kind == "name":
        if _CALLED_ASKED.search(question.lower()):
            return [s for s in _proper_names(sentence)
                    if _CALLED_BEFORE.search(sentence[:s[0]])]
        return _proper_names(sentence)
    if kind == "place":
        return [(m.start("place"), m.end("place"), " ".join(m.group("place").split()))
                for m in _PLACE.finditer(sentence)
                if not any(w in _MONTHS for w in m.group("place").split())]
    if kind == "measure":  # a quantity with its unit, else a count of something
        measured = [(m.start(), m.end(), " ".join(m.group(0).split()))
                    for p in _AMOUNT for m in p.finditer(sentence)]
        return measured or _counts(sentence, question, whole=whole)
    if kind == "amount" and _MONEY_QUESTION.search(question.lower()):
        return [(m.start(), m.end(), " ".join(m.group(0).split()))
                for p in _MONEY for m in p.finditer(sentence)]
    patterns = _AMOUNT if kind == "amount" else [_SCORE] if kind == "score" else []
    return [(m.start(), m.end(), " ".join(m.group(0).split()))
            for p in patterns for m in p.finditer(sentence)]


def candidates(kind: str, sentence: str, question: str, *, whole: bool = True) -> list[str]:
    """The short answers of ``kind`` that ``sentence`` holds, best first.

    Best is nearest to the words the sentence shares with the question ("closed in the
    1860s" for "when did the mill close", not the "1794" of another clause); for a
    count, one of the noun asked about comes first. Candidates the question itself
    contains are its subject, never its answer.
    """
    if has_cjk(question):
        return _cjk_candidates(kind, sentence, question, whole)
    spans = [s for s in _spans(kind, sentence, question, whole)
             if s[2] and not _asked(s[2], question, kind)]
    order = {t: i for i, t in enumerate(dict.fromkeys(
        t for t in (term(w) for w in WORD.findall(question)) if t in question_terms(question)))}
    breaks = [m.start() for m in _CLAUSE.finditer(sentence)]
    tokens = list(WORD.finditer(sentence))
    # A count of the noun asked about comes first; so does a name that says what it
    # names ("the Treaty of Aix-la-Chapelle" for "what treaty", before "North American").
    noun = (_counted_noun(question) if kind == "count"
            else _named_thing(question) if kind == "name" else None)

    def clause(offset: int) -> int:
        return sum(b <= offset for b in breaks)

    def key(span: Span) -> tuple[bool, float, int]:
        # Question words weigh more the later they come ("when did the mill *close*"),
        # count only in the candidate's own clause, by nearness, half after it.
        start, end, text = span
        near = 0.0
        for token in tokens:
            at = token.start()
            found = _position(order, term(token.group(0)))
            if found is None or start <= at < end or clause(at) != clause(start):
                continue
            gap = sum(1 for t in tokens if min(at, start) < t.start() < max(at, start))
            after = 2 if at > start else 1  # the event is said before its date
            near += (1 + found / max(len(order) - 1, 1)) / (1 + gap) / after
        asked = noun is not None and any(_same_noun(w, noun) for w in text.split())
        return (not asked, -near, start)

    return list(dict.fromkeys(text for _, _, text in sorted(spans, key=key)))


def _cjk_candidates(kind: str, sentence: str, question: str, whole: bool) -> list[str]:
    """:func:`candidates` for a question in Chinese or Japanese: the CJK forms of
    ``kind`` (:mod:`deepcite.citations.cjk_answers`), then any Latin-script ones
    ("Guido van Rossum", "5 MB") they do not overlap; those in the clause that says
    most of the question first, CJK forms before Latin ones, then the one nearest a
    word of the question."""
    from deepcite.citations import cjk_answers  # on first use (see above)

    found = cjk_answers.spans(kind, sentence, question)
    own = len(found)
    if not (kind in ("amount", "measure", "count") and cjk_answers.strict(question)):
        # "多重" is answered in its units only: not by the "260" of "260 × 260 毫米"
        found += [s for s in _spans(kind, sentence, question, whole)
                  if not any(a < s[1] and s[0] < b for a, b, _ in found)]
    latin = set(found[own:])  # after the CJK forms: "12档", not the "0" of "0～12档"
    found = [s for s in found if s[2] and not _asked(s[2], question, kind)]
    found.sort(key=lambda s: (-cjk_answers.nearness(sentence, question, s[0]),
                              cjk_answers.extreme(question, s[2]), s in latin,
                              cjk_answers.gap(sentence, question, s[0], s[1]), s[0]))
    return list(dict.fromkeys(text for _, _, text in found))


def of_kind(kind: str, short: str, question: str) -> bool:
    """Whether ``short`` (an answer already cut out of its sentence) is of ``kind``.

    The same candidates as in a sentence, except that a place stands without the "in"
    that finds it in a sentence ("the Western Cape"), a person may be named by one
    word ("Tesla") and an age is its number alone.
    """
    if kind == "other":
        return True
    if has_cjk(question):
        return bool(candidates(kind, short, question, whole=False))
    if kind == "place":
        return bool(candidates(kind, f"in {short}", question))
    if kind == "person" and re.fullmatch(_CAP, short.strip()):
        return short.strip() not in _NOT_PERSON | _MONTHS | _WEEKDAYS | _NOT_NAMES
    if kind == "name" and re.fullmatch(rf"{_CAP}|[A-Z]{{2,}}", short.strip()):
        return short.strip() not in _MONTHS | _WEEKDAYS | _NOT_NAMES  # "Apollo", "ABC"
    if kind == "age":  # "86", cut out of "at the age of 86"
        return re.fullmatch(r"\d{1,3}", short.strip()) is not None
    return bool(candidates(kind, short, question, whole=False))


def holds(kind: str, sentence: str, question: str) -> bool:
    """Whether ``sentence`` holds a candidate of ``kind`` (for ranking cues)."""
    return bool(candidates(kind, sentence, question))


def pick(kind: str, sentence: str, question: str, proposed: str = "") -> str | None:
    """The short answer of ``sentence``: the model's ``proposed`` one when it is, or
    names, a candidate of ``kind`` there; else the best candidate; ``None`` when the
    sentence holds none of the kind."""
    found = candidates(kind, sentence, question)
    if not found:
        return None
    if has_cjk(question):  # the model may choose only among those of the best clause
        from deepcite.citations import cjk_answers  # on first use (see above)

        best = cjk_answers.nearness(sentence, question, sentence.find(found[0]))
        found = [c for c in found
                 if cjk_answers.nearness(sentence, question, sentence.find(c)) >= best]
        # "最热": the highest of them, whatever the model proposes
        top = cjk_answers.extreme(question, found[0])
        found = [c for c in found if cjk_answers.extreme(question, c) <= top]
    if proposed and contains_words(sentence.lower(), " ".join(proposed.lower().split())) and (
            proposed in candidates(kind, proposed, question, whole=False)):
        return proposed  # the model's own answer, of the kind and in the sentence
    if proposed:
        wanted = " ".join(proposed.lower().split())
        for candidate in found:
            low = candidate.lower()
            if low == wanted or contains_words(low, wanted) or contains_words(wanted, low):
                return candidate
    return found[0]


__all__ = ["KINDS", "answer_type", "candidates", "holds", "of_kind", "pick"]
