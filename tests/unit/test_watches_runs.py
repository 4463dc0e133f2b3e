"""Watches end to end: real runs over a collection whose files change between runs,
the change each run stores, the one-line "nothing new", budgets, and the scheduler
with a recording sender.

The chat model is scripted (it writes one fixed sentence per source it is shown, so a
claim is the same sentence from run to run); everything else is real: the collection
index, the research, the citation checks, the SQLite history, the in-process executor.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import deepcite.runs.build
from deepcite.collections import Collection
from deepcite.config import Settings
from deepcite.errors import BudgetError, DeliveryError, InputError
from deepcite.runs import RunRequest
from deepcite.runs.local import LocalRunExecutor
from deepcite.runs.request import RunOwner
from deepcite.store import HistoryStore
from deepcite.watches.changes import WatchChange
from deepcite.watches.channels import DeliveryTarget
from deepcite.watches.delivery import WebhookTarget
from deepcite.watches.notice import Notice
from deepcite.watches.scheduler import WatchScheduler, deliver_due
from deepcite.watches.service import WatchService
from tests.fakes import ScriptedChatModel

QUESTION = "How are tea and coffee made?"
GREEN = "Green tea is steamed or pan-fired soon after picking, which stops oxidation."
COFFEE = "Coffee cherries are picked, the beans are dried, and roasting turns them brown."
BLACK = "Black tea leaves are rolled and fully oxidised before they are dried."
CLAIMS = {"Green tea": "Green tea is steamed or pan-fired soon after picking",
          "Coffee": "Coffee cherries are picked and the beans are dried and roasted",
          "Black tea": "Black tea leaves are rolled and fully oxidised before drying"}


def one_claim_per_source(prompt: str) -> str:
    """The same sentence for the same document, run after run, citing its number."""
    sentences = []
    for number, text in re.findall(r'<source id="(\d+)"[^>]*>(.*?)</source>', prompt, re.S):
        for key, claim in CLAIMS.items():
            if key in text:
                sentences.append(f"{claim} [{number}].")
                break
    return " ".join(sentences) or "Nothing."


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "green.txt").write_text(GREEN, encoding="utf-8")
    (folder / "coffee.txt").write_text(COFFEE, encoding="utf-8")
    return folder


@pytest.fixture
def settings(make_settings: Any, notes: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    made: Settings = make_settings(**{"research.iterations": 1})
    Collection.create("notes", settings=made).add(notes)
    model = ScriptedChatModel(script={"questions": [""], "synthesis": [one_claim_per_source]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    return made


@pytest.fixture
def store(settings: Settings) -> Iterator[HistoryStore]:
    with HistoryStore.open(settings) as opened:
        yield opened


def request() -> RunRequest:
    return RunRequest(question=QUESTION, collections=["notes"], origin="cli")


def reindex(settings: Settings, notes: Path) -> None:
    Collection.named("notes", settings=settings).add(notes)


def test_a_watch_reports_a_new_document_and_a_claim_that_lost_support(
        store: HistoryStore, settings: Settings, notes: Path) -> None:
    service = WatchService(store, settings)
    watch, token = service.add(request(), "every 6h", targets=[
        WebhookTarget(url="https://hooks.example/watch")])
    assert token.startswith("dcf_") and store.watch_for_feed_token(token) == store.watch(
        watch.id)

    first = service.run_here(watch.id)
    assert first.status == "done" and first.summary is not None
    assert first.summary.startswith("First run: 2 sources")

    (notes / "black.txt").write_text(BLACK, encoding="utf-8")  # a new document
    (notes / "green.txt").write_text(  # the green tea claim loses its ground
        "Green tea is a drink people like in the morning, often with lemon.",
        encoding="utf-8")
    reindex(settings, notes)
    second = service.run_here(watch.id)

    change = service.change_of(second)
    assert change is not None and change.previous_run_id == first.run_id
    assert [s.url.rsplit("/", 1)[-1] for s in change.new_sources] == ["black.txt"]
    assert change.vanished_sources == []
    assert [c.sentence for c in change.new_claims] == [CLAIMS['Black tea']]
    worse = [c.sentence for c in change.lost_support + change.weakened_claims]
    assert worse == [CLAIMS['Green tea']]
    assert change.dropped_claims == []
    # the kept sources are mapped from the previous numbers to the new ones
    assert {k.url.rsplit("/", 1)[-1] for k in change.kept_sources} == {"green.txt",
                                                                       "coffee.txt"}
    assert second.summary is not None and "1 new source" in second.summary
    assert "1 new claim" in second.summary
    assert second.changes_markdown is not None
    assert "## New sources" in second.changes_markdown
    assert "black.txt" in second.changes_markdown

    third = service.run_here(watch.id)  # nothing changed since
    assert third.nothing_new and third.summary is not None
    assert third.summary.startswith("Nothing new since ") and "\n" not in third.summary
    # one notice per run per target, in the outbox; the nothing-new one says so
    outbox = store.deliveries(watch.id)
    assert [d.status for d in outbox] == ["pending"] * 3
    assert Notice.model_validate(outbox[0].notice).nothing_new is True
    assert Notice.model_validate(outbox[0].notice).summary == third.summary


def test_budgets_refuse_with_one_line(store: HistoryStore, settings: Settings,
                                      make_settings: Any) -> None:
    service = WatchService(store, settings)
    watch, _ = service.add(request(), "on demand", max_runs_per_day=1)
    service.run_here(watch.id)
    with pytest.raises(BudgetError, match=r"limit \(1 a day\)") as refused:
        service.run_here(watch.id)
    assert "\n" not in str(refused.value)

    owner = store.add_user("ann", "correct horse battery")
    store.set_collection_owner("notes", owner.id)  # hers to search
    strict = make_settings(**{"watches.max_watches_per_owner": 1,
                              "watches.max_runs_per_owner_per_day": 1})
    owned = WatchService(store, strict)
    mine = request().asked_by("api", RunOwner(id=owner.id, name="ann"))
    first, _ = owned.add(mine, "every 1h")
    with pytest.raises(BudgetError, match="max_watches_per_owner"):
        owned.add(mine, "every 2h")
    owned.run_here(first.id)
    with pytest.raises(BudgetError, match="max_runs_per_owner_per_day"):
        owned.run_here(first.id)


def test_bad_watches_are_refused_at_add(store: HistoryStore, settings: Settings) -> None:
    service = WatchService(store, settings)
    with pytest.raises(InputError, match="accepted: 'every 30m'"):
        service.add(request(), "hourly")
    with pytest.raises(InputError, match="collection"):
        service.add(RunRequest(question=QUESTION, collections=["nowhere"]), "every 1h")
    with pytest.raises(InputError, match="Delivery target"):
        service.add(request(), "every 1h", targets=[{"kind": "webhook", "url": "ftp://x"}])


class Recording:
    def __init__(self, fail: int = 0) -> None:
        self.sent: list[tuple[DeliveryTarget, Notice, tuple[str, bytes] | None]] = []
        self.fail = fail

    def send(self, target: DeliveryTarget, notice: Notice, *,
             attachment: tuple[str, bytes] | None) -> None:
        if self.fail:
            self.fail -= 1
            raise DeliveryError("the hook answered 503", retryable=True, status=503)
        self.sent.append((target, notice, attachment))


def test_the_scheduler_runs_due_watches_finishes_them_and_delivers(
        store: HistoryStore, settings: Settings) -> None:
    executor = LocalRunExecutor(settings, workers=1, store=store)
    try:
        service = WatchService(store, settings, executor)
        watch, _ = service.add(request(), "every 1h", targets=[
            {"kind": "webhook", "url": "https://hooks.example/a"},
            {"kind": "email", "to": ["ann@example.org"], "attach": "markdown"}])
        hooks, mails = Recording(fail=1), Recording()
        scheduler = WatchScheduler(service, senders={"webhook": hooks, "email": mails},
                                   tick_seconds=0.2)
        # long missed (everything was down): due once, not once per missed slot
        store.update_watch(watch.id, next_run_at=datetime.now(UTC) - timedelta(hours=30))
        scheduler.start()
        try:
            deadline = time.monotonic() + 60
            while not mails.sent and time.monotonic() < deadline:
                time.sleep(0.1)
        finally:
            scheduler.stop()
        runs = store.watch_runs(watch.id)
        assert len(runs) == 1 and runs[0].status == "done" and runs[0].trigger == "schedule"
        again = store.watch(watch.id)
        assert again.next_run_at is not None and again.next_run_at > datetime.now(UTC)
        [(_target, notice, attachment)] = mails.sent
        assert notice.run_id == runs[0].run_id and notice.summary == runs[0].summary
        assert attachment is not None and attachment[0].endswith(".md")
        assert hooks.sent == []  # failed once: pending again, after a backoff
        [hook] = [d for d in store.deliveries(watch.id) if d.kind == "webhook"]
        assert (hook.status, hook.attempts, hook.last_error) == (
            "pending", 1, "the hook answered 503")
        later = datetime.now(UTC) + timedelta(minutes=2)
        assert deliver_due(store, settings, {"webhook": hooks}, later) == [(hook.id, "sent")]
        assert len(hooks.sent) == 1
    finally:
        executor.shutdown()


def test_a_delivery_fails_for_good_after_its_attempts(store: HistoryStore,
                                                      make_settings: Any,
                                                      settings: Settings) -> None:
    few = make_settings(**{"delivery.max_attempts": 2})
    service = WatchService(store, few)
    watch, _ = service.add(request(), "on demand",
                           targets=[{"kind": "webhook", "url": "https://hooks.example/a"}])
    service.run_here(watch.id)
    broken = Recording(fail=10)
    moment = datetime.now(UTC)
    assert [s for _, s in deliver_due(store, few, {"webhook": broken}, moment)] == ["pending"]
    moment += timedelta(hours=1)
    assert [s for _, s in deliver_due(store, few, {"webhook": broken}, moment)] == ["failed"]
    assert deliver_due(store, few, {"webhook": broken}, moment + timedelta(days=1)) == []


def test_a_change_round_trips_as_stored(store: HistoryStore, settings: Settings) -> None:
    service = WatchService(store, settings)
    watch, _ = service.add(request(), "on demand")
    service.run_here(watch.id)
    done = service.run_here(watch.id)
    assert done.change is not None
    assert WatchChange.model_validate(done.change).nothing_new == done.nothing_new is True


@pytest.mark.enable_socket  # a real webhook receiver on loopback
def test_a_webhook_gets_the_notice_signed_with_the_watchs_secret(
        store: HistoryStore, settings: Settings) -> None:
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from deepcite.watches.delivery import verify_signature
    from deepcite.watches.scheduler import default_senders

    got: list[tuple[bytes, dict[str, str]]] = []

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            got.append((body, dict(self.headers.items())))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    allowed = settings.model_copy(update={"delivery": settings.delivery.model_copy(
        update={"webhook_allow_private_hosts": ("127.0.0.1",)})})
    try:
        service = WatchService(store, allowed)
        url = f"http://127.0.0.1:{httpd.server_address[1]}/hook"
        watch, _ = service.add(request(), "every 6h", targets=[WebhookTarget(url=url)])
        service.run_here(watch.id)
        done = deliver_due(store, allowed, default_senders(allowed, store))
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert [status for _, status in done] == ["sent"]
    (body, headers), = got
    secret = store.webhook_secret(watch.id)
    assert secret and verify_signature(secret, body, headers)
    assert not verify_signature("another secret", body, headers)
    assert json.loads(body)["notice"]["summary"].startswith("First run: 2 sources")


def test_a_delivery_the_target_refused_is_failed_at_once_with_its_reason(
        store: HistoryStore, settings: Settings) -> None:
    class Refusing:
        def send(self, target: DeliveryTarget, notice: Notice, *,
                 attachment: tuple[str, bytes] | None) -> None:
            raise DeliveryError("the hook answered 404 - check the webhook URL", status=404)

    service = WatchService(store, settings)
    watch, _ = service.add(request(), "every 6h",
                           targets=[WebhookTarget(url="https://hooks.example/gone")])
    service.run_here(watch.id)
    assert [s for _, s in deliver_due(store, settings, {"webhook": Refusing()})] == ["failed"]
    (delivery,) = store.deliveries(watch.id)
    assert (delivery.status, delivery.attempts) == ("failed", 1)
    assert delivery.last_error is not None and "404" in delivery.last_error


class NoRuns:
    """An executor that must not be asked: every slot here is refused by a budget."""

    def submit(self, request: RunRequest) -> str:
        raise AssertionError(f"a refused slot was run: {request.question}")


def test_a_slot_a_budget_refuses_is_a_visible_refused_run_and_the_slot_moves_on(
        store: HistoryStore, settings: Settings) -> None:
    service = WatchService(store, settings, NoRuns())  # type: ignore[arg-type]
    watch, _ = service.add(request(), "every 1h", max_runs_per_day=1)
    ran_at = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(hours=2)
    first = service.run_here(watch.id, now=ran_at)  # the day's one run
    due = ran_at + timedelta(hours=1)
    store.update_watch(watch.id, next_run_at=due)

    report = service.submit_due(due)
    assert report.started == [] and [w for w, _ in report.refused] == [watch.id]
    refused, done = store.watch_runs(watch.id)
    assert done.id == first.id and done.status == "done"
    assert (refused.status, refused.run_id, refused.trigger) == ("refused", None, "schedule")
    frees = (ran_at + timedelta(days=1)).strftime("%Y-%m-%d %H:%M UTC")
    assert refused.error == (f"Watch {watch.id[:8]} has run 1 times in 24 hours, its limit "
                             f"(1 a day) - it may run again from {frees}")
    assert refused.summary == f"Not run: {refused.error}"
    assert service.latest(watch.id) == refused  # what `watch show` and the API lead with
    # the slot moved on: the same tick again claims nothing and records nothing
    moved = store.watch(watch.id).next_run_at
    assert moved is not None and moved > due
    assert service.submit_due(due).refused == []
    assert len(store.watch_runs(watch.id)) == 2
    # a refused slot is no run: the budget counts the one real run only
    assert store.watch_runs_started(due - timedelta(days=1), watch_id=watch.id) == 1


def test_refused_slots_in_a_row_are_one_record_and_never_count_toward_the_budget(
        store: HistoryStore, settings: Settings) -> None:
    service = WatchService(store, settings, NoRuns())  # type: ignore[arg-type]
    watch, _ = service.add(request(), "every 1h", max_runs_per_day=1)
    ran_at = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(hours=25)
    service.run_here(watch.id, now=ran_at)
    for hours in (1, 2, 23):  # three slots refused while the run is under a day old
        store.update_watch(watch.id, next_run_at=ran_at + timedelta(hours=hours))
        assert len(service.submit_due(ran_at + timedelta(hours=hours)).refused) == 1
    refused, _done = store.watch_runs(watch.id)
    assert refused.status == "refused"
    first_slot = (ran_at + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M UTC")
    assert refused.summary is not None
    assert refused.summary.startswith(f"Not run since {first_slot}: Watch {watch.id[:8]}")
    assert refused.finished_at is not None
    assert refused.finished_at.replace(tzinfo=UTC) == ran_at + timedelta(hours=23)
    # a day after the run, the three refusals (all in the last 24 hours) do not hold the
    # next slot back: it is submitted
    executor = LocalRunExecutor(settings, workers=1, store=store)
    try:
        running = WatchService(store, settings, executor)
        slot = ran_at + timedelta(hours=24, minutes=1)
        store.update_watch(watch.id, next_run_at=slot)
        report = running.submit_due(slot)
        assert report.refused == [] and len(report.started) == 1
        run_id = report.started[0].run_id
        assert run_id is not None
        deadline = time.monotonic() + 30
        while executor.status(run_id).state not in ("completed", "failed"):
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        executor.shutdown()


def test_an_owner_budget_refusal_says_which_budget_and_when(
        store: HistoryStore, make_settings: Any) -> None:
    owner = store.add_user("ann", "correct horse battery")
    store.set_collection_owner("notes", owner.id)
    strict = make_settings(**{"watches.max_runs_per_owner_per_day": 1})
    service = WatchService(store, strict, NoRuns())  # type: ignore[arg-type]
    mine = request().asked_by("api", RunOwner(id=owner.id, name="ann"))
    first, _ = service.add(mine, "on demand")
    second, _ = service.add(mine, "every 1h")
    ran_at = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(hours=3)
    service.run_here(first.id, now=ran_at)
    store.update_watch(second.id, next_run_at=ran_at + timedelta(hours=1))
    service.submit_due(ran_at + timedelta(hours=1))
    [refused] = store.watch_runs(second.id)
    frees = (ran_at + timedelta(days=1)).strftime("%Y-%m-%d %H:%M UTC")
    assert refused.status == "refused" and refused.error == (
        "Your watches have run 1 times in 24 hours, the most one user's may "
        f"(watches.max_runs_per_owner_per_day = 1) - they may run again from {frees}")
    assert store.watch_runs_started(ran_at, owner_id=owner.id) == 1
