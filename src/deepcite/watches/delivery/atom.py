"""The Atom 1.0 feed of one watch: its notices, newest first.

Served at a private URL with a token (the watch store's and the web app's business);
this module only writes the document. Built with :mod:`xml.etree.ElementTree`, so
every text and attribute is escaped by the serializer - a summary holding
``</title><script>`` or ``]]>`` stays text - and characters XML 1.0 cannot carry (NUL,
escape sequences...) are dropped first, so the document always parses.

Ids are ``tag:`` URIs (RFC 4151) that depend on the watch and run ids only, never on the
server's address, so a reader does not see an entry twice after the server moves:
``tag:deepcite,2026:watch:<watch id>`` for the feed, ``tag:deepcite,2026:run:<run id>``
for the entry of each run. Times are RFC 3339 in UTC (a naive time is taken as UTC).

:class:`AtomFeed` is the feed as a channel (:mod:`deepcite.watches.channels`): one
every watch has, read by feed readers rather than sent, so it has no targets to type
and nothing is queued for it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import ClassVar, Literal
from urllib.parse import quote

from deepcite._version import __version__
from deepcite.export.html import safe_markdown_html
from deepcite.watches.channels import DeliveryTarget, SendContext, Sender
from deepcite.watches.notice import Notice

__all__ = ["ATOM_NAMESPACE", "CONTENT_TYPE", "AtomFeed", "atom_feed", "entry_id", "feed_id",
           "rfc3339"]

ATOM_NAMESPACE = "http://www.w3.org/2005/Atom"
CONTENT_TYPE = "application/atom+xml; charset=utf-8"
TAG_PREFIX = "tag:deepcite,2026:"
# What XML 1.0 allows (https://www.w3.org/TR/xml/#charsets); everything else is dropped.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


class AtomFeed(DeliveryTarget):
    """The channel of the Atom feed every watch has (served by the web app at its
    private address, :func:`atom_feed` writing the document)."""

    kind: Literal["atom"] = "atom"

    description: ClassVar[str] = "the private Atom feed every watch has"
    implicit: ClassVar[bool] = True

    def shown(self) -> str:
        return "its Atom feed"

    @classmethod
    def sender(cls, context: SendContext) -> Sender | None:
        """None: readers fetch the feed; nothing is sent."""
        return None


def feed_id(watch_id: str) -> str:
    """The feed's stable id."""
    return f"{TAG_PREFIX}watch:{quote(watch_id, safe='-._~')}"


def entry_id(run_id: str) -> str:
    """The stable id of the entry of run ``run_id``."""
    return f"{TAG_PREFIX}run:{quote(run_id, safe='-._~')}"


def rfc3339(moment: datetime) -> str:
    """``2026-03-01T12:00:00Z``: ``moment`` in UTC, to the second."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def atom_feed(watch_id: str, watch_name: str, notices: Sequence[Notice], feed_url: str,
              base_url: str | None, *, watch_url: str | None = None,
              updated: datetime | None = None) -> bytes:
    """The UTF-8 Atom document of ``notices`` (any order; written newest first).

    ``feed_url`` is the feed's own address (its ``rel="self"`` link, token and all);
    ``base_url`` the web app's public address, for entries whose notice has no ``url``
    (they link to ``<base_url>/runs/<run id>``) and, without ``watch_url``, the feed's
    ``alternate`` link. ``updated`` defaults to the newest notice's time (now, when
    there is none).
    """
    ordered = sorted(notices, key=lambda notice: _aware(notice.created_at), reverse=True)
    newest = updated or (ordered[0].created_at if ordered else datetime.now(UTC))
    feed = ET.Element("feed", {"xmlns": ATOM_NAMESPACE})
    _text(feed, "id", feed_id(watch_id))
    _text(feed, "title", f"deepcite watch: {_oneline(watch_name)}")
    if ordered:
        _text(feed, "subtitle", _oneline(ordered[0].question))
    _text(feed, "updated", rfc3339(newest))
    _link(feed, "self", feed_url, "application/atom+xml")
    alternate = _http(watch_url) or _http(base_url)
    if alternate:
        _link(feed, "alternate", alternate, "text/html")
    author = ET.SubElement(feed, "author")
    _text(author, "name", "deepcite")
    generator = ET.SubElement(feed, "generator",
                              {"uri": "https://pypi.org/project/deepcite/",
                               "version": __version__})
    generator.text = "deepcite"
    for notice in ordered:
        _entry(feed, notice, base_url)
    document: bytes = ET.tostring(feed, encoding="utf-8", xml_declaration=True)
    return document


def _entry(feed: ET.Element, notice: Notice, base_url: str | None) -> None:
    entry = ET.SubElement(feed, "entry")
    _text(entry, "id", entry_id(notice.run_id))
    _text(entry, "title", _oneline(notice.summary) or "(no summary)")
    _text(entry, "updated", rfc3339(notice.created_at))
    _text(entry, "published", rfc3339(notice.created_at))
    link = _http(notice.url)
    if link is None and _http(base_url):
        link = f"{str(base_url).rstrip('/')}/runs/{quote(notice.run_id, safe='')}"
    if link:
        _link(entry, "alternate", link, "text/html")
    _text(entry, "summary", _oneline(notice.summary)).set("type", "text")
    changes = notice.changes_markdown.strip()
    if notice.nothing_new or not changes:
        _text(entry, "content", notice.summary).set("type", "text")
    else:  # the changes are Markdown: readers show type="html" as a page, "text" raw
        _text(entry, "content", safe_markdown_html(changes)).set("type", "html")


def _text(parent: ET.Element, tag: str, text: str) -> ET.Element:
    element = ET.SubElement(parent, tag)
    element.text = _NOT_XML.sub("", text)
    return element


def _link(parent: ET.Element, rel: str, href: str, kind: str) -> None:
    ET.SubElement(parent, "link", {"rel": rel, "type": kind, "href": _NOT_XML.sub("", href)})


def _http(url: str | None) -> str | None:
    """``url`` when it is an http(s) address (never ``javascript:`` and the like)."""
    if url and url.strip().lower().startswith(("https://", "http://")):
        return url.strip()
    return None


def _oneline(text: str) -> str:
    return " ".join(_NOT_XML.sub("", text).split())


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
