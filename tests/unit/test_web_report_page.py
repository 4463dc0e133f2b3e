"""The report page as a workspace: citations to the viewer, linked contents, notices,
duration and queries, "Run again" and the compare page."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from deepcite.config import Settings
from deepcite.store import HistoryStore
from deepcite.types import ResearchResult, RunMetrics
from deepcite.web.pages.reports import BUNDLED_NOTICE
from tests.unit.test_web_pages import FakeExecutor, _client, _csrf, _result, _submit


@pytest.fixture
def settings(make_settings: Any) -> Settings:
    value: Settings = make_settings()
    return value


@pytest.fixture
def executor(settings: Settings) -> FakeExecutor:
    return FakeExecutor(settings)


@pytest.fixture
def client(settings: Settings, executor: FakeExecutor) -> TestClient:
    return _client(settings, executor)


def _run_id(client: TestClient, **fields: Any) -> str:
    return str(_submit(client, **fields).headers["location"].rsplit("/", 1)[1])


def test_citations_and_sources_link_to_the_viewer(client: TestClient) -> None:
    run_id = _run_id(client)
    text = client.get(f"/reports/{run_id}").text
    assert f'href="/runs/{run_id}/sources/1" class="cite" data-evidence="1"' in text
    assert f'<a class="source-view" href="/runs/{run_id}/sources/2">passage</a>' in text
    assert f'href="/runs/{run_id}/sources/1">Passage and file</a>' in text
    assert "file://" not in text


def test_contents_link_to_sections(make_settings: Any) -> None:
    from deepcite.web.pages._views import report_body

    body = ("## Contents\n\n- Summary\n- 1. Heat <b>\n    - 1.1 Sub\n\n## Summary\n\nS.\n\n"
            "## 1. Heat <b>\n\n### 1.1 Sub\n\nX.")
    result = ResearchResult(question="q", answer=body, mode="detailed", strategy="s",
                            handler="h")
    html = report_body(result, {}, make_settings(), "abc")
    assert '<a href="#summary">Summary</a>' in html and '<a href="#11-sub">1.1 Sub</a>' in html
    assert re.search(r'<a href="#1-heat-[^"]*">1\. Heat &lt;b&gt;</a>', html)
    assert "<b>" not in html


def test_bundled_notice_duration_and_queries(settings: Settings,
                                             executor: FakeExecutor) -> None:
    local = settings.model_copy(update={"llm": settings.llm.model_copy(
        update={"provider": "local"})})
    result = _result("Why?").model_copy(update={
        "metrics": RunMetrics(wall_seconds=12.34, model_calls=1),
        "questions_by_iteration": {1: ["boiling <point>", "water"]}})
    with HistoryStore.open(settings) as store:
        run_id = store.begin("Why?", mode="quick", settings=local)
        store.finish(run_id, result)
    text = _client(settings, executor).get(f"/reports/{run_id}").text
    assert BUNDLED_NOTICE in text
    # one duration as the history counts it (submitted to finished), and the research's
    assert re.search(r"<dd>\d+\.\d s from submitting to the answer · 12\.3 s researching</dd>",
                     text)
    assert "boiling &lt;point&gt; · water" in text


def test_run_again_submits_the_stored_request(client: TestClient,
                                              executor: FakeExecutor) -> None:
    run_id = _run_id(client, question="How hot is <i>boiling</i> water?")
    page = client.get(f"/reports/{run_id}").text
    assert f'action="/reports/{run_id}/rerun"' in page
    assert client.post(f"/reports/{run_id}/rerun", data={}).status_code == 403
    reply = client.post(f"/reports/{run_id}/rerun", data={"csrf_token": _csrf(client)})
    assert reply.status_code == 303 and reply.headers["location"].startswith("/runs/")
    assert executor.requests[-1].question == "How hot is <i>boiling</i> water?"
    assert len(executor.requests) == 2
    new_id = reply.headers["location"].rsplit("/", 1)[1]
    report = client.get(f"/reports/{new_id}").text
    assert f'<option value="{run_id}">' in report  # compare with the first run
    compare = client.get(f"/compare?a={run_id}&b={new_id}")
    assert compare.status_code == 200
    assert "Kept (2)" in compare.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in compare.text
    assert "<script>alert(1)" not in compare.text


def test_compare_unknown_is_404(client: TestClient) -> None:
    assert client.get("/compare?a=ffff&b=eeee").status_code == 404
    assert client.get("/compare").status_code == 404


@pytest.mark.parametrize(("question", "labels", "absent"), [
    ("水的沸点是多少<b>度</b>？",
     ["<h2>来源</h2>", ">段落与文件</a>", ">打开来源</a>", ">来源条目</a>", "<dt>来源</dt>"],
     ["Passage and file", "Open source"]),
    ("캐시는 얼마나 유지됩니까?", ["<h2>출처</h2>", ">구절과 파일</a>", ">출처 열기</a>"],
     ["Passage and file"]),
    ("How hot is <b>boiling</b> water?", ["<h2>Sources</h2>", ">Passage and file</a>",
                                         ">Open source</a>", "<dt>Sources</dt>"], ["来源"]),
])
def test_the_labels_around_an_answer_are_in_its_question_language(
        client: TestClient, question: str, labels: list[str], absent: list[str]) -> None:
    first = _run_id(client, question=question)
    second = _run_id(client, question=question)
    report = client.get(f"/reports/{first}").text
    compare = client.get(f"/compare?a={first}&b={second}").text
    history = client.get("/history").text
    for label in labels:
        assert label in report, label
    for label in absent:
        assert label not in report, label
    sources = labels[0]  # the Sources heading, in the same language on every page
    assert sources in compare and f"<th>{sources[4:-5]}</th>" in compare
    assert f'data-label="{sources[4:-5]}"' in history
    # the question and the titles stay text, whatever the language
    assert "<b>" not in report and "<script>alert(1)" not in report + compare + history


def test_a_document_cited_under_several_numbers_opens_in_the_viewer(
        settings: Settings, executor: FakeExecutor) -> None:
    from deepcite.types import Source

    def passage(number: int, url: str, title: str) -> Source:
        return Source(number=number, title=title, url=url, canonical_url=url,
                      snippet=f"passage {number}", engine="collection",
                      metadata={"collection": "demo", "path": url.rsplit("/", 1)[1]})

    manual = "file:///srv/data/demo-src/module-csv.txt"
    result = ResearchResult(
        question="How do I read a CSV file?", strategy="s", handler="h",
        answer="Use csv.reader [1]. It splits rows [3]. Or pandas [2].",
        sources=[passage(1, manual, "csv manual"), passage(2, "file:///srv/data/pd.txt",
                                                           "pandas notes"),
                 passage(3, manual, "csv manual")])
    with HistoryStore.open(settings) as store:
        run_id = store.begin(result.question, mode="quick", settings=settings)
        store.finish(run_id, result)
    page = _client(settings, executor).get(f"/reports/{run_id}").text
    start = page.index('<section class="sources"')
    sources = page[start:page.index("</section>", start)]
    assert f'<a class="source-title" href="/runs/{run_id}/sources/1">csv manual</a>' in sources
    assert f'<a class="source-title" href="/runs/{run_id}/sources/2">pandas notes</a>' in sources
    assert sources.count("csv manual") == 1
    assert "/srv/data" not in page  # the server's paths stay on the server
    assert "demo · module-csv.txt" in sources


@pytest.mark.parametrize(("model", "calls", "settings_llm", "said"), [
    ("SmolLM2-135M-Instruct.Q4_1.gguf (in-process llama.cpp)", 1, {"provider": "auto"},
     "Written by the bundled 135M model: check the citations (SmolLM2-135M-Instruct"),
    ("llama3.2 (Ollama)", 2, {"provider": "auto"}, "Written by llama3.2 (Ollama)"),
    ("llama3.2 (Ollama)", 0, {"provider": "auto"}, "No model wrote this answer"),
])
def test_the_report_names_what_answered_and_what_was_searched(
        settings: Settings, executor: FakeExecutor, model: str, calls: int,
        settings_llm: dict[str, str], said: str) -> None:
    run_settings = settings.model_copy(update={
        "llm": settings.llm.model_copy(update=settings_llm),
        "search": settings.search.model_copy(update={"collections": ["demo", "notes"],
                                                     "engines": []})})
    result = _result("Why?").model_copy(update={
        "metrics": RunMetrics(model_calls=calls, model=model)})
    with HistoryStore.open(settings) as store:
        run_id = store.begin("Why?", mode="quick", settings=run_settings)
        store.finish(run_id, result)
    page = _client(settings, executor).get(f"/reports/{run_id}").text
    assert said in page
    assert "unless a local Ollama model answered" not in page
    assert "Searched: collections demo, notes" in page
    compare = _client(settings, executor).get(f"/compare?a={run_id}&b={run_id}").text
    assert f"<td>{model}</td>" in compare  # not the configured "auto"
