"""How much of a question a candidate sentence answers: weighted terms, key phrase, meaning.

A sentence that shares one common word with the question ("last", "majority",
"create") is not about it, and a grounded answer that quotes it as the answer is wrong
however verbatim the quote. So a sentence is scored against the whole question:

- **Rarity.** Each stemmed content word of the question weighs its IDF over the
  candidate pool. A question word that no candidate holds still counts (at
  :data:`ABSENT_FACTOR` of the highest IDF): it is usually the question's subject, and
  dropping it would let the one common word left decide.
- **Key phrase.** The question's named entity (capitalised words after the first) or,
  without one, its longest run of content words weighs :data:`KEY_FACTOR` more: the
  sources about the question name it.
- **Meaning.** With the ``meaning`` or ``embeddings`` extra installed
  (``citations.sentence_meaning``), the cosine of the question and the sentence
  (:mod:`deepcite.citations.sentence_meaning`: multilingual-e5-small or
  all-MiniLM-L6-v2, loaded offline) lets a paraphrase in and keeps a sentence about
  something else out. Without them, terms alone decide.

A sentence is relevant when it covers :data:`MIN_COVERAGE` of the question's weight
with at least two of its terms (one, when the question has one), or, with embeddings,
when its meaning is close and it still shares part of the question.

Chinese and Japanese have no spaces: their terms are character pairs without particles,
function characters and question words (:mod:`deepcite.text.cjk_terms`), and "two of
its terms" counts word-like chains of pairs, not pairs (a four-character name is three
pairs and one thing named; :meth:`Weights.enough`).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import replace

from deepcite.citations.cjk_ranges import case_words
from deepcite.citations.intent import action
from deepcite.citations.question_names import (
    KIND_WORDS,
    QUESTION_FILLER,
    cjk_subject,
    content_name,
    grammatical_subject,
    model_names,
    named_subject,
    title_names,
    yes_no,
)
from deepcite.citations.question_weights import (
    CHAIN_SHARE,
    CJK_DEGREE_WORDS,
    Weights,
)
from deepcite.citations.sentence_meaning import dense_similarity, meaning_available
from deepcite.text.cjk import has_cjk
from deepcite.text.cjk_terms import (
    FUNCTION_CHARS,
    QUESTION_WORDS,
    cjk_chains,
    cjk_singles,
    cjk_terms,
)
from deepcite.text.stem import term
from deepcite.text.stopwords import STOPWORDS
from deepcite.text.words import WORD, content_words

MIN_COVERAGE = 0.3  # share of the question's weight a relevant sentence must match
ABSENT_FACTOR = 0.5  # a question word no candidate has weighs this share of the top IDF
KEY_FACTOR = 1.5  # the key phrase's words weigh this much more
DENSE_MIN = 0.45  # cosine above which meaning vouches for a sentence sharing some words
DENSE_COVERAGE = 0.15  # ... that still covers this share of the question
DENSE_STRONG = 0.6  # cosine at which meaning alone vouches for a sentence sharing a word
#: A sentence whose meaning is this far from the question's is not about it unless it
#: holds most of the question's words (:data:`VETO_COVERAGE`): "The urlparse module ...
#: parsing quirks" shares "parse" and "module" with "How do I parse a tax return with the
#: taxform module?" and says nothing about it. Measured (calibrated e5): honest "not
#: found" 11 -> 14 of 18 unanswerable questions over the demo, gold page cited 20 -> 19
#: of 25 on the Python FAQ.
DENSE_VETO = 0.4
VETO_COVERAGE = 0.6
#: A question whose terms no candidate sentence holds weigh this share of it or more
#: names something the sources never mention ("the blockchain backend of sqlite3",
#: "the quantum random generator in secrets"): with meaning scored, a sentence about
#: the rest of it (the module) is relevant only when it holds :data:`VETO_COVERAGE`.
#: Measured (calibrated e5, captured sources, /work/probe45c): honest "not found"
#: 33 -> 38 of 40 made-up, unrelated and CJK questions over the demo, 14 -> 17 of 18
#: on a second set; answerable paraphrases answered 30 -> 29 of 30.
ABSENT_VETO = 0.35
#: ... unless its meaning is this close: a paraphrase uses words its sentence does not.
ABSENT_CLOSE = 0.7
#: ... or it holds this many of the question's terms: most of what the sources can say.
ABSENT_MATCHED = 3
#: Verbs of little meaning of their own ("take off", "put back", "get"), which the
#: sources write as the verb they stand for ("What does heappop *take off* the heap?":
#: "*Pop* the smallest item off the heap"). Like :data:`SPEAKER_WORDS`, dropped from a
#: question only where no candidate sentence says it: as an absent term it weighed as
#: much as the rarest word there is and vetoed the sentence that answers.
LIGHT_VERBS = frozenset(term(word) for word in (
    "take", "takes", "taking", "took", "put", "puts", "putting", "get", "gets",
    "getting", "got"))
#: Words a question about a forum thread or comments uses for whoever wrote a post
#: ("How many flats has *the poster* had?", "What did *the replier* recommend?"). The
#: post says "I" and "my": no sentence holds the word, and as an absent term it weighed
#: as much as the rarest word there is, so the sentence that answers fell under the
#: bar. Dropped from a question only where no candidate sentence says it (an article
#: about a film poster keeps it: :func:`weigh`).
SPEAKER_WORDS = frozenset(term(word) for word in (
    "poster", "poster's", "posters", "replier", "replier's", "repliers", "commenter",
    "commenter's", "commenters", "commentator", "respondent", "respondents", "op",
    "op's", "redditor", "redditors", "author", "author's", "writer", "writer's",
    "narrator", "narrator's", "user", "user's", "thread", "post", "posts", "reply",
    "replies", "comment", "comments"))
#: Words that ask what a thing is or is for, not about one property of it: "What is the
#: purpose of the textwrap module?", "What is heapq good for?", "What kind of numbers
#: does fractions work with?"; and the verbs that tie the subject to what is asked of
#: it ("Does tempfile *support* encrypted files?": the aspect is "encrypted", and a
#: sentence saying what tempfile supports without it does not answer). The subject's
#: own description answers the first, the aspect's words the second, so none of them
#: is an aspect its sentences must name (:func:`aspect_missed`).
ROLE_WORDS = frozenset(term(word) for word in (
    "purpose", "purposes", "uses", "usage", "useful", "good", "job", "role", "point",
    "meaning", "means", "work", "works", "provide", "provides", "offer", "offers", "serve",
    "serves", "task", "aim", "goal", "idea", "about",
    "support", "supports", "supported", "include", "includes", "allow", "allows", "let",
    "lets", "enable", "enables", "feature", "features", "option", "options", "built",
    "come", "comes", "contain", "contains", "give", "gives", "get", "make"))
#: When a question names its subject (:func:`named_subject`) and asks of it a word no
#: candidate sentence holds, a sentence must hold this share of the weight of the
#: aspect (:func:`aspect_missed`): "How do I compute the kurtosis of my data with the
#: statistics module?" asks for kurtosis, and "This module provides functions for
#: calculating statistics of data" holds only "data" of it. Measured on
#: ``bench/data/nf_dev_*.jsonl``: applied to every question, or to any unsaid word
#: without the share, it cost answerable questions their second and third sentences
#: ("computes", "count" are words the sources write another way).
ASPECT_SHARE = 0.4
#: ``similarity(question, texts)``: one cosine per text, or ``None`` when unavailable.
Similarity = Callable[[str, Sequence[str]], "list[float] | None"]


def terms_of(text: str) -> list[str]:
    """Every word of ``text`` as a :func:`term`, in order, then the meaningful character
    pairs of its Chinese, Japanese or Korean runs
    (:func:`~deepcite.text.cjk_terms.cjk_terms`), which have no words to split."""
    words = [term(w) for w in WORD.findall(text)]
    return words + cjk_terms(text) if has_cjk(text) else words


def question_terms(question: str) -> set[str]:
    """The stemmed content words of ``question`` that say what it is about, and the
    character pairs of its CJK runs without its question words ("多久", "いつ")."""
    words = {term(w) for w in content_words(question) if w not in QUESTION_FILLER}
    if not has_cjk(question):
        return words
    return words | set(cjk_terms(question, question=True)) | set(cjk_singles(question)) | (
        _dimension(question)) | model_names(question)


def _dimension(question: str) -> set[str]:
    """The noun of the dimension a CJK question asks by its question word alone ("多重":
    "重量", :func:`deepcite.citations.cjk_answers.asked_dimension`), its module loaded
    on first use."""
    from deepcite.citations import cjk_answers

    noun = cjk_answers.asked_dimension(question)
    return {noun} if noun else set()


def subject_terms(wanted: Iterable[str], docs: Sequence[Sequence[str]]) -> frozenset[str]:
    """The question's subject as the results see it: of the terms of ``wanted`` that at
    least half of ``docs`` (each a list of terms, repeats kept) hold, the one they say
    most often.

    Rarity cannot find it (the subject is in most results, so it weighs least), and
    "held by most" is not enough either: "found" is in half the passages about
    ctenophores, "create" in more of those about EU directives than "directive". A
    subject recurs within its passages, a common word does not. Empty with fewer than
    two documents or when no term is held by half.
    """
    wanted = set(wanted)
    if len(docs) < 2 or not wanted:
        return frozenset()
    held: Counter[str] = Counter()
    said: Counter[str] = Counter()
    for doc in docs:
        counts = Counter(t for t in doc if t in wanted)
        held.update(counts.keys())
        said.update(counts)
    rank = {t: (said[t], held[t]) for t in held if 2 * held[t] >= len(docs)}
    best = max(rank.values(), default=None)
    return frozenset(t for t, r in rank.items() if r == best)



def key_phrase(question: str) -> str:
    """The words of ``question`` its sources must be about, as written.

    Its named entity (the longest run of capitalised words after the first, "Atlantic
    Ocean"), else its longest run of content words ("virtual environment"); a tie goes
    to the later run, which in an English question is more often the object asked about.
    """
    words = WORD.findall(question)
    runs: list[list[str]] = [[]]
    names: list[list[str]] = [[]]
    for index, word in enumerate(words):
        if content_name(word):
            runs[-1].append(word)
        elif runs[-1]:
            runs.append([])
        if index and word[:1].isupper() and word.lower() not in STOPWORDS and len(word) > 1:
            names[-1].append(word)
        elif names[-1]:
            names.append([])
    named = [run for run in names if run]
    pool = named or [run for run in runs if run]
    if not pool:
        return ""
    best = max(range(len(pool)), key=lambda i: (len(pool[i]), i))
    return " ".join(pool[best])


def _joined(question: str, wanted: set[str], pool: Sequence[Sequence[str]]) -> set[str]:
    """``wanted`` with a word the question splits in two and the sources write as one
    ("back up" / "backup", "log in" / "login", "file name" / "filename") as the joined
    term: the split part no source holds would otherwise count as a term the sources
    never mention, and veto the sentences that answer the question."""
    said = {t for terms in pool for t in terms}
    words = WORD.findall(question)
    joined = set(wanted)
    for first, second in itertools.pairwise(words):
        parts = {term(first.lower()), term(second.lower())} & wanted
        whole = term((first + second).lower())
        if parts and whole in said and not parts <= said:
            joined = (joined - (parts - said)) | {whole}
    return joined


def cjk_seams(question: str, wanted: Iterable[str], said: Collection[str]) -> set[str]:
    """The character pairs of ``question`` that straddle two of its words, not one: a
    pair no source holds (not in ``said``) each of whose characters belongs to a
    neighbouring pair the sources do hold, or is a function character. "割草机充满电要多久"
    is cut into pairs "割草 草机 机充 充满 满电 电要": "机充" is the seam of 割草机 and
    充满, "电要" that of 满电 and 要. Counted as words the sources never say, such seams
    make an answerable question look like one about something absent
    (:data:`ABSENT_VETO`) and veto the sentence that answers it ("回到充电站后约需70分钟
    充满"); a real absent word ("价格" in "白杨备份工具的价格是多少钱") has a character
    no held pair covers."""
    seams: set[str] = set()
    for pair in wanted:
        if len(pair) != 2 or pair in said or not has_cjk(pair):
            continue
        for found in re.finditer(re.escape(pair), question):
            start = found.start()
            left = question[max(start - 1, 0):start + 1]
            right = question[start + 1:start + 3]
            if ((pair[0] in FUNCTION_CHARS or (len(left) == 2 and left in said))
                    and (pair[1] in FUNCTION_CHARS or (len(right) == 2 and right in said))):
                seams.add(pair)
    return seams


def weigh(question: str, pool: Sequence[Sequence[str]], *, titles: Iterable[str] = (),
          documents: Sequence[Iterable[str]] = ()) -> Weights:
    """The IDF weight of each of ``question``'s terms over ``pool`` (terms per sentence).

    ``titles`` (of the pool's documents) name the things a question may name as its
    object (:attr:`Weights.mentioned`); ``documents`` (each one's terms, its title's
    included) say what the sources say of the subject (:attr:`Weights.unsaid`)."""
    wanted = _joined(question, question_terms(question), pool)
    documents = [set(terms) for terms in documents]
    # A CJK sentence that names no subject is about its document's title (see
    # ``candidates.candidate_sentences``): a word only a title says is said by the sources.
    titled: set[str] = set().union(*documents) if has_cjk(question) else set()
    if has_cjk(question):  # "机充" in "割草机充满电": two words' seam, no absent word
        # A word of degree or manner ("自己关" for "自动关机") names nothing the sources
        # must say: neither it nor a seam beside it is an absent word.
        # So is a quantity the question states in words ("一天", "两年", "半小时"):
        # the case asked, which the page writes in digits ("每24小时", "2年").
        quantities = {t for t in wanted if _QUANTITY_PAIR.fullmatch(t)}
        quantities |= wanted & case_words(question)  # "大年初五", "两个月" (cjk_ranges)
        wanted -= cjk_seams(question, wanted, titled.union(
            CJK_DEGREE_WORDS, quantities, *(set(terms) for terms in pool)))
        titled |= CJK_DEGREE_WORDS | quantities
    total = max(len(pool), 1)
    df = dict.fromkeys(wanted, 0)
    for terms in pool:
        for t in wanted & set(terms):
            df[t] += 1
    for unwritten in [t for t in wanted & (SPEAKER_WORDS | LIGHT_VERBS) if not df[t]]:
        wanted.discard(unwritten)  # "the poster" of a post that says "I", "take off"
        del df[unwritten]
    # A one-character word no candidate holds is no subject the sources miss (as an
    # absent word would be): most often it is a verb they write another way.
    lone = cjk_singles(question) if has_cjk(question) else []
    singles = tuple(c for c in lone if df.get(c))
    # So is the dimension asked by a question word ("多重": 重量), when no candidate
    # writes a number in its units or the noun.
    for char in [*lone, *(_dimension(question) if has_cjk(question) else ())]:
        if not df.get(char):
            wanted.discard(char)
            df.pop(char, None)
    idf = {t: math.log(1 + (total - n + 0.5) / (n + 0.5)) for t, n in df.items()}
    top = max(idf.values(), default=1.0)
    key = frozenset(term(w) for w in WORD.findall(key_phrase(question))) & wanted
    if has_cjk(question):  # "投出100寸的画面": the row of 100英寸, not the 40英寸 one
        key |= {t for t in wanted if t.replace(".", "").isdigit()}
    weight = {t: (idf[t] if df[t] else ABSENT_FACTOR * top) * (KEY_FACTOR if t in key else 1.0)
              for t in wanted}
    absent = frozenset(t for t in wanted if not df[t] and t not in titled)
    named = named_subject(question) & wanted
    kinds = frozenset(t for t in wanted if t in KIND_WORDS)
    said = [term(w.lower()) for w in WORD.findall(question)]
    pairs = frozenset(itertools.pairwise(said))
    paged = title_names(titles) & wanted
    mentioned = frozenset() if named else paged
    if not has_cjk(question):
        weights = Weights(weight, key, absent=absent, named=named, kinds=kinds, pairs=pairs,
                          mentioned=mentioned)
    else:
        chains = tuple(tuple(chain) for chain in cjk_chains(question, question=True))
        weights = Weights(weight, key, chains,
                          frozenset([*cjk_terms(question, question=True), *singles]), absent,
                          named, kinds, pairs, singles, mentioned)
    weights = replace(weights, titled=paged)
    unsaid = unsaid_feature(question, weights, documents)
    if not unsaid:
        return weights
    attributes = [found for found in _CJK_ATTRIBUTE.finditer(question) if weights.chains
                  and not question[:found.start()].endswith(QUESTION_WORDS)]  # "多大的地方"
    asked = frozenset(cjk_terms(attributes[0].group("attr"))) if attributes else frozenset()
    if not asked and weights.chains and yes_no(question):
        # "稻香 R5 支持蒸蛋糕吗": a whole word of a yes/no question no source holds
        # (every pair of its chain unsaid) is the feature asked, never mentioned; the
        # subject's description is close in meaning to it, and says nothing of it.
        asked = frozenset(pair for chain in weights.chains if set(chain) <= unsaid
                          for pair in chain)
    return replace(weights, unsaid=unsaid, attribute=asked)


#: The attribute a Chinese or Japanese question asks of its subject: the noun after
#: 的/の that 是/は/が/有 or the question's end follows ("白杨备份工具的*价格*是多少钱",
#: "云溪古镇的*镇长*是谁", "ハヤブサの*ライセンス*は何ですか", "...语言的*客户端*？"); not
#: after a question word ("要空出多大的*地方*": how big a space).
_CJK_ATTRIBUTE = re.compile(r"(?:的|の)(?P<attr>[^\s的のはが是，,、？?]{2,6}?)"
                            r"(?:是|は|が|有|[？?]|$)")


def _attribute_unsaid(weights: Weights) -> bool:
    """Whether every pair of the attribute a CJK question names
    (:data:`_CJK_ATTRIBUTE`) is one no source about its subject says
    (:attr:`Weights.unsaid`): a whole noun, not a paraphrased verb or adverb."""
    return bool(weights.attribute) and weights.attribute <= weights.unsaid


#: A number written in words and its unit of time or count ("一天", "两年", "半小"时):
#: a quantity, never a word the sources must write as the question does; so is a count
#: of one thing ("一本书": the page writes "每册").
_QUANTITY_PAIR = re.compile("[零〇一二两三四五六七八九十百千万半]"
                            "[天年月周日时分秒次个小本册张件台位份条只]")
#: A character that says a number ("换一次", "两年"): a chain holding one counts, it
#: does not name a thing the sources must say.
_NUMERAL = re.compile("[0-9０-９零〇一二两三四五六七八九十百千万亿半]")


def unsaid_feature(question: str, weights: Weights,
                   documents: Sequence[Iterable[str]]) -> frozenset[str]:
    """What ``question`` asks of the thing it names that no source naming that thing
    says: the honest reply is "not found", not a sentence about something near it.

    - A yes/no question with a named subject (:func:`yes_no`, :func:`named_subject`):
      "Does csv support reading a file in parallel?" asks for "parallel", and when no
      document naming csv (``documents``: each one's terms) holds it, the csv page's
      introduction, which holds "read" and "file", does not answer; "Does logging
      support structured JSON output?" asks for "structured" and "JSON", which the json
      page says and the logging passages do not. The subject's kind, the words that tie
      it to the feature (:data:`ROLE_WORDS`) and its verb (the word right after it)
      are no feature.
    - A Chinese or Japanese question (yes/no or not) a word of which no source holds
      at all - every pair of one of its chains (:func:`~deepcite.text.cjk_terms.cjk_chains`)
      absent while another of its words is there - or, when it names its subject
      (:func:`cjk_subject`), no document naming the subject holds: "白杨备份工具的**价格**
      是多少钱" over pages that never give its price (another product's page may),
      "云溪古镇的**镇长**是谁". A chain with a numeral ("换一次") counts rather than
      names, and words of degree or of the kind of answer (:data:`CJK_DEGREE_WORDS`)
      are left out.

    Empty when nothing names the subject (the subject rule judges that,
    :func:`subject_missed`) or everything asked is said.
    """
    # A chain holding a one-character word the sources write ("充" of "充满", written
    # "充到100%") is a verb they word another way, not a thing they never name.
    chains = [chain for chain in weights.chains if not any(
        _NUMERAL.search(pair) or pair in CJK_DEGREE_WORDS or pair[0] == "最"
        or set(pair) & set(weights.singles) for pair in chain)]
    found: frozenset[str] = frozenset()
    gone = [chain for chain in chains if all(pair in weights.absent for pair in chain)]
    if gone and weights.weight.keys() - weights.absent:
        found = frozenset(pair for chain in gone for pair in chain)
    named = weights.named & weights.weight.keys()
    asks_whether = yes_no(question)
    if not asks_whether and not weights.chains:
        return found | _unsaid_asked(question, weights, documents)
    said = _said_of(named, weights, documents) if named else None
    if said is None:
        return found
    feature = _asked_of(named, weights) if asks_whether else set()
    unsaid_chains = {pair for chain in chains if not named & set(chain)
                     and not said & set(chain) for pair in chain}
    return found | frozenset(feature - said) | frozenset(unsaid_chains)


def _unsaid_asked(question: str, weights: Weights,
                  documents: Sequence[Iterable[str]]) -> frozenset[str]:
    """What an English question that does not ask yes or no ("How do I ...", "What is
    the ...", "Which ...") asks of the thing it names - its subject, or the page its
    object names (:attr:`Weights.mentioned`: "pathlib" in "How do I tell pathlib to
    follow Windows shortcuts?") - in words no document naming that thing says:
    "syllable" in "How do I make textwrap hyphenate words by syllable?", "timeout" in
    "How do I add a timeout to heapq.heappush?" (the socket page may say it). A sentence
    about the rest of the question ("Allow breaking hyphenated words") does not answer
    it; a paraphrase close in meaning still does (:func:`relevant`).

    Only a thing the sources have a page of (:attr:`Weights.titled`: "textwrap —
    Text wrapping and filling"): of a person or an event named in passing ("When did
    the Broncos ...?"), passages say what they say in their own words, and a question
    word none of them holds is most often a paraphrase. As for a yes/no question's
    feature, but a how-to question names its action in the asker's words, which its
    answer may not use, so the action (:func:`~deepcite.citations.intent.action`) is
    left out too.
    """
    subject = (weights.named or weights.mentioned) & weights.titled
    said = _said_of(subject, weights, documents) if subject else None
    if said is None:
        return frozenset()
    acted = action(question)
    asked = _asked_of(subject, weights) - ({term(acted)} if acted else set())
    return frozenset(asked - said)


def _said_of(subject: frozenset[str], weights: Weights,
             documents: Sequence[Iterable[str]]) -> set[str] | None:
    """Every term the ``documents`` (each one's terms) that name ``subject`` hold;
    ``None`` when none names it (then nothing can be said to be unsaid of it)."""
    about = [doc for doc in map(set, documents) if _names(subject, weights.cjk, doc)]
    return set().union(*about) if about else None


def _asked_of(subject: frozenset[str], weights: Weights) -> set[str]:
    """The question's terms that ask something of ``subject``: all but the subject, its
    kind, the words that tie it to what is asked (:data:`ROLE_WORDS`), CJK terms and
    the subject's own verb (the word right after it: "that heapq *keeps*")."""
    verbs = {t for s, t in weights.pairs if s in subject}
    return set(weights.weight.keys() - subject - ROLE_WORDS - weights.kinds - weights.cjk
               - verbs)


def _names(named: frozenset[str], cjk: frozenset[str], terms: Iterable[str]) -> bool:
    """Whether ``terms`` name the subject ``named``: its Latin name, or most of the
    pairs of its CJK phrase (:data:`CHAIN_SHARE`; "古镇" alone is any old town)."""
    found = set(terms)
    latin = named - cjk
    if latin:
        return bool(latin & found)
    return len(named & found) >= max(1, math.ceil(CHAIN_SHARE * len(named)))


def aspect_missed(weights: Weights, terms: Iterable[str], subject: Iterable[str],
                  cosine: float | None) -> bool:
    """Whether a sentence with ``terms`` holds only the question's subject, not what it
    asks about it, and is not close enough in meaning to be a paraphrase of the rest.

    ``subject`` is what the sentence's document is about: the terms of its title, with
    the subject the question names (:func:`named_subject`) where the sentences say it;
    kind words ("module", :data:`KIND_WORDS`) belong to it. The question's other terms
    are its aspect - "license" in "What is the license of the
    textwrap module?", "maintain" in "Who maintains the bisect module?". A sentence of
    the textwrap page that names textwrap and "module" and nothing else ("When in
    doubt, consult the module reference") shares most of the question's weight, as the
    subject is its rarest word, and says nothing of what is asked; the page's
    introduction is the same. Such a sentence answers only when its meaning is as close
    as a paraphrase's (:data:`ABSENT_CLOSE`). A question all of whose terms are the
    subject ("What is textwrap?") or ask what it is for (:data:`ROLE_WORDS`: "What is
    textwrap used for?") has no aspect, and its introduction answers it; a
    sentence whose title names none of the question (a web page, a FAQ) is not judged
    here. Only with a ``cosine``: by words alone a paraphrase cannot be told apart.
    Chinese, Japanese and Korean terms are no aspect here: a question in those
    languages over pages in another names the subject's kind in its own words ("heapq
    모듈은 무엇인가요?", "module"), which no title holds; a CJK term no sentence holds is
    the absent-term veto's to judge (:data:`ABSENT_VETO`). A sentence holding part of
    the aspect misses it too when the question names its subject, asks of it a word no
    candidate holds, and the sentence holds less than :data:`ASPECT_SHARE` of the
    aspect's weight.
    """
    if cosine is None or cosine >= ABSENT_CLOSE:
        return False
    subject = weights.weight.keys() & (set(subject) | (weights.named - weights.absent))
    aspect = weights.weight.keys() - subject - ROLE_WORDS - weights.cjk - weights.kinds
    if not subject or not aspect:
        return False
    held = aspect & set(terms)
    # An aspect word no candidate sentence holds ("kurtosis") of a subject the question
    # names is what the sources never say of it; one right after the subject is its
    # verb ("that heapq *keeps*"), which the answer may say in other words.
    unsaid = {t for t in aspect & weights.absent
              if not any((s, t) in weights.pairs for s in subject)} if weights.named else set()
    if not held:
        return True
    if not unsaid:
        return False
    share = sum(weights.weight[t] for t in held) / sum(weights.weight[t] for t in aspect)
    return share < ASPECT_SHARE


def subject_missed(weights: Weights, terms: Iterable[str], document: Iterable[str],
                   cosine: float | None) -> bool:
    """Whether a sentence with ``terms``, in a document whose title and text hold
    ``document`` (terms), names nowhere there the question's grammatical subject
    (:func:`grammatical_subject`), and is not close enough in meaning to be a
    paraphrase (:data:`ABSENT_CLOSE`). The document counts: the base64 page's "Encode
    the bytes-like object s using Base64" answers "What does b64encode give back?"
    under a heading that names it.

    "Does logging support structured JSON output?" is about logging: the json module's
    "Return a JSON string representation of a Python data structure" shares "JSON",
    "structure" and "output"'s neighbours and answers a question about json. Only with
    a ``cosine``, as :func:`aspect_missed`.
    """
    names = weights.named or weights.mentioned
    if cosine is None or cosine >= ABSENT_CLOSE or not names:
        return False
    return not _names(names, weights.cjk, [*terms, *document])


def relevant(weights: Weights, terms: Sequence[str], cosine: float | None = None,
             subject: Iterable[str] = (), document: Iterable[str] = ()) -> bool:
    """Whether a sentence with ``terms`` answers a real share of the question.

    Lexically: :data:`MIN_COVERAGE` of the weight, with two question terms or more when
    the question has two or more, so one shared word is never enough. With a
    ``cosine`` (embeddings), a sentence close in meaning needs less of the wording,
    and one very close (:data:`DENSE_STRONG`) only one of the question's terms: SQuAD's
    questions, like users', paraphrase the sentence that answers them. One far in
    meaning (:data:`DENSE_VETO`) is not relevant unless it holds most of the question,
    and one that holds only the ``subject`` of the question (its document's title
    terms) and not what is asked about it is not relevant either (:func:`aspect_missed`).
    """
    coverage = weights.coverage(terms)
    matched = weights.matched(terms)
    if cosine is not None and cosine < DENSE_VETO and coverage < VETO_COVERAGE:
        return False
    if aspect_missed(weights, terms, subject, cosine) or subject_missed(
            weights, terms, [*subject, *document], cosine):
        return False
    if weights.unsaid and cosine is not None and (
            cosine < ABSENT_CLOSE or _attribute_unsaid(weights)):
        # What is asked of the subject, no source about it says. When it is the
        # attribute a CJK question names after 的/の ("白杨备份工具的*价格*是多少钱"),
        # meaning cannot vouch for a paraphrase: a sentence about the subject is close
        # to any question about it (calibrated e5: 0.73-1.0 over 白杨's description).
        return False
    if (cosine is not None and cosine < ABSENT_CLOSE
            and weights.absent_share() >= ABSENT_VETO and coverage < VETO_COVERAGE
            and matched < ABSENT_MATCHED):
        return False
    if coverage >= MIN_COVERAGE and weights.enough(terms):
        return True
    if cosine is None:
        return False
    return (cosine >= DENSE_MIN and coverage >= DENSE_COVERAGE) or (
        cosine >= DENSE_STRONG and matched >= 1)


__all__ = [
    "SPEAKER_WORDS",
    "Similarity",
    "Weights",
    "aspect_missed",
    "cjk_seams",
    "cjk_subject",
    "dense_similarity",
    "grammatical_subject",
    "key_phrase",
    "meaning_available",
    "named_subject",
    "question_terms",
    "relevant",
    "subject_missed",
    "terms_of",
    "title_names",
    "unsaid_feature",
    "weigh",
    "yes_no",
]
