"""A Chinese question's character pairs that straddle two of its words ("机充" in
"割草机充满电要多久") are no words the sources fail to say, and a word only a
document's title says ("草机" of "割草机器人") is said by the sources: neither makes an
answerable question look like one about something absent (issue 45)."""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.citations.grounded import grounded_answer
from deepcite.citations.question_match import cjk_seams, weigh
from deepcite.types import Source


def _source(number: int, title: str, text: str) -> Source:
    url = f"file:///notes/{number}.md"
    return Source(number=number, title=title, url=url, canonical_url=url, snippet=text[:80],
                  engine="user_material", full_text=text)


MOWER = _source(1, "绿茵 M5 智能割草机器人", "# 绿茵 M5 智能割草机器人\n\n## 电池与充电\n\n"
                "电池容量为5000毫安时，一次充电可以连续工作90分钟。\n回到充电站后约需70分钟充满。\n\n"
                "## 安全\n\n雨天自动暂停作业，雨停后等待3小时再继续割草。\n")
READER = _source(2, "墨页 K7 电子书阅读器", "# 墨页 K7 电子书阅读器\n\n## 电池\n\n"
                 "使用5伏2安的充电器，充满电大约需要2小时。\n")


def _close(question: str, texts: Sequence[str]) -> list[float]:
    """Every sentence equally close in meaning, below what vouches for a paraphrase."""
    return [0.6] * len(texts)


def test_a_pair_between_two_held_words_is_a_seam() -> None:
    said = {"割草", "草机", "充满", "满电"}
    assert cjk_seams("割草机充满电要多久？", ["割草", "草机", "机充", "充满", "满电", "电要"],
                     said) == {"机充", "电要"}


def test_a_word_no_source_says_is_no_seam() -> None:
    """"价格": neither of its characters is part of a word the sources hold."""
    said = {"白杨", "备份", "工具"}
    assert cjk_seams("白杨备份工具的价格是多少钱？", ["白杨", "备份", "工具", "价格"],
                     said) == set()


def test_seams_and_title_words_are_not_absent() -> None:
    pool = [["回到", "充电", "电站", "约需", "分钟", "充满"], ["充电", "充满", "满电", "大约"],
            ["雨天", "割草"]]
    weights = weigh("割草机充满电要多久？", pool,
                    documents=[["绿茵", "智能", "割草", "草机", "机器"], ["墨页", "阅读"]])
    assert "机充" not in weights.weight
    assert weights.absent == frozenset()


def test_the_sentence_that_answers_is_not_vetoed_as_about_something_absent() -> None:
    answer = grounded_answer("割草机充满电要多久？", [MOWER, READER], similarity=_close)
    assert answer is not None and "70分钟" in answer.text
