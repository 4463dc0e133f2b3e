"""The terms of Chinese, Japanese and Korean text: character pairs that carry meaning.

A CJK run has no spaces, so relevance compares it by its overlapping character pairs
(:func:`deepcite.text.cjk.run_pairs`). Not every pair means something: ``的条`` in
``缓存的条目`` straddles a particle, ``されます`` is inflection, and a question that
counts such pairs as its terms misses the sentence that answers it (a pair no source
holds weighs as the question's subject would). So:

- a run is cut at **particles** (:data:`PARTICLES`: ``的 了 吗 の``; in Japanese every
  change between hiragana and kanji or katakana, since hiragana there is mostly
  particles and endings), and a pair never crosses a cut;
- a pair made only of **function characters** (:data:`FUNCTION_CHARS`, hiragana
  included) does not count: ``可以``, ``されま``;
- in a question, the **question words** (:data:`QUESTION_WORDS`: ``多久 多少 几 谁
  哪里 いつ どこ 何人``) are cut out first: they say what kind of answer is wanted, not
  what it is about (as "how many" in English, see
  :data:`deepcite.citations.question_names.QUESTION_FILLER`).

Korean writes spaces between words but attaches its particles and verb endings to
them (``캐시는``, ``캐시의``, ``서버에서``, ``유지됩니다``): each Hangul word loses its
ending first (:func:`korean_stem`, ``캐시는`` -> ``캐시``), a word that is only a
function word (:data:`KOREAN_FUNCTION_WORDS`: ``수 있 것``) or a question word
(:data:`KOREAN_QUESTION_WORDS`: ``무엇 언제 얼마나 몇``) counts for nothing, and the
stem is compared by its pairs as a Chinese run is.

Deterministic and dictionary-free: the data here is a few dozen characters, and adding
a language is adding its particles and question words.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from deepcite.text.cjk import CJK_RUN

#: Characters that end a word in Chinese and Japanese: a pair across one is no word.
PARTICLES = frozenset("的了吗呢吧啊呀着么嘛是")
#: One-character function words: a pair of two of them (or of hiragana) says nothing.
FUNCTION_CHARS = PARTICLES | frozenset(
    "是在和与或也都就而及把被对从向为于以之其这那个些可能会要将每有没不还又"
    "并且则所如若但因此该此已经被让给"  # Chinese
    "이가은는을를의에도와과로"  # Korean particles
)
_HIRAGANA = re.compile("[\u3040-\u309f]")
_KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
#: Question words of Chinese and Japanese, longest first (one regex alternation).
QUESTION_WORDS = (
    "多长时间", "多少时间", "什么时候", "什么地方", "哪一年", "为什么", "怎么样",
    "多少公斤", "几公斤", "多少斤", "几斤",  # "几斤重": how heavy, not a word 斤重
    "几点钟", "几点", "几号",  # "几点关门": a time, not a word 点 that "21:00" never writes
    "多久", "多长", "多少", "多大", "多高", "多远", "多重", "多深", "多宽", "多快", "多厚",
    "多老", "多频繁", "何时", "哪年", "哪天", "哪些",
    "哪个", "哪里", "哪儿", "在哪", "什么", "怎么", "怎样", "如何", "是否", "谁", "几", "哪",
    "どのくらい", "どれくらい", "どのぐらい", "どれぐらい", "どうやって", "いつ", "いくつ",
    "いくら", "何人", "何回", "何個", "何年", "何日", "何時", "何分", "何秒", "何件", "何",
    "どこ", "だれ", "誰", "どれ", "どの", "なぜ", "どう", "ですか", "ますか",
)
#: Any of :data:`QUESTION_WORDS`, to cut out of a question before its words are read.
QUESTION_WORD = re.compile("|".join(map(re.escape, QUESTION_WORDS)))

_HANGUL_WORD = re.compile("[\uac00-\ud7af]+")
#: Korean particles and verb endings a word may end with, stripped longest first. A
#: particle that has one form after a vowel and another after a consonant (는/은,
#: 를/을, 가/이, 로/으로, 와/과) is stripped only after the kind of syllable it follows,
#: so ``평가`` (evaluation) keeps its ``가`` while ``서버가`` loses it.
KOREAN_ENDINGS = (
    # verb endings of the polite and plain styles (하다/되다/이다 and their tenses)
    "되었습니까", "되었습니다", "되었나요", "되었는지", "하였습니다", "했습니까", "했습니다",
    "했나요", "합니까", "합니다", "하나요", "하는지", "되나요", "됩니까", "됩니다", "되는지",
    "입니까", "입니다", "인가요", "인지", "이었다", "였습니다", "습니까", "습니다", "었나요",
    "았나요", "나요", "니까", "니다", "해야", "하려면", "되려면", "하면", "되면", "하고",
    "하는", "되는", "되어", "하여", "해서", "돼서", "이다", "했다", "된다", "한다",
    # particles, with the particles they combine with
    "에서는", "에서도", "에서의", "에게서", "으로는", "으로도", "으로서", "으로써", "까지는",
    "부터는", "에서", "에게", "에는", "에도", "에의", "으로", "로는", "로도", "로서", "로써",
    "까지", "부터", "보다", "처럼", "마다", "이나", "한테", "께서", "만큼", "이라", "라는",
    "이라는", "은", "는", "이", "가", "을", "를", "의", "에", "도", "와", "과", "로", "만",
)
_AFTER_VOWEL = frozenset(("는", "를", "가", "와", "로", "로는", "로도", "로서", "로써", "라는"))
_AFTER_CONSONANT = frozenset(("은", "을", "이", "과", "으로", "으로는", "으로도", "으로서",
                              "으로써", "이라", "이라는", "이나"))
#: Korean words that say nothing about what a question asks (may, have, thing, and so on).
KOREAN_FUNCTION_WORDS = frozenset((
    "수", "있", "없", "것", "등", "및", "또는", "그리고", "그", "이", "저", "더", "잘", "안",
    "못", "때", "중", "하", "되", "한", "할", "된", "될", "있는", "없는", "있습니", "없습니",
    "있나", "있을", "없을", "어", "좀", "다시", "가장", "모든", "각", "그것", "이것",
))
#: Korean question words: a word that starts with one is dropped from a question.
KOREAN_QUESTION_WORDS = (
    "무엇", "무슨", "뭐", "뭘", "언제", "얼마", "몇", "며칠", "어디", "누구", "누가", "왜",
    "어떻게", "어떤", "어느", "어때", "어떠",
)

#: Adverbs that ask with "얼마나" ("얼마나 오래", how long): part of the question word.
KOREAN_HOW_ADVERBS = frozenset(("오래", "자주", "많이", "멀리", "빨리", "크게", "높이", "길게"))


def _batchim(syllable: str) -> bool:
    """Whether a Hangul syllable ends in a consonant (has a final, 받침)."""
    return (ord(syllable) - 0xAC00) % 28 != 0


def korean_stem(word: str) -> str:
    """``word`` (Hangul) without its particle or verb ending: ``캐시는`` -> ``캐시``,
    ``서버에서`` -> ``서버``, ``유지됩니다`` -> ``유지``. At least one syllable stays;
    a word that is only an ending is returned empty."""
    for ending in KOREAN_ENDINGS:
        if not word.endswith(ending):
            continue
        stem = word[: -len(ending)]
        if not stem:
            return "" if len(word) > 1 or word in "에의도" else word
        if ending in _AFTER_VOWEL and _batchim(stem[-1]):
            continue
        if ending in _AFTER_CONSONANT and not _batchim(stem[-1]):
            continue
        return stem
    return word


def _korean_units(word: str, question: bool) -> list[str]:
    """The pairs (or the lone syllable) of a Hangul word's stem; none for a function
    word, or a question word in a question."""
    if question and word.startswith(KOREAN_QUESTION_WORDS):
        return []
    stem = korean_stem(word)
    if not stem or stem in KOREAN_FUNCTION_WORDS or word in KOREAN_FUNCTION_WORDS:
        return []
    return [stem] if len(stem) == 1 else [stem[i:i + 2] for i in range(len(stem) - 1)]


def _segments(run: str) -> list[str]:
    """``run`` cut at particles and at changes between hiragana and other characters."""
    pieces: list[str] = []
    current = ""
    for char in run:
        if char in PARTICLES:
            pieces.append(current)
            current = ""
            continue
        if current and bool(_HIRAGANA.match(char)) != bool(_HIRAGANA.match(current[-1])):
            pieces.append(current)
            current = ""
        current += char
    pieces.append(current)
    return [piece for piece in pieces if piece]


def _function(unit: str) -> bool:
    return all(ch in FUNCTION_CHARS or _HIRAGANA.match(ch) for ch in unit)


def cjk_terms(text: str, *, question: bool = False) -> list[str]:
    """The meaningful character pairs of the CJK runs of ``text``, in order.

    ``question``: cut the question words out first (see the module docs). A run of one
    character is its own term unless it is a function character; a lone character
    left between two cuts is not (it is an ending or a classifier far more often than
    a word).
    """
    return _pairs(text, question, strict=False)


def cjk_chains(text: str, *, question: bool = False) -> list[list[str]]:
    """The content pairs of ``text`` in chains: the pairs of one stretch with no
    particle or function character in it (``斑马缓存的条目在内存中`` -> ``[斑马 马缓
    缓存] [条目] [内存]``).

    One word is a chain of pairs, so pairs alone cannot say how many things a question
    names ("ハヤブサ" is three pairs and one name); chains can (see
    :func:`deepcite.citations.question_match.Weights.enough`).
    """
    chains: list[list[str]] = []
    for pair in _pairs(text, question, strict=True):
        if pair:
            if not chains or not chains[-1]:
                chains.append([])
            chains[-1].append(pair)
        elif chains and chains[-1]:
            chains.append([])
    return [chain for chain in chains if chain]


#: Complements of result that close a Chinese verb ("充满", "关掉", "用完", "装好"):
#: the documents write the same verb with another ending or none ("充到100%", "关机后",
#: "安装完成后"),
#: so the verb character is a word of its own (:func:`cjk_singles`).
RESULT_CHARS = frozenset("满完掉好")
#: Adverbs of degree, which "好" follows as no complement ("最好", "很好"): no verb.
_DEGREE_CHARS = frozenset("最很更太挺还不真")
#: Numerals, which a verb meets before its object's count ("装一个充电桩", "洗两次"):
#: a pair with one is a number, not a word holding the verb.
NUMERAL_CHARS = frozenset("零〇一二两三四五六七八九十百千万亿几半")


def cjk_singles(question: str) -> list[str]:
    """The content characters of ``question``'s Chinese and Japanese runs that no
    content pair holds: a one-character word between function characters, as the verbs
    of "借的书可以**借**多长时间" and "充一次电能**扫**多久". Documents write such a
    verb in a compound ("借期", "清扫"), which shares no pair with the question, so the
    character itself is the term (:func:`deepcite.citations.question_match.question_terms`).
    Each occurrence counts: the "烤" of "一次能烤" stands alone though "烤箱" holds
    another, and so does a verb before a count ("**装**一个充电桩": a pair with a
    numeral, :data:`NUMERAL_CHARS`, is no word; a numeral is never such a word
    itself). A verb closed by a complement of result (:data:`RESULT_CHARS`: "充满",
    "关掉") is such a word too: "从0%充到100%" and "关机后" write it without one.
    Question words are cut out first; kana and Hangul are left to their own rules."""
    text = QUESTION_WORD.sub(" ", _HANGUL_WORD.sub(" ", question))
    found: list[str] = []
    for match in CJK_RUN.finditer(text):
        for segment in _segments(match.group(0)):
            for i, char in enumerate(segment):
                if (_function(char) or _KANA.match(char) or char in found
                        or char in NUMERAL_CHARS):
                    continue
                paired = any(_content_pair(segment[j:j + 2])
                             and not NUMERAL_CHARS.intersection(segment[j:j + 2])
                             for j in (i - 1, i) if j >= 0 and j + 2 <= len(segment))
                if not paired:  # this occurrence stands alone ("能烤" after "烤箱")
                    found.append(char)
                elif (segment[i + 1:i + 2] and segment[i + 1] in RESULT_CHARS
                      and char not in _DEGREE_CHARS):
                    found.append(char)  # "充满": the verb 充, as "充到" or "充电" write it
    return found


#: "一整年的卡": a word (年卡) a question writes in two with a particle between.
_ACROSS_PARTICLE = re.compile(r"(?=([\u4e00-\u9fff])[的之]([\u4e00-\u9fff]))")


def cjk_across(question: str) -> list[str]:
    """The pairs ``question`` writes apart with 的 or 之 between ("一整**年的卡**" ->
    ``年卡``), of two content characters, not numerals: a page names in one compound
    what a person says in a phrase, and a search must look for the compound too
    (:mod:`deepcite.collections.index.query`; ranking matches such words against the
    sources' own, :mod:`deepcite.citations.cjk_spread`)."""
    text = QUESTION_WORD.sub(" ", question)
    found: list[str] = []
    for match in _ACROSS_PARTICLE.finditer(text):
        pair = match.group(1) + match.group(2)
        if (_content_pair(pair) and not NUMERAL_CHARS.intersection(pair)
                and pair not in found):
            found.append(pair)
    return found


def cjk_variants(question: str, text: str, *, unsaid: Collection[str] | None = None,
                 written: Collection[str] | None = None) -> list[str]:
    """The question's two-character words that ``text`` writes with another first
    character: "交费" asked, "缴费" written.

    Chinese often has two characters for one meaning in a compound (交/缴, 账/帐), and
    the pair then shares nothing with the question although the sentence says what is
    asked. Only a word that is a chain of its own (one pair between cuts,
    :func:`cjk_chains`) counts, and the second character (the compound's head) must be
    the same. Given ``unsaid``, the question's word must be one of those (the pairs no
    candidate holds: a word the sources write as asked needs no variant); given
    ``written`` (every pair of the candidates), the sources must write that head in one
    other word only and never write the question's first character at all: "全长" on
    a page that says "古镇" everywhere is no variant of "镇长", the one "缴费" of a page
    that never writes "交" is one of "交费"."""
    found: list[str] = []
    for chain in cjk_chains(question, question=True):
        if len(chain) != 1 or len(chain[0]) != 2 or chain[0] in text:
            continue
        word = chain[0]
        if unsaid is not None and word not in unsaid:
            continue
        pool = written if written is not None else cjk_terms(text)
        if any(word[0] in pair for pair in pool):
            continue  # the sources write its first character: they would write the word
        others = {pair for pair in pool
                  if len(pair) == 2 and pair[1] == word[1] and pair[0] != word[0]
                  and _content_pair(pair) and not _KANA.match(pair[0])}
        if len(others) == 1 and next(iter(others)) in text:
            found.append(word)
    return found


def _content_pair(pair: str) -> bool:
    """Whether ``pair`` holds no function character and no hiragana (a chain's pair)."""
    return not any(ch in FUNCTION_CHARS or _HIRAGANA.match(ch) for ch in pair)


def _pairs(text: str, question: bool, *, strict: bool) -> list[str]:
    """The pairs of :func:`cjk_terms`; ``strict``: any pair with a function character
    is an empty string, a cut between chains."""
    found: list[str] = []
    if _HANGUL_WORD.search(text):  # Korean words first: their endings, not particles
        previous = ""
        for match in _HANGUL_WORD.finditer(text):
            word = match.group(0)
            if not (question and previous == "얼마나" and word in KOREAN_HOW_ADVERBS):
                found += _korean_units(word, question)
            found.append("")
            previous = word
        text = _HANGUL_WORD.sub(" ", text)
    if question:
        text = QUESTION_WORD.sub(" ", text)
    for match in CJK_RUN.finditer(text):
        run = match.group(0)
        if len(run) == 1:
            found += [run] if not _function(run) else []
            found.append("")
            continue
        for segment in _segments(run):
            for i in range(len(segment) - 1):
                pair = segment[i:i + 2]
                if strict and any(ch in FUNCTION_CHARS or _HIRAGANA.match(ch) for ch in pair):
                    found.append("")
                elif not _function(pair):
                    found.append(pair)
            found.append("")
    return found if strict else [pair for pair in found if pair]


__all__ = [
    "FUNCTION_CHARS",
    "KOREAN_ENDINGS",
    "KOREAN_FUNCTION_WORDS",
    "KOREAN_QUESTION_WORDS",
    "NUMERAL_CHARS",
    "PARTICLES",
    "QUESTION_WORD",
    "QUESTION_WORDS",
    "RESULT_CHARS",
    "cjk_across",
    "cjk_chains",
    "cjk_singles",
    "cjk_terms",
    "cjk_variants",
    "korean_stem",
]
