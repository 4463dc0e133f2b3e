"""Chinese answers, twelfth pass: a row named by its code, and a manual's service line.

Invented pages: a dehumidifier's error codes, a boiler's booking page."""

from __future__ import annotations

from deepcite.citations.candidates import candidate_sentences
from deepcite.citations.grounded import grounded_answer
from deepcite.citations.sentence_ranking import rank_sentences
from deepcite.citations.table_rows import coded_rows
from deepcite.types import Source

_CODES = """# 除湿机报警代码

显示面板会在出现异常时闪烁报警代码，面板黑屏时请检查插座。

| 代码 | 含义 | 处理 |
|---|---|---|
| P1 | 水箱已满 | 倒掉水箱里的水后放回 |
| P7 | 室温过低 | 室温回升到 5℃ 以上后自动恢复 |
| H3 | 湿度传感器损坏 | 联系售后更换 |

**问：面板上的 P1 和 P7 会自己消失吗？**
答：P1 倒水后消失，P7 室温回升后消失。
"""

_BOOKING = """# 壁挂炉安装预约

购买后可拨打 400-555-0123 预约，工程师将在 36 小时内上门安装。
保修期外上门检修收取 80 元，同一故障 60 天内再次上门不收费。
"""


def _source(text: str, name: str) -> Source:
    return Source(number=1, title=text.splitlines()[0].lstrip("# "), url=f"file:///{name}",
                  canonical_url=f"file:///{name}", snippet=text[:80],
                  engine="user_material", full_text=text)


def test_a_code_in_the_question_names_its_row() -> None:
    rows = [s for s in candidate_sentences([_source(_CODES, "codes.md")]) if s.columns]
    assert coded_rows("面板跳出 P7 是什么问题？", rows) == {id(rows[1])}
    assert coded_rows("面板跳出p7是什么问题？", rows) == {id(rows[1])}  # any case
    assert coded_rows("P70 是什么问题？", rows) == set()  # a longer code
    assert coded_rows("室温过低怎么办？", rows) == set()


def test_the_coded_row_answers_a_question_in_other_words() -> None:
    # "毛病" is written nowhere and the row shares only "P7" with the question: its
    # meaning alone does not admit it, its code does
    ranked = rank_sentences("显示面板上跳出 P7 是什么毛病？", [_source(_CODES, "codes.md")])
    assert [s.text for s in ranked if s.columns] == ["P7 | 室温过低 | 室温回升到 5℃ 以上后自动恢复"]
    answer = grounded_answer("显示面板上跳出 P7 是什么毛病？", [_source(_CODES, "codes.md")])
    assert answer is not None and "室温过低" in answer.text


def test_a_manuals_number_to_call_is_quoted() -> None:
    answer = grounded_answer("预约以后工程师多久能上门？", [_source(_BOOKING, "booking.md")])
    assert answer is not None and "36 小时" in answer.text.split("\n")[0]


_MODELS = """# 空气净化器型号与保修

| 型号 | 售价 | 重量 |
|---|---|---|
| K1 | 899元 | 6千克 |
| K2 | 1299元 | 8千克 |

过了保修期的维修收费如下。

| 项目 | K1 | K2 |
|---|---|---|
| 更换滤网 | 129元 | 159元 |
| 更换风机 | 199元 | 239元 |
"""


def test_a_value_asked_of_a_model_is_not_its_spec_row() -> None:
    # "K2" labels the spec row, but "多少钱" asks a value the repair table gives: the
    # code does not lift the spec row's price above it
    answer = grounded_answer("K2 过了保修期换滤网要多少钱？", [_source(_MODELS, "models.md")])
    assert answer is not None and "159元" in answer.text.split("\n")[0]
    ranked = rank_sentences("K2 过保后换个滤网得花多少钱？", [_source(_MODELS, "models.md")])
    assert not any(s.text.startswith("K2 |") for s in ranked[:1])


_VALVE = """# 热水器水压说明

进水压力高于 0.6 兆帕时，需要在进水端加装稳压阀。
加装稳压阀 WV-3，出厂设定为 0.35 兆帕，售价 75 元。
"""


def test_money_asked_is_answered_in_money_not_the_dimension_named() -> None:
    # "水压" names a pressure, but "多少钱" asks what the valve costs
    answer = grounded_answer("水压太高，加装稳压阀要多少钱？", [_source(_VALVE, "valve.md")])
    assert answer is not None and answer.text.startswith("**75 元**")


_CLOUD = """# 摄像头云存储

云端录像默认免费保存 3 天；如需更长时间，可购买云存储服务，保存 14 天的套餐每年 88 元。
"""


def test_money_asked_by_its_noun_is_an_amount() -> None:
    from deepcite.citations.answer_type import answer_type

    assert answer_type("云存储每年要付多少费用？") == "amount"
    assert answer_type("最便宜的那一款，官方定价是多少？") == "amount"
    assert answer_type("一把锁能存多少个指纹？") == "count"
    answer = grounded_answer("想多保存一段时间的云端录像，每年要付多少费用？",
                             [_source(_CLOUD, "cloud.md")])
    assert answer is not None and answer.text.startswith("**88 元**")
