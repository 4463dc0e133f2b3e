"""A Chinese or Japanese question that names a unit or a dimension is answered in it.

"冲洗几分钟" asks in minutes, "多少本书" counts books (written "册"), "电池的容量是多少"
asks for a capacity (written "毫安时", with no word "容量" in the sentence). The answer
leads with the value in that unit, from the sentence that says it.
"""

from __future__ import annotations

import pytest

from deepcite.citations.answer_type import answer_type, pick
from deepcite.citations.grounded import grounded_answer
from deepcite.citations.sentence_ranking import rank_sentences
from deepcite.text.cjk_terms import cjk_terms
from deepcite.types import Source
from tests.unit.test_cjk_answers import _source as cjk_source

PURIFIER = (
    "# 清泉净水器\n\n"
    "净水器每天最多自动冲洗两次，每次冲洗持续30秒。"
    "首次使用前，请先放水冲洗5分钟，把滤芯中的保护液排干净。"
    "整机额定功率为36瓦，进水压力范围是0.1到0.4兆帕。\n"
)
VACUUM = (
    "# 扫地机器人：电池\n\n"
    "扫地机器人使用5200毫安时的锂电池。"
    "电池可以循环充放电约800次，之后容量会降到原来的七成左右。"
    "静音模式下吸力降低到1500帕，适合夜间使用。\n"
)
PRINTER = (
    "# ツバメ P20\n\n"
    "ヒートベッドが60℃に達するまで、約3分かかります。"
    "ノズルは印刷200時間ごとに交換することをおすすめします。"
    "本体の保証期間はご購入日から1年間です。\n"
)


def _source(text: str, number: int = 1) -> Source:
    """A material titled by its first line (its heading)."""
    return cjk_source(text, number, title=text.splitlines()[0].lstrip("# "))


@pytest.mark.parametrize(("question", "sentence", "short"), [
    ("第一次用之前要冲洗几分钟？", "每次冲洗持续30秒，首次使用前请先放水冲洗5分钟。", "5分钟"),
    ("一张读者证最多能借多少本书？", "普通读者一次最多可借图书15册，借期为30天。", "15册"),
    ("自习室一天最多能约几个小时？", "每人每天最多预约4小时，超过15分钟未签到会被释放。", "4小时"),
    ("整机功率是多少？", "整机额定功率为36瓦，进水压力范围是0.1到0.4兆帕。", "36瓦"),
    ("最高时速是多少？", "满电续航40公里，最高时速为25公里/小时。", "25公里/小时"),
    ("ノズルは何時間ごとに交換しますか？", "約3分かかります。ノズルは200時間ごとに交換します。",
     "200時間"),
])
def test_the_short_answer_is_the_value_in_the_unit_asked(
        question: str, sentence: str, short: str) -> None:
    assert pick(answer_type(question), sentence, question) == short


def test_a_question_in_minutes_leads_with_the_value_in_minutes() -> None:
    # both clauses say "冲洗": the unit asked decides, not the first number written
    source = _source("# 清泉净水器\n\n净水器每次冲洗持续30秒，首次使用前冲洗5分钟。\n")
    answer = grounded_answer("净水器冲洗几分钟？", [source])
    assert answer is not None and answer.text.startswith("**5分钟** [1]")


def test_a_unit_says_the_dimension_the_sentence_does_not_name() -> None:
    ranked = rank_sentences("电池的容量是多少？", [_source(VACUUM)])
    assert ranked and "5200毫安时" in ranked[0].text
    answer = grounded_answer("电池的容量是多少？", [_source(VACUUM)])
    assert answer is not None and answer.text.startswith("**5200毫安时** [1]")


def test_a_pressure_in_pascals_is_a_value() -> None:
    answer = grounded_answer("静音模式的吸力是多少？", [_source(VACUUM)])
    assert answer is not None and answer.text.startswith("**1500帕** [1]")


def test_a_japanese_period_asked_with_nan_nen_is_a_span_of_time() -> None:
    assert answer_type("保証期間は何年ですか？") == "amount"
    answer = grounded_answer("保証期間は何年ですか？", [_source(PRINTER)])
    assert answer is not None and answer.text.startswith("**1年間** [1]")


def test_the_copula_is_no_part_of_what_a_question_is_about() -> None:
    # "容量是多少": "量是" straddles the copula and is no word a source would hold
    assert cjk_terms("电池的容量是多少？", question=True) == ["电池", "容量"]


def test_degrees_asked_by_name_are_answered_in_degrees() -> None:
    """"多少度" names its unit as "几分钟" does: the value in it, not the first number;
    "最高" asks for the top of the range, not its start."""
    question = "热水器最高能调到多少度？"
    sentence = "加热需要约40分钟，温度可在30℃至75℃之间调节。"
    assert pick(answer_type(question), sentence, question) == "75℃"

