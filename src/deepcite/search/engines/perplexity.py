"""Perplexity: one synthesised answer plus the URLs it cites, split into results.

Perplexity's chat API does not return ranked hits with text; it returns an answer and
a list of citation URLs. To fit the one result shape, the answer rides on a single
result (the first cited URL that passes the user's filters, so filtering cannot lose
it, placed first so truncation cannot either) and every other citation becomes a
link-only result. The answer is never copied into those: a sentence repeated across
five sources would look like five independent confirmations.

Perplexity's own ``[n]`` markers refer to its citation list, not to deepcite's source
numbers, so they are rewritten to the cited host before the answer is used as text.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any, ClassVar
from urllib.parse import urlsplit

from deepcite.config_sections import EngineKey
from deepcite.errors import SearchError
from deepcite.search.engines.base import WebEngine
from deepcite.search.results import keep, make_result
from deepcite.types import SearchResult

API_URL = "https://api.perplexity.ai/chat/completions"
LINK_ONLY_SNIPPET = "Cited by Perplexity's answer (link only; no page text)"
SNIPPET_CHARS = 500
#: Perplexity accepts at most this many entries in ``search_domain_filter``.
MAX_DOMAIN_FILTERS = 10
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_MARKER = re.compile(r"\[(\d{1,3})\]")
_SPACES = re.compile(r"[ \t]{2,}")


class PerplexityEngine(WebEngine):
    """Answers from Perplexity's Sonar models, with their citations as results."""

    name: ClassVar[str] = "perplexity"
    description: ClassVar[str] = "Perplexity Sonar answers with their cited links"
    needs: ClassVar[str] = "API key"
    key_setting: ClassVar[EngineKey | None] = "perplexity_api_key"
    key_env: ClassVar[tuple[str, ...]] = ("PERPLEXITY_API_KEY",)

    def _search(self, query: str, max_results: int) -> list[SearchResult]:
        key = self.api_key(self.settings)
        data = self.http.post_json(API_URL, json_body=self.request_body(query),
                                   headers={"Authorization": f"Bearer {key}"})
        if not isinstance(data, dict):
            raise SearchError(f"{self.name}: unexpected reply from api.perplexity.ai")
        answer = _answer(data)
        pages = _pages(data)
        cited = data.get("citations") or list(pages)
        urls = [u for u in cited if isinstance(u, str)] if isinstance(cited, list) else []
        links = keep([
            make_result(self.name, title=pages.get(url, {}).get("title") or _host(url),
                        url=url, snippet=LINK_ONLY_SNIPPET,
                        published=pages.get(url, {}).get("date"),
                        metadata={"link_only": True})
            for url in dict.fromkeys(urls)
        ])
        text = _rewrite_markers(answer, urls)
        chosen = next((r for r in links if self.filters.allows(r)), None)
        if not text or chosen is None:
            return links
        snippet = text if len(text) <= SNIPPET_CHARS else text[:SNIPPET_CHARS - 3] + "..."
        first = chosen.model_copy(update={
            "snippet": " ".join(snippet.split()), "full_text": text,
            "metadata": {"perplexity_answer": True,
                         "model": self.settings.engines.perplexity_model},
        })
        return [first, *(r for r in links if r is not chosen)]

    def request_body(self, query: str) -> dict[str, Any]:
        """The chat request, with domain and date filters pushed down."""
        f = self.filters
        body: dict[str, Any] = {
            "model": self.settings.engines.perplexity_model,
            "messages": [{"role": "user", "content": query}],
        }
        # Allowlist and denylist cannot be mixed; an allowlist already keeps the rest
        # out, and a partial allowlist would wrongly drop domains, so it is all or none.
        if f.include_domains and len(f.include_domains) <= MAX_DOMAIN_FILTERS:
            body["search_domain_filter"] = list(f.include_domains)
        elif f.exclude_domains and not f.include_domains:
            body["search_domain_filter"] = [
                f"-{d}" for d in f.exclude_domains[:MAX_DOMAIN_FILTERS]]
        if f.since:
            body["search_after_date_filter"] = _mdy(f.since)
        if f.until:
            body["search_before_date_filter"] = _mdy(f.until)
        return body


def _answer(data: dict[str, Any]) -> str:
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return ""
    return _THINK.sub("", content).strip() if isinstance(content, str) else ""


def _pages(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``search_results`` by URL (title and date of each cited page, when sent)."""
    found: dict[str, dict[str, Any]] = {}
    for item in data.get("search_results") or []:
        if isinstance(item, dict) and isinstance(item.get("url"), str):
            found.setdefault(item["url"], item)
    return found


def _rewrite_markers(text: str, urls: list[str]) -> str:
    """``[2]`` -> ``(example.org)``: Perplexity's numbers are not deepcite's."""

    def host(match: re.Match[str]) -> str:
        index = int(match.group(1)) - 1
        return f" ({_host(urls[index])})" if 0 <= index < len(urls) else ""

    return _SPACES.sub(" ", _MARKER.sub(host, text)).strip()


def _host(url: str) -> str:
    return (urlsplit(url).hostname or url).removeprefix("www.")


def _mdy(day: date) -> str:
    """Perplexity's date filter format, ``M/D/YYYY`` without leading zeros."""
    return f"{day.month}/{day.day}/{day.year}"
