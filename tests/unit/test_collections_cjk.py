"""Chinese, Japanese and Korean: character-pair indexing, queries and chunk sizes."""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

import pytest

from deepcite.collections import Collection
from deepcite.collections.chunking import TokenCounter, chunk_text
from deepcite.collections.index.cjk import bigram_text, has_cjk, query_atoms, run_tokens
from deepcite.collections.index.query import build_match_query

ZH = """# 自然语言处理

自然语言处理是人工智能的一个重要分支。研究人员使用统计方法和神经网络来分析文本。

## 机器翻译

机器翻译可以把中文翻译成英文。我们今天讨论深度学习模型。
"""

JA = """# 日本の旅行

京都には古いお寺がたくさんあります。秋になると紅葉がとても綺麗です。

## 食べ物

大阪の人はたこ焼きが大好きです。東京タワーの近くで寿司を食べました。
"""


@pytest.fixture
def cjk_collection(make_settings: Any, tmp_path: Path) -> Collection:
    folder = tmp_path / "cjk"
    folder.mkdir()
    (folder / "zh.md").write_text(ZH, encoding="utf-8")
    (folder / "ja.md").write_text(JA, encoding="utf-8")
    (folder / "ko.txt").write_text("한국어를 배우는 것은 재미있습니다.\n", encoding="utf-8")
    (folder / "en.md").write_text("# English\n\nStatistics and neural networks.\n")
    collection = Collection.create("cjk", settings=make_settings())
    collection.add(folder)
    return collection


def test_bigram_helpers() -> None:
    assert run_tokens("自然语言") == ["自然", "然语", "语言", "言"]
    assert run_tokens("猫") == ["猫"]
    assert bigram_text("Title 東京", None, "abc 自然。語") == "東京 京 自然 然 語"
    assert bigram_text("only ascii", "") is None
    assert has_cjk("カタカナ") and has_cjk("한국어") and not has_cjk("café — “quoted”")
    assert query_atoms("自然语言") == ['"自然"', '"然语"', '"语言"']
    assert query_atoms("猫") == ['"猫"*']


def test_query_mixes_words_and_character_pairs() -> None:
    # "用" stands alone once "怎么" is cut: a one-character word, searched as a prefix
    assert build_match_query("Python 的 asyncio 怎么用？") == (
        '"python" OR "asyncio" OR "怎么" OR "么用" OR "用"*')
    assert build_match_query("的 は") is None  # lone particles are dropped


@pytest.mark.parametrize(("query", "title"), [
    ("翻译", "自然语言处理"),        # a 2-character word inside a sentence
    ("深度学习", "自然语言处理"),
    ("神经网络", "自然语言处理"),
    ("紅葉", "日本の旅行"),
    ("たこ焼き", "日本の旅行"),
    ("東京タワーはどこですか", "日本の旅行"),
    ("한국어", "ko"),               # Hangul words with particles attached
])
def test_cjk_words_inside_sentences_are_found(
    cjk_collection: Collection, query: str, title: str
) -> None:
    results = cjk_collection.search(query)
    assert results, query
    assert results[0].title == title


def test_cjk_hits_keep_exact_offsets_and_headings(cjk_collection: Collection) -> None:
    hit = cjk_collection.search("机器翻译")[0]
    assert hit.metadata["heading_path"] == ["自然语言处理", "机器翻译"]
    text = ZH
    assert text[hit.metadata["start"]:hit.metadata["end"]] == hit.snippet
    assert "机器翻译可以把中文翻译成英文" in hit.snippet


def test_single_character_query_uses_prefix(cjk_collection: Collection) -> None:
    assert cjk_collection.search("寿")[0].title == "日本の旅行"
    assert cjk_collection.search("语")[0].title == "自然语言处理"  # last char of a pair


def test_latin_queries_are_unaffected(cjk_collection: Collection) -> None:
    assert [r.title for r in cjk_collection.search("neural networks")] == ["English"]


def test_token_counter_counts_cjk_characters_as_tokens() -> None:
    text = "abcd 自然语言 efgh"
    count = TokenCounter(text)
    assert count.tokens(0, len(text)) == 4 + (len(text) - 4) / 4
    assert count.tokens(5, 9) == 4
    rng = random.Random(5)
    for _ in range(200):
        a = rng.randrange(len(text) + 1)
        b = rng.randrange(a, len(text) + 1)
        cjk = sum(1 for ch in text[a:b] if has_cjk(ch))
        assert count.tokens(a, b) == cjk + (b - a - cjk) / 4
        budget = rng.uniform(0.5, 6)
        stop = count.fit(a, len(text), budget) if a < len(text) else None
        if stop is not None and stop > a + 1:
            assert count.tokens(a, stop) <= budget
            assert stop == len(text) or count.tokens(a, stop + 1) > budget


def _cjk_text(rng: random.Random) -> str:
    han = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动"
    paragraphs = []
    for _ in range(rng.randint(1, 12)):
        if rng.random() < 0.15:
            paragraphs.append("## " + "".join(rng.choice(han) for _ in range(4)))
            continue
        sentences = []
        for _ in range(rng.randint(1, 30)):
            sentence = "".join(rng.choice(han) for _ in range(rng.randint(3, 40)))
            if rng.random() < 0.2:
                sentence += " Python 3.12 "
            sentences.append(sentence + rng.choice("。！？，"))
        paragraphs.append("".join(sentences))
    return "\n\n".join(paragraphs)


@pytest.mark.parametrize("seed", range(25))
def test_cjk_chunks_are_exact_slices_within_the_token_target(seed: int) -> None:
    text = _cjk_text(random.Random(seed))
    count = TokenCounter(text)
    chunks = chunk_text(text, target_tokens=60, overlap_tokens=10)
    for chunk in chunks:
        assert text[chunk.start:chunk.end] == chunk.text
        assert count.tokens(chunk.start, chunk.end) <= 60 + 1
    covered = set()
    for chunk in chunks:
        covered.update(range(chunk.start, chunk.end))
    assert all(text[i].isspace() for i in range(len(text)) if i not in covered)


def test_cjk_chunks_break_after_sentence_ends_and_overlap() -> None:
    sentence = "统计方法很好。"  # 7 characters, 7 tokens
    text = sentence * 40
    chunks = chunk_text(text, target_tokens=50, overlap_tokens=10)
    assert len(chunks) >= 6
    for first, second in itertools.pairwise(chunks):
        assert first.text.endswith("。")
        assert 0 < first.end - second.start <= 10  # overlap starts at a sentence
        assert text[second.start - 1] == "。"


def test_a_question_in_everyday_words_finds_the_page_in_formal_ones(
        make_settings: Any, tmp_path: Path) -> None:
    # "客服" asked, "服务热线" written: no character pair shared, found by its synonyms
    folder = tmp_path / "manual"
    folder.mkdir()
    (folder / "service.md").write_text(
        "# 售后\n\n服务热线全年无休，每天8:30至20:30提供人工服务。\n", encoding="utf-8")
    (folder / "power.md").write_text("# 参数\n\n日耗电量：0.88千瓦时。\n", encoding="utf-8")
    (folder / "care.md").write_text("# 保养\n\n门封条每月用温水擦拭一次。\n", encoding="utf-8")
    collection = Collection.create("manual", settings=make_settings())
    collection.add(folder)
    assert [r.title for r in collection.search("客服晚上几点下班？")][:1] == ["售后"]
    assert [r.title for r in collection.search("一天大概用几度电？")][:1] == ["参数"]
    # the question's own pairs come first: synonyms never push them past the cut
    assert build_match_query("客服几点下班").startswith('"客服" OR "服几" OR "几点"')
