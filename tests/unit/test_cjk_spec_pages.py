"""Chinese product pages with many values of one kind: the value of the case asked.

A manual gives several durations, lengths or temperatures on one page, in spec lists
without full stops, tables, conditions ("在每天使用12小时的情况下") and FAQ answers, and
names its product in the title only. A question in the user's words ("充满", "关掉",
"平常用", "投出100寸") is answered by the value of the case it asks about (issue 45,
sixth pass: ``bench/data/zh_dev6``).
"""

from __future__ import annotations

import pytest

from deepcite.citations.answer_type import answer_type, pick
from deepcite.citations.cjk_answers import spans
from deepcite.text.cjk_terms import cjk_singles
from tests.unit.manual_pages import lead_line, manual_page

PROJECTOR = manual_page(1, "# 微光 P5 家用投影仪\n\n## 摆放与投影距离\n\n"
                        "镜头到墙面的距离决定画面大小，常见尺寸对应的距离如下：\n\n"
                        "- 80英寸：约2.13米\n- 100英寸：约2.66米\n- 120英寸：约3.19米\n\n"
                        "最近可在1.06米处投出40英寸画面。\n")
EARBUDS = manual_page(2, "# 声屿 Buds Pro 真无线降噪耳机\n\n## 续航\n\n"
                      "耳机单次续航：关闭降噪时为6小时，开启降噪时为4.5小时。\n"
                      "配合充电盒使用，总续航最长30小时。\n")
DEHUMIDIFIER = manual_page(3, "# 干爽 D20 除湿机\n\n## 主要参数\n\n"
                           "- 日除湿量：20升/天（测试条件：30℃，相对湿度80%）\n"
                           "- 水箱容量：4.5升\n\n"
                           "## 干衣模式\n\n以最大风量连续运行6小时后自动关机。\n\n"
                           "## 注意事项\n\n1. 关机后须等待3分钟以上才能再次开机，以保护压缩机。\n"
                           "2. 搬运或倾斜放置后，请直立静置2小时再通电。\n")
WATCH = manual_page(4, "# 星轨 W3 智能手表\n\n## 电池与续航\n\n| 使用场景 | 续航 |\n|---|---|\n"
                    "| 重度使用 | 7天 |\n| 典型使用 | 14天 |\n| 省电模式 | 28天 |\n")

TREADMILL = manual_page(5, "# 跃动 T7 折叠跑步机\n\n## 安装\n\n"
                        "请在跑步机后方留出2米空地，两侧各留出0.5米。\n"
                        "展开后占地尺寸为1650×720毫米，折叠后高度为1350毫米。\n")


def test_a_spec_list_item_without_a_full_stop_is_quoted() -> None:
    """"- 100英寸：约2.66米" states a fact as a table row does; it had been no sentence."""
    assert "2.66米" in lead_line("想投出100寸的画面，投影仪要放多远？", [PROJECTOR, WATCH])


def test_the_case_the_question_states_comes_before_a_closer_paraphrase() -> None:
    """"投出40英寸画面" shares more words with the question than the 100英寸 row."""
    assert "1.06米" not in lead_line("想投出100寸的画面，投影仪要放多远？", [PROJECTOR])


def test_a_product_named_by_the_title_only_is_named_for_its_sentences() -> None:
    """"Buds Pro" is in no sentence: the sources were judged off topic."""
    assert "4.5小时" in lead_line("Buds Pro开着降噪能听多久？", [EARBUDS, PROJECTOR])


def test_the_sentence_naming_the_dimension_asked_comes_first() -> None:
    """"多高" is answered by the "高度" of the folded machine, not the "2米" of space."""
    assert "1350毫米" in lead_line("跑步机折叠起来有多高？", [TREADMILL])


def test_the_ordinary_case_is_the_typical_row() -> None:
    assert "14天" in lead_line("星轨W3手表平常用能撑几天？", [WATCH])


def test_a_subject_in_the_heading_and_an_automatic_action() -> None:
    """"自己关" is "自动关机": a manner word, not a feature the page never names."""
    assert "6小时" in lead_line("除湿机的干衣模式开多久会自己关？", [DEHUMIDIFIER])


def test_a_verb_with_its_result_and_again_are_said_another_way() -> None:
    """"关掉" is written "关机", "重新开" is "再次开机"."""
    assert "3分钟" in lead_line("除湿机关掉以后，隔多久才能重新开？", [DEHUMIDIFIER])


@pytest.mark.parametrize(("question", "singles"), [
    ("W3手表从没电到充满要多久？", {"充"}),
    ("除湿机关掉以后要等多久？", {"关"}),
    ("电池用完了怎么办？", {"用"}),
])
def test_a_verb_closed_by_a_result_is_a_word_of_its_own(question: str,
                                                        singles: set[str]) -> None:
    assert singles <= set(cjk_singles(question))


@pytest.mark.parametrize(("question", "sentence", "short"), [
    # a number in a condition or an aside is not what the sentence states
    ("HEPA滤网能用多长时间？", "HEPA 复合滤网在每天使用12小时的情况下，建议每6个月更换一次。",
     "6个月"),
    # a rate with its second unit
    ("除湿机一天能除多少水？", "日除湿量：20升/天（测试条件：30℃，相对湿度80%）", "20升/天"),
    # ... unless the question asks for the condition
    ("电量剩多少的时候会自己回去充电？",
     "电量低于15%时，机器人会自动返回集尘座充电，充到80%后回到中断的位置继续清扫。", "15%"),
    # a one-character word of the question counts in its clause ("开着" / "开启")
    ("Buds Pro开着降噪能听多久？", "耳机单次续航：关闭降噪时为6小时，开启降噪时为4.5小时。",
     "4.5小时"),
    # a later word of the question weighs more than the product it is about
    ("手表的表带坏了保修多久？", "答：手表主机保修1年，表带和充电座保修3个月。", "3个月"),
    # a weight or a distance is answered in its units, never by a bare number
    ("AP-60本身有多重？", "机身尺寸为 260 × 260 × 580 毫米，净重6.8公斤，含包装毛重8.2公斤。",
     "6.8公斤"),
    ("给净化器配Wi-Fi时，手机要离它多近？", "配网时，手机与净化器的距离请保持在3米以内，长按3秒。",
     "3米"),
    ("屏幕最亮能到多少？", "屏幕：1.43英寸 AMOLED，分辨率466×466，最高亮度1500尼特。", "1500尼特"),
    # the CJK form before a Latin number, the number beside the word asked
    ("跑步机的坡度能调几档？", "坡度 | 0～12档电动调节", "12档"),
    ("P5投影仪的存储空间有多大？", "内置2GB内存和32GB存储，支持 Wi-Fi 6。", "32GB"),
])
def test_the_short_answer_is_the_value_of_the_case_asked(question: str, sentence: str,
                                                         short: str) -> None:
    assert pick(answer_type(question), sentence, question) == short


def test_a_fraction_is_no_span_of_time() -> None:
    assert spans("amount", "用扳手调整螺丝，每次转动四分之一圈。", "每次最多连续跑多久？") == []
    # a range is one value: both its ends
    assert [s[2] for s in spans("count", "胎压保持在2.5bar到3bar之间。", "胎压多少合适？")] == [
        "2.5bar到3bar"]
