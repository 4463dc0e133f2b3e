"""A Chinese, Japanese or Korean question the sources do not answer is told so in its own
language, with the closest passages quoted and cited; one they answer is answered.

Both go through :func:`~deepcite.citations.supported_first.supported_first`, which builds
the answer a run shows when nothing the model wrote is supported: the grounded answer
(the sources' own sentences, each cited) or the "not found" frame with the passages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from deepcite.citations.supported_first import supported_first
from deepcite.citations.text import best_excerpt
from deepcite.citations.verify import verify
from deepcite.text.frames import CHINESE, ENGLISH, JAPANESE, KOREAN, frame_for
from deepcite.types import Source


def _source(number: int, title: str, text: str) -> Source:
    url = f"file:///notes/{number}.md"
    return Source(number=number, title=title, url=url, canonical_url=url, snippet=text[:80],
                  engine="user_material", full_text=text)


@dataclass(frozen=True)
class Language:
    name: str
    frames: dict[str, str]
    sources: tuple[Source, ...]
    headings: tuple[str, ...]  # never run into a quote: a heading is no passage
    unanswered: str
    answered: str
    short: str  # the short answer that leads
    sentence: str  # the sentence quoted, cited [1]


LANGUAGES = [
    Language(
        "zh", CHINESE,
        (_source(1, "灯塔", "# 灯塔数据库\n\n灯塔数据库是一个开源的时间序列数据库。"
                 "灯塔的写入缓冲区默认保留45秒，然后写入磁盘。每个集群最多可以包含12个节点。\n"),
         _source(2, "菜谱", "# 红烧肉\n\n红烧肉是一道常见的家常菜。先把五花肉切块。"
                 "炖煮大约需要九十分钟。\n")),
        ("灯塔数据库", "红烧肉"),
        "火星的首都叫什么名字？", "灯塔的写入缓冲区默认保留多久？",
        "45秒", "灯塔的写入缓冲区默认保留45秒，然后写入磁盘 [1]。"),
    Language(
        "ja", JAPANESE,
        (_source(1, "アオサギ", "# アオサギ認証サーバー\n\n"
                 "アオサギはオープンソースの認証サーバーです。アクセストークンの有効期間は十五分です。"
                 "一つのアカウントに登録できるデバイスは最大で八台です。\n"),
         _source(2, "天気", "# 今日の天気\n\n東京は午後から雨が降る予報です。"
                 "最高気温は十八度の見込みです。\n")),
        ("アオサギ認証サーバー", "今日の天気"),
        "火星の首都はどこですか？", "アクセストークンの有効期間はどのくらいですか？",
        "十五分", "アクセストークンの有効期間は十五分です [1]。"),
    Language(
        "ko", KOREAN,
        (_source(1, "수달", "# 수달 캐시\n\n수달 캐시는 자주 읽는 데이터를 메모리에 보관하는 작은 "
                 "서비스입니다. 캐시의 항목은 기본적으로 450초 동안 유지됩니다. "
                 "한 노드는 최대 64개의 연결을 받을 수 있습니다.\n"),
         _source(2, "요리", "# 김치찌개\n\n김치찌개는 김치로 끓입니다. 보통 삼십 분 끓입니다.\n")),
        ("수달 캐시", "김치찌개"),
        "화성의 수도는 어디입니까?", "수달 캐시의 항목은 얼마나 오래 유지됩니까?",
        "450초", "캐시의 항목은 기본적으로 450초 동안 유지됩니다 [1]."),
]
BY_NAME = [pytest.param(language, id=language.name) for language in LANGUAGES]


@pytest.mark.parametrize("language", BY_NAME)
def test_an_unanswered_question_is_told_so_in_its_language_with_the_closest_passages(
        language: Language) -> None:
    sources = list(language.sources)
    answer = supported_first("", language.unanswered, sources, keep_model_text=False)
    intro, _, passages = answer.partition("\n\n")
    assert intro == language.frames["not_answered"]
    assert frame_for("not_answered", language.unanswered) == intro
    assert ENGLISH["not_answered"] not in answer
    # one quoted passage per source, each cited by its own number and named by its title
    lines = passages.splitlines()
    assert [re.findall(r"\[(\d+)\]", line) for line in lines] == [["1"], ["2"]]
    assert [line.endswith(f"({source.title})") for line, source in zip(
        lines, sources, strict=True)] == [True, True]
    # each passage is the source's own text (verification finds it), never its heading
    assert verify(answer, sources).unsupported == 0
    assert "#" not in passages
    assert not any(f"\u201c{heading} " in passages for heading in language.headings)
    assert "**" not in answer  # no short answer is made up from a passage


@pytest.mark.parametrize("language", BY_NAME)
def test_an_answered_question_quotes_its_sentence_cited(language: Language) -> None:
    sources = list(language.sources)
    answer = supported_first("", language.answered, sources, keep_model_text=False)
    assert answer.startswith(f"**{language.short}** [1]")
    assert language.sentence in answer
    assert language.frames["not_answered"] not in answer
    assert verify(answer, sources).unsupported == 0
    # nothing of the other source is passed off as part of the answer
    assert "[2]" not in answer


@pytest.mark.parametrize("language", BY_NAME)
@pytest.mark.parametrize("keep", [False, True])
def test_the_note_on_the_models_own_text_is_in_the_questions_language(
        language: Language, keep: bool) -> None:
    """The model's unsupported reply is left out or kept below a note: that note is
    deepcite's frame, in the question's language, and its text never leads."""
    sources = list(language.sources)
    invented = "火星の首都は北京です。"  # the model's unsupported text
    answer = supported_first(invented, language.answered, sources, keep_model_text=keep)
    key = "model_text_below" if keep else "model_text_dropped"
    assert language.frames[key] in answer and ENGLISH[key] not in answer
    assert answer.startswith(f"**{language.short}** [1]")
    assert (invented in answer) is keep
    assert answer.index(language.frames[key]) > answer.index(language.sentence)


@pytest.mark.parametrize(("text", "question", "expected"), [
    ("东京是一个人口众多而且非常热闹的城市，有很多餐馆。灯塔数据库是一个开源的时间序列数据库。",
     "灯塔数据库支持哪些查询语言？", "灯塔数据库是一个开源的时间序列数据库。"),
    ("東京は午後から雨が降る予報で、傘が必要になりそうです。アオサギは認証サーバーです。",
     "アオサギのライセンスは何ですか？", "アオサギは認証サーバーです。"),
])
def test_the_closest_passage_is_the_sentence_on_the_questions_subject(
        text: str, question: str, expected: str) -> None:
    """A CJK question is matched by its character pairs (it has no words to split),
    and a short CJK sentence is a sentence, not debris."""
    assert best_excerpt(text, question).startswith(expected)
