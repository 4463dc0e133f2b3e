"""Honest "not found" when the sources do not say what is asked of the thing a question
names, and short values in Chinese that survive a synonym character or a second number
(issue 45).

- The thing a question is about may be its object ("How do I encrypt a *quillbox*
  archive?"): a sentence from another thing's page that never names it is no answer.
- A yes/no question about a feature ("Does quillbox support reading in *parallel*?")
  whose key word no passage about the thing says is answered "not found", not with the
  thing's introduction or with another thing's sentence that says the word.
- Chinese and Japanese questions name their subject too (a Latin module name, or the
  phrase before 的/の), and a word of the question no source says at all ("价格") is
  not answered with the subject's other facts.
- "交费" asked and "缴费" written is the same word; "多长时间" asks for a span of time,
  not for the capacity the same page gives.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from deepcite.citations.grounded import grounded_answer
from deepcite.citations.question_match import (
    cjk_subject,
    named_subject,
    title_names,
    yes_no,
)
from deepcite.text.cjk_terms import cjk_variants
from deepcite.types import Source
from tests.unit.test_cjk_answers import _source as cjk_source


def page(number: int, module: str, summary: str, text: str) -> Source:
    """A module's reference page, titled by the module as pydoc pages are."""
    url = f"file:///docs/module-{module}.txt"
    return Source(number=number, title=f"{module} — {summary} (module documentation)",
                  url=url, canonical_url=url, snippet=f"{module} - {summary}. {text}",
                  engine="memory")


PAGES = [
    page(1, "ribbonzip", "Read and write ribbon archives",
         "Set the default password for encrypted ribbon archives. "
         "Members are read in parallel when several workers are given. "
         "The writer can emit structured JSON output for every member."),
    page(2, "quillbox", "Read and write quill archives",
         "This module provides tools for reading and writing quill archives. "
         "Each archive member is stored with its name, its size and its modification time. "
         "The output of the list command is plain text."),
]


def close_in_meaning(question: str, texts: Sequence[str]) -> list[float]:
    """An encoder that finds every sentence fairly close to the question."""
    return [0.6] * len(texts)


def test_a_document_title_names_the_thing_it_is_the_page_of() -> None:
    titles = [p.title for p in PAGES] + ["Ribbons and bows", "A diary: notes"]
    assert title_names(titles) == {"ribbonzip", "quillbox"}


@pytest.mark.parametrize("question", [
    # the object names quillbox; only ribbonzip's page speaks of passwords
    "How do I encrypt a quillbox archive with a password?",
    # quillbox's page says "list" and "members", never "parallel"
    "Does quillbox support listing members in parallel?",
    # ribbonzip's page says "structured JSON output"; quillbox's says only "output"
    "Does quillbox support structured JSON output?",
])
def test_what_no_page_about_the_named_thing_says_is_not_found(question: str) -> None:
    assert grounded_answer(question, PAGES, similarity=close_in_meaning) is None


@pytest.mark.parametrize(("question", "expected"), [
    ("How do I encrypt a ribbonzip archive with a password?", "default password"),
    ("Does ribbonzip support reading archives in parallel?", "read in parallel"),
    ("Does ribbonzip support structured JSON output?", "structured JSON output"),
    ("Does quillbox store the modification time of a member?", "modification time"),
])
def test_the_same_pages_still_answer_what_they_say(question: str, expected: str) -> None:
    answer = grounded_answer(question, PAGES, similarity=close_in_meaning)
    assert answer is not None and expected in answer.text, question


@pytest.mark.parametrize(("question", "subject"), [
    ("quillbox 模块可以读取压缩包吗？", {"quillbox"}),
    ("如何用 ribbonzip 模块加密压缩包？", {"ribbonzip"}),
    ("白桦备份工具的价格是多少钱？", {"白桦", "桦备", "备份", "份工", "工具"}),
    ("ハヤテのライセンスは何ですか？", {"ハヤ", "ヤテ"}),
    ("长城有多长？", set()),
])
def test_a_cjk_question_names_its_subject(question: str, subject: set[str]) -> None:
    assert set(cjk_subject(question)) == subject
    assert set(named_subject(question)) == subject


@pytest.mark.parametrize(("question", "asks"), [
    ("Does quillbox support parallel reads?", True),
    ("How does quillbox store a member?", False),
    ("quillbox 模块可以读取压缩包吗？", True),
    ("quillbox 模块是否支持加密？", True),
    ("ハヤテは暗号化できますか？", True),
    ("ハヤテのライセンスは何ですか？", False),
])
def test_a_yes_no_question_is_told_from_a_wh_question(question: str, asks: bool) -> None:
    assert yes_no(question) is asks


CJK_PAGES = [
    page(1, "ribbonzip", "读写丝带压缩包",
         "ribbonzip 模块可以读取加密的压缩包。它使用密码解密每个成员。"),
    page(2, "quillbox", "读写羽毛压缩包",
         "quillbox 模块把每个成员的名字和大小写进目录。目录按名字排序。"),
]


def test_a_chinese_question_about_another_module_is_not_found() -> None:
    assert grounded_answer("quillbox 模块可以读取加密的压缩包吗？", CJK_PAGES,
                           similarity=close_in_meaning) is None
    answer = grounded_answer("ribbonzip 模块可以读取加密的压缩包吗？", CJK_PAGES,
                             similarity=close_in_meaning)
    assert answer is not None and "读取加密的压缩包" in answer.text


BACKUP = ("# 白桦备份工具\n\n白桦是一款面向个人电脑的开源备份工具。白桦默认每六小时做一次增量备份。"
          "白桦支持三种操作系统。\n")


def test_a_chinese_word_no_source_says_is_not_answered_with_other_facts() -> None:
    source = cjk_source(BACKUP, 1, title="白桦备份工具")
    assert grounded_answer("白桦备份工具的价格是多少钱？", [source],
                           similarity=close_in_meaning) is None
    answer = grounded_answer("白桦多久做一次增量备份？", [source], similarity=close_in_meaning)
    assert answer is not None and "六小时" in answer.text


LIBRARY = ("# 松林图书馆\n\n每位读者一次最多可以借阅6本书。"
           "逾期归还的图书每本每天缴费0.5元。阅览室共有120个座位。\n")


def test_a_synonym_character_still_matches_the_word() -> None:
    assert cjk_variants("逾期每天要交费多少？", "逾期归还的图书每本每天缴费0.5元。") == ["交费"]
    assert cjk_variants("逾期每天要交费多少？", "每天交费0.5元。") == []  # said as asked
    # "镇" is written everywhere on the page: "全长" is no way of writing "镇长"
    assert cjk_variants("古镇的镇长是谁？", "古镇的主街全长约1.2公里。") == []
    answer = grounded_answer("逾期图书要交费多少？", [cjk_source(LIBRARY, 1, title="松林图书馆")],
                             similarity=close_in_meaning)
    assert answer is not None and "0.5元" in answer.text


OVEN = ("# 麦穗 T3 烤箱\n\n麦穗 T3 是一台家用电烤箱，容量为25升。"
        "定时器最长可以设定90分钟。上下管可以分别控温。\n")


@pytest.mark.parametrize("question", ["麦穗 T3 能烤多长时间？", "麦穗 T3 能烤多久？"])
def test_how_long_is_answered_with_a_span_of_time(question: str) -> None:
    answer = grounded_answer(question, [cjk_source(OVEN, 1, title="麦穗 T3 烤箱")],
                             similarity=close_in_meaning)
    assert answer is not None and answer.text.startswith("**90分钟**"), answer


SCOOTER = ("# 疾风 K9 滑板车\n\n疾风 K9 的电池容量为10400毫安时，充满电大约需要5小时。"
           "整车重量为14公斤，最大载重为100公斤。\n")


def test_a_measured_dimension_is_answered_in_its_units_or_not_at_all() -> None:
    source = cjk_source(SCOOTER, 1, title="疾风 K9 滑板车")
    answer = grounded_answer("疾风 K9 有多重？", [source], similarity=close_in_meaning)
    assert answer is not None and "10400毫安时**" not in answer.text
    assert "14公斤" in answer.text


def very_close(question: str, texts: Sequence[str]) -> list[float]:
    """An encoder that finds every sentence about the subject very close (as calibrated
    e5 finds a CJK description close to any question about its subject)."""
    return [0.9] * len(texts)


def test_an_attribute_no_page_about_the_subject_names_is_not_found_however_close() -> None:
    source = cjk_source(BACKUP, 1, title="白桦备份工具")
    assert grounded_answer("白桦备份工具的价格是多少钱？", [source], similarity=very_close) is None
    # a word of the question the page writes another way is no attribute: still answered
    answer = grounded_answer("白桦通常多久做一次增量备份？", [source], similarity=very_close)
    assert answer is not None and "六小时" in answer.text
