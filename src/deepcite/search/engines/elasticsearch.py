"""Elasticsearch (or OpenSearch): the user's own document index as a search engine.

Clusters usually sit on the user's network, so this is the one built-in web engine
that works with ``--offline``; the egress policy allows the configured cluster URL
exactly (scheme, host and port) and nothing else on that host. Field
names are settings because every index is mapped differently; the title field is
boosted because a match there says more than one deep in the text.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import Any, ClassVar
from urllib.parse import quote, urlsplit, urlunsplit

from deepcite.config import Settings
from deepcite.config_sections import EngineKey
from deepcite.errors import SearchError
from deepcite.search.engines.base import WebEngine
from deepcite.search.results import clean_text, keep, make_result
from deepcite.types import SearchResult

SNIPPET_CHARS = 500


def cluster_url(settings: Settings) -> str | None:
    """The cluster URL from the settings, else from ELASTICSEARCH_URL; no trailing slash."""
    url = settings.engines.elasticsearch_url or os.environ.get("ELASTICSEARCH_URL", "")
    return url.strip().rstrip("/") or None


class ElasticsearchEngine(WebEngine):
    """Full-text search over one index (or pattern) of an Elasticsearch cluster."""

    name: ClassVar[str] = "elasticsearch"
    description: ClassVar[str] = "your Elasticsearch/OpenSearch index"
    needs: ClassVar[str] = "cluster URL"
    offline_capable: ClassVar[bool] = True
    key_setting: ClassVar[EngineKey | None] = "elasticsearch_api_key"
    key_env: ClassVar[tuple[str, ...]] = ("ELASTICSEARCH_API_KEY",)
    key_required: ClassVar[bool] = False

    @classmethod
    def service_urls(cls, settings: Settings) -> tuple[str, ...]:
        """The cluster, allowed exactly (scheme, host and port) by the egress policy."""
        url = cluster_url(settings)
        return (url,) if url else ()

    @classmethod
    def unavailable_reason(cls, settings: Settings) -> str | None:
        """No cluster URL, no engine."""
        if not cluster_url(settings):
            return ("elasticsearch needs a cluster URL - set engines.elasticsearch_url or "
                    "ELASTICSEARCH_URL")
        return super().unavailable_reason(settings)

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        cfg = settings.engines
        self.url = cluster_url(settings) or ""
        # Shown in messages and fallback document URLs: never the user:password part.
        self.display_url = _without_credentials(self.url)
        self.index = cfg.elasticsearch_index
        self.title_field = cfg.elasticsearch_title_field
        self.text_field = cfg.elasticsearch_text_field
        self.url_field = cfg.elasticsearch_url_field
        self.date_field = cfg.elasticsearch_date_field
        key = self.api_key(settings)
        self._headers = {"Authorization": f"ApiKey {key}"} if key else None

    def _search(self, query: str, max_results: int) -> list[SearchResult]:
        endpoint = f"{self.url}/{quote(self.index, safe=',*')}/_search"
        try:
            data = self.http.post_json(endpoint, json_body=self._body(query, max_results),
                                       headers=self._headers)
        except SearchError as exc:
            if exc.status == 404:
                raise SearchError(
                    f"{self.name}: index {self.index!r} not found at {self.display_url} - "
                    "check engines.elasticsearch_index") from exc
            raise
        hits = _dict(_dict(data).get("hits")).get("hits")
        if not isinstance(hits, list):
            raise SearchError(f"{self.name}: unexpected answer from {self.display_url} "
                              "(no hits)")
        return keep([self._to_result(h) for h in hits if isinstance(h, dict)])

    def _body(self, query: str, max_results: int) -> dict[str, Any]:
        match = {"multi_match": {"query": query,
                                 "fields": [f"{self.title_field}^2", self.text_field]}}
        bool_query: dict[str, Any] = {"must": [match]}
        since, until = self.filters.since, self.filters.until
        if self.date_field and (since or until):
            bounds: dict[str, str] = {"format": "yyyy-MM-dd"}
            if since:
                bounds["gte"] = since.isoformat()
            if until:
                bounds["lte"] = until.isoformat()
            bool_query["filter"] = [{"range": {self.date_field: bounds}}]
        fields = [f for f in (self.title_field, self.text_field, self.url_field,
                              self.date_field) if f]
        return {"size": max_results, "query": {"bool": bool_query}, "_source": fields,
                "highlight": {"fields": {self.text_field: {}}}}

    def _to_result(self, hit: dict[str, Any]) -> SearchResult | None:
        source = _dict(hit.get("_source"))
        doc_id = str(hit.get("_id") or "")
        index = str(hit.get("_index") or self.index)
        text = _field(source, self.text_field, join=True)
        fragments = _dict(hit.get("highlight")).get(self.text_field)
        snippet = (" … ".join(str(f) for f in fragments) if isinstance(fragments, list)
                   else "") or _shorten(clean_text(text), SNIPPET_CHARS)
        url = _field(source, self.url_field) or (
            f"{self.display_url}/{quote(index)}/_doc/{quote(doc_id)}" if doc_id else None)
        published = _date(_field(source, self.date_field)) if self.date_field else None
        return make_result(self.name, title=_field(source, self.title_field) or doc_id,
                           url=url, snippet=snippet,
                           full_text=text if isinstance(text, str) else None,
                           published=published,
                           metadata={"index": index, "id": doc_id, "score": hit.get("_score")})


def _field(source: dict[str, Any], name: str, *, join: bool = False) -> Any:
    """A field of ``_source``, flat ('meta.title' as a key) or nested; for lists the
    first item, or all string items joined when ``join`` (multi-valued text fields)."""
    if name in source:
        value = source[name]
    else:
        value = source
        for part in name.split("."):
            value = _dict(value).get(part)
    if isinstance(value, list):
        if join:
            return "\n\n".join(v for v in value if isinstance(v, str)) or None
        return value[0] if value else None
    return value


def _date(value: Any) -> Any:
    """Epoch milliseconds (Elasticsearch's other default date format) become a date."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 9999:
        return datetime.fromtimestamp(value / 1000, tz=UTC).date()
    return value


def _without_credentials(url: str) -> str:
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + " …"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
