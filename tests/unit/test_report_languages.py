"""A detailed report in the question's language, its parts quoting the sources first.

A Chinese question over a Chinese collection, written by a model that replies with
unsupported English prose for every part (what a small model does): the report's
generated text - contents, Summary, part titles, notes - is Chinese, its parts quote
the collection's Chinese sentences (split on 。！？), and no part opens with the model's
prose.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from deepcite.citations import cited_numbers
from deepcite.research import Researcher
from deepcite.research.report.builder import DetailedReport
from deepcite.text.frames import CHINESE, ENGLISH
from deepcite.types import ResearchResult, SearchResult
from tests.fakes import MemoryEngine, ScriptedChatModel

QUESTION = "如何配置斑马缓存的过期时间？"
PAGES = {
    "斑马缓存配置": ("斑马缓存的过期时间由 ttl 参数配置，默认保留三百秒。"
                     "修改 ttl 参数后需要重启服务！"),
    "斑马缓存示例": ("例如，把斑马缓存的 ttl 参数设为六十，条目就保留一分钟。"
                     "这个示例适用于测试环境。"),
    "斑马缓存限制": "斑马缓存的过期时间不能超过一天。超过限制的 ttl 参数会被忽略？不会报错。",
    "斑马缓存淘汰": "斑马缓存按最近最少使用的顺序淘汰条目。淘汰在写入时进行。",
}
#: A small model's reply: English, a wrong figure, a citation no source backs.
INVENTED = ("The zebra cache keeps entries for 30 seconds and expires after 2,548 items "
            "[1]. [citation: a website about caches]")


def _collection() -> list[SearchResult]:
    return [SearchResult(title=title, url=f"file:///docs/zebra-{n}.md", snippet=text,
                         engine="collection", metadata={"document_title": title})
            for n, (title, text) in enumerate(PAGES.items(), start=1)]


class _Collection(MemoryEngine):
    """A collection's search at its boundary: every page matches the question's subject
    (斑马缓存), as a collection's CJK-aware index would find them."""

    def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        self.queries.append(query)
        return _collection()[:max_results]


def _report(make_settings: Any, mode: str) -> ResearchResult:
    model = ScriptedChatModel(script={
        "questions": [""], "outline": ["I cannot help with that."], "section": [INVENTED],
        "synthesis": [INVENTED], "grounded": [INVENTED]})
    settings = make_settings(**{"iterations": 1, "questions_per_iteration": 0,
                                "max_sources": 10, "max_results": 10,
                                "citations.answer_mode": mode})
    with Researcher(settings, model, [_Collection([])]) as researcher:
        return DetailedReport(researcher).run(QUESTION)


def _parts(answer: str) -> dict[str, str]:
    pieces = re.split(r"^#{2,3} (?:[\d.]+ )?(.+)$", answer, flags=re.MULTILINE)
    return {title: text.strip() for title, text in zip(pieces[1::2], pieces[2::2],
                                                        strict=True)}


@pytest.mark.parametrize("mode", ["grounded", "abstractive"])
def test_a_chinese_question_gets_a_chinese_report_quoting_its_sources(
        make_settings: Any, mode: str) -> None:
    result = _report(make_settings, mode)
    parts = _parts(result.answer)
    assert list(parts)[:2] == [CHINESE["contents"], CHINESE["summary"]], result.answer
    for key, text in ENGLISH.items():  # no English frame line anywhere in the report
        fixed = text.strip("_").split("{")[0].strip()
        # (punctuation and abbreviations - ".", ": ", "p." - are no line of the frame)
        assert not re.search(r"[A-Za-z]{3,}", fixed) or fixed not in result.answer, (
            key, result.answer)
    titles = [entry.title for entry in result.outline]
    assert titles and all(not re.search(r"[A-Za-z]{3,}", t.replace("ttl", ""))
                          for t in titles), titles
    # a quoted sentence is cited before its own full stop: "...一分钟 [2]。"
    quoted = [q + end for q, end in
              re.findall(r"([^\s。！？：\n][^。！？：\n]*?) \[\d+\]([。！？])", result.answer)]
    sentences = {s for text in PAGES.values() for s in re.findall(r"[^。！？]+[。！？]", text)}
    assert len(quoted) >= 3 and all(q in sentences for q in quoted), (quoted, result.answer)


@pytest.mark.parametrize("mode", ["grounded", "abstractive"])
def test_no_part_opens_with_the_models_unsupported_prose(make_settings: Any,
                                                          mode: str) -> None:
    result = _report(make_settings, mode)
    written = {title: text for title, text in _parts(result.answer).items()
               if title != CHINESE["contents"]}
    assert len(written) >= 2, result.answer
    for title, text in written.items():
        first = text.split("\n\n", 1)[0]
        assert "30 seconds" not in first and "2,548" not in first, (title, result.answer)
        evidence_next = first in (CHINESE["not_answered"], CHINESE["fallback"])
        assert cited_numbers(first) or first.startswith("_") or evidence_next, \
            (title, result.answer)
        if evidence_next:  # the intro line, then the sources' own sentences, cited
            assert cited_numbers(text.split("\n\n")[1]), (title, result.answer)
    assert "[citation" not in result.answer


def test_the_examples_and_limitations_parts_are_titled_in_the_questions_language(
        make_settings: Any) -> None:
    titles = [entry.title for entry in _report(make_settings, "grounded").outline]
    assert CHINESE["part_examples"] in titles or CHINESE["part_limitations"] in titles, titles
    assert ENGLISH["part_examples"] not in titles and ENGLISH["part_limitations"] not in titles
