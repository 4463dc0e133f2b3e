"""Between a :class:`~deepcite.types.ResearchResult` and the store's rows.

Every field of a result has a home: scalar fields and small structures (metrics,
outline, a check's claims, findings ...) are columns of the run, sources, citation checks and events
are rows of their own tables. Reading puts the same result back together - the changes
on the way in are the answer losing any Sources block (:mod:`.body`) and the user's
materials keeping only what ``store.keep_material_text`` allows (:func:`stored_rows`).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Collection
from datetime import UTC, datetime
from typing import Any

from pydantic import TypeAdapter, ValidationError

from deepcite.citations.markers import cited_numbers
from deepcite.store.body import search_text, stored_body
from deepcite.store.models import CheckRow, EventRow, Run, SourceRow
from deepcite.types import CitationCheck, Event, ResearchResult, Source

logger = logging.getLogger(__name__)

EVENTS: TypeAdapter[Event] = TypeAdapter(Event)


def result_columns(result: ResearchResult) -> dict[str, Any]:
    """The ``runs`` columns a result fills (status, error and times are the caller's)."""
    body = stored_body(result.answer)
    return {
        "mode": result.mode,
        "strategy": result.strategy,
        "handler": result.handler,
        "title": result.title,
        "body": body,
        "cancelled": result.cancelled,
        "metrics": result.metrics.model_dump(mode="json"),
        "verification": (result.verification.model_dump(mode="json")
                         if result.verification is not None else None),
        # Two columns, as before warnings were one list: the messages, and their codes
        # in the same order (read back into one list by :func:`assemble`).
        "warnings": [notice.message for notice in result.warnings],
        "warning_codes": [notice.code for notice in result.warnings],
        "unsupported_sentences": list(result.unsupported_sentences),
        "outline": [entry.model_dump(mode="json") for entry in result.outline],
        "claims": ([claim.model_dump(mode="json") for claim in result.claims]
                   if result.claims else None),
        "questions_by_iteration": {str(iteration): list(queries) for iteration, queries
                                   in result.questions_by_iteration.items()},
        "findings": [finding.model_dump(mode="json") for finding in result.findings],
        "search_text": search_text(result.question, result.title, body),
    }


#: The engine of sources that are the user's own materials: their text is the user's,
#: handed in for one request, so the history keeps only what a follow-up, a replay and
#: a re-verification need (see :func:`source_rows`).
USER_MATERIAL = "user_material"
#: Metadata of a material source whose text the history does not keep: ``False``
#: there, and the SHA-256 of the dropped passage, so the material handed in again can
#: be told from another (the offsets alone would fit any text long enough).
TEXT_KEPT = "text_kept"
PASSAGE_SHA256 = "passage_sha256"


def passage_digest(text: str) -> str:
    """The digest that stands for a material passage the history does not keep."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cited_sources(result: ResearchResult) -> set[int]:
    """The source numbers ``result`` cites: in its answer, or in a citation check (a
    citation verification removed was still cited by the text that was verified)."""
    numbers = set(cited_numbers(result.answer))
    for check in result.citation_checks:
        numbers.add(check.number)
        if check.source_number is not None:
            numbers.add(check.source_number)
    return numbers


def source_rows(run_id: str, sources: list[Source], *, cited: set[int] | None = None,
                keep_material_text: bool = True) -> list[dict[str, Any]]:
    """One row per source number; a repeated number keeps its first source (logged).

    A material's passage keeps its text when ``keep_material_text`` and the run cites
    it (``cited``; ``None``: every passage counts as cited) - the text a follow-up, a
    replay and a re-verification check the citation against. Any other material
    passage keeps its id (in the metadata), title, url and offsets, and the digest of
    its text instead of the text.
    """
    rows: dict[int, dict[str, Any]] = {}
    for source in sources:
        if source.number in rows:
            logger.warning("run %s: source number %d appears twice; the first is kept",
                           run_id, source.number)
            continue
        data = source.model_dump(mode="json")
        meta = data["metadata"]
        snippet, full_text = source.snippet, source.full_text
        if source.engine == USER_MATERIAL and source.text:
            if keep_material_text and (cited is None or source.number in cited):
                meta = {k: v for k, v in meta.items() if k not in (TEXT_KEPT, PASSAGE_SHA256)}
            else:
                meta = {**meta, TEXT_KEPT: False, PASSAGE_SHA256: passage_digest(source.text)}
                snippet, full_text = "", None
        rows[source.number] = {"run_id": run_id, "number": source.number,
                               "title": source.title, "url": source.url,
                               "canonical_url": source.canonical_url,
                               "engine": source.engine, "snippet": snippet,
                               "full_text": full_text, "published": source.published,
                               "meta": meta}
    return list(rows.values())


def check_rows(run_id: str, checks: list[CitationCheck], *,
               textless: Collection[int] = ()) -> list[dict[str, Any]]:
    """One row per citation check, ``position`` keeping the result's order.

    A check of a source in ``textless`` (a material whose text the history does not
    keep) keeps its verdict and offsets but not its quote, which is that text.
    """
    return [{"run_id": run_id, "position": position, "number": check.number,
             "sentence": check.sentence, "outcome": check.outcome, "method": check.method,
             "source_number": check.source_number, "span_start": check.start,
             "span_end": check.end,
             "quote": (None if check.number in textless or check.source_number in textless
                       else check.quote)}
            for position, check in enumerate(checks)]


def stored_rows(run_id: str, result: ResearchResult, *, keep_material_text: bool
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ``sources`` and ``citation_checks`` rows of ``result``: what of the user's
    materials they keep follows ``store.keep_material_text`` (see :func:`source_rows`)."""
    sources = source_rows(run_id, result.sources, cited=cited_sources(result),
                          keep_material_text=keep_material_text)
    textless = {row["number"] for row in sources
                if row["engine"] == USER_MATERIAL and not row["snippet"]}
    return sources, check_rows(run_id, result.citation_checks, textless=textless)


def event_rows(run_id: str, first_seq: int, events: list[Event]) -> list[dict[str, Any]]:
    """One row per event, numbered from ``first_seq`` in the order they arrived."""
    return [{"run_id": run_id, "seq": seq, "kind": event.kind,
             "at": datetime.fromtimestamp(event.at, UTC),
             "payload": EVENTS.dump_python(event, mode="json")}
            for seq, event in enumerate(events, first_seq)]


def assemble(run: Run, sources: list[SourceRow], checks: list[CheckRow]) -> ResearchResult:
    """The result a run's rows describe (raises pydantic's ValidationError on bad data)."""
    return ResearchResult.model_validate({
        "question": run.question,
        "answer": run.body or "",
        "strategy": run.strategy or "",
        "handler": run.handler or "",
        "sources": [{"number": row.number, "title": row.title, "url": row.url,
                     "canonical_url": row.canonical_url, "engine": row.engine,
                     "snippet": row.snippet, "full_text": row.full_text,
                     "published": row.published, "metadata": row.meta}
                    for row in sources],
        "questions_by_iteration": run.questions_by_iteration,
        "findings": run.findings,
        "metrics": run.metrics or {},
        # The two columns in the shape results had before warnings were one list;
        # ResearchResult reads them back into one list of (code, message) notices.
        "warnings": run.warnings,
        "warning_codes": run.warning_codes,
        "cancelled": run.cancelled,
        "error": run.error,
        "verification": run.verification,
        "citation_checks": [{"number": row.number, "sentence": row.sentence,
                             "outcome": row.outcome, "method": row.method,
                             "source_number": row.source_number, "start": row.span_start,
                             "end": row.span_end, "quote": row.quote} for row in checks],
        "unsupported_sentences": run.unsupported_sentences,
        "mode": run.mode,
        "title": run.title,
        "outline": run.outline,
        "claims": run.claims or [],
    })


def events_of(rows: list[EventRow]) -> list[Event]:
    """The events of a run from its rows (in ``seq`` order).

    An event this version cannot read (a newer deepcite's new phase or kind, written by
    a worker upgraded first) is left out, logged - the run and its result stay readable,
    since events only tell how a run went, not what it found."""
    events: list[Event] = []
    for row in rows:
        try:
            events.append(EVENTS.validate_python(row.payload))
        except ValidationError as error:
            logger.info("an event of run %s was left out: this deepcite cannot read it (%s)",
                        row.run_id[:8], error.errors()[0].get("msg", "unknown shape"))
    return events
