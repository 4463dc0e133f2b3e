"""``deepcite ask``: research a question, with live progress and a clean stop.

Ctrl-C and SIGTERM both cancel the run and print the cited passages found so far; a
second one quits at once. The ``-o`` path is checked before the run, so a long run is
never lost to a typo in a folder name.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer

from deepcite.api import DEMO_COLLECTION, build_researcher
from deepcite.citations import hyperlink
from deepcite.cli.common import err, fail, out, settings_from, user_errors
from deepcite.cli.progress import RunProgress
from deepcite.collections import ensure_demo_collection
from deepcite.report import to_json_dict, to_markdown
from deepcite.research import Researcher
from deepcite.research.threads import Worker
from deepcite.security.text import valid_utf8
from deepcite.types import ResearchResult

EXIT_CANCELLED = 130


def ask(
    question: Annotated[str, typer.Argument(help="The question to research.")],
    collection: Annotated[list[str] | None, typer.Option(
        "--collection", "-c", help="Collection to search (repeatable); 'demo' is bundled.")] = None,
    engine: Annotated[list[str] | None, typer.Option(
        "--engine", "-e", help="Search engine (repeatable); see `deepcite engines`.")] = None,
    since: Annotated[str | None, typer.Option(help="Only results published on/after "
                                                   "YYYY-MM-DD.")] = None,
    until: Annotated[str | None, typer.Option(help="Only results published on/before "
                                                   "YYYY-MM-DD.")] = None,
    include_domain: Annotated[list[str] | None, typer.Option(
        help="Only results from this domain (repeatable).")] = None,
    exclude_domain: Annotated[list[str] | None, typer.Option(
        help="Never results from this domain (repeatable).")] = None,
    fetch: Annotated[bool | None, typer.Option(
        "--fetch/--no-fetch", help="Download web pages for their full text.")] = None,
    offline: Annotated[bool | None, typer.Option(
        "--offline", help="No internet: only local collections and local services.")] = None,
    iterations: Annotated[int | None, typer.Option(
        "--iterations", "-i", help="Search iterations.")] = None,
    questions: Annotated[int | None, typer.Option(
        "--questions", help="Generated sub-queries in iteration 1.")] = None,
    max_sources: Annotated[int | None, typer.Option(help="Sources given to synthesis.")] = None,
    provider: Annotated[str | None, typer.Option(
        help="LLM provider: auto, local, ollama, openai, anthropic.")] = None,
    model: Annotated[str | None, typer.Option(help="Model name for the provider.")] = None,
    gguf: Annotated[Path | None, typer.Option(help="GGUF file for the local provider.")] = None,
    strategy: Annotated[str | None, typer.Option(
        "--strategy", "-s", help="Research strategy; see `deepcite strategies`.")] = None,
    show_findings: Annotated[bool, typer.Option(
        "--show-findings", help="Append the queries and findings of each phase.")] = False,
    links: Annotated[str | None, typer.Option(
        help="Inline links: number, domain, domain-id, domain-id-always, source-tagged, "
             "none.")] = None,
    handler: Annotated[str | None, typer.Option(
        help="Citation handler: standard, forced (benchmarks), precision (short facts).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="Also write the Markdown answer to this file.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
) -> None:
    """Research QUESTION and print the cited answer with its Sources block."""
    with user_errors():
        settings = settings_from({
            "search.collections": collection, "search.engines": engine,
            "search.since": since, "search.until": until,
            "search.include_domains": include_domain, "search.exclude_domains": exclude_domain,
            "search.fetch_full_text": fetch, "security.offline": offline,
            "research.iterations": iterations, "research.strategy": strategy,
            "citations.links": links, "citations.handler": handler,
            "research.questions_per_iteration": questions, "research.max_sources": max_sources,
            "llm.provider": provider, "llm.model": model, "llm.gguf_path": gguf,
        })
        question = valid_utf8(question)
        if not question.strip():
            fail("The question is empty - ask something, e.g. "
                 "deepcite ask \"How do I parse command line arguments?\" -c demo", 2)
        if output is not None:
            _check_writable(output)
        if DEMO_COLLECTION in settings.search.collections:
            with err.status("Preparing the demo collection (built once, offline)..."):
                ensure_demo_collection(settings)
        with RunProgress(enabled=not quiet) as progress, \
                build_researcher(settings, progress) as researcher:
            result = _run_interruptibly(researcher, question, progress)

    markdown = to_markdown(result, show_findings=show_findings)
    if settings.citations.links != "none":
        markdown = hyperlink(markdown, result.sources, settings.citations.links)
    if as_json:
        out.print_json(json.dumps(to_json_dict(result)))
    else:
        out.print(markdown, markup=False)
    if output is not None:
        try:
            output.write_text(markdown, encoding="utf-8")
        except OSError as exc:
            fail(f"Cannot write {output} ({exc.strerror}); choose another path with -o")
    if result.cancelled:
        raise typer.Exit(EXIT_CANCELLED)


def _run_interruptibly(researcher: Researcher, question: str,
                       progress: RunProgress) -> ResearchResult:
    """Run in a worker thread so Ctrl-C and SIGTERM cancel cleanly and keep what was found.

    The first interrupt cancels the run, which then returns the cited passages found so
    far; a second one quits at once. Signals reach only the main thread, so elsewhere
    (a test runner's thread, an embedding app) the run is just waited for.
    """
    worker = Worker(lambda: researcher.run(question), name="deepcite-run")
    if threading.current_thread() is not threading.main_thread():
        _wait_cancelling(worker, researcher, progress)
    else:
        previous = signal.signal(signal.SIGTERM, _terminate_as_interrupt)
        try:
            _wait_cancelling(worker, researcher, progress)
        finally:
            signal.signal(signal.SIGTERM, previous)
    if not worker.done:  # interrupted before the thread ever started
        fail("The run ended without a result; see the log above")
    return worker.result()  # the run's own error, raised here with its traceback


def _terminate_as_interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGTERM (a service manager, ``timeout``, ``kill``) stops a run like Ctrl-C does:
    the cited passages found so far are printed before the process exits."""
    raise KeyboardInterrupt


def _wait_cancelling(worker: Worker[ResearchResult], researcher: Researcher,
                     progress: RunProgress) -> None:
    """Start the run and wait; the first interrupt cancels it, the second quits."""
    try:
        worker.start()  # inside the try: Ctrl-C can land while start() waits
        worker.wait()
    except KeyboardInterrupt:
        researcher.cancel()
        progress.status("Cancelling - keeping what was found (Ctrl-C again to quit now)")
        try:
            worker.wait()
        except KeyboardInterrupt:
            raise typer.Exit(EXIT_CANCELLED) from None


def _check_writable(output: Path) -> None:
    """Refuse an ``-o`` path that cannot be written before the run, not after it."""
    folder = output.parent if str(output.parent) else Path(".")
    if output.is_dir():
        fail(f"Cannot write {output}: it is a folder - name a file with -o", 2)
    if not folder.is_dir():
        fail(f"Cannot write {output}: folder {folder} does not exist - create it or "
             "choose another path with -o", 2)
    if not os.access(output if output.exists() else folder, os.W_OK):
        fail(f"Cannot write {output}: permission denied - choose another path with -o", 2)
