"""Chinese questions that ask a rate per unit of time, or how often (issue 45, eleventh
pass): "一分钟震多少下" is answered by the value written as a rate ("42000次/分钟"),
not the "42000次" cut from it nor another cell of the row, and "多久擦一次" by the
frequency as the page writes it ("每两个月"), not the bare span "两个月"."""

from __future__ import annotations

from deepcite.citations import cjk_answers
from deepcite.citations.cjk_rates import asked_rate

_ROW = "| S5 Pro | 599元 | 112克 | 42000次/分钟 | 90天 | 无线充电便携盒 |"


def test_a_question_counting_per_a_unit_of_time_asks_a_rate() -> None:
    assert asked_rate("旗舰款的马达一分钟震多少下？")
    assert asked_rate("这台机器每小时能处理多少件？")
    assert asked_rate("这款牙刷卖多少钱？") is None
    assert asked_rate("一天用完，第二天还能用吗？") is None  # no question word after


def test_the_rate_in_the_unit_asked_is_the_answer() -> None:
    question = "旗舰款的马达一分钟震多少下？"
    assert [text for _, _, text in cjk_answers.spans("count", _ROW, question)] == [
        "42000次/分钟"]
    assert cjk_answers.fits(_ROW, question)
    # "次/分" is the same rate per minute; a rate per hour is not
    assert cjk_answers.fits("转速为3000转/分", "电机一分钟转多少圈？")
    assert not cjk_answers.fits("处理量为200件/小时", "一分钟能处理多少？")


def test_a_question_asking_its_own_unit_keeps_it() -> None:
    units = cjk_answers.wanted_units("一天要充几个小时？")
    assert units is not None and "小时" in units and "/" not in units


def test_a_frequency_keeps_its_every() -> None:
    question = "机器侧面那个检测空气好坏的小探头多久要擦一次？"
    sentence = "位于机身侧面的小盖板后面，建议每两个月清洁一次。"
    assert [text for _, _, text in cjk_answers.spans("amount", sentence, question)] == [
        "每两个月"]
    # a span that no 每 precedes stays as written
    assert [text for _, _, text in cjk_answers.spans(
        "amount", "滤网可以用六个月。", "滤网能用多久？")] == ["六个月"]


def test_how_long_a_thing_lasts_is_no_frequency() -> None:
    sentence = "HEPA 复合滤网在每天使用12小时的情况下，建议每6个月更换一次。"
    texts = [text for _, _, text in cjk_answers.spans("amount", sentence, "HEPA滤网能用多长时间？")]
    assert "6个月" in texts and "每6个月" not in texts
