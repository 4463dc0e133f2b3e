"""The "Check a document" page: the form in the navigation, a pasted document or an
uploaded file checked as the caller's run, the run page counting claims, and the
report page showing the document with each claim marked by verdict - every piece of
it escaped, its evidence tied to the claim for keyboard and screen readers, its sources
opening in the in-app viewer - to its owner only.

A real app, store and executor with accounts; the model is faked at its boundary and
says nothing (a check decides without it)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import deepcite.runs.build
from deepcite.config import Settings, load_settings
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore
from deepcite.types import ClaimVerdict, ResearchResult
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.pages.checks import annotated_document
from tests.fakes import ScriptedChatModel
from tests.unit.web_forms import csrf_token

PASSWORD = "correct horse battery"
DRAFT = ("We keep the cache in Redis with a one hour expiry. "
         "The team meets on Fridays to plan the sprint. "
         "<script>alert('draft')</script> The office roof holds twelve beehives.")


class Site:
    def __init__(self, settings: Settings) -> None:
        self.store = HistoryStore.open(settings)
        self.executor = LocalRunExecutor(settings, workers=1, store=self.store)
        self.app = create_app(WebState(settings=settings, executor=self.executor))
        for name in ("alice", "bob"):
            self.store.add_user(name, PASSWORD)
        self.store.share_collection("notes", everyone=True)

    def logged_in(self, name: str) -> TestClient:
        browser = TestClient(self.app, follow_redirects=False)
        reply = browser.post("/login", data={"csrf_token": _csrf(browser, "/login"),
                                             "name": name, "password": PASSWORD,
                                             "next": "/check"})
        assert reply.status_code == 303, reply.text[:300]
        return browser

    def ended(self, run_id: str) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.executor.status(run_id).state not in ("queued", "running"):
                return
            time.sleep(0.05)
        raise AssertionError(f"check {run_id} never ended")


@pytest.fixture
def site(notes: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model",
                        lambda settings: ScriptedChatModel())
    made = Site(load_settings({"research.iterations": 1}))
    try:
        yield made
    finally:
        made.executor.shutdown()
        made.store.close()


_csrf = csrf_token


def _submit(browser: TestClient, **fields: object) -> str:
    reply = browser.post("/check", data={"csrf_token": _csrf(browser, "/check"),
                                         "collections": "notes", **fields})
    assert reply.status_code == 303, reply.text[:500]
    location = reply.headers["location"]
    assert location.startswith("/runs/")
    return location.removeprefix("/runs/")


def test_a_pasted_document_is_checked_and_shown_annotated(site: Site) -> None:
    alice = site.logged_in("alice")
    form = alice.get("/check")
    assert form.status_code == 200
    assert '<a href="/check" aria-current="page">Check</a>' in form.text
    assert 'name="collections" value="notes"' in form.text
    run_id = _submit(alice, text=DRAFT, title="Planning <notes>")
    site.ended(run_id)
    run_page = alice.get(f"/runs/{run_id}")
    assert run_page.status_code == 303  # completed: the report
    report = alice.get(f"/reports/{run_id}")
    assert report.status_code == 200
    page = report.text
    assert "Check: Planning &lt;notes&gt;" in page and "Planning <notes>" not in page
    assert "<script>alert('draft')</script>" not in page
    assert "&lt;script&gt;alert(&#39;draft&#39;)&lt;/script&gt;" in page
    claims = re.findall(r'<span class="claim claim-(\w+)" id="claim-(\d+)"><mark tabindex="0" '
                        r'aria-describedby="claim-evidence-(\d+)">', page)
    assert claims, page[:2000]
    assert all(number == described for _, number, described in claims)
    assert "supported" in [verdict for verdict, _, _ in claims]
    assert re.search(r'href="/runs/[0-9a-f]+/sources/1"', page)  # the in-app viewer
    assert "Supported: <strong>" in page
    stored = site.store.get(run_id)
    assert stored.mode == "check" and stored.request is not None
    assert stored.request["origin"] == "web" and stored.request["owner"]["name"] == "alice"


def test_an_uploaded_file_is_checked(site: Site) -> None:
    alice = site.logged_in("alice")
    reply = alice.post("/check", data={"csrf_token": _csrf(alice, "/check"),
                                       "collections": "notes"},
                       files={"file": ("draft.md", DRAFT.encode("utf-8"), "text/markdown")})
    assert reply.status_code == 303, reply.text[:500]
    run_id = reply.headers["location"].removeprefix("/runs/")
    site.ended(run_id)
    assert site.store.get(run_id).result.question == "Check: draft.md"


def test_problems_are_shown_on_the_form_and_nothing_runs(site: Site) -> None:
    alice = site.logged_in("alice")
    empty = alice.post("/check", data={"csrf_token": _csrf(alice, "/check"), "text": "  "})
    assert empty.status_code == 400
    assert "Paste the document&#39;s text or upload its file" in empty.text
    unknown = alice.post("/check", data={"csrf_token": _csrf(alice, "/check"),
                                         "text": DRAFT, "collections": "nowhere"})
    assert unknown.status_code == 400 and "nowhere" in unknown.text
    assert DRAFT.split(".")[0] in unknown.text  # what was pasted is kept
    assert site.store.list() == []


def test_another_user_sees_no_check_of_alices(site: Site) -> None:
    alice, bob = site.logged_in("alice"), site.logged_in("bob")
    run_id = _submit(alice, text=DRAFT)
    site.ended(run_id)
    for path in (f"/reports/{run_id}", f"/runs/{run_id}/sources/1"):
        theirs = bob.get(path)
        assert theirs.status_code in (303, 404)
        assert "Redis" not in theirs.text
    assert bob.get(f"/reports/{run_id}").status_code == 404


def test_claims_that_do_not_fit_the_document_are_left_unmarked() -> None:
    document = "Alpha is one. Beta is two."
    claims = [ClaimVerdict(number=1, text="Alpha is one.", start=0, end=13,
                           verdict="supported"),
              ClaimVerdict(number=2, text="overlapping", start=5, end=20, verdict="not_found"),
              ClaimVerdict(number=3, text="beyond", start=20, end=99, verdict="not_found")]
    result = ResearchResult(question="q", answer="", strategy="", handler="", mode="check",
                            claims=claims)
    html = str(annotated_document(document, claims, result, "/runs/x/sources/"))
    assert html.count("<mark") == 1 and "Beta is two." in html


def test_the_notice_says_whether_a_model_judged_claims() -> None:
    from deepcite.types import RunMetrics
    from deepcite.web.pages.reports import model_notice

    claims = [ClaimVerdict(number=1, text="Alpha is one.", start=0, end=13,
                           verdict="supported")]
    checked = ResearchResult(question="q", answer="", strategy="", handler="", mode="check",
                             claims=claims)
    assert str(model_notice(checked, {})).startswith("No model judged these claims")
    judged = checked.model_copy(update={"metrics": RunMetrics(model_calls=1,
                                                              model="llama3.2 (Ollama)")})
    assert "judged by llama3.2 (Ollama)" in str(model_notice(judged, {}))


def test_two_checks_compare_verdict_by_verdict(site: Site) -> None:
    alice = site.logged_in("alice")
    first = _submit(alice, text=DRAFT)
    site.ended(first)
    edited = DRAFT.replace("Fridays", "Tuesdays").replace("one hour", "<i>two</i> hours")
    second = _submit(alice, text=edited, previous=first)
    site.ended(second)
    assert site.store.get(second).parent_id == first
    page = alice.get(f"/compare?a={first}&b={second}")
    assert page.status_code == 200
    assert "<h2>Verdicts</h2>" in page.text
    assert "&lt;i&gt;two&lt;/i&gt; hours" in page.text and "<i>two</i>" not in page.text
    assert "not in A" in page.text and "not in B" in page.text  # claims changed between versions


def test_the_annotated_document_downloads_for_its_owner_only(site: Site) -> None:
    alice, bob = site.logged_in("alice"), site.logged_in("bob")
    run_id = _submit(alice, text=DRAFT, title="Planning notes")
    site.ended(run_id)
    assert f'href="/reports/{run_id}/annotated.docx"' in alice.get(f"/reports/{run_id}").text
    html = alice.get(f"/reports/{run_id}/annotated.html")
    assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
    assert "Planning%20notes.checked.html" in html.headers["content-disposition"]
    assert "<script>alert('draft')</script>" not in html.text  # the draft's markup is text
    assert "file://" not in html.text and "collection:notes/" in html.text  # no server path
    docx = alice.get(f"/reports/{run_id}/annotated.docx")
    assert docx.status_code == 200 and docx.content.startswith(b"PK")
    markdown = alice.get(f"/reports/{run_id}/annotated.md")
    assert markdown.status_code == 200 and "## Sources" in markdown.text
    assert alice.get(f"/reports/{run_id}/annotated.exe").status_code == 404
    theirs = bob.get(f"/reports/{run_id}/annotated.html")
    assert theirs.status_code == 404 and "Redis" not in theirs.text
