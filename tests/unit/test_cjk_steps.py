"""A Chinese how-to question ("怎么清零", "怎么挂失") is answered by the step a person
takes - a key pressed, a number dialled, an app signed in to - not by the sentence
that says when or why it is needed, though that one repeats more of the question."""

from __future__ import annotations

import pytest

from deepcite.citations.intent import Intent, gives, question_intent
from tests.unit.manual_pages import lead_line, manual_page

HUMIDIFIER = manual_page(4, "# 清风 R2 加湿器 使用说明\n\n## 滤网提醒\n\n"
                         "滤网提醒灯亮起时，说明滤网的使用时间已满六个月。\n"
                         "换上新滤网后，长按电源键五秒，计时归零。\n")
CARD = manual_page(5, "# 青禾 市民卡 常见问题\n\n## 卡片丢失\n\n"
                   "市民卡挂失是指暂停卡片的支付功能，防止他人盗刷。\n"
                   "发现卡片丢失后，立即拨打服务电话办理临时止付。\n")


@pytest.mark.parametrize("sentence", [
    "长按电源键五秒，计时归零。", "在首页点击“我的卡片”。", "拨打服务电话办理临时止付。",
    "登录小程序后选择挂失。"])
def test_a_step_with_the_hands_or_a_phone_is_an_instruction(sentence: str) -> None:
    assert gives(Intent.HOWTO, sentence)


def test_a_when_or_what_sentence_is_no_instruction() -> None:
    assert not gives(Intent.HOWTO, "滤网提醒灯亮起时，说明滤网已到期。")
    assert question_intent("滤网提醒怎么清零？") is Intent.HOWTO


def test_how_to_clear_is_answered_by_the_key_to_press() -> None:
    assert lead_line("滤网提醒怎么清零？", [HUMIDIFIER]).startswith("换上新滤网后，长按电源键五秒")


def test_how_to_report_a_loss_is_answered_by_the_number_to_dial() -> None:
    assert lead_line("市民卡丢失了第一时间该怎么挂失？", [CARD]).startswith("发现卡片丢失后")
