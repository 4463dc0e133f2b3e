"""A source's collection document served safely, and the viewer's address: shared by the
source viewer page (:mod:`deepcite.web.pages.sources`) and its REST twin
(:mod:`deepcite.web.rest.sources`), so the two serve a document the same way and
neither imports the other.

A document is served as a download-safe type (PDF, plain text, else an attachment) with
``nosniff`` and a sandboxing policy, so an HTML or SVG file of a collection can never
run script on the app's origin.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from fastapi.responses import FileResponse, Response

from deepcite.store import HistoryStore
from deepcite.store.user_rights import Access
from deepcite.web.downloads import content_disposition

__all__ = ["DOCUMENT_HEADERS", "TEXT_SUFFIXES", "document_response", "may_read", "viewer_url"]

#: Suffixes served inline as plain text; PDF inline as PDF; anything else a download.
TEXT_SUFFIXES = frozenset({".txt", ".md", ".markdown", ".rst", ".csv", ".tsv", ".text"})
#: What every served document carries: no sniffing, no script, no framing elsewhere.
DOCUMENT_HEADERS = {"X-Content-Type-Options": "nosniff",
                    "Content-Security-Policy": "sandbox; default-src 'none'",
                    "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


def viewer_url(run_id: str, number: int) -> str:
    """The viewer page of source ``number`` of run ``run_id``."""
    return f"/runs/{quote(run_id, safe='/')}/sources/{number}"


def document_response(path: Path) -> Response:
    """``path`` (already checked by ``document_file``) as a safe response."""
    suffix = path.suffix.lower()
    inline = suffix == ".pdf" or suffix in TEXT_SUFFIXES
    media = ("application/pdf" if suffix == ".pdf" else "text/plain; charset=utf-8"
             if inline else "application/octet-stream")
    header = content_disposition(path.name, "inline" if inline else "attachment")
    return FileResponse(path, media_type=media,
                        headers={**DOCUMENT_HEADERS, "Content-Disposition": header})


def may_read(store: HistoryStore, access: Access) -> Callable[[str], bool]:
    """Whether ``access`` may search a collection now (what ``document_file`` asks)."""
    if access.sees_all:
        return lambda _name: True
    return lambda name: name in store.readable_collections(access, [name])
