"""A document is checked in its own language: a Chinese draft's verdicts, notes, counts
and Sources block read in Chinese, the marks sit after CJK punctuation without a space,
and the values in a note are quoted as the draft and the source write them. English
drafts read as before."""

from __future__ import annotations

from typing import Any

from deepcite.factcheck import render_html, render_markdown, run_check
from deepcite.research import Researcher
from tests.fakes import ScriptedChatModel, passage

SOURCE = "共享单车的月卡售价为 25 元，每次骑行前 30 分钟免费。单车由青河出行公司运营。"
DRAFT = "# 单车笔记\n\n月卡售价 40 元。单车由青河出行公司运营。车站还提供免费的雨衣。\n"


def _check(text: str, source: str, make_settings: Any) -> Any:
    settings = make_settings(**{"citations.answer_mode": "grounded"})
    with Researcher(settings, ScriptedChatModel(), []) as researcher:
        return run_check(researcher, text, materials=[passage("说明", source)], meaning=False)


def test_a_chinese_draft_is_annotated_in_chinese(make_settings: Any) -> None:
    result = _check(DRAFT, SOURCE, make_settings)
    verdicts = {c.text: (c.verdict, c.note) for c in result.claims}
    assert verdicts["月卡售价 40 元。"] == ("contradicted", "文稿：40 元；来源 [1]：25 元")
    assert verdicts["车站还提供免费的雨衣。"] == ("not_found", "没有来源说明这一点")
    text = render_markdown(result)
    assert "月卡售价 40 元。[1]*（与来源矛盾：文稿：40 元；来源 [1]：25 元）*" in text
    assert "雨衣。*（未找到来源：没有来源说明这一点）*" in text
    assert "_共核查 3 条陈述：1 有来源支持、1 与来源矛盾、1 未找到来源。_" in text
    assert "## 来源" in text and "（来源编号：1）" in text
    for english in ("supported", "draft:", "source nr", "Sources", "claims checked"):
        assert english not in text
    page = render_html(result, DRAFT)
    assert '<html lang="zh">' in page and "核查：单车笔记" in page and "<h2>来源</h2>" in page


def test_an_english_draft_keeps_its_english_frame(make_settings: Any) -> None:
    result = _check("The monthly pass costs 40 euros.\n",
                    "The monthly pass costs 25 euros.", make_settings)
    [claim] = result.claims
    assert claim.note == "draft: 40 euros; source [1]: 25 euros"
    text = render_markdown(result)
    assert "40 euros. [1] *(contradicted: draft: 40 euros; source [1]: 25 euros)*" in text
    assert "_1 claim checked: 1 contradicted._" in text and "## Sources" in text
