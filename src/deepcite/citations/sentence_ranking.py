"""Which sentences of the sources are about the question, and how well: the ranking step
of a grounded answer (:mod:`deepcite.citations.grounded`).

Kept apart from choosing and assembling what answers because it is the one step other
parts use on their own: quoted-passage answers order their excerpts by it
(:mod:`deepcite.citations.answer`), and research reads a question's names and numbers
with :func:`anchor_terms` (:mod:`deepcite.research.key_terms`). Each candidate sentence
(:mod:`deepcite.citations.candidates`) is scored against the whole question
(:mod:`deepcite.citations.question_match`): BM25 of the question's terms weighted by
rarity over the candidates and by the question's key phrase, times an answer-type cue
(:mod:`deepcite.citations.answer_type`) or an intent cue
(:mod:`deepcite.citations.intent`), a small search-rank prior and, with the embeddings
extra, the sentence's closeness in meaning. A sentence that covers too little of the
question is not relevant; sources that miss most of its names and numbers hold nothing
about it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence

from deepcite.citations import answer_type as types
from deepcite.citations import question_match, table_rows
from deepcite.citations.candidates import Sentence, candidate_sentences
from deepcite.citations.cjk_abbreviations import abbreviated_terms, defined
from deepcite.citations.cjk_howto import steps_by_other_words
from deepcite.citations.cjk_limits import states_limit
from deepcite.citations.cjk_ranges import case_in_range
from deepcite.citations.cjk_spread import spread_chains, widened
from deepcite.citations.code_names import unwritten
from deepcite.citations.injection import addressed_to_reader
from deepcite.citations.intent import (
    CODE_NAME,
    Intent,
    action,
    gives,
    question_intent,
    warns,
)
from deepcite.citations.numbered_names import unnamed
from deepcite.citations.question_match import Similarity, question_terms
from deepcite.citations.question_names import model_names
from deepcite.citations.render import USER_MATERIAL
from deepcite.text.cjk import CJK_RUN, has_cjk
from deepcite.text.cjk_synonyms import synonym_terms
from deepcite.text.cjk_terms import cjk_chains, cjk_singles, cjk_terms, cjk_variants
from deepcite.text.stem import term
from deepcite.text.stopwords import STOPWORDS
from deepcite.text.words import ALNUM_WORD, WORD
from deepcite.types import Source

#: Answer kinds (:func:`deepcite.citations.answer_type.answer_type`) that get a short
#: answer first.
FACTUAL_KINDS = frozenset(types.KINDS)
MIN_COVERAGE = question_match.MIN_COVERAGE  # see :func:`deepcite.citations.question_match.relevant`
CUE_BOOST = 0.5
#: A sentence that gives what a how-to, why or what-is question asks for
#: (:mod:`deepcite.citations.intent`) weighs this much more.
INTENT_BOOST = 0.5
#: A how-to sentence whose example, signature or code names do the question's action
#: (``csv_reader = reader(...)`` for "How do I read a CSV file?") weighs this much more
#: again: it shows how, where the module's introduction only says that it can.
SHOWS_BOOST = 1.0
#: A question term only the sentence a candidate points back to holds
#: (:func:`~deepcite.citations.candidates.refers_back`) counts this share of one the
#: candidate says itself.
CONTEXT_WEIGHT = 0.5
_K1, _B = 1.2, 0.75
#: With embeddings, a sentence's cosine to the question adds this much to its share of
#: the best word score: a paraphrase ("became enraged at the widespread burning" for
#: "became angry at the widespread destruction") then outranks a sentence that only
#: repeats the question's words.
MEANING_WEIGHT = 2.0
#: A sentence from a document whose title names none of the question's words, when
#: most of the sources' documents are titled by one: it matches by the words it
#: mentions in passing (the logging manual's "sub-areas 'read CSV files'" for "How do I
#: read a CSV file?", above the csv manual), so it weighs this share.
OFF_TITLE = 0.6


def anchor_terms(question: str) -> set[str]:
    """The terms that name what ``question`` is about: names and numbers.

    Capitalised words other than the first, and numbers of two or more digits
    ("Who won the IEEE Frank Rosenblatt Award in 2010?" -> ieee, frank, rosenblatt,
    award, 2010). A source about the question mentions most of them; one that does not
    is about something else, however many common words it shares.
    """
    anchors: set[str] = set()
    cjk = has_cjk(question)
    if cjk:  # CJK has no capitals: a Latin word in it is a name wherever it stands
        question = CJK_RUN.sub(" ", question)
    for index, match in enumerate(ALNUM_WORD.finditer(question)):
        word = match.group(0)
        if word.isdigit() and len(word) >= 2:
            anchors.add(word)
        elif (index or cjk) and word[0].isupper() and len(word) >= 2 and (
                word.lower() not in STOPWORDS):
            # Sentences are split into words of Latin letters (``text.WORD``): a name in
            # another script is held as its longest such piece, if any.
            piece = max(WORD.findall(word), key=len, default="")
            if len(piece) >= 3:
                anchors.add(term(piece))
    return anchors


def off_topic(question: str, sentences: Sequence[Sentence]) -> bool:
    """Whether the sentences miss most of the question's names and numbers (see
    :func:`anchor_terms`): then nothing in them answers it, and a sentence that shares a
    verb with the question must not be passed off as the answer."""
    anchors = anchor_terms(question)
    if not anchors:
        return False
    # A CJK sentence without its subject is read with its document's title (its
    # ``context``): "Buds Pro" named by the title only is named for all its sentences.
    present = set().union(*(set(s.terms) | (set(s.context) if has_cjk(s.text) else set())
                            for s in sentences)) & anchors
    return len(present) * 2 < len(anchors)


def _about_subject(wanted: set[str], sentences: list[Sentence],
                   close: Collection[int] = ()) -> list[Sentence]:
    """The sentences of the sources that name the question's subject (the term most of
    the sources hold, :func:`~deepcite.citations.question_match.subject_terms`); all of them
    when the sources agree on none. A passage on large prime numbers found for "Where
    are ctenophores found in large numbers?" shares three of its four words, and the
    rarity weights favour it, as every other source says "ctenophores".

    A sentence whose ``id`` is in ``close`` (its meaning very close to the question's)
    is kept wherever it is: the sources' majority may be about a word of the question
    that is not its subject ("piece" for "What is Norman art's most well known piece?",
    when search found museums' pieces), and the one source about Norman art then holds
    the answer ("By far the most famous work of Norman art is the Bayeux Tapestry")."""
    by_source: dict[int, list[str]] = {}
    for sentence in sentences:
        if sentence.rank not in by_source:  # the title names the subject as well
            by_source[sentence.rank] = question_match.terms_of(sentence.source.title)
        by_source[sentence.rank].extend(sentence.terms)
    subject = question_match.subject_terms(wanted, list(by_source.values()))
    if not subject:
        return sentences
    about = {rank for rank, terms in by_source.items() if subject & set(terms)}
    # A source naming the subject only in a signature or heading is about it too:
    # "quote(s)" above shlex's "Return a shell-escaped version of the string".
    about |= {s.rank for s in sentences if subject & set(s.about)}
    return [s for s in sentences if s.rank in about or id(s) in close]


def _off_title(wanted: set[str], sentences: Sequence[Sentence]) -> set[int]:
    """The sources (by rank) among ``sentences``' whose title holds none of ``wanted``
    when most of them, two or more, are titled by one of its words; none otherwise
    (titles then say nothing: web pages, FAQs, one document; and one document titled
    "Water" beside one titled "Arabic medicine" is no majority for "water")."""
    titled: dict[int, bool] = {}
    for sentence in sentences:
        if sentence.rank not in titled:
            titled[sentence.rank] = bool(
                wanted & set(question_match.terms_of(sentence.source.title)))
    on = sum(titled.values())
    if on < 2 or on * 2 <= len(titled):  # one title naming one word is no majority
        return set()
    return {rank for rank, on in titled.items() if not on}


def _off_model(models: frozenset[str], sentences: Sequence[Sentence]) -> set[int]:
    """The sources (by rank) whose title names none of the ``models`` a CJK question
    names (:func:`~deepcite.citations.question_names.model_names`: "AP-60本身有多重"),
    when another source's title names one: the page of another product that writes the
    noun asked ("整机重量 | 68公斤") is not about it."""
    if not models:
        return set()
    titled = {s.rank: bool(models & set(question_match.terms_of(s.source.title)))
              for s in sentences}
    return {rank for rank, on in titled.items() if not on} if any(titled.values()) else set()


def admissible(sentence: Sentence) -> bool:
    """Whether ``sentence`` may be quoted at all: not one addressed to the reader or the
    model (an instruction, a phishing line - :mod:`deepcite.citations.injection`).
    Such sentences are data a page carries, never the answer."""
    return not addressed_to_reader(sentence.text)


def rank_sentences(question: str, sources: Sequence[Source], *,
                   similarity: Similarity | None = None
                   ) -> list[Sentence]:
    """The relevant candidate sentences of ``sources``, best first (scores set).

    Relevant is :func:`deepcite.citations.question_match.relevant`: a real share of the whole
    question, weighted by rarity over the candidates and by the question's key phrase,
    and, when ``similarity`` gives cosines (the embeddings extra), by meaning; in
    sources that mention at least half of the question's names and numbers
    (:func:`off_topic`). An empty list means nothing in the sources is about the
    question. ``similarity=None`` ranks by the words alone.
    """
    sentences = [s for s in candidate_sentences(sources) if admissible(s)]
    candidates = sentences
    wanted = question_terms(question)
    if not sentences or not wanted or off_topic(question, sentences):
        return []
    source_titles = [question_match.terms_of(s.title) for s in sources]  # by rank
    if unnamed(question, [*(s.terms for s in sentences), *source_titles]):
        return []  # "HTTP/3" asked, only HTTP/1.1 said (numbered_names)
    if unwritten(question, source_titles, [s.text for s in sources]):
        return []  # "os.path.splitroot" asked, no source writes it (code_names)
    # "5200毫安时" says "容量" (capacity) by its unit: a CJK sentence holding a number in
    # the units of the dimension the question names is about that word too.
    if has_cjk(question):  # the CJK answer patterns load with the first CJK question
        from deepcite.citations import cjk_answers

        singles = cjk_singles(question)  # "借" asked, "借期" written: the character matches
        said = {t for s in sentences for t in s.terms}
        unsaid = [t for t in cjk_terms(question, question=True) if t not in said]
        # "脱水" written says the "甩干" asked (cjk_synonyms); counted as the sentence's
        # words, not as more of its length
        # "洁净空气量（CADR）" defined: a "甲醛CADR" column says the question's 洁净空气量
        definitions = defined(s.full_text or s.snippet for s in sources)
        implied = {id(s): [*cjk_answers.implied_terms(s.text, question),
                           *abbreviated_terms(" ".join((s.text, *s.columns)), question,
                                              definitions),
                           *(pair for pair in synonym_terms(" ".join((s.text, *s.columns)))
                             if pair in wanted),  # a table's header labels its rows
                           *(char for char in singles if char in s.text),
                           *cjk_variants(question, s.text, unsaid=unsaid,
                                         written=said)]  # 交费/缴费
                   for s in sentences}
        # "一整年的卡" spreads out the "年卡" a source writes: counted, at less weight
        spread = spread_chains(question, [s.text for s in sentences], wanted)
        wanted = wanted | {pair for chain in spread[0::2] for pair in chain}
        # "多重" asks the weight (重量) of the thing named, which is the subject
        asked = cjk_answers.asked_dimension(question)
        dimension = {asked} if asked else set()
    else:
        implied, dimension, spread = {}, set(), []
    kind = types.answer_type(question)
    intent = Intent.OTHER if kind in FACTUAL_KINDS else question_intent(question)
    verb = action(question) if intent is Intent.HOWTO else ""
    shows = _shows(verb, wanted, sentences) if intent is Intent.HOWTO else {}
    about = {id(s): [*s.about, *implied.get(id(s), []), *shows.get(id(s), ())]
             for s in sentences}
    sharing = [s for s in sentences if wanted & set(about[id(s)])]
    cosines = similarity(question, [s.text for s in sharing]) if similarity and sharing else None
    cosine = dict(zip(map(id, sharing), cosines, strict=True)) if cosines else {}
    close = {key for key, value in cosine.items() if value >= question_match.DENSE_STRONG}
    sentences = _about_subject(wanted - dimension, sentences, close)
    kept = set(map(id, sentences))
    sharing = [s for s in sharing if id(s) in kept]
    titles: dict[int, list[str]] = {}  # each source's title terms: its subject
    held: dict[int, set[str]] = {}  # each source's terms: where it names the subject
    for sentence in sentences:
        if sentence.rank not in titles:
            titles[sentence.rank] = source_titles[sentence.rank]
            held[sentence.rank] = set(titles[sentence.rank])
        held[sentence.rank].update(sentence.about, implied.get(id(sentence), []))
    pool = [[*s.terms, *implied.get(id(s), [])] for s in sentences]
    weights = widened(question_match.weigh(question, pool, titles={s.title for s in sources},
                                           documents=list(held.values())), spread, pool)
    total = len(sentences)
    average = sum(len(s.terms) for s in sentences) / total
    acted = term(verb) if shows and verb else ""
    lexical: dict[int, float] = {}
    # A CJK sentence names its page's subject by the title alone ("前5分钟内归还不收费"
    # on the power bank's page): counted as said, the sentence that repeats the
    # product's name ("充电宝归用户所有") does not outrank the one that answers.
    opening = _opening_terms(question) & wanted if has_cjk(question) else set()
    named_models = model_names(question)
    models = named_models & wanted
    ranked = []
    passed: dict[int, bool] = {}
    for sentence in sharing:
        document = held[sentence.rank]
        if sentence.source.engine == USER_MATERIAL:  # handed in for this question: the
            document = document | weights.named | weights.mentioned  # notes name it
        if weights.unsaid and sentence.name_line:
            continue  # what the subject is, when what is asked of it no source says
        # The thing the question names, when the sentence's page is titled by it, is
        # said by the page: "Return a shell-escaped version of the string" under
        # ``quote(s)`` on shlex's page answers "What does shlex.quote do?".
        entitled = [t for t in titles[sentence.rank]
                    if t in weights.named or t in weights.titled]
        passed[id(sentence)] = question_match.relevant(
            weights, [*about[id(sentence)], *entitled], cosine.get(id(sentence)),
            subject=titles[sentence.rank], document=document)
    coded: set[int] = set()
    if has_cjk(question):  # a table's rows say the same words of the question
        table_rows.admit_siblings(sharing, passed, lambda s: weights.coverage(about[id(s)]))
        if kind not in FACTUAL_KINDS:  # "E4 是什么意思" asks of the code itself; "S3
            # 多少钱" asks a value, which the model's spec row need not be where it is
            coded = table_rows.coded_rows(question, sharing)  # "E4 | 进水水温过高"
            passed.update(dict.fromkeys(coded, True))
    for sentence in sharing:
        if not passed.get(id(sentence)):
            continue
        sentence.coverage = weights.coverage(about[id(sentence)])
        counts = Counter(t for t in [*sentence.terms, *implied.get(id(sentence), [])]
                         if t in wanted)
        if opening:  # the page's product, named by its title only: said once here
            counts.update(dict.fromkeys(
                (t for t in titles[sentence.rank] if t in opening and t not in counts), 1))
        # the model a section is of ("便携盒（S5 Pro 专用）"), named by its heading only
        counts.update(dict.fromkeys(
            (t for t in sentence.heading if t in models and t not in counts), 1))
        norm = _K1 * (1 - _B + _B * len(sentence.terms) / average)
        lexical[id(sentence)] = sum(weights.weight[t] * n * (_K1 + 1) / (n + norm)
                                    for t, n in counts.items())
        # Said by the sentence it points back to or by the heading it is under.
        # Shown by its example, signature or code names (a how-to question): counted
        # as said, since ``read_ledger(stream)`` says "read" as plainly as prose would.
        shown = wanted.intersection(shows.get(id(sentence), [])).difference(counts)
        lexical[id(sentence)] += sum(weights.weight[t] * (_K1 + 1) / (1 + norm)
                                     for t in shown)
        pointed = (wanted.intersection(sentence.context + sentence.heading)
                   .difference(counts).difference(shown))
        if pointed:  # normed as the pair of sentences it is said in
            pair = _K1 * (1 - _B + _B * len(sentence.about) / average)
            lexical[id(sentence)] += sum(CONTEXT_WEIGHT * weights.weight[t] * (_K1 + 1)
                                         / (1 + pair) for t in pointed)
        ranked.append(sentence)
    best = max(lexical.values(), default=1.0) or 1.0
    off_title = _off_title(wanted, sentences) | _off_model(named_models, sentences)
    cjk = kind in ("amount", "measure", "count") and has_cjk(question)
    extreme = table_rows.extreme_rows(question, sentences) if has_cjk(question) else set()
    for sentence in ranked:
        prior = 1 + 0.1 / (1 + sentence.rank) + (0.05 if sentence.position == 0 else 0.0)
        if sentence.rank in off_title and not wanted & set(sentence.heading):
            # not when its own section is titled by the question's word: chunks of one
            # page ("自习室与预约" x5) outvote the page whose section "预约图书" answers
            prior *= OFF_TITLE
        cue = CUE_BOOST if types.holds(kind, sentence.text, question) else 0.0
        if cjk and _cjk_fits(sentence.text, question):
            cue += CUE_BOOST  # "5分钟" for "几分钟", before the "30秒" of the same topic
        if cjk and _cjk_same_case(sentence.text, question):
            cue += CUE_BOOST  # "100英寸：约2.66米" for "投出100寸", not the 40英寸 one
        if cjk and states_limit(sentence.text, question):
            cue += CUE_BOOST  # "上限 | 不超过20元" for "最多罚到多少钱", not the daily rate
        if has_cjk(question) and case_in_range(sentence.text, question):
            cue += CUE_BOOST  # "第31天起" for "超期两个月", "初二至初七" for "大年初五"
        if id(sentence) in extreme or id(sentence) in coded:
            cue += CUE_BOOST  # "开到最大": the table's row at that end of its scale
        if acted and acted in shows.get(id(sentence), ()):
            cue += INTENT_BOOST + SHOWS_BOOST  # its example or API does the action
        elif gives(intent, sentence.text) or (intent is Intent.HOWTO and sentence.example
                                              and not warns(sentence.text)):
            cue += INTENT_BOOST
        meaning = MEANING_WEIGHT * max(cosine.get(id(sentence), 0.0), 0.0)
        sentence.score = (lexical[id(sentence)] / best + meaning) * (1 + cue) * prior
    ranked.sort(key=lambda s: (-s.score, s.rank, s.position))
    if not ranked and intent is Intent.HOWTO and has_cjk(question):
        return steps_by_other_words(question, candidates)  # "被偷了" asked, "遗失" written
    return ranked


#: What a Chinese question may open with before the thing it names ("这台洗衣机").
_DEMONSTRATIVE = re.compile(r"^\s*(?:这台|这个|这款|这种|这部|这件|那台|那个|该)?")


def _opening_terms(question: str) -> set[str]:
    """The terms of what a CJK question opens with: its subject as a user names it
    ("充电宝一天最多收多少钱", "Buds Pro开着降噪..."). A page titled by that thing says
    it of every sentence; a word asked later ("降噪" after "开着") is what is asked of
    it, which a sentence must say itself."""
    rest = question[_DEMONSTRATIVE.match(question).end():]  # type: ignore[union-attr]
    first = CJK_RUN.search(rest)
    if first is None or first.start() > 0:  # a Latin name first: its words
        lead = rest[:first.start()] if first else rest
        return {term(w.lower()) for w in WORD.findall(lead)}
    chains = cjk_chains(rest, question=True)
    return set(chains[0]) if chains and rest.startswith(chains[0][0]) else set()


#: A name in code: an identifier, dotted or not, and its parts.
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
#: Shortest question term matched as the start of a name part ("get" in ``getcwd``).
_MIN_PREFIX = 3


def _code_parts(sentence: Sentence) -> set[str]:
    """The lower-case parts of the names ``sentence`` shows in code: in its example, in
    the signature or heading it is under, and in code it names itself (``csv.reader``,
    ``listdir()``). ``csv_reader`` gives csv and reader; ``csv.writer`` csv and writer."""
    names = _IDENTIFIER.findall(sentence.example)
    names += [word for word in sentence.heading if "_" in word or word.isalpha()]
    names += [match.group(0) for match in CODE_NAME.finditer(sentence.text)]
    return {part for name in names for part in re.split(r"[._]+", name.lower()) if part}


def _shows(verb: str, wanted: set[str], sentences: Sequence[Sentence]
           ) -> dict[int, list[str]]:
    """For a how-to question, the question's terms each sentence shows in code (see
    :func:`_code_parts`), keyed by the sentence's ``id``: a term a name part is, or
    starts (the action "read" in ``reader``, "write" in ``writerow``, "file" in
    ``fileobj``), as an API is named after what it does and to what. ``verb`` is the
    question's action (:func:`deepcite.citations.intent.action`), found once by the
    caller, which also weighs it.

    Such a sentence is about the question by what sits with it, not by its own words:
    "The "iterable" argument can be any object that returns a line of input" under
    ``csv_reader = reader(iterable ...)`` answers "How do I read a CSV file?" though it
    shares only "file" with it."""
    targets = {*wanted, *([term(verb)] if verb else [])}
    found: dict[int, list[str]] = {}
    for sentence in sentences:
        parts = _code_parts(sentence)
        if not parts:
            continue
        held = [t for t in targets if t in parts or (len(t) >= _MIN_PREFIX and any(
            part.startswith(t) for part in parts))]
        if held:
            found[id(sentence)] = held
    return found


def _cjk_fits(text: str, question: str) -> bool:
    """:func:`deepcite.citations.cjk_answers.fits`, its module loaded on first use."""
    from deepcite.citations import cjk_answers

    return cjk_answers.fits(text, question)


def _cjk_same_case(text: str, question: str) -> bool:
    """:func:`deepcite.citations.cjk_answers.same_case`, its module loaded on first use."""
    from deepcite.citations import cjk_answers

    return cjk_answers.same_case(text, question)


__all__ = [
    "CONTEXT_WEIGHT",
    "CUE_BOOST",
    "FACTUAL_KINDS",
    "INTENT_BOOST",
    "MEANING_WEIGHT",
    "MIN_COVERAGE",
    "OFF_TITLE",
    "SHOWS_BOOST",
    "admissible",
    "anchor_terms",
    "off_topic",
    "rank_sentences",
]

