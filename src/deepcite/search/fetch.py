"""Fetching a page's main text, safely and without ever failing a run.

``fetch_full_text`` downloads one URL through the egress policy (every redirect hop is
checked again), stops reading at the size cap, and extracts the main content:
trafilatura for HTML, pypdf for PDF, the text itself for plain text. Anything that goes
wrong - a refused or dead URL, a timeout, a corrupt PDF, an unsupported type - gives
``None`` and a logged warning; ``fetch_page`` returns the reason too, for callers that
show it to the user.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import httpx

from deepcite.config import Settings
from deepcite.errors import EgressDenied
from deepcite.search.http import USER_AGENT
from deepcite.security.egress import EgressPolicy
from deepcite.security.transport import egress_client

logger = logging.getLogger(__name__)

FETCH_TIMEOUT_SECONDS = 10.0
DEFAULT_MAX_BYTES = 5_000_000


@dataclass(frozen=True)
class FetchOutcome:
    """The text of one page, or why there is none."""

    url: str
    text: str | None
    error: str | None = None


def fetch_page(url: str, settings: Settings | None = None) -> FetchOutcome:
    """Download ``url`` and extract its main text; never raises for network or content."""
    policy = EgressPolicy.from_settings(settings)
    cap = settings.security.max_download_bytes if settings else DEFAULT_MAX_BYTES
    try:
        with egress_client(policy, timeout=FETCH_TIMEOUT_SECONDS,
                           headers={"User-Agent": USER_AGENT}) as client, \
                client.stream("GET", url) as response:
            if response.status_code >= 400:
                return _fail(url, f"HTTP {response.status_code}")
            body, truncated = _read_capped(response, cap)
            content_type = response.headers.get("content-type", "").lower()
            encoding = response.encoding or "utf-8"
    except EgressDenied as exc:
        return _fail(url, str(exc))
    except httpx.HTTPError as exc:
        return _fail(url, f"{type(exc).__name__}: {exc}")
    return _extract(url, body, content_type, encoding, truncated)


def fetch_full_text(url: str, settings: Settings | None = None) -> str | None:
    """The main text of ``url``, or ``None`` (with a warning logged) when unavailable."""
    return fetch_page(url, settings).text


def fetch_many(urls: Sequence[str], settings: Settings | None = None, *, concurrency: int = 4,
               should_stop: Callable[[], bool] | None = None) -> list[FetchOutcome]:
    """Fetch several pages concurrently (bounded); skipped ones after ``should_stop``."""
    def one(url: str) -> FetchOutcome:
        if should_stop is not None and should_stop():
            return FetchOutcome(url, None, "cancelled")
        return fetch_page(url, settings)

    if not urls:
        return []
    with ThreadPoolExecutor(max_workers=max(1, min(concurrency, len(urls)))) as pool:
        return list(pool.map(one, urls))


def _read_capped(response: httpx.Response, cap: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= cap:
            return b"".join(chunks)[:cap], True
    return b"".join(chunks), False


def _extract(url: str, body: bytes, content_type: str, encoding: str,
             truncated: bool) -> FetchOutcome:
    is_pdf = "application/pdf" in content_type or body[:5] == b"%PDF-"
    if is_pdf:
        if truncated:
            return _fail(url, "PDF larger than the download cap (security.max_download_bytes)")
        return _pdf_text(url, body)
    text = body.decode(encoding, errors="replace")
    if "html" in content_type or text.lstrip()[:200].lower().startswith(("<!doctype", "<html")):
        return _html_text(url, text)
    if content_type.startswith("text/") or not content_type:
        return _result(url, text)
    return _fail(url, f"unsupported content type {content_type.split(';')[0]}")


def _html_text(url: str, html: str) -> FetchOutcome:
    import trafilatura

    extracted = trafilatura.extract(html, url=url, include_comments=False,
                                    include_tables=True, favor_recall=True)
    return _result(url, extracted)


def _pdf_text(url: str, body: bytes) -> FetchOutcome:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(body))
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, KeyError, OSError) as exc:
        return _fail(url, f"unreadable PDF ({exc})")
    return _result(url, "\n\n".join(pages))


def _result(url: str, text: str | None) -> FetchOutcome:
    cleaned = (text or "").strip()
    if not cleaned:
        return _fail(url, "no main text found")
    return FetchOutcome(url, cleaned)


def _fail(url: str, reason: str) -> FetchOutcome:
    logger.warning("could not fetch %s: %s", url, reason)
    return FetchOutcome(url, None, reason)
