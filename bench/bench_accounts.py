"""What accounts cost: a login (the Argon2id hash), and the ownership checks on the
history list of a store with 10,000 runs.

Prints, for a SQLite store in a temporary folder (``--url`` for PostgreSQL):

* a password check: right password, wrong password, unknown user (a dummy hash, so
  it costs the same) - median of 7, milliseconds;
* ``POST /login`` end to end through the app (TestClient, one process);
* the history list (50 newest, and a search) with 10,000 runs spread over 10 users:
  as everyone (no accounts), as an admin (sees all, owners named), as one user (owner
  filter in SQL) - median of 15, milliseconds;
* ``GET /api/v1/history`` over HTTP: open mode versus a personal token.

    .venv/bin/python bench/bench_accounts.py [--url postgresql+psycopg://...]

Target (issue 23): a login well under a second; the ownership filter adds no more
than a few milliseconds to a listing.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa
from fastapi.testclient import TestClient

from deepcite.config import load_settings
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore
from deepcite.store.models import Run
from deepcite.store.user_rights import EVERYTHING, Access
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState

RUNS = 10_000
USERS = 10
PASSWORD = "correct horse battery"


def _median_ms(work: Callable[[], object], times: int) -> float:
    spent = []
    for _ in range(times):
        started = time.perf_counter()
        work()
        spent.append((time.perf_counter() - started) * 1000)
    return statistics.median(spent)


def _fill(store: HistoryStore, owners: list[int]) -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    rows = [dict(id=uuid.uuid4().hex, question=f"Question {n} about topic {n % 97}",
                 mode="quick", status="completed", created_at=start + timedelta(minutes=n),
                 settings={}, cancelled=False, warnings=[], warning_codes=[],
                 unsupported_sentences=[], outline=[], questions_by_iteration={},
                 findings=[], search_text=f"question {n} about topic {n % 97}",
                 owner_id=owners[n % len(owners)]) for n in range(RUNS)]
    with store._engine.begin() as connection:
        for at in range(0, RUNS, 1000):
            connection.execute(sa.insert(Run), rows[at:at + 1000])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", help="a SQLAlchemy URL (default: SQLite in a temp dir)")
    url_given = parser.parse_args().url
    with tempfile.TemporaryDirectory() as data_dir:
        url = url_given or f"sqlite:///{Path(data_dir) / 'history.db'}"
        settings = load_settings({"data_dir": data_dir, "store.url": url}, config_files=[],
                                 environ={})
        with HistoryStore.from_url(url) as store:
            users = [store.add_user(f"user{n}", PASSWORD, admin=n == 0) for n in range(USERS)]
            print(f"store: {store._engine.url.get_backend_name()}, {RUNS:,} runs, "
                  f"{USERS} users")
            for label, name, password in (("right password", "user1", PASSWORD),
                                          ("wrong password", "user1", "wrong guess!"),
                                          ("unknown user", "nobody", PASSWORD)):
                spent = _median_ms(lambda n=name, p=password: store.check_password(n, p), 7)
                print(f"password check, {label}: {spent:.0f} ms")
            _fill(store, [user.id for user in users])
            admin = Access(users[0].id, admin=True, name=users[0].name)
            one = Access(users[1].id, name=users[1].name)
            for label, query in (("50 newest", {"limit": 50}),
                                 ("search 'topic 42', 50", {"limit": 50,
                                                            "search": "topic 42"})):
                for who, access in (("everyone (no accounts)", EVERYTHING),
                                    ("admin", admin), ("one user", one)):
                    spent = _median_ms(lambda a=access, q=query: store.list(access=a, **q),
                                       15)
                    print(f"history {label}, as {who}: {spent:.1f} ms")
            token = store.create_token("user1", "bench")
        executor = LocalRunExecutor(settings, workers=1)
        try:
            app = create_app(WebState(settings=settings, executor=executor))
            spent_all = []
            for _ in range(5):  # a new browser each time: a login ends on a new session
                client = TestClient(app)
                page = client.get("/login")
                csrf = page.text.split('name="csrf_token" value="')[1].split('"')[0]
                started = time.perf_counter()
                reply = client.post("/login", data={"csrf_token": csrf, "name": "user1",
                                                    "password": PASSWORD, "next": "/"},
                                    follow_redirects=False)
                spent_all.append((time.perf_counter() - started) * 1000)
                assert reply.status_code == 303, reply.text[:200]
            print(f"POST /login (hash check, session, audit): "
                  f"{statistics.median(spent_all):.0f} ms")
            api = TestClient(create_app(WebState(settings=settings, executor=executor)))
            headers = {"Authorization": f"Bearer {token}"}
            spent = _median_ms(lambda: api.get("/api/v1/history?limit=50", headers=headers),
                               15)
            print(f"GET /api/v1/history?limit=50 with a personal token: {spent:.1f} ms")
        finally:
            executor.shutdown()
        with tempfile.TemporaryDirectory() as open_dir:
            open_url = f"sqlite:///{Path(open_dir) / 'history.db'}"
            open_settings = load_settings({"data_dir": open_dir, "store.url": open_url},
                                          config_files=[], environ={})
            with HistoryStore.from_url(open_url) as store:
                _fill(store, [1])
            executor = LocalRunExecutor(open_settings, workers=1)
            try:
                api = TestClient(create_app(WebState(settings=open_settings,
                                                     executor=executor)))
                spent = _median_ms(lambda: api.get("/api/v1/history?limit=50"), 15)
                print(f"GET /api/v1/history?limit=50 without accounts: {spent:.1f} ms")
            finally:
                executor.shutdown()


if __name__ == "__main__":
    main()
