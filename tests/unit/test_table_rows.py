"""A Markdown table's rows are facts of their own: a question about one is answered by it.

Specification pages put their figures in a table (weight, capacity, default). Before,
a row was read as a heading and never quoted, so "尘盒能装多少？" found nothing to say.
"""

from __future__ import annotations

from deepcite.citations.candidates import candidate_sentences, table_row
from deepcite.citations.grounded import grounded_answer
from deepcite.types import Source

SPECS = (
    "# 悠扫 S8 扫地机器人\n\n"
    "悠扫 S8 是一款带自动集尘座的扫地机器人。\n\n"
    "## 主要参数\n\n"
    "| 项目 | 参数 |\n"
    "|---|---|\n"
    "| 机身高度 | 9.5厘米 |\n"
    "| 尘盒容量 | 400毫升 |\n"
    "| 噪音 | 65分贝 |\n\n"
    "机器人可以越过2厘米高的门槛。\n"
)
CONFIG = (
    "# Settings\n\n"
    "| Option | Default | Meaning |\n"
    "| --- | --- | --- |\n"
    "| retry_limit | 5 | attempts before a job is dropped |\n"
    "| poll_interval | 30 seconds | how often the queue is checked |\n\n"
    "The queue is kept in memory.\n"
)


def _source(text: str) -> Source:
    return Source(number=1, title=text.splitlines()[0].lstrip("# "), url="file:///specs.md",
                  canonical_url="file:///specs.md", snippet=text[:80],
                  engine="user_material", full_text=text)


def test_a_chinese_spec_question_is_answered_by_its_table_row() -> None:
    answer = grounded_answer("尘盒能装多少？", [_source(SPECS)])
    assert answer is not None
    assert answer.text.startswith("**400毫升** [1]")
    assert "尘盒容量 | 400毫升 [1]" in answer.text


def test_an_english_table_row_answers_a_question_about_its_option() -> None:
    answer = grounded_answer("How often is the queue checked?", [_source(CONFIG)])
    assert answer is not None
    assert "poll_interval | 30 seconds | how often the queue is checked [1]" in answer.text


def test_rows_are_quoted_as_written_and_borders_and_prose_are_unchanged() -> None:
    texts = [s.text for s in candidate_sentences([_source(SPECS)])]
    assert "尘盒容量 | 400毫升" in texts and "机身高度 | 9.5厘米" in texts
    assert not any("---" in text for text in texts)
    assert "机器人可以越过2厘米高的门槛。" in texts
    # the border does not replace the heading the table is under
    after = next(s for s in candidate_sentences([_source(SPECS)]) if "门槛" in s.text)
    assert "参数" in after.heading


def test_what_is_a_table_row() -> None:
    assert table_row("| 尘盒容量 |   400毫升 |") == "尘盒容量 | 400毫升"
    assert table_row("|---|---|") is None
    assert table_row("| only one cell |") is None
    assert table_row("a | b | c") is None  # no bars at its edges: prose with bars
