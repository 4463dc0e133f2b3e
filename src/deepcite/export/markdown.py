"""A result as Markdown: title (reports), body, then the Sources block, assembled on output.

The result's ``answer`` never holds a sources block; it is rendered here from the
structured sources so that body text, block and exports read the same numbers.

Everything in the report may come from outside - the model's answer and queries, titles
and passages of documents and pages - so the Markdown is made safe as it is assembled:
raw HTML tags become text, titles are escaped, and no control character is left for a
terminal to act on when the file is shown with ``cat``.
"""

from __future__ import annotations

from typing import Any

from deepcite.citations.render import render_sources
from deepcite.citations.text import neutralise_html
from deepcite.security.terminal import one_line, terminal_safe
from deepcite.text.frames import frame_for
from deepcite.text.language import detect
from deepcite.types import ResearchResult


def to_markdown(result: ResearchResult, *, show_findings: bool = False) -> str:
    """The answer followed by ``## Sources`` (omitted when there are none).

    ``show_findings`` adds how the answer came about: the queries of each iteration and
    what each phase produced, for users who want to check the path, not just the result.
    """
    parts = [neutralise_html(result.answer.strip())]
    if result.title:
        parts.insert(0, f"# {neutralise_html(one_line(result.title))}")
    if result.cancelled:
        if result.mode == "check":
            parts.append("_This check was cancelled; the claims after the last one marked "
                         "were not checked._")
        else:
            what = "report" if result.mode == "detailed" else "answer"
            parts.append(f"_This run was cancelled; the {what} covers what was found "
                         "until then._")
    if show_findings:
        parts.append(neutralise_html(_findings(result)))
    block = render_sources(result.sources, text=result.answer, language=detect(result.question))
    if block:
        parts.append(f"## {frame_for('sources', result.question)}\n\n{block}")
    return terminal_safe("\n\n".join(parts) + "\n")


def to_json_dict(result: ResearchResult) -> dict[str, Any]:
    """The structured result as plain JSON types.

    ``strategy`` and ``handler`` name what really ran (after any fallback from an
    unknown name); ``warnings`` are ``{"code", "message"}`` objects in the order they
    happened; ``verification`` is ``{}`` when verification was off.

    Each citation check's ``start``/``end`` are code-point offsets into its source's
    text as stored - ``full_text`` when the source has one, else ``snippet`` - so that
    ``(full_text or snippet)[start:end] == quote`` (``docs/citations.md``, "Evidence
    offsets"); ``full_text`` is therefore part of every source here (``null`` when the
    snippet is the whole text).

    A document check (``mode`` ``check``) adds its ``claims``: each with its ``number``,
    ``text``, ``start``/``end`` in the checked document, ``verdict``, ``citations``,
    ``evidence`` quotes and ``note``.
    """
    claims = ({"claims": [claim.model_dump(mode="json") for claim in result.claims]}
              if result.mode == "check" or result.claims else {})
    return {
        "question": result.question,
        "mode": result.mode,
        "title": result.title,
        "answer": result.answer,
        "outline": [entry.model_dump() for entry in result.outline],
        "strategy": result.strategy,
        "handler": result.handler,
        "sources": [
            {
                "number": s.number,
                "title": s.title,
                "url": s.url,
                "canonical_url": s.canonical_url,
                "engine": s.engine,
                "snippet": s.snippet,
                "full_text": s.full_text,
                "published": s.published,
                "metadata": s.metadata,
            }
            for s in result.sources
        ],
        "questions_by_iteration": {str(k): v for k, v in result.questions_by_iteration.items()},
        "metrics": result.metrics.model_dump(),
        "warnings": [notice.model_dump() for notice in result.warnings],
        "verification": result.verification.model_dump() if result.verification else {},
        "citation_checks": [check.model_dump() for check in result.citation_checks],
        "unsupported_sentences": result.unsupported_sentences,
        "cancelled": result.cancelled,
        "error": result.error,
        **claims,
    }


def _findings(result: ResearchResult) -> str:
    lines = ["## How this answer was found"]
    for iteration, queries in sorted(result.questions_by_iteration.items()):
        lines.append(f"\n**Iteration {iteration}** searched:")
        lines.extend(f"- {query}" for query in queries)
    for finding in result.findings:
        if finding.phase.startswith("iteration"):
            continue  # the queries above say it
        lines.append(f"\n**{finding.phase.capitalize()}**\n\n{finding.content.strip()}")
    if result.warnings:
        lines.append("\n**Warnings**")
        lines.extend(f"- {notice.message}" for notice in result.warnings)
    return "\n".join(lines)
