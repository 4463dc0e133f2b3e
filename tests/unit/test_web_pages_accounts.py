"""The pages about runs with user accounts: each user sees, changes and starts only their
own runs; admins see everyone's, with owners; without any user nothing changes.

A real app (``create_app``) over a real history store - SQLite and PostgreSQL for the
main isolation test - with users logged in through the login form. The executor below
is the only fake: it records what reaches it and writes runs to that store as the real
ones do (owner and parent check included), so nothing is researched.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from deepcite.config import Settings
from deepcite.runs import EventBatch, RunInfo, RunRequest
from deepcite.runs.parents import checked_parent
from deepcite.store import ACTIVE, HistoryStore, UserInfo
from deepcite.store.user_rights import EVERYTHING, Access
from deepcite.types import ResearchResult
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.page_forms import last_collections
from tests.unit.web_forms import csrf_token

PASSWORD = "correct horse battery"
MISSING = "f" * 32


def _result(question: str) -> ResearchResult:
    return ResearchResult(question=question, answer=f"The answer to {question}",
                          strategy="standard", handler="standard")


class Executor:
    """Just enough of a RunExecutor over a real store: a submitted run is checked (its
    parent, with the request's access) and stored as its owner's, finished at once."""

    def __init__(self, store: HistoryStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.requests: list[RunRequest] = []
        self.cancelled: list[str] = []
        self.asked: list[str] = []  # every id status() or events() was asked about

    def submit(self, request: RunRequest) -> str:
        request, _ = checked_parent(self.store, request)
        self.requests.append(request)
        run_id = self.store.begin(request.question, mode=request.mode,
                                  settings=self.settings, parent_id=request.parent_id,
                                  request=request.stored(), owner_id=request.owner_id)
        self.store.finish(run_id, _result(request.question))
        return run_id

    def cancel(self, run_id: str) -> bool:
        self.cancelled.append(run_id)
        return True

    def status(self, run_id: str) -> RunInfo:
        self.asked.append(run_id)
        stored = self.store.get(run_id)
        return RunInfo(id=stored.id, question=stored.result.question, mode=stored.mode,
                       state=stored.status, created_at=stored.created_at)

    def events(self, run_id: str, after: int = 0, timeout: float = 0.0) -> EventBatch:
        self.asked.append(run_id)
        return EventBatch([], finished=self.store.get(run_id).status not in ACTIVE)

    def drain(self) -> None:
        pass

    def shutdown(self) -> None:
        pass


class Site:
    """One server: the store, the executor, its app, and a browser per user."""

    def __init__(self, store: HistoryStore, settings: Settings) -> None:
        self.store = store
        self.executor = Executor(store, settings)
        self.app = create_app(WebState(settings=settings, executor=self.executor))

    def browser(self) -> TestClient:
        return TestClient(self.app, follow_redirects=False)

    def logged_in(self, name: str) -> TestClient:
        browser = self.browser()
        reply = browser.post("/login", data={"csrf_token": _csrf(browser, "/login"),
                                             "name": name, "password": PASSWORD,
                                             "next": "/history"})
        assert reply.status_code == 303, reply.text[:300]
        return browser

    def run(self, question: str, owner: UserInfo | None, *, finished: bool = True,
            settings: Settings | None = None) -> str:
        run_id = self.store.begin(question, mode="quick",
                                  settings=settings or self.executor.settings,
                                  owner_id=owner.id if owner else None)
        if finished:
            self.store.finish(run_id, _result(question))
        return run_id


@pytest.fixture
def site(store_url: str, make_settings: Any) -> Iterator[Site]:
    with HistoryStore.from_url(store_url) as store:
        yield Site(store, make_settings())


_csrf = csrf_token


def _users(store: HistoryStore) -> tuple[UserInfo, UserInfo, UserInfo]:
    return (store.add_user("alice", PASSWORD), store.add_user("bob", PASSWORD),
            store.add_user("root", PASSWORD, admin=True))


def _listed(page: str) -> str:
    """The history's table of runs (not the trash, the filters or the menu)."""
    return page.split('<table class="runs">', 1)[1].split("</table>", 1)[0] \
        if '<table class="runs">' in page else ""


def _trash(page: str) -> str:
    """The history's "Recently deleted" section (``""`` when it shows none)."""
    if '<section class="trash"' not in page:
        return ""
    return page.split('<section class="trash"', 1)[1].split("</section>", 1)[0]


def _message(page: str, run_id: str) -> str:
    """What a page's <main> says, with ``run_id`` written as ``ID``."""
    main = page.split("<main", 1)[1].split("</main>", 1)[0] if "<main" in page else page
    return main.replace(run_id, "ID")


# ------------------------------------------------------------------ isolation


def test_another_users_run_is_as_missing_as_one_that_never_was(site: Site) -> None:
    alice, bob, _ = _users(site.store)
    hers = site.run("Why is the sky blue?", alice)
    live = site.run("Is it still running?", alice, finished=False)
    his = site.run("Why is the sky blue?", bob)  # the same question: a compare choice
    as_alice, as_bob = site.logged_in("alice"), site.logged_in("bob")

    history = _listed(as_alice.get("/history").text)
    assert "Why is the sky blue?" in history and hers in history and his not in history
    bobs = _listed(as_bob.get("/history").text)
    assert his in bobs and hers not in bobs and live not in bobs
    assert "Owner" not in as_alice.get("/history").text  # owners are an admin's matter

    # every page about her run answers bob as a missing run does
    for path in ("/reports/{}", "/history/{}/delete"):
        theirs, missing = as_bob.get(path.format(hers)), as_bob.get(path.format(MISSING))
        assert theirs.status_code == missing.status_code == 404, path
        assert _message(theirs.text, hers) == _message(missing.text, MISSING)
        assert "Why is the sky blue?" not in theirs.text
    for ref in (live, hers):
        page = as_bob.get(f"/runs/{ref}", follow_redirects=True)
        assert page.status_code == 404 and "Is it still running?" not in page.text
    assert live not in site.executor.asked  # the executor was never asked about it
    assert as_bob.get(f"/compare?a={his}&b={hers}").status_code == 404
    assert as_bob.get(f"/api/v1/research/{hers}/export/markdown").status_code == 404
    report = as_bob.get(f"/reports/{his}")  # "Compare with..." never offers hers
    assert report.status_code == 200 and hers not in report.text

    token = _csrf(as_bob, "/history")
    for path in (f"/history/{hers}/delete", f"/runs/{live}/cancel",
                 f"/reports/{hers}/rerun"):
        reply = as_bob.post(path, data={"csrf_token": token})
        assert reply.status_code == 404, path
    follow_up = as_bob.post("/", data={"csrf_token": token, "question": "And at night?",
                                       "mode": "quick", "parent_id": hers})
    assert follow_up.status_code == 400 and "No run" in follow_up.text
    assert site.executor.cancelled == [] and site.executor.requests == []
    assert site.store.get(hers).result.question == "Why is the sky blue?"
    assert site.store.get(live).status == "running"
    assert hers in _listed(as_alice.get("/history").text)
    assert site.store.audit_log(action="run.delete") == []

    # her own run: she may open, delete and restore it; bob may not restore it
    assert as_alice.get(f"/reports/{hers}").status_code == 200
    mine = _csrf(as_alice, "/history")
    assert as_alice.post(f"/history/{hers}/delete",
                         data={"csrf_token": mine}).status_code == 303
    assert "Why is the sky blue?" in _trash(as_alice.get("/history").text)
    assert _trash(as_bob.get("/history").text) == ""  # hers is not in his
    assert as_bob.post(f"/history/{hers}/restore",
                       data={"csrf_token": token}).status_code == 404
    assert as_alice.post(f"/history/{hers}/restore",
                         data={"csrf_token": mine}).status_code == 303
    assert hers in _listed(as_alice.get("/history").text)


def test_an_admin_sees_every_run_with_its_owner(site: Site) -> None:
    alice, bob, _ = _users(site.store)
    hers, his = site.run("Alice asks", alice), site.run("Bob asks", bob)
    as_root = site.logged_in("root")
    page = as_root.get("/history").text
    assert "<th>Owner</th>" in page
    listed = _listed(page)
    assert hers in listed and his in listed
    rows = {row.split("</tr>")[0] for row in listed.split("<tr>")[1:]}
    assert any("Alice asks" in row and ">alice<" in row for row in rows)
    assert any("Bob asks" in row and ">bob<" in row for row in rows)
    assert as_root.get(f"/reports/{hers}").status_code == 200
    assert as_root.get(f"/compare?a={hers}&b={his}").status_code == 200
    assert as_root.get(f"/api/v1/research/{his}/export/markdown").status_code == 200
    # what the admin deletes is in the audit log under their name
    token = _csrf(as_root, "/history")
    assert as_root.post(f"/history/{his}/delete", data={"csrf_token": token},
).status_code == 303
    [entry] = site.store.audit_log(action="run.delete")
    assert (entry.actor, entry.target) == ("root", his)
    assert "<th>Owner</th>" not in site.logged_in("bob").get("/history").text


def test_runs_started_from_the_pages_belong_to_who_started_them(site: Site) -> None:
    alice, bob, _ = _users(site.store)
    as_alice = site.logged_in("alice")
    token = _csrf(as_alice, "/")
    reply = as_alice.post("/", data={"csrf_token": token, "question": "Alice's question?",
                                     "mode": "quick"})
    assert reply.status_code == 303
    new = reply.headers["location"].rsplit("/", 1)[1]
    [summary] = site.store.list(access=Access(user_id=alice.id, name="alice"))
    assert (summary.id, summary.owner, summary.origin) == (new, "alice", "web")
    assert site.store.list(access=Access(user_id=bob.id, name="bob")) == []

    # a follow-up of her own run and "Run again" are hers too
    follow = as_alice.post("/", data={"csrf_token": token, "question": "And then?",
                                      "mode": "quick", "parent_id": new})
    assert follow.status_code == 303
    again = as_alice.post(f"/reports/{new}/rerun", data={"csrf_token": token})
    assert again.status_code == 303
    owners = [request.owner.name if request.owner else None
              for request in site.executor.requests]
    assert owners == ["alice"] * 3
    assert site.executor.requests[1].parent_id == new
    assert {run.owner for run in site.store.list()} == {"alice"}


def test_the_form_remembers_only_the_callers_own_collections(site: Site,
                                                             make_settings: Any) -> None:
    alice, bob, root = _users(site.store)
    site.run("Hers", alice, settings=make_settings(**{"search.collections": ["hers"]}))
    site.run("His, newer", bob, settings=make_settings(**{"search.collections": ["his"]}))
    assert last_collections(site.store, Access(user_id=alice.id, name="alice")) == ["hers"]
    assert last_collections(site.store, Access(user_id=bob.id, name="bob")) == ["his"]
    # an admin sees every run, but what they last used is their own: nothing yet
    assert last_collections(site.store, Access(user_id=root.id, admin=True)) == []
    assert last_collections(site.store, EVERYTHING) == ["his"]  # no accounts: the newest


def test_without_users_the_pages_need_no_login_and_show_every_run(site: Site) -> None:
    first, second = site.run("First?", None), site.run("Second?", None)
    browser = site.browser()
    page = browser.get("/history")
    assert page.status_code == 200 and "Owner" not in page.text
    assert first in _listed(page.text) and second in _listed(page.text)
    assert browser.get(f"/reports/{first}").status_code == 200
    assert browser.get(f"/compare?a={first}&b={second}").status_code == 200
    token = _csrf(browser, "/")
    reply = browser.post("/", data={"csrf_token": token, "question": "Third?",
                                    "mode": "quick"})
    assert reply.status_code == 303
    assert site.executor.requests[0].owner is None
    assert browser.post(f"/history/{first}/delete",
                        data={"csrf_token": token}).status_code == 303
    [entry] = site.store.audit_log(action="run.delete")
    assert (entry.actor, entry.target) == (None, first)
