"""The HTML export: one standalone page, safe to open whatever the report contains.

Everything in a report is untrusted: the model's answer, page titles, snippets, file
names. The page is therefore built in three guarded steps:

1. The inert Markdown every exporter starts from
   (:func:`~deepcite.export.base.inert_report_markdown`: raw HTML, images and links
   outside the allow-list already text there) is rendered by markdown-it-py with raw
   HTML off and images off (an image is a request to somebody's server the moment the
   page opens).
2. Citation markers become links to the anchors of their Sources entries
   (``#source-n``), labelled by the ``citations.links`` mode; the Sources list is built
   here from the result's sources, each entry linking out to its URL.
3. The fragment goes through nh3 with an allow-list of exactly the tags and attributes
   steps 1-2 emit and only the links :func:`~deepcite.citations.hyperlinks.safe_link_url`
   takes (http, https, mailto, host-less file, in-page); the page around
   it (title, inline CSS, a Content-Security-Policy that forbids scripts and fetches)
   is fixed text with the title escaped.

The PDF export renders this same page with print CSS (:mod:`deepcite.export.pdf`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, cast

import nh3
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from deepcite.citations import answer_body, cited_numbers
from deepcite.citations.hyperlinks import registrable_domain, safe_link_url, source_tag
from deepcite.citations.markers import MARKER_SHAPE, parse_numbers
from deepcite.citations.render import CitedEntry, SourceDocument, by_number
from deepcite.export.base import (
    ExportOptions,
    ExportResult,
    document_title,
    inert_report_markdown,
    report_documents,
    result_for,
    without_title,
)
from deepcite.text.frames import frame, labelled
from deepcite.text.language import DEFAULT, detect
from deepcite.types import ResearchResult

# The marker shapes of deepcite.citations.markers: [1], [1, 2], [1-3], 【1】. Escaped
# brackets ("\[99\]", a source's own) never reach this pattern: markdown-it keeps them
# as separate tokens until its text_join rule, and the citation rule runs before it.
_MARKER = re.compile(MARKER_SHAPE)

SCREEN_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK SC",
  "WenQuanYi Micro Hei", sans-serif; line-height: 1.6; color: #1b1b1b; max-width: 48rem;
  margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.8rem; line-height: 1.25; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #c8c8c8; padding: 0.3rem 0.6rem; vertical-align: top; }
th { background: #f2f2f2; }
pre { background: #f6f6f6; padding: 0.8rem; overflow-x: auto; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.92em; }
blockquote { margin-left: 0; padding-left: 1rem; border-left: 3px solid #d0d0d0; color: #444; }
a { color: #1a4f8b; }
a.cite { text-decoration: none; }
ul.sources { list-style: none; padding-left: 0; }
ul.sources li { margin-bottom: 0.7rem; overflow-wrap: anywhere; }
.source-numbers { font-weight: 600; }
.source-url, .source-where { color: #555; font-size: 0.9em; }
"""

PRINT_CSS = """
@page { size: A4; margin: 2cm 1.8cm;
  @bottom-center { content: counter(page) " / " counter(pages); font-size: 9pt; color: #666; } }
body { font-family: "Noto Sans CJK SC", "WenQuanYi Micro Hei", "Noto Sans", sans-serif;
  font-size: 10.5pt; max-width: none; margin: 0; padding: 0; }
code { font-family: "DejaVu Sans Mono", "Noto Sans Mono", "Noto Sans CJK SC",
  "WenQuanYi Micro Hei", monospace; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; }
h1, h2, h3, h4 { break-after: avoid; }
tr, blockquote { break-inside: avoid; }
td, th { overflow-wrap: anywhere; }
"""

# Exactly what the renderer and the Sources list below emit.
_TAGS = frozenset({
    "a", "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "strong",
    "em", "s", "code", "pre", "blockquote", "table", "thead", "tbody", "tr", "th", "td",
    "section", "span",
})
_ATTRIBUTES = {
    "a": {"href", "class"},
    "h1": {"id"}, "h2": {"id"}, "h3": {"id"}, "h4": {"id"}, "h5": {"id"}, "h6": {"id"},
    "ol": {"start"}, "ul": {"class"}, "li": {"class"}, "span": {"class", "id"},
    "section": {"class", "id"}, "code": {"class"}, "pre": {"tabindex"},
    "th": {"style"}, "td": {"style"},
}
_URL_SCHEMES = frozenset({"http", "https", "mailto", "file"})


def _in_page_only(url: str) -> str | None:
    """Relative URLs: in-page anchors stay; a path (``../../etc/passwd``) is dropped."""
    return url if url.startswith("#") else None


def _allowed_href(tag: str, attribute: str, value: str) -> str | None:
    """nh3 attribute filter: an ``href`` only where the shared link allow-list takes it
    (``file:`` without a host: ``file://host/share`` would reach an SMB server)."""
    if attribute == "tabindex":
        return "0" if value == "0" else None
    if attribute != "href":
        return value
    return safe_link_url(value, allow_file=True)


_CLEANER = nh3.Cleaner(
    tags=set(_TAGS), attributes={tag: set(names) for tag, names in _ATTRIBUTES.items()},
    attribute_filter=_allowed_href,
    url_schemes=set(_URL_SCHEMES), url_relative=_in_page_only,
    filter_style_properties={"text-align"}, strip_comments=True,
    link_rel="noopener noreferrer",
)

# A page whose policy forbids scripts and every fetch, as a second line of defence.
_PAGE = """<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="generator" content="deepcite">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<main>
<h1 class="title">{title}</h1>
{content}
</main>
</body>
</html>
"""

_RESERVED_IDS = frozenset({"sources"})


@dataclass(frozen=True)
class _Citations:
    """What the citation rule needs: sources by number and their link labels."""

    table: dict[int, CitedEntry]
    labels: dict[int, str]


def _focusable_code(md: MarkdownIt) -> MarkdownIt:
    """Code blocks as ``<pre tabindex="0">``: a long example line scrolls sideways, and
    a scrolling region a keyboard cannot reach fails WCAG (axe's
    scrollable-region-focusable) - answers show API examples since how-to answers do."""
    rules = cast(RendererHTML, md.renderer).rules
    for name in ("fence", "code_block"):
        default = rules[name]

        def focusable(_renderer: Any, tokens: Sequence[Token], idx: int, options: Any,
                      env: Any, _default: Any = default) -> str:
            return str(_default(tokens, idx, options, env)).replace(
                "<pre>", '<pre tabindex="0">', 1)

        md.add_render_rule(name, focusable)
    return md


def _markdown_renderer() -> MarkdownIt:
    md = _focusable_code(
        MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}))
    md.enable(["table", "strikethrough"])
    md.disable("image")
    md.core.ruler.before("text_join", "deepcite_citations", _link_citations)
    md.core.ruler.push("deepcite_heading_ids", _heading_ids)
    return md


def _numbers(group: str) -> list[int]:
    """``"1, 3-5"`` -> ``[1, 3, 4, 5]``, read as the citation markers are, each once."""
    return list(dict.fromkeys(parse_numbers(group)))


def _citation_tokens(text: str, citations: _Citations) -> Iterator[Token]:
    last = 0
    for match in _MARKER.finditer(text):
        numbers = _numbers(match.group(1))
        if not any(n in citations.table for n in numbers):
            continue
        if match.start() > last:
            yield _text(text[last:match.start()])
        for number in numbers:
            if number not in citations.table:
                yield _text(f"[{number}]")
                continue
            yield Token("link_open", "a", 1, attrs={"href": f"#source-{number}",
                                                     "class": "cite"})
            yield _text(f"[{citations.labels[number]}]")
            yield Token("link_close", "a", -1)
        last = match.end()
    if last < len(text):
        yield _text(text[last:])


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


def _link_citations(state: StateCore) -> None:
    """Core rule: citation markers in prose text become links to their Sources entry.

    Code spans and blocks are other token types, and text inside a link the model wrote
    is left alone (a link in a link is no link).
    """
    citations = state.env.get("deepcite_citations")
    if not isinstance(citations, _Citations):
        return
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        depth = 0
        for child in block.children:
            depth += {"link_open": 1, "link_close": -1}.get(child.type, 0)
            if child.type == "text" and depth == 0 and _MARKER.search(child.content):
                children.extend(_citation_tokens(child.content, citations))
            else:
                children.append(child)
        block.children = children


def _slug(text: str) -> str:
    """GitHub-like heading anchors, so a contents list's ``(#2-methods)`` links work."""
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return re.sub(r"\s", "-", text) or "section"


def _heading_ids(state: StateCore) -> None:
    """Core rule: every heading gets a unique id (none taken from the Sources list)."""
    used: set[str] = set(_RESERVED_IDS)
    tokens = state.tokens
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or index + 1 >= len(tokens):
            continue
        inline = tokens[index + 1]
        text = "".join(child.content for child in inline.children or []
                       if child.type in ("text", "code_inline", "text_special"))
        base = slug = _slug(text)
        counter = 1
        while slug in used or re.fullmatch(r"source-\d+", slug):
            slug = f"{base}-{counter}"
            counter += 1
        used.add(slug)
        token.attrSet("id", slug)


_RENDERER = _markdown_renderer()
#: Markdown that is not a report (a watch's changes in a feed): no citation rule.
_PLAIN = _focusable_code(
    MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
).enable(["table", "strikethrough"]).disable("image")


def safe_markdown_html(markdown: str) -> str:
    """``markdown`` (text from documents and models) as HTML safe to embed where HTML is
    read - an Atom entry's ``type="html"`` content, a mail: raw HTML in it stays text,
    images are dropped, and the report's sanitiser keeps only its tags, attributes and
    link schemes."""
    return str(_CLEANER.clean(_PLAIN.render(markdown)))


def citation_labels(body: str, table: dict[int, CitedEntry], mode: str) -> dict[int, str]:
    """The label of each source's citation links, as :func:`deepcite.citations.hyperlink`
    labels them in ``mode`` (``none`` reads as ``number``: HTML always links)."""
    if mode in ("none", "number"):
        return {n: str(n) for n in table}
    if mode == "source-tagged":
        return {n: f"{source_tag(entry)}-{n}" for n, entry in table.items()}
    domains = {n: registrable_domain(entry.canonical_url) for n, entry in table.items()}
    if mode == "domain":
        return domains
    # domain-id modes: documents numbered per domain in the order the body cites them.
    ids: dict[str, int] = {}
    per_domain: dict[str, int] = {}
    for number in cited_numbers(body):
        entry = table.get(number)
        if entry is None or entry.document_key in ids:
            continue
        per_domain[domains[number]] = per_domain.get(domains[number], 0) + 1
        ids[entry.document_key] = per_domain[domains[number]]
    always = mode == "domain-id-always"
    return {n: domains[n] if not always and per_domain.get(domains[n], 0) <= 1
            else f"{domains[n]}-{ids.get(entry.document_key, 1)}" for n, entry in table.items()}


def _sources_html(documents: Sequence[SourceDocument], language: str = DEFAULT) -> str:
    """The Sources list, its heading and labels in ``language`` (the question's)."""
    if not documents:
        return ""
    items = []
    for document in documents:
        entry = document.entry
        numbers = ", ".join(f'<span id="source-{n}">{n}</span>' for n in document.numbers)
        # The URL as found (what was read). The cleaner drops an href the allow-list
        # refuses, leaving the title as text (the web pages relink it to their viewer).
        url = html.escape(entry.url, quote=True)
        title = html.escape(entry.title)
        lines = [f'<span class="source-numbers">[{numbers}]</span> '
                 f'<a class="source-title" href="{url}">{title}</a>',
                 f'<span class="source-url">{url}</span>']
        if entry.collection:
            where = html.escape(labelled("collection", entry.collection, language))
            if entry.path:
                where += f" · {html.escape(PurePath(entry.path).name)}"
            if document.pages:
                label = "p." if len(document.pages) == 1 else "pp."
                if entry.kind == "epub":
                    label = "section" if len(document.pages) == 1 else "sections"
                where += f", {label} {', '.join(str(p) for p in sorted(document.pages))}"
            lines.append(f'<span class="source-where">{where}</span>')
        items.append(f'<li class="source">{"<br>".join(lines)}</li>')
    heading = html.escape(frame("sources", language))
    return (f'<section class="sources" id="sources">\n<h2>{heading}</h2>\n'
            f'<ul class="sources">\n{chr(10).join(items)}\n</ul>\n</section>\n')


def render_fragment(report: ResearchResult, options: ExportOptions) -> str:
    """The sanitised body of the page: the report, then its Sources list."""
    markdown = without_title(report, inert_report_markdown(report, options))
    body, _ = answer_body(markdown)  # the Sources block is rebuilt as HTML below
    table = by_number(report.sources)
    env: dict[str, Any] = {
        "deepcite_citations": _Citations(table, citation_labels(body, table, options.links)),
    }
    rendered = _RENDERER.render(body, env)
    return str(_CLEANER.clean(rendered + _sources_html(report_documents(report),
                                                       detect(report.question))))


def render_page(report: ResearchResult, options: ExportOptions, *, extra_css: str = "") -> str:
    """The whole standalone page; ``extra_css`` is appended (the PDF's print rules)."""
    return _PAGE.format(title=html.escape(document_title(report)),
                        css=SCREEN_CSS + extra_css,
                        content=render_fragment(report, options))


class HtmlExporter:
    """A standalone HTML page: no scripts, no external resources, citations linked."""

    name = "html"
    extension = ".html"
    media_type = "text/html; charset=utf-8"
    description = "standalone HTML page; citations link to the Sources list"

    def export(self, report: ResearchResult, options: ExportOptions) -> ExportResult:
        """The page as UTF-8."""
        return result_for(report, self, render_page(report, options).encode("utf-8"))
