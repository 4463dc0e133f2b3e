"""Run and watch ids that name nothing - too short, not hexadecimal, or matching several
runs - are answered by every route exactly as an unknown id (404), never as the server
being in trouble (503): REST, pages, query parameters and form fields alike.

The routes are read from the app itself, so a route added later that takes a run id is
checked too.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from deepcite.config import Settings, load_settings
from deepcite.runs.local import LocalRunExecutor
from deepcite.store import HistoryStore
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from tests.unit.test_store import quick_result, save
from tests.unit.web_forms import csrf_token

#: Each names no single run: empty after trimming, too short, not hex, too long,
#: and a prefix two stored runs share.
BAD_REFS = ("a", "ab", "abc", " ab ", "zz!", "ab..", "abcd" + "0" * 40, "abcd")
_RUN_PARAMS = ("run_id", "a", "b", "watch_id")


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    return load_settings({})


@pytest.fixture
def client(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    ids = iter(uuid.UUID(hex) for hex in ("abcd1234" + "0" * 24, "abcd5678" + "0" * 24))
    real = uuid.uuid4
    monkeypatch.setattr(uuid, "uuid4", lambda: next(ids, None) or real())
    with HistoryStore.open(settings) as store:
        for question in ("first", "second"):  # two runs under the prefix "abcd"
            save(store, quick_result(question), settings)
        assert {run.id[:8] for run in store.list()} == {"abcd1234", "abcd5678"}
    executor = LocalRunExecutor(settings, workers=1)
    app = create_app(WebState(settings=settings, executor=executor))
    with TestClient(app, follow_redirects=False) as test_client:
        yield test_client
    executor.shutdown()


def _routes(routes: list[Any], prefix: str = "") -> Iterator[tuple[str, APIRoute]]:
    """Every APIRoute with its full path, through included routers (FastAPI includes
    them lazily, so ``app.routes`` alone does not list them)."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield prefix + route.path, route
        elif hasattr(route, "original_router"):
            context = getattr(route, "include_context", None)
            yield from _routes(route.original_router.routes,
                               prefix + str(getattr(context, "prefix", "") or ""))


def _id_routes(client: TestClient) -> list[tuple[str, str]]:
    """(method, path template) of every route with a run or watch id in its path."""
    found = []
    for path, route in _routes(client.app.routes):  # type: ignore[attr-defined]
        if set(re.findall(r"{(\w+)}", path)) & set(_RUN_PARAMS):
            found.extend((method, path) for method in sorted(route.methods))
    return found


def _csrf(client: TestClient) -> str:
    return csrf_token(client, "/")


def _fill(path: str, ref: str) -> str:
    filled = {"number": "1", "fmt": "markdown", "action": "run"}
    return re.sub(r"{(\w+)}",
                  lambda m: ref if m.group(1) in _RUN_PARAMS else filled[m.group(1)], path)


def test_routes_with_ids_are_found(client: TestClient) -> None:
    paths = {path for _, path in _id_routes(client)}
    # the scan sees REST, page and watch routes (a guard against it finding nothing)
    for expected in ("/api/v1/research/{run_id}", "/reports/{run_id}",
                     "/api/v1/runs/{a}/compare/{b}", "/watches/{watch_id}",
                     "/api/v1/watches/{watch_id}", "/history/{run_id}/delete"):
        assert expected in paths


@pytest.mark.parametrize("ref", BAD_REFS)
def test_every_route_answers_an_id_naming_no_run_as_unknown(client: TestClient,
                                                            ref: str) -> None:
    token = _csrf(client)
    for method, template in _id_routes(client):
        path = _fill(template, ref)
        kwargs: dict[str, Any] = {}
        if method in ("POST", "PATCH", "PUT", "DELETE") and not path.startswith("/api/"):
            kwargs["data"] = {"csrf_token": token}
        elif method == "PATCH":
            kwargs["json"] = {"status": "paused"}
        elif path.endswith("/follow-ups"):  # a valid body: the id alone is wrong
            kwargs["json"] = {"question": "And what comes next?"}
        # a run page (and cancelling, without accounts) sends an unknown run on to its
        # report page, which says so
        reply = client.request(method, path, follow_redirects=True, **kwargs)
        assert reply.status_code == 404, (method, path, reply.status_code, reply.text[:200])


@pytest.mark.parametrize("ref", BAD_REFS)
def test_run_ids_in_query_and_form_fields_are_unknown_too(client: TestClient,
                                                          ref: str) -> None:
    with HistoryStore.open(client.app.state.web.settings) as store:  # type: ignore[attr-defined]
        full = store.list()[0].id
    for query in ({"a": ref, "b": full}, {"a": full, "b": ref}):
        assert client.get("/compare", params=query).status_code == 404
    reply = client.post("/api/v1/research", json={"question": "q", "parent_id": ref})
    assert reply.status_code in (404, 422), reply.text
    assert reply.status_code != 503
