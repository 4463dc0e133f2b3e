"""What the browser tests share: the served app, Chromium, and how a user drives them.

The fixtures (``server``, ``browser``, ``page``) are in ``conftest.py``; this module has
the constants and the steps several test files take, and :func:`stored_run`: a finished
run with a fixed answer put into a served app's history, for the tests that must know
exactly what a page will show.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from deepcite.config import load_settings
from deepcite.research import Researcher
from deepcite.store import HistoryStore
from deepcite.types import ResearchResult, SearchResult
from tests.fakes import MemoryEngine, ScriptedChatModel
from tests.servers import NotReady, printed, start_process, wait_until

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DEEPCITE = str(Path(sys.executable).parent / "deepcite")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
QUESTION = "How do I parse command line arguments?"
XSS_TITLE = "<img src=x onerror=alert(1)> Cache notes"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def unavailable(reason: str) -> None:
    """Skip outside CI, fail in CI: the browser tests never silently stop running."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI runs the browser tests; `make system-deps` installs it)")
    pytest.skip(reason)


def server_env(data_dir: Path) -> dict[str, str]:
    """The environment of a served app: its own data and config folders, the bundled
    model, and a watch scheduler ticking every second."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPCITE_")}
    env.update(DEEPCITE_DATA_DIR=str(data_dir), DEEPCITE_LLM_PROVIDER="local",
               OLLAMA_HOST="127.0.0.1:1", NO_COLOR="1",
               # the settings page writes the user's config file: the served app's own
               XDG_CONFIG_HOME=str(data_dir / "config"),
               # a watch run's change is stored at the first tick after the run ended
               DEEPCITE_WATCHES_TICK_SECONDS="1")
    return env


_SOURCE_BLOCK = re.compile(r'<source id="(\d+)" title="([^"]*)"')


def stored_run(data_dir: Path, question: str, sources: Mapping[str, SearchResult],
               answer: str) -> tuple[str, ResearchResult]:
    """Research ``question`` over ``sources`` with a model that answers ``answer``, and
    store the finished run in ``data_dir``'s history (before the app there is served):
    its run id and result.

    Only the model and the search engine are fakes (:mod:`tests.fakes`); the Researcher
    numbers, checks and attributes the citations as in every run, so the stored offsets
    are the ones a real run would have. ``answer`` cites a source by its key in
    ``sources``, ``"... [{cafe}]."``: the reply puts there the number the prompt gave
    that source. Every citation must come out supported, with its quote, and the result
    must keep every source: a test built on this run sees exactly what it asked for, or
    fails here rather than skipping."""
    titles = {passage.title: key for key, passage in sources.items()}
    assert len(titles) == len(sources), "each source needs its own title"

    def reply(prompt: str) -> str:
        numbers = {titles[title]: number for number, title in _SOURCE_BLOCK.findall(prompt)
                   if title in titles}
        return answer.format(**numbers)

    settings = load_settings({"data_dir": str(data_dir), "iterations": 1},
                             config_files=[], environ={})
    model = ScriptedChatModel(script={"questions": [""], "synthesis": [reply]})
    with Researcher(settings, model, [MemoryEngine(list(sources.values()))]) as researcher:
        result = researcher.run(question)
    assert {s.title for s in result.sources} == set(titles), result.sources
    checks = result.citation_checks
    assert checks and all(c.outcome == "supported" and c.quote for c in checks), checks
    with HistoryStore.open(settings) as store:
        run_id = store.begin(question, mode="quick", settings=settings)
        store.finish(run_id, result)
    return run_id, result


def research(page: Any, base: str, question: str, collection: str) -> str:
    """Submit the form; returns the run page's URL."""
    page.goto(base + "/")
    page.fill("textarea[name=question]", question)
    open_sources(page)
    page.check(f"input[name=collections][value={collection}]")
    page.click("form button[type=submit]")
    page.wait_for_url(re.compile(r".*/(runs|reports)/[0-9a-f]{32}"), timeout=30_000)
    return str(page.url)


def open_sources(page: Any) -> None:
    """Unfold "Sources and model" on the form unless it is open already."""
    folded = page.locator("details:has(summary:has-text('Sources and model'))")
    if folded.count() and folded.first.get_attribute("open") is None:
        page.click("summary:has-text('Sources and model')")


@contextmanager
def serving(data_dir: Path, *args: str, env: Mapping[str, str] | None = None,
            ports: tuple[int, int] = (20000, 40000)) -> Iterator[str]:
    """`deepcite serve ARGS` on a free loopback port until the block ends; its base URL,
    once uvicorn has said it is running (tests.servers: readiness, never a clock; the
    test process itself may not open sockets here, so the server's log is read).

    ``env`` adds to :func:`server_env` (``DEEPCITE_SECURITY_OFFLINE`` and the like).
    A server that exits before it is ready (its port taken by something else) is started
    again on another port."""
    environment = {**server_env(data_dir), **(env or {})}
    logs = Path(tempfile.mkdtemp(prefix="dcserve-"))
    exited: list[str] = []
    for attempt in range(5):
        port = random.randint(*ports)
        proc = start_process(f"serve-{attempt}", [DEEPCITE, "serve", "--host", "127.0.0.1",
                                                  "--port", str(port), *args],
                             env=environment, logs=logs)
        try:
            wait_until(printed(proc, "Uvicorn running on", "Application startup complete"),
                       f"deepcite serve {' '.join(args)}", alive=proc.alive,
                       details=proc.tail)
        except NotReady:
            if proc.alive():  # not an exit: it never became ready
                proc.stop()
                raise
            exited.append(proc.tail())
            continue
        break
    else:
        pytest.fail(f"deepcite serve {' '.join(args)} did not start:\n" + "\n".join(exited))
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.stop()
        shutil.rmtree(logs, ignore_errors=True)


def create_watch(page: Any, base: str, question: str, collection: str,
                 schedule: str = "on demand") -> str:
    """Create a watch through the Watches form; returns the watch page's URL."""
    page.goto(base + "/watches")
    page.fill("textarea[name=question]", question)
    page.fill("input[name=schedule]", schedule)
    page.check(f"#watch-collections input[value={collection}]")
    page.click("#watch-form button[type=submit]")
    # the answer is the new watch's page (its secrets shown once), at the form's URL
    page.get_by_text("The watch was created").wait_for()
    action = page.locator("form[action$='/run']").first.get_attribute("action") or ""
    match = re.fullmatch(r"/watches/([0-9a-f]{32})/run", action)
    assert match, action
    return f"{base}/watches/{match.group(1)}"


def inbox_says(page: Any, text: str, timeout_s: float = 300) -> None:
    """Reload the watch page until its inbox says ``text`` (the page has no script;
    a run's change is stored at the scheduler's first tick after the run ended)."""
    deadline = time.monotonic() + timeout_s
    inbox = page.locator("ol.inbox")
    while not (inbox.count() and text in inbox.inner_text()):
        assert time.monotonic() < deadline, f"the inbox never said {text!r}"
        page.wait_for_timeout(1000)
        page.reload()


def watched_once(page: Any, base: str, question: str, collection: str) -> str:
    """A watch created through the form and run once, its first change in the inbox;
    the watch page's URL."""
    url = create_watch(page, base, question, collection)
    page.click("button:has-text('Run now')")
    page.wait_for_url("**?done=started")
    inbox_says(page, "First run:")
    return url
