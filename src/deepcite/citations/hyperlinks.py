"""Turning ``[n]`` citation markers into Markdown links to their sources.

Only the answer body is rewritten: the Sources section after it is the bibliography,
and code spans or blocks hold indexes like ``xs[1]``, not citations. A marker number
with no source stays plain text rather than becoming a link to nowhere, and an escaped
``\\[99\\]`` (a source's own brackets, quoted) is no marker at all.

Modes decide the link label (``--citation-links`` on the CLI):

* ``number``            ``[[1]](url)``
* ``domain``            ``[[arxiv.org]](url)``, the registrable domain (file name for local files)
* ``domain-id``         like ``domain``, with ``-1``, ``-2`` only where a domain repeats
* ``domain-id-always``  like ``domain``, always with the per-domain id
* ``source-tagged``     ``[[arxiv-3]](url)``, an academic source tag and the global number
* ``none``              the text unchanged
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote, urlsplit

from deepcite.citations.markers import MARKER, parse_numbers, prose_only, sub_outside_code
from deepcite.citations.render import CitedEntry, EntryLike, answer_body, by_number
from deepcite.citations.text import escape_html
from deepcite.security.terminal import one_line

if TYPE_CHECKING:
    import tldextract

#: Schemes a link in any export or page may have. ``file:`` only where the caller allows
#: it (the report's own local sources) and only without a host: see :func:`safe_link_url`.
LINK_SCHEMES = frozenset({"http", "https", "mailto"})
_FILE_HOSTS = frozenset({"", "localhost"})
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
# What browsers, Word and LibreOffice drop or skip inside a URL before reading its
# scheme (``java\tscript:``, a leading space or NUL), plus invisible format characters.
_INVISIBLE = re.compile(r"[\x00-\x20\x7f-\x9f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064"
                        r"\ufeff]")
_MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")

MODES = ("number", "domain", "domain-id", "domain-id-always", "source-tagged", "none")

# A marker not already part of a Markdown link: not the label of ``[[1]](u)`` (preceded
# by ``[``) and not itself a link text ``[1](u)``, so hyperlinking twice changes nothing.
_LINKABLE = re.compile(r"(?<!\[)(?:" + MARKER.pattern + r")(?!\()")

# Engines whose name is already a good tag, and the tags short enough to read inline.
# ``semantic-scholar`` is the engine's canonical name now; ``semantic_scholar`` stays for
# results saved before the registry spelled engine names in kebab-case.
_ENGINE_TAGS = {
    "arxiv": "arxiv", "pubmed": "pubmed", "doi": "doi", "semantic-scholar": "s2",
    "semantic_scholar": "s2", "s2": "s2", "openalex": "openalex", "wikipedia": "wikipedia",
    "local": "local",
}
# Host suffixes that identify an academic source when the engine does not (a web
# search that happened to land on arxiv.org is still an arXiv paper).
_HOST_TAGS = (
    ("arxiv.org", "arxiv"), ("pubmed.ncbi.nlm.nih.gov", "pubmed"),
    ("ncbi.nlm.nih.gov", "pubmed"), ("doi.org", "doi"), ("semanticscholar.org", "s2"),
    ("openalex.org", "openalex"), ("wikipedia.org", "wikipedia"),
)
_METADATA_TAGS = (("arxiv_id", "arxiv"), ("pmid", "pubmed"), ("doi", "doi"))


def _readings(url: str) -> set[str]:
    """Every way a renderer might read ``url``: as given, HTML-entity decoded (once or
    repeatedly: ``&amp;#106;``), Markdown backslash escapes removed, invisible and
    blank characters dropped. A link is judged by the worst of them."""
    readings: set[str] = set()
    current = url
    for _ in range(4):
        readings.add(current)
        decoded = html.unescape(current)
        if decoded == current:
            break
        current = decoded
    for reading in list(readings):
        readings.add(_MARKDOWN_ESCAPE.sub(r"\1", reading))
    return {unicodedata.normalize("NFKC", _INVISIBLE.sub("", r)) for r in readings}


def _local_file(url: str) -> bool:
    """Whether a ``file:`` URL names a file on this machine: no host, and no path that
    Windows reads as a UNC share (``file:////host/x``, ``file:\\\\host``, ``%5C``)."""
    decoded = unquote(url)
    try:
        parts = urlsplit(decoded)
        host = (parts.hostname or "").lower()
    except ValueError:
        return False
    return host in _FILE_HOSTS and "\\" not in decoded and not parts.path.startswith("//")


def safe_link_url(url: str, *, allow_file: bool = False) -> str | None:
    """``url`` when it may be the target of a link deepcite writes, else ``None``.

    The one allow-list every exporter and the web pages use: ``http``, ``https`` and
    ``mailto`` URLs, in-page anchors (``#x``), and - with ``allow_file``, for the
    report's own local sources - ``file:`` URLs without a host. Everything else is
    refused: ``javascript:``, ``vbscript:``, ``data:`` (they run code or show forged
    content when clicked in a browser, Word or LibreOffice), relative paths (resolved
    against wherever the document is opened) and ``file://host/share`` (on Windows
    that reaches an SMB server and hands it the user's credentials). Spellings that a
    reader would still take for a refused scheme (``JaVaScRiPt:``, `` javascript:``,
    ``java&#x09;script:``, ``&#106;avascript:``, ``javascript\\:``) are refused too.

    The URL comes back stripped, with any blank or control character left inside it
    percent-encoded, so it cannot end a Markdown link or a line.
    """
    stripped = url.strip()
    if not stripped:
        return None
    for reading in _readings(stripped):
        if not reading:
            return None
        scheme = _SCHEME.match(reading)
        if scheme is None:
            if not reading.startswith("#"):
                return None  # relative, protocol-relative or a scheme hidden by encoding
            continue
        name = scheme.group(1).lower()
        if name == "file" and allow_file:
            if not _local_file(reading):
                return None
            continue
        if name not in LINK_SCHEMES:
            return None
    return re.sub(r"[\x00-\x20\x7f-\x9f]", lambda m: quote(m.group(0)), stripped)


@functools.cache
def _extractor() -> tldextract.TLDExtract:
    # Imported here, on the first domain label: tldextract (with requests behind it) is
    # a tenth of a second that `deepcite history` or `show` with number labels never use.
    import tldextract

    # No suffix-list download and no disk cache: deepcite must work offline and leave no
    # files behind, so the Public Suffix List snapshot bundled with tldextract is used.
    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


def registrable_domain(url: str) -> str:
    """The label a reader recognises: ``x.co.uk`` for ``https://a.x.co.uk/``.

    A naive "last two labels" would say ``co.uk``, hence the Public Suffix List. Local
    files are named by file name; hosts without a public suffix (``localhost``, IPs) by
    host name.
    """
    parts = urlsplit(url)
    if parts.scheme.lower() == "file":
        return PurePosixPath(unquote(parts.path)).name or url
    host = (parts.hostname or "").lower()
    if not host:
        return url
    return _extractor()(host).top_domain_under_public_suffix or host


def source_tag(entry: CitedEntry) -> str:
    """A short tag naming where an entry came from; ``web`` when nothing more is known."""
    engine = entry.engine.lower().split(":", 1)[0]
    if engine in _ENGINE_TAGS:
        return _ENGINE_TAGS[engine]
    parts = urlsplit(entry.canonical_url)
    if parts.scheme.lower() == "file" or entry.collection:
        return "local"
    host = (parts.hostname or "").lower()
    for suffix, tag in _HOST_TAGS:
        if host == suffix or host.endswith("." + suffix):
            return tag
    for key, tag in _METADATA_TAGS:
        if entry.metadata.get(key):
            return tag
    return "web"


def hyperlink(text: str, entries: Iterable[EntryLike], mode: str = "number") -> str:
    """Rewrite the citation markers of ``text`` into links, labelled according to ``mode``.

    A link opens the URL its source was found at (not the canonical form used to group
    sources), when :func:`safe_link_url` allows it; otherwise the label stays text.

    Raises :class:`ValueError` naming the valid modes for an unknown ``mode``, so a typo
    in a setting fails loudly instead of silently leaving the answer unlinked.
    """
    if mode not in MODES:
        raise ValueError(f"unknown citation link mode {mode!r}; choose one of: "
                         + ", ".join(MODES))
    if mode == "none":
        return text
    table = by_number(entries)
    body, sources = answer_body(text)
    label = _labeller(mode, body, table)

    def replace(match: re.Match[str]) -> str:
        numbers = list(dict.fromkeys(parse_numbers(match.group(1))))
        if not any(n in table for n in numbers):
            return match.group(0)
        return "".join(_link(label(table[n]), table[n].url) if n in table
                       else f"[{n}]" for n in numbers)

    return sub_outside_code(_LINKABLE, replace, body) + sources


def _labeller(mode: str, body: str, table: dict[int, CitedEntry]) -> Callable[[CitedEntry], str]:
    if mode == "number":
        return lambda entry: str(entry.number)
    if mode == "source-tagged":
        return lambda entry: f"{source_tag(entry)}-{entry.number}"
    if mode == "domain":
        return lambda entry: registrable_domain(entry.canonical_url)
    # domain-id modes: number documents per domain in the order the body first cites
    # them; passages of one document share its id.
    ids: dict[str, int] = {}
    per_domain: dict[str, int] = {}
    for match in _LINKABLE.finditer(prose_only(body)):
        for number in parse_numbers(match.group(1)):
            entry = table.get(number)
            if entry is None or entry.document_key in ids:
                continue
            domain = registrable_domain(entry.canonical_url)
            per_domain[domain] = per_domain.get(domain, 0) + 1
            ids[entry.document_key] = per_domain[domain]
    always = mode == "domain-id-always"

    def domain_id(entry: CitedEntry) -> str:
        domain = registrable_domain(entry.canonical_url)
        if not always and per_domain.get(domain, 0) <= 1:
            return domain
        return f"{domain}-{ids.get(entry.document_key, 1)}"

    return domain_id


def _link(label: str, url: str) -> str:
    # Brackets in a label (file names) and spaces or parentheses in a URL would end the
    # Markdown link early, so they are escaped; so is HTML, since a file may be named
    # "<img onerror=...>.md". A URL outside the allow-list (a stored result may hold a
    # ``javascript:`` one) gives the label without a link.
    safe_label = escape_html(one_line(label).replace("\\", "\\\\").replace("[", "\\[")
                             .replace("]", "\\]"))
    target = safe_link_url(url, allow_file=True)
    if target is None:
        return f"\\[{safe_label}\\]"
    safe_url = (target.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
                .replace("<", "%3C").replace(">", "%3E"))
    return f"[[{safe_label}]]({safe_url})"
