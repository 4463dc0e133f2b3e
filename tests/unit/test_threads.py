"""A report and its follow-ups as one thread: the store's thread, the next follow-up's
request, what a follow-up searches and quotes, and the thread over REST, MCP and the
report page - each front end answering the same thread for the same caller."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client

import deepcite.runs.build
from deepcite.collections import Collection
from deepcite.config import Settings, load_settings
from deepcite.errors import RequestError, UnknownRunError
from deepcite.mcp_server import build_server
from deepcite.runs import RunInfo, RunRequest
from deepcite.runs.execute import back_reference_queries, follow_up_brief
from deepcite.runs.local import LocalRunExecutor
from deepcite.runs.thread import read_thread, thread_record
from deepcite.store import HistoryStore
from deepcite.store.user_rights import access_of
from deepcite.types import ResearchResult, Source
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from tests.fakes import ScriptedChatModel
from tests.unit.test_web_pages import FakeExecutor, _client, _csrf, _result

# An invented file format with two aspects: opening and saving. Every opening sentence
# says "ledger file", as the question about saving does, so the earlier answer's
# sentences rank high for the follow-up too - it must quote the saving ones.
OPENING = ("# Opening a ledger file\n\nTo open a ledger file, call ledger.open with the path "
           "of the ledger file. The ledger file is read line by line and each line of the "
           "ledger file becomes one entry. Opening a ledger file never changes the ledger "
           "file on disk.\n")
SAVING = ("# Saving entries\n\nCall ledger.save to write the entries back to disk. Saving "
          "writes every entry as one line and replaces the old contents of the file. Pass "
          "backup=True to ledger.save to keep the previous file beside the new one.\n")
FIRST = "How do I open a ledger file?"
SECOND = "How do I save a ledger file?"


# ------------------------------------------------------------------ the store's thread


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path / "ledger"
    folder.mkdir()
    (folder / "opening.md").write_text(OPENING, encoding="utf-8")
    (folder / "saving.md").write_text(SAVING, encoding="utf-8")
    loaded = load_settings({"research.iterations": 1})
    Collection.create("ledger", settings=loaded).add(folder)
    return loaded


def _answered(store: HistoryStore, settings: Settings, question: str, *,
              parent: str | None = None, owner: int | None = None,
              numbers: tuple[int, ...] = (1,)) -> str:
    run_id = store.begin(question, mode="quick", settings=settings, parent_id=parent,
                         owner_id=owner, request={"question": question,
                                                  "collections": ["ledger"]})
    sources = [Source(number=n, title=f"Source {n}", url=f"https://example.org/{n}",
                      canonical_url=f"https://example.org/{n}", snippet=f"text {n}",
                      engine="web") for n in numbers]
    cited = " ".join(f"Point {n} [{n}]." for n in numbers)
    store.finish(run_id, ResearchResult(question=question, answer=cited, mode="quick",
                                        strategy="s", handler="h", sources=sources))
    time.sleep(0.002)  # created_at orders the turns
    return run_id


def test_any_turn_opens_the_whole_thread_in_order(settings: Settings) -> None:
    with HistoryStore.open(settings) as store:
        root = _answered(store, settings, FIRST)
        second = _answered(store, settings, SECOND, parent=root, numbers=(1, 2))
        third = _answered(store, settings, "And a third?", parent=second, numbers=(1, 2, 3))
        # a follow-up asked on the root itself (as the old page did) is in the thread too
        aside = _answered(store, settings, "On the side?", parent=root, numbers=(1, 2))
        other = _answered(store, settings, "Something else?")
        for ref in (root, second, third[:8], aside):
            thread = read_thread(store, ref)
            assert [t.id for t in thread.turns] == [root, second, third, aside]
        assert read_thread(store, third[:8]).asked == third
        assert [t.id for t in read_thread(store, other).turns] == [other]
        with pytest.raises(UnknownRunError):
            read_thread(store, "ffffffff")


def test_a_thread_holds_only_the_turns_the_caller_may_read(settings: Settings) -> None:
    with HistoryStore.open(settings) as store:
        alice = access_of(store.add_user("alice", "correct horse battery"))
        bob = access_of(store.add_user("bob", "correct horse battery"))
        root = _answered(store, settings, FIRST, owner=alice.user_id)
        mine = _answered(store, settings, SECOND, parent=root, owner=alice.user_id)
        # bob's run naming alice's as its parent is bob's, not a turn of alice's thread
        theirs = _answered(store, settings, "Bob's?", parent=mine, owner=bob.user_id)
        assert [t.id for t in read_thread(store, mine, alice).turns] == [root, mine]
        with pytest.raises(UnknownRunError):
            read_thread(store, root, bob)
        # bob's own turn starts his thread: alice's turns above it are not his to read
        assert [t.id for t in read_thread(store, theirs, bob).turns] == [theirs]


def test_the_next_follow_up_builds_on_the_last_answer(settings: Settings) -> None:
    with HistoryStore.open(settings) as store:
        root = _answered(store, settings, FIRST)
        second = _answered(store, settings, SECOND, parent=root, numbers=(1, 2))
        failed = store.begin("Broken?", mode="quick", settings=settings, parent_id=second)
        store.fail(failed, "the model went away")
        request = read_thread(store, root).follow_up("How do I keep a backup?")
        assert request.parent_id == second and request.mode == "quick"
        assert request.collections == ["ledger"]
        running = store.begin("Still going?", mode="quick", settings=settings,
                              parent_id=second)
        with pytest.raises(RequestError, match="not been answered yet"):
            read_thread(store, root).follow_up("Next?")
        store.finish(running, _result("Still going?"))
        assert read_thread(store, root).follow_up("Next?").parent_id == running


def test_thread_record_lists_under_each_turn_what_it_cites_or_found(
        settings: Settings) -> None:
    with HistoryStore.open(settings) as store:
        root = _answered(store, settings, FIRST, numbers=(1, 2))
        later = store.begin(SECOND, mode="quick", settings=settings, parent_id=root)
        sources = [Source(number=n, title=f"Source {n}", url=f"https://example.org/{n}",
                          canonical_url=f"https://example.org/{n}", snippet=f"t{n}",
                          engine="web") for n in (1, 2, 3)]
        store.finish(later, ResearchResult(question=SECOND, answer="New [3]. Old [2].",
                                           mode="quick", strategy="s", handler="h",
                                           sources=sources))
        record = thread_record(read_thread(store, later))
    assert record["id"] == root and record["asked"] == later
    assert [t["question"] for t in record["turns"]] == [FIRST, SECOND]
    assert [s["number"] for s in record["turns"][0]["sources"]] == [1, 2]
    # source 1 is carried for its number but not cited again: listed once, above
    assert [s["number"] for s in record["turns"][1]["sources"]] == [2, 3]


# ------------------------------------------------------------------ what a follow-up uses


def test_a_follow_up_does_not_quote_the_earlier_answer_again(make_settings: Any) -> None:
    earlier = ResearchResult(question=FIRST, answer="To open a ledger file, call "
                             "ledger.open with the path of the ledger file [1].",
                             mode="quick", strategy="s", handler="h")
    brief = follow_up_brief(earlier, make_settings())
    assert "call ledger.open with the path of the ledger file" in brief.avoid.text
    assert brief.avoid.softly  # said again only when nothing else answers the follow-up


@pytest.mark.parametrize(("question", "searched"), [
    ("How do I write one?", "How do I write one? open ledger file"),
    ("What is its default delimiter?", "What is its default delimiter? open ledger file"),
])
def test_a_follow_up_that_points_back_also_searches_the_earlier_subject(
        question: str, searched: str) -> None:
    earlier = ResearchResult(question=FIRST, answer="x", mode="quick", strategy="s",
                             handler="h")
    assert back_reference_queries(question, earlier) == (question, searched)
    # a question naming its own subject is searched alone, as any question
    assert back_reference_queries(SECOND, earlier) is None


# ------------------------------------------------------------------ REST and MCP


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> ScriptedChatModel:
    fake = ScriptedChatModel(script={"questions": [""]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: fake)
    return fake


@pytest.fixture
def api(settings: Settings, model: ScriptedChatModel) -> Iterator[TestClient]:
    executor = LocalRunExecutor(settings, workers=1)
    try:
        yield TestClient(create_app(WebState(settings=settings, executor=executor)))
    finally:
        executor.shutdown()


def _ended(client: TestClient, run_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    info: dict[str, Any] = {}
    while time.monotonic() < deadline:
        info = client.get(f"/api/v1/research/{run_id}").json()
        if info["state"] not in ("queued", "running"):
            return info
        time.sleep(0.05)
    raise AssertionError(f"run {run_id} never ended: {info}")


def _sentences(text: str) -> set[str]:
    return {s.strip() for s in re.split(r"(?<=\.)\s+", re.sub(r"\s*\[\d+(?:,\s*\d+)*\]", "",
                                                                text)) if len(s) > 20}


def test_a_follow_up_on_another_aspect_answers_that_aspect_over_rest(
        api: TestClient) -> None:
    reply = api.post("/api/v1/research", json={"question": FIRST, "collections": ["ledger"],
                                               "answer_mode": "grounded"})
    root = reply.json()["id"]
    first = _ended(api, root)["result"]
    assert "ledger.open" in first["answer"]
    asked = api.post(f"/api/v1/runs/{root}/follow-ups", json={"question": SECOND})
    assert asked.status_code == 202, asked.text
    second = _ended(api, asked.json()["id"])["result"]
    assert "ledger.save" in second["answer"], second["answer"]
    # it answers the new aspect first: it does not lead with the earlier answer's lead
    # (the earlier answer may have said it too: then it is said again, not "not found")
    lead = second["answer"].split(". ", 1)[0]
    assert "save" in lead.lower(), second["answer"]
    assert lead.split(" [")[0] not in first["answer"].split(". ", 1)[0]
    thread = api.get(f"/api/v1/runs/{asked.json()['id']}/thread").json()
    assert [t["question"] for t in thread["turns"]] == [FIRST, SECOND]
    assert thread["turns"][1]["parent_id"] == root
    # numbers continue: an earlier source keeps its number, a new one comes after them
    earlier = {s["number"]: s["title"] for s in thread["turns"][0]["sources"]}
    for source in thread["turns"][1]["sources"]:
        number = source["number"]
        assert earlier.get(number, source["title"]) == source["title"]
        assert number in earlier or number > max(earlier)
    assert thread["turns"][1]["sources"]
    assert api.get("/api/v1/runs/ffffffff/thread").status_code == 404
    assert api.post("/api/v1/runs/ffffffff/follow-ups",
                    json={"question": SECOND}).status_code == 404
    assert api.post(f"/api/v1/runs/{root}/follow-ups", json={}).status_code == 422


def test_mcp_asks_and_reads_the_thread_rest_reads(api: TestClient) -> None:
    reply = api.post("/api/v1/research", json={"question": FIRST, "collections": ["ledger"],
                                               "answer_mode": "grounded"})
    root = reply.json()["id"]
    _ended(api, root)
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with Client(build_server()) as client:
            seen["asked"] = await client.call_tool("ask_follow_up",
                                                   {"id": root[:8], "question": SECOND})
            seen["thread"] = await client.call_tool("get_thread", {"id": root})
            seen["unknown"] = await client.call_tool("get_thread", {"id": "ffffffff"})

    anyio.run(main)
    asked, thread = seen["asked"], seen["thread"]
    assert not asked.is_error and not thread.is_error
    assert "ledger.save" in asked.content[0].text
    rest = api.get(f"/api/v1/runs/{root}/thread").json()
    assert thread.structured_content == rest
    assert [t["question"] for t in rest["turns"]] == [FIRST, SECOND]
    assert rest["turns"][1]["id"] == asked.structured_content["id"]
    assert f"## 2. {SECOND}" in thread.content[0].text
    assert seen["unknown"].is_error


# ------------------------------------------------------------------ the report page


class ThreadExecutor(FakeExecutor):
    """The pages' fake executor, keeping each run's parent as the real ones do."""

    def submit(self, request: RunRequest) -> str:
        self.requests.append(request)
        with HistoryStore.open(self.settings) as store:
            run_id = store.begin(request.question, mode=request.mode, settings=self.settings,
                                 parent_id=request.parent_id, request=request.stored())
            store.finish(run_id, _result(request.question))
        self.infos[run_id] = RunInfo(id=run_id, question=request.question, mode=request.mode,
                                     state="completed", created_at=datetime.now(UTC))
        return run_id


@pytest.fixture
def page_settings(make_settings: Any) -> Settings:
    value: Settings = make_settings()
    return value


def test_a_detailed_report_is_followed_up_in_place(page_settings: Settings) -> None:
    executor = ThreadExecutor(page_settings)
    client = _client(page_settings, executor)
    with HistoryStore.open(page_settings) as store:
        root = store.begin(FIRST, mode="detailed", settings=page_settings,
                           request={"question": FIRST, "mode": "detailed",
                                    "collections": ["ledger"]})
        store.finish(root, _result(FIRST).model_copy(update={"mode": "detailed"}))
    page = client.get(f"/reports/{root}").text
    assert f'action="/reports/{root}/follow-up"' in page and 'id="follow-up-question"' in page
    token = _csrf(client, f"/reports/{root}")
    # without scripts: back to the thread, at the new turn
    reply = client.post(f"/reports/{root}/follow-up",
                        data={"csrf_token": token, "question": SECOND})
    assert reply.status_code == 303
    second = executor.requests[-1]
    assert second.parent_id == root and second.mode == "quick"
    assert second.collections == ["ledger"]
    new_id = reply.headers["location"].split("/reports/", 1)[1].split("#", 1)[0]
    assert reply.headers["location"].endswith(f"#turn-{new_id}")
    # thread.js asks for JSON and stays on the page; the third builds on the second
    third = client.post(f"/reports/{new_id}/follow-up", headers={"Accept": "application/json"},
                        data={"csrf_token": token, "question": "And a backup?"})
    assert third.status_code == 202 and executor.requests[-1].parent_id == new_id
    page = client.get(f"/reports/{new_id}").text
    # one page: the report, then both turns in order, the asked one marked
    assert page.index(FIRST) < page.index(SECOND) < page.index("And a backup?")
    assert re.search(rf'<article class="turn asked" id="turn-{new_id}"', page)
    # every anchor of the page is its own: no id twice
    ids = re.findall(r'\sid="([^"]+)"', page)
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert client.post(f"/reports/{root}/follow-up", data={"question": SECOND}
                       ).status_code == 403
    empty = client.post(f"/reports/{root}/follow-up", data={"csrf_token": token,
                                                              "question": "   "})
    assert empty.status_code == 422 and 'id="follow-up-problem"' in empty.text
    assert client.post("/reports/ffffffff/follow-up", data={"csrf_token": token,
                                                             "question": SECOND}
                       ).status_code == 404


def test_a_document_check_is_not_a_conversation(page_settings: Settings) -> None:
    """A check's parent is the check of the document's earlier version: its page shows
    that check alone, with no follow-up box, and a follow-up on it is refused."""
    client = _client(page_settings, ThreadExecutor(page_settings))
    with HistoryStore.open(page_settings) as store:
        older = store.begin("old-draft.md", mode="check", settings=page_settings)
        store.finish(older, _result("The earlier draft").model_copy(update={"mode": "check"}))
        newer = store.begin("new-draft.md", mode="check", settings=page_settings,
                            parent_id=older)
        store.finish(newer, _result("The new draft").model_copy(update={"mode": "check"}))
        with pytest.raises(RequestError, match="no follow-ups"):
            read_thread(store, newer).follow_up("Is the deadline right?")
    page = client.get(f"/reports/{newer}").text
    assert "<h1>new-draft.md</h1>" in page and "old-draft.md" not in page
    assert 'id="follow-up-question"' not in page
    token = _csrf(client, f"/reports/{newer}")
    refused = client.post(f"/reports/{newer}/follow-up",
                          data={"csrf_token": token, "question": "Is it right?"})
    assert refused.status_code == 422
