"""What the report and settings pages show, built from deepcite's own parts.

The report body is :func:`deepcite.export.html.render_fragment` - the HTML export's
renderer and nh3 allow-list - so the page and the exported file can never disagree or
differ in what they let through. The changes here: citation links point at the source
viewer (``/runs/{id}/sources/n``; report.js opens the evidence popover instead), Sources
entries link to the viewer rather than ``file://`` (which browsers block on http pages),
and a detailed report's Contents list links to its sections. Quotes in the popovers are
cleaned of markup: the stored text's span of each check as
:meth:`deepcite.citations.display.DisplayText.shown` reads it.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import quote

from pydantic import SecretBytes, SecretStr

from deepcite.config import KNOWN_KEYS, Settings, get_value
from deepcite.errors import DeepciteError
from deepcite.types import ResearchResult

logger = logging.getLogger(__name__)

_CITE_LINK = re.compile(r'<a href="#source-(\d+)" class="cite"')
# A Sources entry's title link as render_fragment writes it (the href is optional).
#: A Sources entry: its numbers (one document cited under several numbers lists them all,
#: ``[1, 3, 4]``; the first opens the viewer), then its title link or bare title.
_SOURCE_ENTRY = re.compile(r'(\[<span id="source-(\d+)">\d+</span>'
                           r'(?:, <span id="source-\d+">\d+</span>)*\]</span> )'
                           r'<a class="source-title"(?: href="[^"]*")?[^>]*>([^<]*)</a>')
_FILE_URL_LINE = re.compile(r'<br><span class="source-url">file:[^<]*</span>', re.IGNORECASE)
_HEADING = re.compile(r'<h([2-4]) id="([^"]+)">([^<]*)</h\1>')
_CONTENTS_ITEM = re.compile(r"<li>([^<]+?)(\n?<ul>|\n?</li>)")
_NUMBERED_ITEM = re.compile(r'<li>\n<ol(?: start="(\d+)")?>\n<li>([^<]+)</li>\n</ol>\n')
#: Quotes shown per citation number; more would no longer be a small popover.
MAX_QUOTES = 3


@dataclass(frozen=True)
class Evidence:
    """A citation number's popover: the source's title and what was checked."""

    number: int
    title: str
    url: str
    quotes: list[tuple[str, str]] = field(default_factory=list)  # (outcome, quote)


def waited_seconds(created_at: datetime, finished_at: datetime | None) -> float | None:
    """Seconds from submitting a run to its end (``None`` while it has none): what the
    history lists and the report's Duration says, so the two agree. A naive and an aware
    time (rows written before times carried their zone) are compared as naive."""
    if finished_at is None:
        return None
    start, end = created_at, finished_at
    if (start.tzinfo is None) != (end.tzinfo is None):
        start, end = start.replace(tzinfo=None), end.replace(tzinfo=None)
    return max(0.0, (end - start).total_seconds())

def report_body(result: ResearchResult, snapshot: Mapping[str, Any], settings: Settings,
                run_id: str | None = None) -> str:
    """The sanitised report (body and Sources), labelled as the run's own settings say
    (as its exports are). With ``run_id``, citations link to the source viewer (the
    popover is report.js's, keyed by ``data-evidence``), Sources entries link there
    instead of ``file://`` links, and the Contents list links to its sections."""
    from deepcite.export import ExportOptions
    from deepcite.export.html import render_fragment

    try:
        options = ExportOptions.for_run(snapshot, settings)
    except DeepciteError:
        options = ExportOptions()
    fragment = render_fragment(result, options)
    # Only rewrites what render_fragment itself emitted after nh3: digits and fixed text.
    if run_id is None:
        return _CITE_LINK.sub(r'<a href="#evidence-\1" class="cite" data-evidence="\1"',
                              fragment)
    base = "/runs/" + quote(run_id, safe="") + "/sources/"
    fragment = _CITE_LINK.sub(
        lambda m: f'<a href="{base}{m[1]}" class="cite" data-evidence="{m[1]}"', fragment)
    web = {s.number for s in result.sources
           if (s.url or s.canonical_url).lower().startswith(("http://", "https://"))}

    def entry(match: re.Match[str]) -> str:
        number = int(match[2])
        if number in web:  # the link out stays; the passage is one more link
            return f'{match[0]} <a class="source-view" href="{base}{number}">passage</a>'
        return f'{match[1]}<a class="source-title" href="{base}{number}">{match[3]}</a>'

    fragment = _SOURCE_ENTRY.sub(entry, fragment)
    # A local document's file: address is a path on the server: of no use to a browser
    # (which blocks file: links on http pages) and not the reader's business; the
    # collection and file name below it, and the viewer link, say where it is.
    fragment = _FILE_URL_LINE.sub("", fragment)
    return linked_contents(fragment)


def linked_contents(fragment: str) -> str:
    """The "Contents" list of a detailed report with each entry linked to the section
    heading of the same text (entries without such a heading stay text)."""
    start = fragment.find('<h2 id="contents">')
    if start < 0:
        return fragment
    anchors = {text: anchor for _, anchor, text in _HEADING.findall(fragment)}
    end = fragment.find("<h2", start + 1)
    end = len(fragment) if end < 0 else end
    # "- 1. Part" is read by Markdown as a list item holding an ordered list: written
    # back as the numbered entry it is, so it can be matched with its heading.
    contents = _NUMBERED_ITEM.sub(
        lambda m: f"<li>{m[1] or 1}. {m[2]}{chr(10)}", fragment[start:end])
    contents = _CONTENTS_ITEM.sub(
        lambda m: (f'<li><a href="#{anchors[m[1]]}">{m[1]}</a>{m[2]}'
                   if m[1] in anchors and anchors[m[1]] != "contents" else m[0]),
        contents)
    return fragment[:start] + contents + fragment[end:]


def evidence(result: ResearchResult) -> list[Evidence]:
    """One popover per source number: the quotes of the checks of that citation.

    ``url`` is what the popover's "Open source" link points at, so it passes the
    exports' link allow-list first; a source whose URL it refuses (a ``javascript:``
    or ``data:`` one in a stored result) gets an empty ``url`` and no link at all.
    """
    from deepcite.citations.display import DisplayText, display_text
    from deepcite.citations.hyperlinks import safe_link_url
    from deepcite.web.sources_view import evidence_spans

    texts = {s.number: s.text for s in result.sources}
    shown: dict[int, DisplayText] = {}
    quotes: dict[int, list[tuple[str, str]]] = {}
    for check in result.citation_checks:
        if not check.quote:
            continue
        number = check.source_number if check.source_number is not None else check.number
        text = texts.get(number, "")
        span = evidence_spans(text, [check])
        if span:  # the cleaned form of exactly the checked span of the stored text
            if number not in shown:
                shown[number] = display_text(text)
            quote = shown[number].shown(*span[0])
        else:
            quote = display_text(check.quote).text
        found = quotes.setdefault(check.number, [])
        pair = (check.outcome, quote)
        if pair not in found and len(found) < MAX_QUOTES:
            found.append(pair)
    return [Evidence(s.number, s.title,
                     safe_link_url(s.url or s.canonical_url) or "",
                     quotes.get(s.number, []))
            for s in result.sources]


def settings_rows(settings: Settings) -> list[tuple[str, str]]:
    """Every setting as ``(key, shown value)``; secrets only as ``set``/``not set``.

    Values come from :func:`deepcite.store.snapshot.settings_snapshot`, which also
    removes credentials from free-form tables and passwords from URLs.
    """
    from deepcite.store.snapshot import settings_snapshot

    snapshot = settings_snapshot(settings)
    rows = []
    for key in KNOWN_KEYS:
        raw = get_value(settings, key)
        if isinstance(raw, SecretStr | SecretBytes):
            shown = "set" if raw.get_secret_value() else "not set"
        else:
            value: Any = snapshot
            for part in key.split("."):
                value = value.get(part) if isinstance(value, dict) else None
            shown = value if isinstance(value, str) else json.dumps(value)
        rows.append((key, shown))
    return rows


def key_status(settings: Settings, environ: dict[str, str]) -> list[tuple[str, str]]:
    """Whether each API key is set, never its value."""
    key = settings.llm.api_key
    rows = [("llm.api_key", "set" if key and key.get_secret_value() else "not set")]
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        rows.append((name, "set" if environ.get(name) else "not set"))
    return rows

