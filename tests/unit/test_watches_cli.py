"""``deepcite watch``: add, list, show, run, pause, resume and rm on a real store, with
real runs over a collection (a scripted model) and one-line errors."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite.cli import app
from deepcite.collections import Collection
from deepcite.config import load_settings
from tests.fakes import ScriptedChatModel, cite_all

runner = CliRunner()


@pytest.fixture(autouse=True)
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DEEPCITE_RESEARCH_ITERATIONS", "1")
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "cache.md").write_text("We keep the cache in Redis with a one hour expiry.",
                                     encoding="utf-8")
    Collection.create("notes", settings=load_settings()).add(folder)
    model = ScriptedChatModel(script={"synthesis": [cite_all]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    return folder


def invoke(*args: str) -> tuple[int, str]:
    done = runner.invoke(app, ["watch", *args])
    return done.exit_code, done.output


def stdout_of(*args: str) -> str:
    return runner.invoke(app, ["watch", *args]).stdout


def test_the_watch_commands_end_to_end(notes: Path) -> None:
    code, output = invoke("add", "Where is the cache kept?", "--every", "6h", "-c", "notes",
                          "--webhook", "https://hooks.example/a", "--json")
    assert code == 0, output
    added = json.loads(output)
    watch_id = added["id"]
    assert added["schedule"] == "every 6h" and added["feed_token"].startswith("dcf_")
    assert added["request"]["origin"] == "cli"

    code, output = invoke("list")
    assert code == 0 and watch_id[:8] in output and "every 6h" in output

    code, output = invoke("run", watch_id[:6])
    assert code == 0, output
    assert "First run: 1 source" in output
    printed = stdout_of("run", watch_id[:6])
    assert printed.startswith("Run ") and "Nothing new since" in printed
    assert printed.count("\n") == 1  # one line, not the report again

    (notes / "team.md").write_text("The team meets on Tuesdays to review the cache.",
                                   encoding="utf-8")
    Collection.named("notes", settings=load_settings()).add(notes)
    code, output = invoke("run", watch_id[:6])
    assert code == 0 and "1 new source" in output and "## New sources" in output

    code, output = invoke("show", watch_id[:6])
    assert code == 0 and "1 new source" in output and "webhook https://hooks.example/a" in output
    # the runs' notices could not reach hooks.example from here: each says so and waits
    assert "(webhook https://hooks.example/a): to be retried after 1 try, next " in output

    code, output = invoke("pause", watch_id[:6])
    assert code == 0 and "paused" in output
    code, output = invoke("resume", watch_id[:6])
    assert code == 0 and "active, next run" in output
    code, output = invoke("rm", watch_id[:6])
    assert code == 0 and "its runs stay in the history" in output
    code, output = invoke("show", watch_id[:6])
    assert code == 1 and "No watch" in output


def test_one_schedule_and_good_ones_only() -> None:
    code, output = invoke("add", "Why?", "-c", "notes")
    assert code == 2 and "Give one schedule" in output
    code, output = invoke("add", "Why?", "-c", "notes", "--every", "6h", "--manual")
    assert code == 2 and "Give one schedule" in output
    code, output = invoke("add", "Why?", "-c", "notes", "--cron", "0 25 * * *")
    assert code == 2 and "not a cron expression" in output
    code, output = invoke("add", "Why?", "-c", "notes", "--manual", "--email", "nobody")
    assert code == 2 and "not an email address" in output
    code, output = invoke("add", "Why?", "-c", "notes", "--manual")
    assert code == 0 and "(on demand)" in output


def test_a_watch_run_is_listed_with_origin_watch() -> None:
    code, output = invoke("add", "Where is the cache kept?", "--manual", "-c", "notes",
                          "--json")
    assert code == 0, output
    watch_id = json.loads(output)["id"]
    ran = json.loads(stdout_of("run", watch_id[:8], "--json"))
    asked = runner.invoke(app, ["ask", "Where is the cache kept?", "-c", "notes"])
    assert asked.exit_code == 0, asked.output
    listed = runner.invoke(app, ["history", "--json"])
    assert listed.exit_code == 0, listed.output
    origins = [(run["id"] == ran["run_id"], run["origin"]) for run in json.loads(listed.stdout)]
    assert sorted(origins) == [(False, "cli"), (True, "watch")]
    shown = json.loads(stdout_of("show", watch_id[:8], "--json"))
    assert shown["request"]["origin"] == "cli"  # the watch is the command line's


def test_show_says_a_slot_was_refused_by_a_budget_and_still_shows_the_last_change() -> None:
    from datetime import UTC, datetime, timedelta

    from deepcite.store import HistoryStore
    from deepcite.watches.service import WatchService

    code, output = invoke("add", "Where is the cache kept?", "--every", "1h", "-c", "notes",
                          "--max-runs-per-day", "1", "--json")
    assert code == 0, output
    watch_id = json.loads(output)["id"]
    code, output = invoke("run", watch_id[:8])
    assert code == 0 and "First run: 1 source" in output

    class NoRuns:
        def submit(self, request: object) -> str:
            raise AssertionError("a refused slot was run")

    settings = load_settings()
    with HistoryStore.open(settings) as store:  # what `deepcite serve`'s scheduler does
        store.update_watch(watch_id, next_run_at=datetime.now(UTC) - timedelta(minutes=1))
        report = WatchService(store, settings, NoRuns()).submit_due()  # type: ignore[arg-type]
    assert report.started == [] and len(report.refused) == 1

    code, output = invoke("show", watch_id[:8])
    assert code == 0, output
    lines = output.splitlines()
    [refusal] = [line for line in lines if line.startswith("Not run: ")]
    assert f"Watch {watch_id[:8]} has run 1 times in 24 hours, its limit (1 a day)" in refusal
    assert "it may run again from " in refusal and "(latest slot " in refusal
    assert any(line.startswith("Latest run ") and "First run: 1 source" in line
               for line in lines)
    shown = json.loads(stdout_of("show", watch_id[:8], "--json"))
    assert [run["status"] for run in shown["runs"]] == ["refused", "done"]


@pytest.mark.enable_socket
def test_watch_run_sends_what_it_queued_without_a_server(
        monkeypatch: pytest.MonkeyPatch) -> None:
    got: list[dict[str, object]] = []

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            got.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    monkeypatch.setenv("DEEPCITE_DELIVERY_WEBHOOK_ALLOW_PRIVATE_HOSTS",
                       f"127.0.0.1:{port}")
    try:
        code, output = invoke("add", "Where is the cache kept?", "--manual", "-c", "notes",
                              "--webhook", f"http://127.0.0.1:{port}/hook", "--json")
        assert code == 0, output
        watch_id = json.loads(output)["id"]
        code, output = invoke("run", watch_id[:6])
    finally:
        server.shutdown()
        server.server_close()
    assert code == 0 and "Deliveries: 1 sent" in output, output
    assert len(got) == 1 and "First run: 1 source" in json.dumps(got[0])
    code, output = invoke("show", watch_id[:6])
    assert code == 0 and f"(webhook http://127.0.0.1:{port}/hook): sent after 1 try" in output
