"""Chinese questions asked as a user asks them get the value the page gives for what
is asked (issue 45, ninth pass: ``bench/data/zh_dev13``, ``zh_dev14``): the cell of a
comparison table in the column the question names (a model, "押金", "周末" for the
weekend's days), the afternoon's time for "下午几点", the start of a span for "几点以后",
a telephone number whole, a span of time in two units ("4分20秒") and the whole for
"一共", a count in the classifier asked ("多少篇") and of the noun as the question
qualifies it ("能充电的车位"), an approximate value with its "约", and a question in
everyday words ("力度", "弱一点") over a page that writes formal ones ("强度", "较低")."""

from __future__ import annotations

from deepcite.citations.answer_type import answer_type, pick
from deepcite.citations.candidates import candidate_sentences
from deepcite.citations.question_match import question_terms
from deepcite.citations.table_cells import asked_cells
from tests.unit.manual_pages import lead_line, manual_page

REPAIRS = manual_page(1, "# 青檀 电热水壶 售后\n\n## 保外维修收费\n\n"
                      "| 项目 | K1 | K2 | K3 Max |\n|---|---|---|---|\n"
                      "| 更换底座 | 49元 | 59元 | 79元 |\n| 更换壶盖 | 19元 | 25元 | 35元 |\n")
POOL = manual_page(2, "# 石榴 游泳馆 开放时间\n\n## 开放时间\n\n"
                   "| 区域 | 周二至周五 | 周六、周日 |\n|---|---|---|\n"
                   "| 儿童池 | 14:00–20:00 | 10:00–18:30 |\n| 成人池 | 6:30–21:00 | 7:00–21:00 |\n")
CARDS = manual_page(3, "# 石榴 游泳馆 会员卡\n\n## 会员卡类型\n\n"
                    "| 卡种 | 适用人数 | 押金 | 月费 |\n|---|---|---|---|\n"
                    "| 个人卡 | 1人 | 免押金 | 199元 |\n| 家庭卡 | 2至5人 | 300元 | 399元 |\n")


def test_a_table_cell_is_the_column_of_the_model_named() -> None:
    lead = lead_line("K2更换底座要多少钱？", [REPAIRS])
    assert "59元" in lead and "49元" not in lead


def test_a_weekend_question_takes_the_weekend_column() -> None:
    lead = lead_line("周末儿童池几点关门？", [POOL])
    assert "18:30" in lead and "20:00" not in lead


def test_a_column_is_named_by_a_word_of_its_header() -> None:
    lead = lead_line("家庭卡的押金是多少？", [CARDS])
    assert "300元" in lead and "399元" not in lead


def test_the_header_row_is_no_sentence_and_labels_its_rows() -> None:
    texts = [s.text for s in candidate_sentences([POOL])]
    assert not any("周二至周五" in t for t in texts)
    rows = [s for s in candidate_sentences([POOL]) if s.text.startswith("儿童池")]
    assert rows and rows[0].columns == ("区域", "周二至周五", "周六、周日")


def test_asked_cells_keeps_the_label_and_the_column_named() -> None:
    columns = ("卡种", "适用人数", "押金", "月费")
    assert asked_cells("家庭卡押金多少？", "家庭卡 | 2至5人 | 300元 | 399元",
                       columns) == "家庭卡 | 300元"
    assert asked_cells("家庭卡多少钱？", "家庭卡 | 2至5人 | 300元 | 399元", columns) is None


COUNTER = manual_page(4, "# 蓝溪 政务大厅 办事指南\n\n## 办理时间\n\n"
                      "窗口开始办理的时间为每天9:00–12:00，13:30–17:00，节假日除外。\n"
                      "每天晚上21:30至次日6:30之间，自助终端暂停使用。\n"
                      "咨询电话0571-8820-1234，工作时间内有人接听。\n")


def test_the_afternoon_is_the_time_after_noon() -> None:
    lead = lead_line("窗口下午几点开始办理？", [COUNTER])
    assert "13:30" in lead and "9:00" not in lead


def test_from_what_time_on_is_the_start_of_the_span() -> None:
    lead = lead_line("自助终端晚上几点以后暂停使用？", [COUNTER])
    assert "21:30" in lead and "6:30" not in lead.replace("21:30", "")


def test_a_telephone_number_is_given_whole() -> None:
    assert "0571-8820-1234" in lead_line("咨询电话是多少？", [COUNTER])


MODES = manual_page(5, "# 青檀 电热水壶 模式\n\n水壶共有两种模式。\n\n## 模式说明\n\n"
                    "- **速热模式**：先预热1分钟，随后全功率加热，总时长为4分20秒。\n"
                    "- **保温模式**：水温保持在55℃，最长保温12小时。\n\n## 新手模式\n\n"
                    "为保护壶体，新壶在首次使用后的前10次烧水中会以较低强度加热。\n")
LIBRARY = manual_page(6, "# 蓝溪 图书馆 数字资源\n\n## 电子期刊\n\n"
                      "电子期刊约2400种，每证每天最多下载30篇。\n")


def test_a_span_in_two_units_and_the_whole_asked() -> None:
    lead = lead_line("速热模式一共要多长时间？", [MODES])
    assert "4分20秒" in lead and "1分钟" not in lead


def test_a_count_in_the_classifier_asked() -> None:
    lead = lead_line("电子期刊每天能下载多少篇？", [LIBRARY])
    assert "30篇" in lead and "2400种" not in lead


def test_everyday_words_for_strength_match_the_page() -> None:
    assert "10次" in lead_line("新壶前几次会用弱一点的力度烧水？", [MODES])


def test_a_qualified_noun_is_counted_in_the_clause_that_qualifies_it() -> None:
    sentence = "地下停车场共有车位120个，其中配有充电桩的车位30个。"
    assert pick(answer_type("可以充电的车位有多少个？"), sentence,
                "可以充电的车位有多少个？") == "30个"
    assert pick(answer_type("停车场一共有多少个车位？"), sentence,
                "停车场一共有多少个车位？") == "120个"


SPECS = manual_page(7, "# 青檀 电热水壶 规格\n\n水壶的参数如下。\n\n## 参数\n\n"
                    "- 容量：1.7升\n- 净重：约1.2公斤\n")


def test_an_approximate_value_keeps_its_about() -> None:
    assert "**约1.2公斤**" in lead_line("水壶有多重？", [SPECS])


def test_a_short_model_name_is_a_word_of_the_question() -> None:
    assert "s3" in question_terms("S3过了保修期换电池要花多少钱？")
    assert "ap" in question_terms("AP-60本身有多重？")
    assert not {"s3", "ap"} & question_terms("电池要花多少钱？")


KETTLE = manual_page(8, "# 青檀 KT-20 电热水壶\n\nKT-20 的壶身为不锈钢。\n\n## 参数\n\n"
                     "机身尺寸为 200 × 160 × 250 毫米，净重1.1公斤。\n")
TOASTER = manual_page(9, "# 红泥 烤面包机\n\n烤面包机有两个烤槽。\n\n## 参数\n\n"
                      "| 项目 | 参数 |\n|---|---|\n| 整机重量 | 2.3公斤 |\n")


def test_the_page_of_the_model_named_answers_its_weight() -> None:
    lead = lead_line("KT-20有多重？", [TOASTER, KETTLE])
    assert "1.1公斤" in lead and "2.3公斤" not in lead
