"""Rows of one table judged together (issue 45): a row that falls just under the meaning
filter while its table's other rows pass is relevant too, and a superlative question
("开到最大", "最低档") is asked of the row at that end of the table."""

from __future__ import annotations

from deepcite.citations.candidates import Sentence, candidate_sentences
from deepcite.citations.grounded import grounded_answer
from deepcite.citations.sentence_choice import select
from deepcite.citations.table_rows import admit_siblings, extreme_rows, same_table
from deepcite.types import Source

_PAGE = """# 电暖器档位说明

本页介绍电暖器各档位的功率和温度。

| 档位 | 标识 | 功率 | 出风温度 |
|---|---|---|---|
| 节能档 | 叶子 | 300 W | 35 ℃ |
| 低档 | I | 800 W | 45 ℃ |
| 中档 | II | 1200 W | 55 ℃ |
| 强劲档 | MAX | 2000 W | 68 ℃ |

电暖器不要覆盖衣物使用。
"""


def _source(text: str = _PAGE) -> Source:
    return Source(number=1, title="电暖器档位说明", url="file:///heater.md",
                  canonical_url="file:///heater.md", snippet=text[:80],
                  engine="user_material", full_text=text)


def _rows() -> list[Sentence]:
    return [s for s in candidate_sentences([_source()]) if s.columns]


def test_the_rows_of_a_table_are_read_as_such() -> None:
    rows = _rows()
    assert len(rows) == 4 and rows[0].columns[0] == "档位"


def test_a_superlative_picks_the_end_row_of_the_scale_it_names() -> None:
    rows = _rows()
    top = extreme_rows("开到最大的时候出风温度是多少？", rows)
    assert top == {id(rows[3])}
    bottom = extreme_rows("功率最低的时候出风多少度？", rows)
    assert bottom == {id(rows[0])}
    # no column named: every numeric column agrees on the end
    assert extreme_rows("最高档耗电多少？", rows) == {id(rows[3])}


def test_no_superlative_or_a_named_row_picks_no_end() -> None:
    rows = _rows()
    assert extreme_rows("中档的出风温度是多少？", rows) == set()
    assert extreme_rows("节能档最高温度是多少？", rows) == set()  # the row is named
    assert extreme_rows("最多能开几个小时？", rows) == set()  # a limit, not a row
    assert extreme_rows("最高温和最低温差多少？", rows) == set()


def test_columns_that_disagree_pick_no_end() -> None:
    page = _PAGE.replace("68 ℃", "30 ℃")
    rows = [s for s in candidate_sentences([_source(page)]) if s.columns]
    assert extreme_rows("开到最大是什么样？", rows) == set()


def test_a_rejected_row_as_covered_as_a_passed_one_is_admitted() -> None:
    rows = _rows()
    passed = {id(rows[0]): True, id(rows[1]): True, id(rows[2]): True, id(rows[3]): False}
    admit_siblings(rows, passed, lambda s: 0.2)
    assert passed[id(rows[3])]
    # one covering less of the question stays out
    passed = {id(rows[0]): True, id(rows[3]): False}
    admit_siblings(rows, passed, lambda s: 0.1 if s is rows[3] else 0.2)
    assert not passed[id(rows[3])]


def test_prose_is_not_admitted_by_a_table_row() -> None:
    sentences = candidate_sentences([_source()])
    prose = [s for s in sentences if not s.columns]
    passed = {id(_rows()[0]): True, **{id(s): False for s in prose}}
    admit_siblings([*_rows(), *prose], passed, lambda s: 0.5)
    assert not any(passed[id(s)] for s in prose)


def test_the_grounded_answer_of_a_superlative_is_the_end_row() -> None:
    for question, value in (("电暖器开到最大的时候出风温度多少度？", "68 ℃"),
                            ("电暖器开到最小的时候出风温度多少度？", "35 ℃"),
                            ("电暖器最高档的功率是多少？", "2000 W")):
        answer = grounded_answer(question, [_source()])
        assert answer is not None
        assert value in answer.text.split("\n")[0], question


_FEES = """# 挂号须知

| 号别 | 挂号费 | 医保报销 |
|---|---|---|
| 普通门诊 | 10 元 | 是 |
| 副教授门诊 | 25 元 | 是 |
| 教授门诊 | 40 元 | 是 |
"""


def test_two_rows_of_a_table_are_two_facts_not_duplicates() -> None:
    rows = [s for s in candidate_sentences([_source(_FEES)]) if s.columns]
    assert same_table(rows[1], rows[2]) and not same_table(rows[1], rows[1])
    for row in rows:
        row.score = 1.0
    # "副教授门诊 | 25 元" holds the words of "教授门诊 | 40 元": both are kept
    assert select([rows[2], rows[1]]) == [rows[2], rows[1]]
