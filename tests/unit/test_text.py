"""deepcite.text: the one home of words, stop words, stems, sentences and CJK runs."""

from __future__ import annotations

import pytest

from deepcite.materials.lexical import lexical_tokens
from deepcite.research.report.builder import already_written
from deepcite.text import (
    OVERLAP_STOPWORDS,
    QUERY_STOPWORDS,
    SEARCH_STOPWORDS,
    SENTENCE_END,
    STOPWORDS,
    TITLE_STOPWORDS,
    content_words,
    cut_at_sentence,
    markdown_cells,
    run_pairs,
    split_sentences,
    stem,
    term,
)

CHINESE = ("自然语言处理是人工智能的一个分支。它研究计算机如何理解人类语言！"
           "机器翻译是其中最早的应用之一")
JAPANESE = ("東京は日本の首都です。人口は約千四百万人です？"
            "大阪は西日本の中心都市として知られています")


def test_a_chinese_context_is_cut_at_a_sentence_end_without_a_space() -> None:
    limit = CHINESE.index("机器翻译") + 4  # inside the third sentence
    assert cut_at_sentence(CHINESE, limit) == (
        "自然语言处理是人工智能的一个分支。它研究计算机如何理解人类语言！")
    assert cut_at_sentence(CHINESE, 10) == CHINESE[:10]  # no end in time: cut at the limit


def test_a_japanese_context_is_cut_at_a_sentence_end_without_a_space() -> None:
    limit = JAPANESE.index("大阪") + 5
    assert cut_at_sentence(JAPANESE, limit) == "東京は日本の首都です。人口は約千四百万人です？"


def test_the_next_parts_context_of_a_chinese_report_ends_between_sentences() -> None:
    parts = ["第一部分说明背景。这里是第二句。", CHINESE]
    context = already_written(parts, max_parts=2, max_chars=len(parts[0]) + 2 + 20)
    assert context.endswith("。")
    assert context == (
        "第一部分说明背景。这里是第二句。\n\n自然语言处理是人工智能的一个分支。")


def test_latin_sentence_ends_need_whitespace() -> None:
    assert [m.end() for m in SENTENCE_END.finditer("Pi is 3.14 today. Yes")] == [17]
    assert cut_at_sentence("One sentence here. Two sentences here. Three.", 40) == (
        "One sentence here. Two sentences here.")
    assert cut_at_sentence("“Quoted.” Then more words", 12) == "“Quoted.”"


def test_chinese_and_japanese_text_splits_into_sentences() -> None:
    assert split_sentences(CHINESE) == [
        "自然语言处理是人工智能的一个分支。", "它研究计算机如何理解人类语言！",
        "机器翻译是其中最早的应用之一"]
    assert split_sentences(JAPANESE)[:2] == ["東京は日本の首都です。", "人口は約千四百万人です？"]
    assert split_sentences("他说：“今天下雨。”然后走了。") == ["他说：“今天下雨。”", "然后走了。"]


@pytest.mark.parametrize("part", [QUERY_STOPWORDS, OVERLAP_STOPWORDS,
                                  SEARCH_STOPWORDS - {"andnot", "vs"},
                                  TITLE_STOPWORDS - {"via"}])
def test_every_named_stop_word_set_is_part_of_the_one_set(part: frozenset[str]) -> None:
    assert part <= STOPWORDS


def test_the_query_keeps_words_that_are_also_content() -> None:
    assert {"use", "may", "one"} <= STOPWORDS
    assert not {"use", "may", "one"} & QUERY_STOPWORDS


def test_one_stemmer_meets_inflections() -> None:
    assert stem("methods") == stem("method") == "method"
    assert stem("testing") == "test" and stem("sing") == "sing"  # four letters kept
    assert term("engines") == term("engine")
    assert term("parsing") == term("parse") == term("parses")
    assert term("became") == term("become")
    assert term("transmitting") == term("transmit")
    assert term("theme") != "them"  # a final "e" is kept where a stop word would be left


def test_content_words_keep_latin_letters_with_diacritics() -> None:
    assert content_words("Müller and São Paulo") == {"müller", "são", "paulo"}


def test_cjk_runs_are_compared_by_pairs() -> None:
    assert run_pairs("自然语言") == ["自然", "然语", "语言"]
    assert run_pairs("语") == ["语"]
    assert lexical_tokens("自然语言 and models") == {"自然", "然语", "语言", "models"}


def test_markdown_cells_keep_their_columns_whatever_the_row_is_indented_by() -> None:
    """The check reads a setting's default from the cell under its column: a row
    indented in a list item, or with an empty cell, must still line up."""
    assert markdown_cells("  | `delete_removed` | bool | `false` |") == [
        "`delete_removed`", "bool", "`false`"]
    assert markdown_cells("| E4 |  | 检查进水阀 |") == ["E4", "", "检查进水阀"]
    assert markdown_cells("no bars at all") == ["no bars at all"]
