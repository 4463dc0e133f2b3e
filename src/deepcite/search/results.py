"""Building SearchResults from engine responses, never half-filled.

Engines call :func:`make_result` for every hit. It returns ``None`` (with a debug log)
when title, url or snippet is missing or blank, so a broken API response shrinks the
result list instead of passing half-filled records on; the same goes for a URL that
cannot be a source (malformed, or not http(s)/file). Dates are normalised to ISO
``YYYY-MM-DD`` (or ``YYYY-MM`` / ``YYYY`` when that is all an engine knows) so that
time-range filters compare like with like.
"""

from __future__ import annotations

import html
import logging
import re
from datetime import date, datetime
from typing import Any

from deepcite.search.urls import source_url_problem
from deepcite.types import SearchResult

logger = logging.getLogger(__name__)

_TAG = re.compile(r"<[^>]+>")
_ISO = re.compile(r"^(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?")


def clean_text(value: Any) -> str:
    """Text without HTML tags and entities, whitespace collapsed; '' for non-text."""
    if value is None:
        return ""
    if isinstance(value, list):
        value = " ".join(str(v) for v in value if v)
    text = html.unescape(_TAG.sub(" ", str(value)))
    return " ".join(text.split())


def normalise_date(value: Any) -> str | None:
    """ISO date text from a date, datetime, timestamp string or year; else ``None``."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, int) and 1000 <= value <= 9999:
        return f"{value:04d}"
    match = _ISO.match(str(value).strip())
    if not match:
        return None
    year, month, day = match.groups()
    if day and month:
        try:
            return date(int(year), int(month), int(day)).isoformat()
        except ValueError:
            return None
    if month and 1 <= int(month) <= 12:
        return f"{year}-{int(month):02d}"
    return year


def make_result(
    engine: str,
    *,
    title: Any,
    url: Any,
    snippet: Any,
    full_text: Any = None,
    published: Any = None,
    metadata: dict[str, Any] | None = None,
) -> SearchResult | None:
    """A complete SearchResult, or ``None`` when title, url or snippet is missing."""
    clean_title, clean_url, clean_snippet = clean_text(title), str(url or "").strip(), \
        clean_text(snippet)
    if not (clean_title and clean_url and clean_snippet):
        logger.debug("%s: dropped a result without %s", engine, ", ".join(
            name for name, v in (("title", clean_title), ("url", clean_url),
                                 ("snippet", clean_snippet)) if not v))
        return None
    problem = source_url_problem(clean_url)
    if problem:
        logger.debug("%s: dropped a result with an unusable URL %r: %s", engine,
                     clean_url[:200], problem)
        return None
    text = str(full_text).strip() if full_text else None
    meta = {k: v for k, v in (metadata or {}).items() if v not in (None, "", [], {})}
    return SearchResult(title=clean_title, url=clean_url, snippet=clean_snippet,
                        full_text=text or None, engine=engine,
                        published=normalise_date(published), metadata=meta)


def keep(results: list[SearchResult | None]) -> list[SearchResult]:
    """The non-``None`` results, in order."""
    return [r for r in results if r is not None]
