"""What the report, settings and collections pages show, built from deepcite's own parts.

The report body is :func:`deepcite.export.html.render_fragment` - the HTML export's
renderer and nh3 allow-list - so the page and the exported file can never disagree or
differ in what they let through. The one change here: citation links point at the
citation's evidence popover (``#evidence-n``) instead of the Sources entry, and the
popover links on to the entry.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import SecretBytes, SecretStr

from deepcite.config import KNOWN_KEYS, Settings, get_value
from deepcite.errors import DeepciteError
from deepcite.types import ResearchResult

logger = logging.getLogger(__name__)

_CITE_LINK = re.compile(r'<a href="#source-(\d+)" class="cite"')
#: Quotes shown per citation number; more would no longer be a small popover.
MAX_QUOTES = 3


@dataclass(frozen=True)
class Evidence:
    """A citation number's popover: the source's title and what was checked."""

    number: int
    title: str
    url: str
    quotes: list[tuple[str, str]] = field(default_factory=list)  # (outcome, quote)


def report_body(result: ResearchResult, snapshot: Mapping[str, Any], settings: Settings) -> str:
    """The sanitised report (body and Sources), citations linked to their popovers,
    labelled as the run's own settings say (as its exports are)."""
    from deepcite.export import ExportOptions
    from deepcite.export.html import render_fragment

    try:
        options = ExportOptions.for_run(snapshot, settings)
    except DeepciteError:
        options = ExportOptions()
    fragment = render_fragment(result, options)
    # Only rewrites what render_fragment itself emitted after nh3: digits and fixed text.
    return _CITE_LINK.sub(r'<a href="#evidence-\1" class="cite" data-evidence="\1"',
                          fragment)


def evidence(result: ResearchResult) -> list[Evidence]:
    """One popover per source number: the quotes of the checks of that citation.

    ``url`` is what the popover's "Open source" link points at, so it passes the
    exports' link allow-list first; a source whose URL it refuses (a ``javascript:``
    or ``data:`` one in a stored result) gets an empty ``url`` and no link at all.
    """
    from deepcite.citations.hyperlinks import safe_link_url

    quotes: dict[int, list[tuple[str, str]]] = {}
    for check in result.citation_checks:
        if check.quote:
            found = quotes.setdefault(check.number, [])
            pair = (check.outcome, check.quote)
            if pair not in found and len(found) < MAX_QUOTES:
                found.append(pair)
    return [Evidence(s.number, s.title,
                     safe_link_url(s.canonical_url or s.url, allow_file=True) or "",
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


def inside_roots(folder: str, roots: tuple[str, ...]) -> Path | None:
    """The folder, resolved, when it lies inside one of ``roots``; else ``None``.

    Resolving first means ``..`` and symlinks cannot lead out of a root.
    """
    try:
        path = Path(folder).expanduser().resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not path.is_dir():
        return None
    for root in roots:
        try:
            base = Path(root).expanduser().resolve(strict=True)
        except (OSError, RuntimeError):
            continue
        if path.is_relative_to(base):
            return path
    return None


@dataclass
class IndexJobs:
    """Background indexing of collections, and its state for the collections page.

    Indexing a folder can take minutes; the request only starts it. The state is kept
    in memory: a restart forgets it, and the collection's own counts remain.
    """

    states: dict[str, str] = field(default_factory=dict)
    folders: dict[str, str] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def running(self, name: str) -> bool:
        """Whether ``name`` is being indexed now."""
        with self.lock:
            return self.states.get(name) == "indexing"

    def start(self, name: str, folder: Path, settings: Settings) -> None:
        """Index ``folder`` into the collection ``name`` (created if missing)."""
        with self.lock:
            self.states[name] = "indexing"
            self.folders[name] = str(folder)
        thread = threading.Thread(target=self._index, args=(name, folder, settings),
                                  name=f"deepcite-index-{name}", daemon=True)
        thread.start()

    def _index(self, name: str, folder: Path, settings: Settings) -> None:
        from deepcite.collections.collection import Collection

        try:
            report = Collection.create(name, settings=settings).add(folder)
            state = f"done: {report.summary()}"
        except (DeepciteError, OSError) as exc:
            state = f"failed: {exc}"
        except Exception as exc:  # a thread has nobody else to tell
            logger.exception("indexing collection %s failed", name)
            state = f"failed: {type(exc).__name__}"
        with self.lock:
            self.states[name] = state
