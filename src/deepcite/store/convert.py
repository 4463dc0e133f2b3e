"""Between a :class:`~deepcite.types.ResearchResult` and the store's rows.

Every field of a result has a home: scalar fields and small structures (metrics,
outline, findings ...) are columns of the run, sources, citation checks and events
are rows of their own tables. Reading puts the same result back together - the only
change on the way in is the answer losing any Sources block (:mod:`.body`).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from pydantic import TypeAdapter, ValidationError

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
        "questions_by_iteration": {str(iteration): list(queries) for iteration, queries
                                   in result.questions_by_iteration.items()},
        "findings": [finding.model_dump(mode="json") for finding in result.findings],
        "search_text": search_text(result.question, result.title, body),
    }


#: The engine of sources that are the user's own materials: kept by id, title and url
#: only - their text is the user's, handed in for one request, and is not copied into
#: a history others may read or a server may keep.
USER_MATERIAL = "user_material"


def source_rows(run_id: str, sources: list[Source]) -> list[dict[str, Any]]:
    """One row per source number; a repeated number keeps its first source (logged).

    The user's materials keep their id (in the metadata), title and url, not their text.
    """
    rows: dict[int, dict[str, Any]] = {}
    for source in sources:
        if source.number in rows:
            logger.warning("run %s: source number %d appears twice; the first is kept",
                           run_id, source.number)
            continue
        data = source.model_dump(mode="json")
        private = source.engine == USER_MATERIAL
        rows[source.number] = {"run_id": run_id, "number": source.number,
                               "title": source.title, "url": source.url,
                               "canonical_url": source.canonical_url,
                               "engine": source.engine,
                               "snippet": "" if private else source.snippet,
                               "full_text": None if private else source.full_text,
                               "published": source.published, "meta": data["metadata"]}
    return list(rows.values())


def check_rows(run_id: str, checks: list[CitationCheck]) -> list[dict[str, Any]]:
    """One row per citation check, ``position`` keeping the result's order."""
    return [{"run_id": run_id, "position": position, "number": check.number,
             "sentence": check.sentence, "outcome": check.outcome, "method": check.method,
             "source_number": check.source_number, "span_start": check.start,
             "span_end": check.end, "quote": check.quote}
            for position, check in enumerate(checks)]


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
