"""A disabled user's watches stop: the scheduler does not run them and their Atom feed
answers exactly as an unknown one; enabling the user again brings both back (a slot
missed meanwhile runs once). The real app, store, executor and scheduler tick."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from deepcite.watches.scheduler import WatchScheduler
from deepcite.watches.service import WatchService
from tests.unit.test_watches_api import Server, _create, _wait_ended, server  # noqa: F401


def test_a_disabled_owners_watch_does_not_run_and_its_feed_is_gone(
        server: Server) -> None:  # noqa: F811 - the fixture imported above
    created = _create(server, "alice")
    watch_id = created["watch"]["id"]
    assert server.client.get(created["feed_path"]).status_code == 200
    unknown = server.client.get("/feeds/watches/dcf_not-a-token.atom")
    service = WatchService(server.store, server.settings, server.executor)
    scheduler = WatchScheduler(service, senders={})
    minute_ago = datetime.now(UTC) - timedelta(minutes=1)
    server.store.update_watch(watch_id, next_run_at=minute_ago)

    server.store.set_disabled("alice", True)
    assert scheduler.tick().started == []
    assert server.store.watch_runs(watch_id) == []
    gone = server.client.get(created["feed_path"])
    assert (gone.status_code, gone.text) == (unknown.status_code, unknown.text)
    assert gone.status_code == 404

    server.store.set_disabled("alice", False)
    assert server.client.get(created["feed_path"]).status_code == 200
    [started] = scheduler.tick().started
    assert started.watch_id == watch_id and started.run_id is not None
    _wait_ended(server, started.run_id)
    assert scheduler.tick().started == []  # the missed slot ran once
