"""Parsing helpers the academic engines share: a guarded XML parser, DOI normalising.

ElementTree is acceptable for feeds from fixed, well-known hosts; size limits and a
refusal of entity declarations keep a broken or hostile proxy from making the parser
expand or hold more than a feed needs.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from deepcite.errors import SearchError

#: Far above any feed of at most 100 entries; a bigger answer is not a feed.
MAX_XML_CHARS = 20_000_000
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)


def parse_xml(engine: str, text: str, host: str) -> ET.Element:
    """The root of an XML answer; SearchError when it is too big, has entities or is bad.

    ElementTree is acceptable here because the answers come from fixed, well-known
    hosts; size and entity declarations are refused anyway so a broken or hostile
    proxy cannot make the parser expand or hold more than a feed needs.
    """
    if len(text) > MAX_XML_CHARS:
        raise SearchError(f"{engine}: the answer from {host} is too large "
                          f"({len(text):,} characters)")
    if "<!ENTITY" in text:
        raise SearchError(f"{engine}: refused XML with entity declarations from {host}")
    try:
        return ET.fromstring(text)
    except ET.ParseError as exc:
        raise SearchError(f"{engine}: malformed XML from {host} ({exc})") from exc


def bare_doi(value: Any) -> str | None:
    """A DOI without resolver prefix, lowercase (DOIs are case-insensitive); else None."""
    text = _DOI_PREFIX.sub("", str(value or "").strip()).strip().lower()
    return text if text.startswith("10.") else None
