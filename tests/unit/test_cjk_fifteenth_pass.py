"""Chinese answers, fifteenth pass: a word the question spreads out, a question of how a
charge is made, and a how-to whose key word no page writes.

Invented pages: a swimming pool's price list, a car park's rules, a gym's notices."""

from __future__ import annotations

from deepcite.citations.answer_type import answer_type
from deepcite.citations.cjk_spread import spread_words
from deepcite.citations.grounded import grounded_answer
from deepcite.citations.injection import addressed_to_reader
from deepcite.citations.intent import Intent, question_intent
from deepcite.collections.index.query import build_match_query
from deepcite.types import Source

_POOL = """# 游泳馆价目表

| 卡种 | 价格 | 说明 |
|---|---|---|
| 次卡 | 45 元/次 | 当日有效 |
| 月卡 | 260 元/月 | 每日限入场一次 |
| 年卡 | 1980 元/年 | 可暂停一次 |

储物柜押金为 30 元，归还手环时退还。
游泳帽须自备，前台也可购买，每顶 15 元。
"""

_PARKING = """# 停车场收费规则

车辆入场后 30 分钟内离场不收费。
超出 30 分钟后，按每小时 6 元收取停车费，全天最多收取 60 元。
请在出口处扫描二维码缴费，或在自助机上用现金缴费。
月租车位请到管理处办理，需携带行驶证。
"""

_GYM = """# 健身房会员须知

## 会员卡

会员卡遗失后，请携带身份证到前台办理补卡，补卡工本费 15 元。
会员卡仅限本人使用，不得转借他人。

## 器械

器械故障时，请按器械上的红色按钮呼叫教练。
使用跑步机前，请先系好安全夹。
"""


def _source(text: str, name: str) -> Source:
    return Source(number=1, title=text.splitlines()[0].lstrip("# "), url=f"file:///{name}",
                  canonical_url=f"file:///{name}", snippet=text[:80],
                  engine="user_material", full_text=text)


def _lead(answer_text: str) -> str:
    return answer_text.strip().split("\n")[0]


# 1. a word the question spreads out ("一整年的卡" for the page's 年卡)

def test_a_spread_out_word_finds_the_row_that_names_it() -> None:
    answer = grounded_answer("游泳馆办一整年的卡要多少钱？", [_source(_POOL, "pool.md")])
    assert answer is not None
    assert "1980 元" in _lead(answer.text)
    assert answer_type("游泳馆办一整年的卡要多少钱？") == "amount"


def test_only_a_short_stretch_of_the_sources_own_words_counts() -> None:
    texts = ["年卡 | 1980 元/年", "储物柜押金为 30 元"]
    assert spread_words("办一整年的卡多少钱", texts) == ["年卡"]
    assert spread_words("办年卡多少钱", texts) == []  # said whole: an exact match
    assert spread_words("年初办的那张会员卡多少钱", texts) == []  # too far apart
    # a function character or numeral in the word is no evidence
    assert spread_words("一年的卡", ["一卡 | 通用"]) == []


def test_the_search_looks_for_the_pair_across_the_particle() -> None:
    query = build_match_query("游泳馆办一整年的卡要多少钱？")
    assert query is not None and '"年卡"' in query


# 2. how a charge is made asks its price or rate

def test_how_it_charges_is_a_money_question() -> None:
    for question in ("超出半小时以后怎么收钱？", "停车怎么收费？", "这里是怎么计费的？"):
        assert answer_type(question) == "amount", question
    # what the payer does is still a how-to
    assert answer_type("停车费怎么交费？") == "other"
    assert question_intent("停车费怎么交费？") is Intent.HOWTO


def test_the_rate_leads_the_answer_not_the_payment_steps() -> None:
    answer = grounded_answer("车停久了，超出半小时以后怎么收钱？",
                             [_source(_PARKING, "parking.md")])
    assert answer is not None
    lead = _lead(answer.text)
    assert "6 元" in lead and "扫描二维码" not in lead


# 3. a how-to whose key word no page writes

def test_a_howto_with_its_key_word_unwritten_gets_the_step() -> None:
    # "偷" is written nowhere and "补办" only as "补卡"
    answer = grounded_answer("会员卡被偷了怎么补办？", [_source(_GYM, "gym.md")])
    assert answer is not None
    assert _lead(answer.text).startswith("会员卡遗失后，请携带身份证到前台办理补卡")


def test_a_step_that_shares_only_the_subject_is_no_answer() -> None:
    # the treadmill's safety clip is no fix for a slipping belt: nothing is better
    assert grounded_answer("跑步机皮带打滑了怎么处理？", [_source(_GYM, "gym.md")]) is None


def test_a_lost_item_said_in_everyday_words_finds_the_formal_one() -> None:
    answer = grounded_answer("会员卡弄丢了该怎么补？", [_source(_GYM, "gym.md")])
    assert answer is not None and _lead(answer.text).startswith("会员卡遗失后")


def test_a_service_line_whose_consequence_freezes_a_balance_is_quoted() -> None:
    assert not addressed_to_reader(
        "卡片遗失后，请尽早拨打服务热线 400-800-1234 办理挂失，挂失后卡内余额将被冻结。")
    # a lure in the call's own clause still is one
    assert addressed_to_reader("拨打 400-800-1234 挂失即可解冻账户。")
    # and so is one before the call: it says why to call
    assert addressed_to_reader("您的账户异常，请立即拨打 400-800-1234 咨询。")
    assert addressed_to_reader("账户异常，请拨打 400-800-1234 咨询。")
