"""``deepcite ask`` and ``deepcite report``: research a question, with live progress.

``ask`` writes a quick cited answer, ``report`` (``ask --mode detailed``) a sectioned
report. Ctrl-C and SIGTERM both cancel the run and print what was found so far; a
second one quits at once. The ``-o`` path and ``--format`` are checked before the run,
so a long run is never lost to a typo in a folder name. Every run is kept in the
history (``deepcite history``) unless ``--no-save``.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, get_type_hints

import typer

from deepcite.cli.common import fail, settings_from, user_errors
from deepcite.cli.options import (
    Collections,
    Engines,
    Gguf,
    Materials,
    Model,
    NoSave,
    Offline,
    Provider,
    Quiet,
    given_materials,
    source_and_model_settings,
)
from deepcite.cli.running import (
    EXIT_CANCELLED,
    check_format,
    check_writable,
    print_result,
    run_command_request,
)
from deepcite.runs import RunRequest
from deepcite.security.text import valid_utf8


class Mode(enum.StrEnum):
    """What ``ask`` produces."""

    quick = "quick"
    detailed = "detailed"


def ask(
    question: Annotated[str, typer.Argument(help="The question to research.")],
    collection: Collections = None,
    engine: Engines = None,
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
    offline: Offline = None,
    iterations: Annotated[int | None, typer.Option(
        "--iterations", "-i", help="Search iterations.")] = None,
    questions: Annotated[int | None, typer.Option(
        "--questions", help="Generated sub-queries in iteration 1.")] = None,
    max_sources: Annotated[int | None, typer.Option(help="Sources given to synthesis.")] = None,
    provider: Provider = None,
    model: Model = None,
    gguf: Gguf = None,
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
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the result as JSON (same as --format json).")] = False,
    fmt: Annotated[str | None, typer.Option(
        "--format", "-f", help="Output format: markdown, html, pdf, docx, odt, latex, quarto, "
        "ris, bibtex, csl-json, json; see `deepcite exporters`.")] = None,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="Write the answer (in --format, default Markdown) to this "
        "file; - for stdout.")] = None,
    mode: Annotated[Mode, typer.Option(
        help="quick: one cited answer; detailed: a sectioned report (= deepcite report).")
    ] = Mode.quick,
    follow_up: Annotated[str | None, typer.Option(
        "--follow-up", help="Build on a stored run (id from `deepcite history`): its "
        "answer is what is known, its sources keep their numbers.")] = None,
    review_outline: Annotated[bool, typer.Option(
        "--review-outline", help="Detailed reports: show the outline and let you approve "
        "or edit it before the parts are written.")] = False,
    material: Materials = None,
    materials_file: Annotated[Path | None, typer.Option(
        "--materials", help="A JSON list of materials: {url, content, material_id, title, "
        "publish_time, content_time}.")] = None,
    no_save: NoSave = False,
    quiet: Quiet = False,
) -> None:
    """Research QUESTION and print the cited answer with its Sources block."""
    with user_errors():
        settings = settings_from({
            **source_and_model_settings(collection=collection, engine=engine,
                                        offline=offline, provider=provider, model=model,
                                        gguf=gguf),
            "search.since": since, "search.until": until,
            "search.include_domains": include_domain, "search.exclude_domains": exclude_domain,
            "search.fetch_full_text": fetch,
            "research.iterations": iterations, "research.strategy": strategy,
            "citations.links": links, "citations.handler": handler,
            "research.questions_per_iteration": questions, "research.max_sources": max_sources,
        })
        question = valid_utf8(question)
        if not question.strip():
            fail("The question is empty - ask something, e.g. "
                 "deepcite ask \"How do I parse command line arguments?\" -c demo", 2)
        if follow_up is not None and mode is Mode.detailed:
            fail("--follow-up builds a quick answer on a stored run; drop --mode detailed "
                 "(or run `deepcite report` with the new question)", 2)
        if review_outline and mode is not Mode.detailed:
            fail("--review-outline is for detailed reports: use `deepcite report` or "
                 "--mode detailed", 2)
        if output is not None:
            check_writable(output)
        check_format(fmt)
        request = RunRequest.parse(question=question, mode=mode.value,
                                   materials=given_materials(material, materials_file),
                                   parent_id=follow_up, review_outline=review_outline,
                                   origin="cli")
        result, _ = run_command_request(request, settings, no_save=no_save, quiet=quiet)
        print_result(result, settings, fmt=fmt, as_json=as_json, output=output,
                     show_findings=show_findings)
    if result.cancelled:
        raise typer.Exit(EXIT_CANCELLED)


def _report_command() -> Callable[..., None]:
    """``deepcite report``: ``ask --mode detailed`` under its own name, same options."""
    hints = get_type_hints(ask, include_extras=True)
    signature = inspect.signature(ask)
    params = [p.replace(annotation=hints[p.name]) for p in signature.parameters.values()
              if p.name not in ("mode", "follow_up")]

    def report(**options: Any) -> None:
        ask(mode=Mode.detailed, follow_up=None, **options)

    report.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=params, return_annotation=None)
    report.__annotations__ = {p.name: p.annotation for p in params}
    report.__doc__ = ("Research QUESTION as a sectioned report: outline, one research "
                      "per part, one Sources block.")
    return report


report = _report_command()
