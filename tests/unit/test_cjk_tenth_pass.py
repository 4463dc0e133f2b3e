"""Chinese questions that state a case inside a page's range, or ask for its limit
(issue 45, tenth pass): "超期两个月" is in the "第31天起" row, "大年初五" inside
"正月初二至初七", "最多罚到多少" is the row of the cap ("上限 | 不超过20元"), and a
question's "罚款" or "超期" is the page's "逾期费" and "逾期"."""

from __future__ import annotations

from deepcite.citations.cjk_abbreviations import abbreviated_terms, defined
from deepcite.citations.cjk_limits import states_limit
from deepcite.citations.cjk_ranges import case_in_range, number
from deepcite.citations.described_models import with_model_named
from deepcite.text.cjk_synonyms import synonym_terms
from deepcite.types import Source
from tests.unit.manual_pages import lead_line, manual_page

FEES = manual_page(1, "# 续借与逾期\n\n## 逾期费用\n\n"
                   "| 逾期时长 | 收费标准 |\n|---|---|\n"
                   "| 第1至30天 | 每册每天0.1元 |\n| 第31天起 | 每册每天0.2元 |\n"
                   "| 单册累计上限 | 不超过20元 |\n\n"
                   "- 图书逾期超过90天仍未归还的，读者证将被冻结。\n")
READER = manual_page(2, "# 电子阅读器借用\n\n借用电子阅读器须交押金300元。"
                     "逾期未还的，每天收取5元的逾期费。\n")
HOURS = manual_page(3, "# 图书馆开放时间\n\n全馆每天9:00–20:30开放，关门前15分钟开始清场。"
                    "每周一为全馆闭馆日，用于设备维护和图书整理。\n\n## 节假日安排\n\n"
                    "- 春节：除夕和正月初一闭馆，正月初二至初七每天10:00–16:00开放。\n")


def test_numbers_in_chinese_numerals() -> None:
    assert [number(t) for t in ("两", "十五", "二十", "三十一", "45", "十")] == [
        2, 15, 20, 31, 45, 10]
    assert number("大") is None


def test_a_span_asked_falls_in_the_row_of_its_range() -> None:
    question = "书超期两个月了，现在每天按多少钱算罚款？"
    assert case_in_range("第31天起 | 每册每天0.2元", question)
    assert not case_in_range("第1至30天 | 每册每天0.1元", question)
    assert not case_in_range("图书逾期超过90天仍未归还的", question)
    assert case_in_range("第1至30天 | 每册每天0.1元", "逾期十天每天罚多少？")
    assert case_in_range("7天以内免费", "借了三天要钱吗？")


def test_a_lunar_day_and_a_date_fall_in_their_ranges() -> None:
    assert case_in_range("正月初二至初七每天10:00–16:00开放", "大年初五几点关门？")
    assert not case_in_range("正月初二至初七每天10:00–16:00开放", "初九几点关门？")
    assert case_in_range("寒假（1月15日至2月20日）9:00开放", "2月1号几点开门？")
    assert case_in_range("12月20日至1月5日暂停开放", "1月3日开门吗？")
    assert not case_in_range("1月15日至2月20日", "3月1日几点开门？")


def test_a_limit_asked_is_a_limit_said() -> None:
    assert states_limit("单册累计上限 | 不超过20元", "最多罚到多少钱？")
    assert not states_limit("每天收取5元的逾期费", "最多罚到多少钱？")
    assert states_limit("押金不低于100元", "至少要交多少押金？")
    assert not states_limit("上限很高", "最多罚多少？")  # no number, no limit given


def test_a_fine_and_overdue_are_the_pages_words() -> None:
    assert "罚款" in synonym_terms("逾期未还的，每天收取5元的逾期费")
    assert "超期" in synonym_terms("图书逾期超过90天")


def test_the_row_of_the_case_asked_leads() -> None:
    assert "0.2元" in lead_line("图书超期两个月了，每天的罚款是多少钱？", [FEES, READER])
    assert "20元" in lead_line("一本书逾期罚款最多罚到多少钱？", [FEES, READER])
    assert "16:00" in lead_line("大年初五去图书馆，几点就关门了？", [HOURS])


def test_the_period_a_count_is_asked_in_is_no_case() -> None:
    # "一年能停多少天": the yearly allowance, not a case inside "365天内"
    assert not case_in_range("年卡 | 2980元 | 365天内不限次数", "年卡一年能停多少天？")


OVERVIEW = ("# 产品概览\n\n目前在售三款型号：入门款 S1、进阶款 S3 和旗舰款 S5 Pro。\n\n"
            "| 型号 | 建议零售价 | 充满一次续航 | 充电方式 |\n|---|---|---|---|\n"
            "| S1 | 199元 | 45天 | USB-C 有线充电 |\n| S3 | 329元 | 60天 | 感应充电底座 |\n"
            "| S5 Pro | 599元 | 90天 | 无线充电便携盒 |\n")


def test_a_model_named_by_a_description() -> None:
    assert with_model_named("最便宜的那一款充满一次电能用多久？", [OVERVIEW]) == (
        "S1充满一次电能用多久？")
    assert with_model_named("最贵的那款多少钱？", [OVERVIEW]).startswith("S5 Pro")
    assert with_model_named("旗舰款的续航是多久？", [OVERVIEW]) == "S5 Pro的续航是多久？"
    assert with_model_named("用底座充电的那个型号要充多久？", [OVERVIEW]) == "S3要充多久？"
    assert with_model_named("S3要充多久？", [OVERVIEW]) == "S3要充多久？"  # named already
    assert with_model_named("充电的那个型号要充多久？", [OVERVIEW]) == (
        "充电的那个型号要充多久？")  # every row charges: none picked out


def test_the_cheapest_models_row_answers() -> None:
    page = manual_page(4, OVERVIEW)
    assert "45天" in lead_line("最便宜的那一款充满一次电大概能用多久？", [page])


def test_a_force_asked_is_answered_in_grams() -> None:
    page = manual_page(5, "# 刷牙模式\n\n刷头累计使用180次后，手柄上的提醒灯会亮起黄色。"
                       "刷牙时施加的压力超过150克，手柄灯环会变为红色。\n")
    assert "150克" in lead_line("刷牙用力多大会触发手柄变红提醒？", [page])


MODELS = ("# 型号\n\n| 型号 | CADR | 适用面积 | 整机重量 | 售价 |\n|---|---|---|---|---|\n"
          "| QL-300 | 300 m³/h | 15–25 平方米 | 5.8 kg | 1299 元 |\n"
          "| QL-500 | 500 m³/h | 25–40 平方米 | 8.2 kg | 2199 元 |\n"
          "| QL-700 Pro | 720 m³/h | 40–60 平方米 | 11.5 kg | 3599 元 |\n\n"
          "## 滤网\n\n| 型号 | 滤网 | 价格 |\n|---|---|---|\n| QL-300 | F300 | 199 元 |\n"
          "| QL-500 | F500 | 299 元 |\n| QL-700 Pro | F700H | 159 元 |\n")


def test_a_tier_or_a_size_names_a_model() -> None:
    assert with_model_named("入门款的定价多少钱？", [MODELS]) == "QL-300的定价多少钱？"
    assert with_model_named("最大的那款有多重？", [MODELS]) == "QL-700 Pro有多重？"
    assert with_model_named("最小的那台有多重？", [MODELS]) == "QL-300有多重？"
    # "开到最大": a setting, not a model; the filters' table is not the models' prices
    assert with_model_named("风开到最大时多少分贝？", [MODELS]) == "风开到最大时多少分贝？"
    assert with_model_named("最便宜的那款适用多大面积？", [MODELS]).startswith("QL-300")


def test_an_abbreviation_says_the_term_a_page_defines_by_it() -> None:
    texts = ["三款机器的区别在于洁净空气量（CADR）。", "| 型号 | 甲醛CADR |"]
    definitions = defined(texts)
    assert definitions == {"CADR": "别在于洁净空气量"}
    assert "洁净" in abbreviated_terms("QL-500 | 220 m³/h 甲醛CADR", "洁净空气量是多少？",
                                       definitions)
    assert abbreviated_terms("CADRX 220", "洁净空气量是多少？", definitions) == []


def test_the_row_of_an_abbreviated_column_answers_in_its_unit() -> None:
    page = manual_page(6, "# 型号\n\n三款净化器主要区别在于洁净空气量（CADR）和适用面积。\n\n"
                       "| 型号 | 颗粒物CADR | 甲醛CADR | 整机重量 |\n|---|---|---|---|\n"
                       "| QL-300 | 300 m³/h | 120 m³/h | 5.8 kg |\n"
                       "| QL-500 | 500 m³/h | 220 m³/h | 8.2 kg |\n")
    assert "220 m³/h" in lead_line("QL-500 除甲醛的洁净空气量是多少？", [page])


def _chunk(number: int, title: str, text: str) -> Source:
    url = f"file:///docs/{title}.md"  # chunks of one document share its URL and title
    return Source(number=number, title=title, url=url, canonical_url=url, snippet=text[:80],
                  engine="local", full_text=text)


def test_a_section_titled_by_the_questions_word_is_not_off_title() -> None:
    # three chunks of "自习室与预约" make a majority of titles naming "预约"; the
    # section "预约图书" of another page still answers what is asked of a book
    sources = [_chunk(1, "续借与逾期", "## 预约图书\n\n图书归还后，系统会发送短信通知，"
                      "到馆的图书在1楼预约架上为您保留4天，过期未取自动取消预约。\n"),
               _chunk(2, "自习室与预约", "## 座位预约\n\n30天内累计违约3次的，暂停预约资格7天。\n"),
               _chunk(3, "自习室与预约", "## 研讨间预约\n\n研讨间须至少提前1天预约。\n"),
               _chunk(4, "自习室与预约", "## 座位预约\n\n座位可预约当天和第二天的。\n")]
    assert "4天" in lead_line("预约的图书到馆后保留几天？", sources)
