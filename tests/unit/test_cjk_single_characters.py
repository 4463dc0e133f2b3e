"""A Chinese or Japanese question whose verb is one character ("租", "烤") finds the
sentence that writes it in a compound ("租期", "烘烤"); a Chinese, Japanese or Korean
question nothing answers, over sources in another language, is told so wholly in its
own language (issue 45)."""

from __future__ import annotations

import pytest

from deepcite.citations.answer import not_found_answer
from deepcite.citations.grounded import grounded_answer
from deepcite.collections.index.query import match_atoms
from deepcite.text.cjk import CJK_RUN
from deepcite.text.cjk_terms import cjk_singles
from deepcite.text.frames import CHINESE, ENGLISH, JAPANESE, KOREAN
from deepcite.types import Source


def _source(number: int, title: str, text: str) -> Source:
    url = f"file:///notes/{number}.md"
    return Source(number=number, title=title, url=url, canonical_url=url, snippet=text[:80],
                  engine="user_material", full_text=text)


BOATS = _source(1, "青蛙湖游船须知", "# 青蛙湖游船须知\n\n游船码头每天早上8点开放。"
                "电动船的租期为2小时，超时按每10分钟5元收费。每条船最多乘坐4人。\n")
OVEN = _source(2, "麦香 K2 烤箱说明", "# 麦香 K2 烤箱说明\n\n麦香 K2 是一台台式电烤箱。"
               "内胆容积为32升。连续烘烤最长可以设定120分钟。\n")


@pytest.mark.parametrize(("question", "singles"), [
    ("租的船可以租多长时间？", ["租", "船"]),
    ("烤箱一次最多能烤几分钟？", ["烤"]),  # "烤箱" holds another "烤"
    ("游船码头几点开放？", []),  # every character is in a pair: nothing alone
])
def test_a_character_no_pair_of_the_question_holds_is_a_term(
        question: str, singles: list[str]) -> None:
    assert cjk_singles(question) == singles


@pytest.mark.parametrize(("question", "gold"), [
    ("租的船可以租多长时间？", "2小时"),
    ("烤箱一次最多能烤几分钟？", "120分钟"),
])
def test_a_one_character_verb_finds_the_sentence_with_its_compound(
        question: str, gold: str) -> None:
    answer = grounded_answer(question, [BOATS, OVEN])
    assert answer is not None and gold in answer.text


def test_the_index_query_searches_the_one_character_word_as_a_prefix() -> None:
    """"租"* finds the indexed pair "租期", which no pair of the question is."""
    assert '"租"*' in match_atoms("租的船可以租多长时间？")
    assert not any(atom.endswith("*") for atom in match_atoms("游船码头几点开放？"))


ENGLISH_PAGE = _source(3, "lanternq — Message queue helpers",
                       "lanternq - Message queue helpers. The put function adds a message "
                       "to the queue. Messages are kept in memory until they are read.")


@pytest.mark.parametrize(("question", "frames"), [
    ("lanternq 可以把消息写进区块链吗？", CHINESE),
    ("lanternq はメッセージをブロックチェーンに書けますか？", JAPANESE),
    ("lanternq 로 메시지를 블록체인에 쓸 수 있나요?", KOREAN),
])
def test_not_found_over_sources_in_another_language_is_wholly_in_the_questions_language(
        question: str, frames: dict[str, str]) -> None:
    answer = not_found_answer(question, [ENGLISH_PAGE])
    assert answer == frames["not_answered_elsewhere"]
    letters = [c for c in answer if c.isalpha()]
    assert sum(len(run) for run in CJK_RUN.findall(answer)) * 2 > len(letters)
    assert "lanternq" not in answer and "[3]" not in answer  # no passage, no citation


def test_not_found_over_sources_in_the_questions_language_quotes_the_closest() -> None:
    english = not_found_answer("Can lanternq write messages to a blockchain?", [ENGLISH_PAGE])
    assert english.startswith(ENGLISH["not_answered"]) and "[3]" in english
    chinese = not_found_answer("青蛙湖的游船可以开到海上吗？", [BOATS])
    assert chinese.startswith(CHINESE["not_answered"]) and "[1]" in chinese
