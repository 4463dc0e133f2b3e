"""The Watches pages with user accounts: a user creates, lists, runs, pauses, resumes and
deletes their own watches and reads each run's change in the inbox; another user's watch
is answered exactly as one that does not exist; every post needs its CSRF token; what a
question or a source says is shown as text; a bad schedule is refused on the form.

The real app over TestClient, a real SQLite store, runs really run (a scripted model),
users logged in through the login form. The scheduler's part (storing a run's change
once it has ended) is :meth:`WatchService.finish_ended`, called here as a tick would.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from deepcite.collections import Collection
from deepcite.config import Settings
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore
from deepcite.store.watch_records import utc_minute
from deepcite.watches.service import WatchService
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.pages.watches import NOT_FOUND
from tests.unit.conftest import NotesSite
from tests.unit.web_forms import csrf_token

PASSWORD = "correct horse battery"
UNKNOWN = "0123456789abcdef0123456789abcdef"
HTML_TITLE = "<img src=x onerror=alert(1)> Expiry notes"
HTML_QUESTION = "Where is the <script>alert('cache')</script> kept?"


@dataclass
class Site:
    app: Any
    store: HistoryStore
    executor: LocalRunExecutor
    settings: Settings
    notes: Path

    def logged_in(self, name: str) -> TestClient:
        browser = TestClient(self.app, follow_redirects=False)
        reply = browser.post("/login", data={"csrf_token": _csrf(browser, "/login"),
                                             "name": name, "password": PASSWORD,
                                             "next": "/watches"})
        assert reply.status_code == 303, reply.text[:300]
        return browser

    def finish_runs(self) -> None:
        """Wait for every run to end, then store the watch runs' changes (a tick)."""
        deadline = time.monotonic() + 60
        while any(run.status in ("queued", "running") for run in self.store.list(limit=50)):
            assert time.monotonic() < deadline, "the runs did not end"
            time.sleep(0.05)
        WatchService(self.store, self.settings, self.executor).finish_ended()


@pytest.fixture
def site(notes_site: NotesSite) -> Site:
    """The shared site with accounts: an admin, alice and bob, ``notes`` shared with all."""
    store = notes_site.store
    store.add_user("root", PASSWORD, admin=True)
    for name in ("alice", "bob"):
        store.add_user(name, PASSWORD)
    store.share_collection("notes", everyone=True)
    app = create_app(WebState(settings=notes_site.settings, executor=notes_site.executor))
    return Site(app, store, notes_site.executor, notes_site.settings, notes_site.notes)


_csrf = csrf_token


def _create(browser: TestClient, **fields: Any) -> Any:
    form = {"csrf_token": _csrf(browser, "/watches"), "question": "Where is the cache kept?",
            "mode": "quick", "schedule": "every 6h", "collections": ["notes"], **fields}
    return browser.post("/watches", data=form)


def _watch_id(reply: Any) -> str:
    """The id of the watch the form made: its page is the answer to the post (the feed
    address and webhook secret are shown there, once)."""
    assert reply.status_code == 201, reply.text[:500]
    assert "The watch was created" in reply.text
    match = re.search(r'action="/watches/([0-9a-f]{32})/run"', reply.text)
    assert match, reply.text[:500]
    return match.group(1)


def _main(page: str) -> str:
    return page.split("<main", 1)[1].split("</main>", 1)[0]


# ------------------------------------------------------------------ the owner


def test_a_user_creates_runs_and_reads_the_changes_of_a_watch(site: Site) -> None:
    alice = site.logged_in("alice")
    watch_id = _watch_id(_create(alice, webhooks="https://hooks.example/a"))
    watch = site.store.watch(watch_id)
    assert watch.owner_id == site.store.user("alice").id
    assert watch.request["origin"] == "web" and watch.schedule == "every 6h"
    assert watch.targets == [{"kind": "webhook", "url": "https://hooks.example/a"}]

    listed = alice.get("/watches")
    assert listed.status_code == 200 and f'href="/watches/{watch_id}"' in listed.text
    assert "every 6h" in listed.text and "not run yet" in listed.text
    page = alice.get(f"/watches/{watch_id}?done=created")
    assert "The watch was created" in page.text and "No runs yet" in page.text
    assert "webhook https://hooks.example/a" in page.text

    token = _csrf(alice, f"/watches/{watch_id}")
    started = alice.post(f"/watches/{watch_id}/run", data={"csrf_token": token})
    assert started.headers["location"] == f"/watches/{watch_id}?done=started"
    assert "running" in _main(alice.get(f"/watches/{watch_id}").text)
    site.finish_runs()
    first = alice.get(f"/watches/{watch_id}").text
    assert "First run: 1 source" in first and "/reports/" in first

    # a document arrives: the next run names it as new, its HTML title as text
    (site.notes / "expiry.md").write_text(f"# {HTML_TITLE}\n\nThe cache expiry is one "
                                          "hour, kept in Redis.", encoding="utf-8")
    Collection.named("notes", settings=site.settings).add(site.notes)
    back = alice.post(f"/watches/{watch_id}/run",
                      data={"csrf_token": token, "back": "list"})
    assert back.headers["location"] == "/watches?done=started"
    site.finish_runs()
    inbox = alice.get(f"/watches/{watch_id}").text
    assert "1 new source" in inbox and "New sources (1)" in inbox
    assert "&lt;img src=x onerror=alert(1)&gt; Expiry notes" in inbox
    assert "<img src=x" not in inbox
    assert "/compare?a=" in inbox
    assert "1 new source" in alice.get("/watches").text  # the list's last change

    # nothing changed since: one line
    alice.post(f"/watches/{watch_id}/run", data={"csrf_token": token})
    site.finish_runs()
    assert "Nothing new since" in alice.get(f"/watches/{watch_id}").text
    assert len(site.store.deliveries(watch_id)) == 3  # one per run to the webhook

    paused = alice.post(f"/watches/{watch_id}/pause", data={"csrf_token": token})
    assert paused.status_code == 303 and site.store.watch(watch_id).status == "paused"
    assert "paused" in _main(alice.get("/watches").text)
    alice.post(f"/watches/{watch_id}/resume", data={"csrf_token": token})
    assert site.store.watch(watch_id).status == "active"

    feed = alice.post(f"/watches/{watch_id}/feed", data={"csrf_token": token})
    assert feed.status_code == 200
    match = re.search(r'<code id="feed-url">https?://[^/]+(/feeds/watches/dcf_[^<]+\.atom)'
                      r"</code>", feed.text)
    assert match, feed.text[-2000:]
    atom = TestClient(site.app).get(match.group(1))
    assert atom.status_code == 200 and "Nothing new since" in atom.text
    # the feed's page is the watch's own, not the app's front page
    assert re.search(rf'rel="alternate" type="text/html" href="https?://[^/"]+/watches/'
                     rf'{watch_id}"', atom.text), atom.text[:800]

    gone = alice.post(f"/watches/{watch_id}/delete", data={"csrf_token": token})
    assert gone.headers["location"] == "/watches?done=deleted"
    assert "No watches yet" in alice.get("/watches").text
    assert [entry.action for entry in site.store.audit_log()
            if entry.action.startswith("watch.")] in (["watch.delete", "watch.add"],
                                                      ["watch.add", "watch.delete"])


def test_a_run_that_ended_reads_as_ended_at_once_dated_by_its_end(site: Site) -> None:
    """The inbox asks the run itself whether it has ended: between its end and the
    scheduler's next tick (which stores the change) it reads as ended, not "Running",
    and the card keeps the run's own end as its date once the change is stored."""
    alice = site.logged_in("alice")
    watch_id = _watch_id(_create(alice))
    token = _csrf(alice, f"/watches/{watch_id}")
    alice.post(f"/watches/{watch_id}/run", data={"csrf_token": token})
    (watch_run,) = site.store.watch_runs(watch_id)
    assert watch_run.run_id is not None
    deadline = time.monotonic() + 60
    while site.store.run_state(watch_run.run_id).status in ("queued", "running"):
        assert time.monotonic() < deadline, "the run did not end"
        time.sleep(0.05)
    ended = site.store.run_state(watch_run.run_id)
    assert ended.status == "completed" and ended.finished_at is not None
    assert site.store.watch_runs(watch_id)[0].status == "running"  # no tick yet

    card = _main(alice.get(f"/watches/{watch_id}").text).split('class="inbox"', 1)[1]
    assert "Running" not in card and "follow the run" not in card
    assert "<h3>Completed</h3>" in card and "next check" in card
    assert f"/reports/{watch_run.run_id}" in card
    assert utc_minute(ended.finished_at) in card

    time.sleep(0.05)  # the tick comes later than the run's end
    WatchService(site.store, site.settings, site.executor).finish_ended()
    done = site.store.watch_runs(watch_id)[0]
    assert done.status == "done" and done.finished_at == ended.finished_at
    card = _main(alice.get(f"/watches/{watch_id}").text).split('class="inbox"', 1)[1]
    assert "First run: 1 source" in card and utc_minute(ended.finished_at) in card


def test_a_slot_its_budget_refused_reads_not_run_and_which_budget(site: Site) -> None:
    alice = site.logged_in("alice")
    watch_id = _watch_id(_create(alice, schedule="every 1h"))
    token = _csrf(alice, f"/watches/{watch_id}")
    alice.post(f"/watches/{watch_id}/run", data={"csrf_token": token})
    site.finish_runs()
    site.store.update_watch(watch_id, max_runs_per_day=1)
    due = datetime.now(UTC) + timedelta(minutes=1)
    site.store.update_watch(watch_id, next_run_at=due)
    WatchService(site.store, site.settings, site.executor).submit_due(due)
    inbox = _main(alice.get(f"/watches/{watch_id}").text)
    assert "<h3>Not run</h3>" in inbox
    assert "has run 1 times in 24 hours, its limit (1 a day)" in inbox
    assert "First run: 1 source" in inbox  # the real run is still there, below


# ------------------------------------------------------------------ isolation


def test_another_users_watch_is_as_missing_as_one_that_never_was(site: Site) -> None:
    alice, bob = site.logged_in("alice"), site.logged_in("bob")
    hers = _watch_id(_create(alice, question="Which cache does Alice use?"))
    assert "Which cache does Alice use?" not in bob.get("/watches").text

    theirs, missing = bob.get(f"/watches/{hers}"), bob.get(f"/watches/{UNKNOWN}")
    assert theirs.status_code == missing.status_code == 404
    assert _main(theirs.text) == _main(missing.text) and NOT_FOUND in theirs.text
    assert bob.get(f"/watches/{hers[:8]}").status_code == 404  # no prefix guessing
    token = _csrf(bob, "/watches")
    for action in ("run", "pause", "resume", "delete", "feed"):
        for ref in (hers, UNKNOWN):
            reply = bob.post(f"/watches/{ref}/{action}", data={"csrf_token": token})
            assert reply.status_code == 404, (action, reply.text[:300])
            assert "Which cache does Alice use?" not in reply.text
    watch = site.store.watch(hers)
    assert watch.status == "active" and site.store.watch_runs(hers) == []

    admin = site.logged_in("root").get("/watches").text
    assert "Which cache does Alice use?" in admin and "(alice)" in admin


# ------------------------------------------------------------------ CSRF


def test_every_watch_post_needs_its_csrf_token(site: Site) -> None:
    alice = site.logged_in("alice")
    watch_id = _watch_id(_create(alice))
    refused = alice.post("/watches", data={"question": "Another?", "schedule": "every 1h",
                                           "collections": ["notes"]})
    assert refused.status_code == 403
    for action in ("run", "pause", "delete", "feed"):
        reply = alice.post(f"/watches/{watch_id}/{action}",
                           data={"csrf_token": "forged"})
        assert reply.status_code == 403, action
    assert [w.id for w in site.store.watches()] == [watch_id]
    assert site.store.watch(watch_id).status == "active"
    assert site.store.watch_runs(watch_id) == []


# ------------------------------------------------------------------ escaping, bad input


def test_a_question_with_html_is_shown_as_text(site: Site) -> None:
    alice = site.logged_in("alice")
    watch_id = _watch_id(_create(alice, question=HTML_QUESTION, name=""))
    for path in ("/watches", f"/watches/{watch_id}"):
        page = alice.get(path).text
        assert "<script>alert" not in page, path
        assert "&lt;script&gt;alert(&#39;cache&#39;)&lt;/script&gt;" in page, path


def test_a_bad_schedule_is_refused_on_the_form_with_what_was_typed(site: Site) -> None:
    alice = site.logged_in("alice")
    reply = _create(alice, question="Is the <cache> warm?", schedule="hourly",
                    emails="me@example.org")
    assert reply.status_code == 400
    problems = re.findall(r"<li>(.*?)</li>", reply.text.split('role="alert"', 1)[1]
                          .split("</div>", 1)[0])
    assert len(problems) == 1 and problems[0].startswith("Schedule &#39;hourly&#39; is "
                                                         "not understood; accepted:")
    assert ">Is the &lt;cache&gt; warm?</textarea>" in reply.text
    assert 'name="schedule" maxlength="200" required placeholder="every 6h" ' \
           'value="hourly"' in reply.text
    assert 'value="me@example.org"' in reply.text
    assert 'value="notes" checked' in reply.text
    assert site.store.watches() == []

    target = _create(alice, webhooks="ftp://nope")
    assert target.status_code == 400 and "webhook URL starts with https://" in target.text
    assert site.store.watches() == []
