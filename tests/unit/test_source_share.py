"""Every source's fair share of the model's prompt: floor, ceiling, water-filling, said cuts.

One long page must not take the room of every other source, and many sources must not
leave each too little to cite; whatever does not fit, the prompt says so.
"""

from __future__ import annotations

import re

from deepcite.citations.answer import MIN_CHARS_PER_SOURCE, build_prompt
from deepcite.citations.numbering import SourceNumbering
from deepcite.citations.share import (
    CEILING_CHARS,
    FLOOR_CHARS,
    cut_text,
    fair_limits,
    share_texts,
)
from deepcite.types import SearchResult, Source

SYSTEM = "x" * 480


def _sources(texts: list[str]) -> list[Source]:
    return SourceNumbering().add_many(
        [SearchResult(title=f"Doc {i}", url=f"https://example.org/{i}", snippet=text,
                      engine="duckduckgo") for i, text in enumerate(texts, start=1)])


def _shown(prompt: str) -> dict[int, str]:
    """The text of each fenced source in ``prompt``, by number."""
    return {int(m.group(1)): m.group(2) for m in
            re.finditer(r'<source id="(\d+)"[^>]*>\n(.*?)\n</source>', prompt, re.DOTALL)}


def _words(count: int, tag: str) -> str:
    return " ".join(f"{tag}{i}" for i in range(count))


def test_ten_sources_with_one_huge_one_share_fairly() -> None:
    short = [_words(40, f"s{n}w") for n in range(9)]  # ~250 characters each
    huge = _words(20_000, "huge")  # ~150,000 characters
    sources = _sources([*short, huge])
    budget = 7_000
    prompt = build_prompt("What do the documents say?", sources, budget,
                          system_chars=len(SYSTEM))
    shown = _shown(prompt)
    assert sorted(shown) == list(range(1, 11))
    for number in range(1, 10):  # the short ones whole
        assert shown[number] == short[number - 1]
    # The huge one gets what the short ones left, far above an equal split ...
    assert len(shown[10]) > budget // 10 * 3
    assert len(shown[10]) <= CEILING_CHARS and shown[10].endswith("[truncated]")
    assert len(prompt) + len(SYSTEM) <= budget  # ... and the whole prompt fits
    assert "1 of 10 sources were cut to fit" in prompt
    left_out = len(huge) - len(shown[10].removesuffix(" [truncated]"))
    assert f"{left_out:,} characters of source text were left out" in prompt


def test_a_large_budget_still_caps_each_source_at_the_ceiling() -> None:
    sources = _sources([_words(20_000, "a"), _words(20_000, "b"), "short text"])
    prompt = build_prompt("Q?", sources, 500_000)
    shown = _shown(prompt)
    assert all(len(text) <= CEILING_CHARS for text in shown.values())
    assert len(shown[1]) > CEILING_CHARS - 40 and shown[3] == "short text"
    assert "2 of 3 sources were cut to fit" in prompt


def test_many_sources_each_get_the_floor_or_are_left_out_and_said() -> None:
    sources = _sources([_words(400, f"d{n}w") for n in range(40)])
    budget = 6_000
    prompt = build_prompt("Q?", sources, budget, system_chars=len(SYSTEM))
    shown = _shown(prompt)
    assert len(prompt) + len(SYSTEM) <= budget
    assert all(len(text) >= MIN_CHARS_PER_SOURCE - 20 for text in shown.values())
    assert sorted(shown) == list(range(1, len(shown) + 1))  # the best (first) are kept
    assert 1 < len(shown) < 40
    assert f"{40 - len(shown)} of 40 sources did not fit and are not shown" in prompt


def test_a_prompt_that_fits_says_nothing_was_cut() -> None:
    prompt = build_prompt("Q?", _sources(["one passage", "another passage"]), 6_000)
    assert "[truncated]" not in prompt and "Note:" not in prompt


def test_water_filling_gives_what_short_sources_leave_to_long_ones() -> None:
    limits = fair_limits([100, 100, 5_000, 9_000], 3_000, floor=FLOOR_CHARS, ceiling=4_000)
    assert limits[:2] == [100, 100]  # short ones whole
    assert limits[2] == limits[3] == 1_400  # the rest split evenly between the long ones
    assert sum(limits) <= 3_000


def test_floors_that_do_not_fit_leave_out_the_last_sources() -> None:
    limits = fair_limits([1_000] * 10, 1_000, floor=200, ceiling=4_000,
                         overheads=[50] * 10)
    assert len(limits) == 4 and all(limit >= 200 for limit in limits)
    assert sum(limits) + 4 * 50 <= 1_000


def test_cut_text_marks_the_cut_and_handles_text_without_spaces() -> None:
    cut = cut_text("量子计算" * 500, 300)
    assert len(cut) <= 300 and cut.endswith(" [truncated]") and cut.startswith("量子计算")
    assert len(cut) > 250  # no word boundary in Chinese: cut where the limit is
    spaced = cut_text("alpha beta gamma delta " * 50, 100)
    assert len(spaced) <= 100 and spaced.removesuffix(" [truncated]").endswith(
        ("alpha", "beta", "gamma", "delta"))


def test_share_counts_what_was_left_out() -> None:
    share = share_texts(["a" * 10_000, "b" * 50], 1_000, floor=200, ceiling=None)
    assert share.texts[1] == "b" * 50 and len(share.texts[0]) <= 950
    assert share.cut == 1 and share.left_out == 0
    assert share.chars_left_out == 10_000 - len(share.texts[0].removesuffix(" [truncated]"))


def test_chinese_text_is_weighed_by_its_tokens_not_its_characters() -> None:
    english, chinese = "word " * 2000, "储能电池的价格持续下降。" * 800
    share = share_texts([english, chinese], 6000, ceiling=None)
    shown_en, shown_zh = share.texts
    # the same share of the budget: about a third of the characters for Chinese
    assert len(shown_zh) < len(shown_en) / 2
    assert shown_zh.endswith("[truncated]") and shown_en.endswith("[truncated]")
