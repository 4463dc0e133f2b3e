"""Chinese questions asked as a user asks them get the value the page gives for what
is asked (issue 45, eighth pass: ``bench/data/zh_dev10``): a time of day written as
on a clock ("18:00"), the end of opening hours for "几点关门", the clause of the case
asked ("周末") in a sentence whose opening names the subject, the value after a list
in brackets, the weight or temperature a question asks by its question word alone
("多重", "几斤", "多少度"), and a verb before a count ("装一个")."""

from __future__ import annotations

from deepcite.citations.cjk_answers import asked_dimension
from deepcite.citations.question_match import question_terms
from deepcite.text.cjk_terms import cjk_singles
from tests.unit.manual_pages import lead_line, manual_page

SERVICE = manual_page(1, "# 青檀 K2 净化器 售后服务\n\n## 客服\n\n"
                      "客服热线工作日的服务时间为8:30至21:00，周末及节假日为10:00至17:30。\n"
                      "上门维修的服务费为每次60元。\n")
HALL = manual_page(2, "# 石榴 羽毛球馆 开放时间\n\n## 开放时间\n\n"
                   "- 周二至周五：9:00—22:00\n"
                   "- 周六、周日及节假日：7:30—20:30\n")
NIGHT_RATE = manual_page(3, "# 蓝溪 电动车充电 说明\n\n## 预约充电\n\n"
                         "低谷电价时段为每天22:30至次日6:30，建议在这一时段充电。\n"
                         "App里每天最多能设2个预约。\n")


def test_a_time_of_day_is_the_clock_time_not_the_day() -> None:
    lead = lead_line("客服周末最晚几点？", [SERVICE])
    assert "17:30" in lead and "21:00" not in lead


def test_closing_time_is_the_end_of_the_hours_of_the_day_asked() -> None:
    lead = lead_line("球馆周末几点关门？", [HALL])
    assert "20:30" in lead and "周六" not in lead


def test_starting_time_is_the_start_of_the_span() -> None:
    lead = lead_line("低谷电价时段每天几点开始？", [NIGHT_RATE])
    assert "22:30" in lead and "6:30" not in lead.replace("22:30", "")


WARRANTY = manual_page(4, "# 青檀 K2 净化器 保修\n\n## 保修\n\n"
                       "整机保修1年，核心部件（风机、电源板、控制板）保修4年。\n")


def test_the_value_after_a_bracketed_list_belongs_to_the_subject_before_it() -> None:
    assert "4年" in lead_line("核心部件保修几年？", [WARRANTY])
    assert "1年" in lead_line("整机保修几年？", [WARRANTY])


SPECS = manual_page(5, "# 青檀 K2 净化器 规格\n\n## 参数\n\n"
                    "- 额定功率：45瓦\n- 净重：约7.2公斤\n- 工作温度：-10℃至40℃\n"
                    "- 滤网寿命：约3000小时\n")
STOVE = manual_page(6, "# 红泥 T1 电陶炉 规格\n\n## 参数\n\n- 额定功率：2200瓦\n"
                    "- 整机重量：3.1公斤\n- 面板尺寸：300毫米\n")


def test_a_weight_asked_by_its_question_word_is_the_weight_line() -> None:
    assert "7.2公斤" in lead_line("这个净化器有几斤重？", [SPECS, STOVE])
    assert "7.2公斤" in lead_line("净化器有多重？", [SPECS, STOVE])


def test_a_temperature_asked_by_degrees_is_the_temperature_line() -> None:
    assert "-10℃" in lead_line("净化器最低能在多少度的环境下工作？", [SPECS, STOVE])


def test_the_dimension_is_a_term_of_the_question_only_when_unnamed() -> None:
    assert asked_dimension("有多重？") == "重量"
    assert asked_dimension("最低能在多少度的环境下用？") == "温度"
    assert asked_dimension("一天用几度电？") is None  # 度 of electricity, no temperature
    assert asked_dimension("重量是多少？") is None  # named: its own term
    assert "重量" in question_terms("这个桩有几斤重？")
    assert "斤重" not in question_terms("这个桩有几斤重？")


def test_a_verb_before_a_count_is_a_word_of_its_own() -> None:
    assert "装" in cjk_singles("装一个充电桩要多久？")
    assert "洗" in cjk_singles("一次能洗两条被子吗？")
    assert not set("一两个") & set(cjk_singles("装一个充电桩要多久？"))


CABINET = manual_page(7, "# 松果 C3 酒柜 安装\n\n## 尺寸\n\n"
                      "- 外形尺寸：宽595毫米，深570毫米，高1420毫米\n\n## 摆放\n\n"
                      "酒柜两侧各需预留20毫米以上的散热空间，背面距离墙壁不少于80毫米。\n")


def test_a_length_asked_by_its_question_word_is_the_one_its_character_names() -> None:
    # "多高": the 高 of the size line, not the first length of the line nor the
    # clearance sentence that measures a distance
    lead = lead_line("酒柜有多高？", [CABINET])
    assert "1420毫米" in lead and "595毫米" not in lead
    # "背后" asked, "背面" written (a near-synonym), "多远" a distance
    assert "80毫米" in lead_line("酒柜背后要离墙多远？", [CABINET])
