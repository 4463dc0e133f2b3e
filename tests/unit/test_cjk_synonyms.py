"""A Chinese question in a user's everyday words is answered by the manual's sentence
that says the same in formal words ("甩干" asked, "脱水" written), and the value a
user asks for is the one given: the top of a list for "最热", a range whole, a rate
with its second unit, a sign kept (issue 45, seventh pass: ``bench/data/zh_dev8``)."""

from __future__ import annotations

import pytest

from deepcite.citations.answer_type import answer_type, pick
from deepcite.text.cjk_synonyms import NEAR_SYNONYMS, synonym_terms, synonyms_in
from tests.unit.manual_pages import lead_line, manual_page

POWER_BANK = manual_page(1, "# 闪充驿站 共享充电宝 用户规则\n\n## 租借与计费\n\n"
                         "扫码即可租借，免押金服务需要信用分达到550分以上。\n"
                         "前5分钟内归还不收费。\n"
                         "之后每小时收费3元，不足一小时按一小时计算，每24小时封顶30元。\n"
                         "累计租借满7天未归还视为购买，共扣除99元，充电宝归用户所有。\n")


def test_a_sentence_holds_the_everyday_word_for_its_formal_one() -> None:
    assert "甩干" in synonym_terms("洗衣机脱水时约70分贝")
    assert "免费" in synonym_terms("前5分钟内归还不收费。")
    assert "脱水" in synonym_terms("甩干的时候很吵")  # either way round


def test_a_longer_word_is_found_once_not_its_part_too() -> None:
    assert synonyms_in("前5分钟内归还不收费。") == ("不收费",)
    assert "收钱" not in synonym_terms("前5分钟内归还不收费。")


def test_no_group_holds_a_number_or_shares_a_word() -> None:
    words = [word for group in NEAR_SYNONYMS for word in group]
    assert len(words) == len(set(words))
    assert not any(char.isdigit() for word in words for char in word)


def test_english_text_gains_nothing() -> None:
    assert synonym_terms("The spin cycle is free of charge.") == ()


@pytest.mark.parametrize(("question", "sentence", "short"), [
    # the clause of the case asked in the user's word ("甩干" for "脱水")
    ("洗衣机甩干的时候声音多大？", "运行噪音：洗涤时约48分贝，脱水时约70分贝", "70分贝"),
    # the top of a list or a range for "最...", its bottom for "最低", a sign kept
    ("马桶盖的座圈最热能调到多少度？", "座圈温度：关闭、32℃、35℃、38℃四档", "38℃"),
    ("冰箱最低能冷到几度？", "| 制冷温度范围 | -20℃～10℃ |", "-20℃"),
    # "最高档" is the setting asked about, not the highest value
    ("按摩枪开最高档能用多久？", "最高档约2.5小时，最低档约6小时。", "2.5小时"),
    # a range is answered whole, a rate with its second unit
    ("净水器能接多热的水？", "适用水温：5℃至38℃", "5℃至38℃"),
    ("冷冻薯条要炸多久？", "冷冻薯条 | 200℃ | 15至18分钟", "15至18分钟"),
    ("净水器一分钟能出多少水？", "额定净水流量：1.58升/分钟", "1.58升/分钟"),
    # working days are a span of time
    ("押金多久退回？", "押金在归还后1至3个工作日内原路退回。", "1至3个工作日"),
    # an upper limit in the manual's word ("封顶") for the user's "最多"
    ("充电宝一天最多收多少钱？", "之后每小时收费3元，不足一小时按一小时计算，每24小时封顶30元。",
     "30元"),
])
def test_the_short_answer_is_the_value_asked_in_a_users_words(question: str, sentence: str,
                                                              short: str) -> None:
    assert pick(answer_type(question), sentence, question) == short


def test_free_of_charge_asked_is_answered_by_not_charged_written() -> None:
    """"免费" asked, "不收费" written: the sentence that repeats the product's name
    ("充电宝归用户所有") does not outrank it, since the page's title names the product
    for every sentence of the page."""
    assert lead_line("共享充电宝借了多长时间内还是免费的？", [POWER_BANK]).startswith("**5分钟**")


def test_a_quantity_in_words_is_no_absent_subject() -> None:
    """"一天" is the case the page writes "每24小时": not a word the sources miss, so
    the question is answered rather than "not found"."""
    assert "30元" in lead_line("充电宝一天最多收多少钱？", [POWER_BANK])


FRYER = manual_page(3, "# 暖岚 K5 空气炸锅 使用说明\n\n## 摆放\n\n"
                    "首次使用前，请将空锅以200℃空烧10分钟，去除新机气味。\n"
                    "机器四周请各预留至少12厘米的散热空间，顶部不要放置物品。\n"
                    "## 程序\n\n"
                    "烘烤模式时间较长，但比炸制模式节省约百分之十五的电。\n"
                    "炸篮可以放入洗碗机，门体开启约8厘米。\n")


def test_by_how_much_less_is_answered_by_a_share() -> None:
    # "by how much less" is answered by a share, never by a count or another length
    assert "百分之十五" in lead_line("烘烤模式比炸制模式能省多少电？", [FRYER])


def test_where_a_part_and_its_surroundings_are_written_otherwise() -> None:
    # "旁边" is what manuals write "四周", "零件" what they write "部件", "一次" "每次"
    assert "旁边" in synonym_terms("机器四周请各预留至少12厘米的散热空间")
    assert "零件" in synonym_terms("主要部件保修5年")
    assert "一次" in synonym_terms("每次入场最多可停留2小时")



def test_clearing_a_count_is_returning_it_to_zero() -> None:
    # "清零" asked, "归零" written: one verb, either way round
    assert "清零" in synonym_terms("长按提醒键五秒，使用时间随即归零。")
    assert "归零" in synonym_terms("换过滤芯后要把计时清零")
