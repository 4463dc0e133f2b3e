"""The PDF export: the HTML page with print CSS, laid out by WeasyPrint (the ``pdf`` extra).

WeasyPrint needs Pango (a system library) and, for CJK text, a CJK font: the print CSS
lists Noto Sans CJK SC and WenQuanYi Micro Hei before the generic family, so Chinese,
Japanese and Korean text comes out as glyphs instead of boxes wherever one is
installed (see docs/exports.md).

The page holds nothing to fetch, and WeasyPrint is not allowed to fetch anyway: its URL
fetcher refuses every URL but ``data:``, so no report content can make an export read
a local file or call a server.
"""

from __future__ import annotations

import importlib
import logging
from types import ModuleType
from typing import Any

from deepcite.errors import ExportError
from deepcite.export.base import ExportOptions, ExportResult, quiet_logger, result_for
from deepcite.export.html import PRINT_CSS, render_page
from deepcite.security.terminal import one_line
from deepcite.types import ResearchResult

MISSING = ("PDF export needs WeasyPrint - pip install 'deepcite[pdf]' "
           "(and Pango: see docs/exports.md)")
NO_PANGO = ("PDF export needs the Pango library - install libpango-1.0-0 and "
            "libpangoft2-1.0-0 (Debian/Ubuntu; see docs/exports.md)")


def load_weasyprint() -> ModuleType:
    """WeasyPrint, or an :class:`ExportError` naming the extra or the system library."""
    try:
        weasyprint = importlib.import_module("weasyprint")
    except ImportError as exc:
        raise ExportError(MISSING) from exc
    except OSError as exc:  # the package is there, Pango (loaded through cffi) is not
        raise ExportError(NO_PANGO) from exc
    quiet_logger("weasyprint", logging.CRITICAL)
    quiet_logger("fontTools", logging.CRITICAL)
    return weasyprint


def _refuse(url: str) -> None:
    if not url.lower().startswith("data:"):
        raise ValueError(f"deepcite exports fetch nothing: {url[:100]}")


def offline_url_fetcher(weasyprint: ModuleType) -> Any:
    """A WeasyPrint URL fetcher that serves ``data:`` URIs and refuses everything else.

    Recent WeasyPrint takes a ``URLFetcher`` instance (its ``fetch`` is overridden here);
    versions without that class take a function, given one that calls the default
    fetcher for ``data:`` only.
    """
    urls = importlib.import_module("weasyprint.urls")
    base = getattr(urls, "URLFetcher", None)
    if base is None:
        default = weasyprint.default_url_fetcher

        def fetch_function(url: str, *args: Any, **kwargs: Any) -> Any:
            _refuse(url)
            return default(url, *args, **kwargs)

        return fetch_function

    def fetch(self: Any, url: str, headers: Any = None) -> Any:
        _refuse(url)
        return base.fetch(self, url, headers)

    fetcher_class = type("OfflineURLFetcher", (base,), {"fetch": fetch})
    return fetcher_class()


class PdfExporter:
    """A PDF of the HTML page: A4, page numbers, CJK fonts, nothing fetched."""

    name = "pdf"
    extension = ".pdf"
    media_type = "application/pdf"
    description = "PDF with print layout and CJK fonts (needs deepcite[pdf] and Pango)"

    def unavailable(self) -> str | None:
        """Why WeasyPrint cannot run here, or None."""
        try:
            load_weasyprint()
        except ExportError as exc:
            return str(exc)
        return None

    def export(self, report: ResearchResult, options: ExportOptions) -> ExportResult:
        """Lay the page out with WeasyPrint; a layout failure is an :class:`ExportError`."""
        weasyprint = load_weasyprint()
        page = render_page(report, options, extra_css=PRINT_CSS)
        try:
            document = weasyprint.HTML(string=page, base_url=None,
                                       url_fetcher=offline_url_fetcher(weasyprint))
            data = document.write_pdf()
        except (ValueError, OSError, RuntimeError) as exc:
            raise ExportError(f"WeasyPrint could not lay out the PDF "
                              f"({type(exc).__name__}: {one_line(str(exc))[:200]}) - try "
                              "the HTML export and print it from a browser") from exc
        if not isinstance(data, bytes):
            raise ExportError("WeasyPrint returned no PDF - reinstall deepcite[pdf]")
        return result_for(report, self, data)
