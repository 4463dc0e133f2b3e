"""Collections indexed into Elasticsearch or OpenSearch, for corpora beyond one disk.

An ``elasticsearch`` collection keeps its SQLite file as the list of documents
(incremental re-indexing, removals) and chunks them with the same code as the embedded
index, so chunk text, offsets, pages and heading paths are identical; its chunks are
mirrored to the index ``deepcite-<name>`` of the configured cluster, and searches go
there. A machine without the SQLite file can still search such a collection.

Mirroring a changed document is a ``_delete_by_query`` of its old chunks (a ``terms``
query on the keyword ``path``) followed by a ``_bulk`` of its new ones; each chunk's
``_id`` is its SQLite chunk id, unique among the collection's current chunks, so
stale chunks are always deleted before new ones are sent. The keys whose mirroring is
still owed are kept in the collection's meta table (``elastic_pending``: a JSON list,
or ``*`` for "everything" after a crash), so an interrupted ``add`` is made good by the
next one.

Only the plain REST calls both Elasticsearch and OpenSearch understand are used (PUT
and HEAD and DELETE of an index, ``_bulk``, ``_delete_by_query``, ``_refresh``,
``_search``, ``_count``), over httpx through the egress policy, which allows the
configured cluster URL exactly, as for the ``elasticsearch`` web engine.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit, urlunsplit

from deepcite.collections.index.retrieval import Hit, split_heading_path
from deepcite.collections.index.sqlite_index import Index
from deepcite.config import Settings
from deepcite.errors import CollectionError, EgressDenied, mapped_errors
from deepcite.security.egress import EgressPolicy

if TYPE_CHECKING:
    import httpx

BACKENDS = ("sqlite", "elasticsearch")
"""Where a collection's chunks are searched: the embedded index or a cluster."""
INDEX_PREFIX = "deepcite-"
BULK_CHUNKS = 500
"""Chunks per ``_bulk`` request."""
TERMS_BATCH = 500
"""Document paths per ``_delete_by_query`` (and per SQLite ``IN`` list)."""
PENDING_KEY = "elastic_pending"
ALL = "*"

MAPPINGS: dict[str, Any] = {
    "properties": {
        "chunk_id": {"type": "long"},
        "path": {"type": "keyword"},
        "title": {"type": "text", "analyzer": "standard"},
        "heading": {"type": "text", "analyzer": "standard"},
        "heading_path": {"type": "keyword"},
        "page": {"type": "integer"},
        "kind": {"type": "keyword"},
        "start": {"type": "long"},
        "end": {"type": "long"},
        "text": {"type": "text", "analyzer": "standard"},
        "collection": {"type": "keyword"},
    }
}
SOURCE_FIELDS = ["chunk_id", "path", "title", "heading", "heading_path", "page", "kind",
                 "start", "end", "text"]

_CHUNKS_SQL = """
SELECT c.id, c.text, c.start, c."end", c.page, c.heading, c.heading_path,
       d.title, d.path, d.kind
FROM chunks AS c JOIN documents AS d ON d.id = c.doc_id
{where}
ORDER BY d.path, c.ord
"""


def index_name(name: str) -> str:
    """The cluster index of the collection ``name``: ``deepcite-<name>``, lower-cased."""
    return f"{INDEX_PREFIX}{name.lower()}"


def lives_elsewhere(name: str) -> CollectionError:
    """Changing a collection whose SQLite file is on another machine."""
    return CollectionError(f"collection {name!r} lives in Elasticsearch; index it from the "
                           f"machine that holds its files")


def _without_credentials(url: str) -> str:
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def _reason(response: httpx.Response) -> str:
    """The cluster's own reason for an error reply, on one line."""
    try:
        body = response.json()
    except ValueError:
        return " ".join(response.text.split())[:200]
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        root = error.get("root_cause")
        if isinstance(root, list) and root and isinstance(root[0], dict):
            error = root[0]
        return " ".join(str(error.get("reason") or error.get("type") or error).split())[:200]
    return " ".join(str(error or body).split())[:200]


class Cluster:
    """An Elasticsearch or OpenSearch cluster; connects on the first request.

    Built cheaply (listings make one per collection); a missing cluster URL or a
    refused one is reported when the cluster is first needed.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        from deepcite.search.engines.elasticsearch import cluster_url  # see _connect

        self.url = cluster_url(settings)
        self.display_url = _without_credentials(self.url) if self.url else "(not configured)"
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()  # searches run from several threads

    @property
    def configured(self) -> bool:
        """Whether a cluster URL is set (engines.elasticsearch_url or ELASTICSEARCH_URL)."""
        return self.url is not None

    def _http(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                self._client = self._connect()
            return self._client

    def _connect(self) -> httpx.Client:
        if not self.url:
            raise CollectionError("Elasticsearch collections need a cluster URL - set "
                                  "engines.elasticsearch_url or ELASTICSEARCH_URL")
        policy = EgressPolicy.from_settings(self.settings, (self.url,))
        try:
            policy.check(self.url)
        except EgressDenied as exc:
            raise CollectionError(f"Elasticsearch at {self.display_url}: {exc}") from None
        # httpx loads with the first cluster request: every collection module imports
        # this one, and an offline ask over the embedded index needs no HTTP client.
        from deepcite.search.engines.elasticsearch import ElasticsearchEngine
        from deepcite.security.transport import egress_client

        key = ElasticsearchEngine.api_key(self.settings)
        headers = {"Authorization": f"ApiKey {key}"} if key else None
        return egress_client(policy, timeout=self.settings.engines.timeout_seconds,
                             headers=headers)

    def close(self) -> None:
        """Release the connection pool."""
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def request(self, method: str, path: str, what: str, *, body: Any = None,
                content: bytes | None = None, params: Mapping[str, str] | None = None,
                allow: Sequence[int] = ()) -> httpx.Response:
        """One request to ``<cluster>/<path>``; any failure is a one-line CollectionError.

        Replies with a status in ``allow`` (say 404 for "no such index") are returned.
        """
        import httpx

        client = self._http()
        headers = {"Content-Type": "application/x-ndjson"} if content is not None else None
        try:
            response = client.request(method, f"{self.url}/{path}", json=body,
                                      content=content, params=params, headers=headers)
        except EgressDenied as exc:
            raise CollectionError(f"Elasticsearch at {self.display_url}: {exc}") from None
        except httpx.TransportError as exc:
            raise CollectionError(
                f"Elasticsearch at {self.display_url} is unreachable ({type(exc).__name__}) - "
                f"check engines.elasticsearch_url / ELASTICSEARCH_URL") from None
        status = response.status_code
        if status < 300 or status in allow:
            return response
        if status in (401, 403):
            raise CollectionError(
                f"Elasticsearch at {self.display_url} refused to {what} (HTTP {status}: "
                f"{_reason(response)}) - check engines.elasticsearch_api_key / "
                f"ELASTICSEARCH_API_KEY")
        raise CollectionError(f"Elasticsearch at {self.display_url} could not {what} "
                              f"(HTTP {status}: {_reason(response)})")

    def json(self, method: str, path: str, what: str, **kwargs: Any) -> dict[str, Any]:
        """:meth:`request`, decoding a JSON object reply."""
        response = self.request(method, path, what, **kwargs)
        try:
            data = response.json()
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise CollectionError(f"Elasticsearch at {self.display_url} gave an unexpected "
                                  f"answer when asked to {what} (not a JSON object)")
        return data


class ElasticIndex:
    """One collection's index on a cluster: its mapping, mirroring and search."""

    def __init__(self, cluster: Cluster, name: str, collection: str) -> None:
        self.cluster = cluster
        self.name = name
        self.collection = collection
        self._path = quote(name, safe="")

    def __repr__(self) -> str:
        return f"ElasticIndex({self.name!r} at {self.cluster.display_url})"

    # ----------------------------------------------------------------- lifecycle

    def exists(self) -> bool:
        """Whether the index is there (HEAD: 200 or 404)."""
        response = self.cluster.request("HEAD", self._path, f"look up index {self.name}",
                                         allow=(404,))
        return response.status_code != 404

    def create(self) -> None:
        """Create the index with the chunk mapping (one that exists already is kept)."""
        response = self.cluster.request(
            "PUT", self._path, f"create index {self.name}", body={"mappings": MAPPINGS},
            allow=(400,))
        if response.status_code == 400 and "already_exists" not in response.text:
            raise CollectionError(f"Elasticsearch at {self.cluster.display_url} could not "
                                  f"create index {self.name} (HTTP 400: {_reason(response)})")

    def delete(self) -> bool:
        """Delete the index; ``False`` when there was none."""
        response = self.cluster.request("DELETE", self._path, f"delete index {self.name}",
                                        allow=(404,))
        return response.status_code != 404

    def count(self) -> int:
        """How many chunks the index holds."""
        data = self.cluster.json("GET", f"{self._path}/_count", f"count {self.name}")
        return int(data.get("count") or 0)

    def document_count(self) -> int:
        """How many documents (distinct paths) the index holds; approximate when huge."""
        data = self.cluster.json("POST", f"{self._path}/_search", f"count {self.name}",
                                 body={"size": 0, "aggs": {"documents": {
                                     "cardinality": {"field": "path"}}}})
        aggs = data.get("aggregations")
        documents = aggs.get("documents") if isinstance(aggs, dict) else None
        value = documents.get("value") if isinstance(documents, dict) else None
        return int(value) if isinstance(value, int | float) else 0

    def refresh(self) -> None:
        """Make what was sent searchable now."""
        self.cluster.request("POST", f"{self._path}/_refresh", f"refresh {self.name}")

    # ------------------------------------------------------------------ writing

    def delete_paths(self, paths: Iterable[str] | None) -> None:
        """Delete the chunks of these documents (``None``: every chunk of the index)."""
        queries: list[dict[str, Any]]
        if paths is None:
            queries = [{"match_all": {}}]
        else:
            keys = sorted(paths)
            queries = [{"terms": {"path": keys[i:i + TERMS_BATCH]}}
                       for i in range(0, len(keys), TERMS_BATCH)]
        for query in queries:
            self.cluster.json("POST", f"{self._path}/_delete_by_query",
                              f"delete old chunks from {self.name}", body={"query": query},
                              params={"conflicts": "proceed", "refresh": "true"})

    def bulk(self, hits: Iterable[Hit]) -> int:
        """Send chunks in ``_bulk`` requests; the number sent. Item errors raise."""
        sent = 0
        batch: list[Hit] = []
        for hit in hits:
            batch.append(hit)
            if len(batch) >= BULK_CHUNKS:
                sent += self._bulk(batch)
                batch = []
        if batch:
            sent += self._bulk(batch)
        return sent

    def _bulk(self, hits: Sequence[Hit]) -> int:
        lines: list[str] = []
        for hit in hits:
            lines.append(json.dumps({"index": {"_index": self.name, "_id": str(hit.chunk_id)}}))
            lines.append(json.dumps(self.source(hit)))
        payload = ("\n".join(lines) + "\n").encode()
        data = self.cluster.json("POST", "_bulk", f"index chunks into {self.name}",
                                 content=payload)
        if data.get("errors"):
            items = data.get("items")
            for item in items if isinstance(items, list) else []:
                result: Any = next(iter(item.values()), {}) if isinstance(item, dict) else {}
                error = result.get("error") if isinstance(result, dict) else None
                if error:
                    reason = (error.get("reason") or error.get("type")
                              if isinstance(error, dict) else error)
                    raise CollectionError(
                        f"Elasticsearch at {self.cluster.display_url} rejected chunks of "
                        f"{self.name}: {' '.join(str(reason).split())[:200]}")
            raise CollectionError(f"Elasticsearch at {self.cluster.display_url} rejected "
                                  f"chunks of {self.name}")
        return len(hits)

    def source(self, hit: Hit) -> dict[str, Any]:
        """The indexed fields of one chunk."""
        return {"chunk_id": hit.chunk_id, "path": hit.path, "title": hit.title,
                "heading": hit.heading, "heading_path": list(hit.heading_path),
                "page": hit.page, "kind": hit.kind, "start": hit.start, "end": hit.end,
                "text": hit.text, "collection": self.collection}

    def mirror(self, index: Index, paths: set[str] | None) -> int:
        """Bring these documents (``None``: all) in line with the SQLite file.

        Their old chunks are deleted, then the chunks the file holds now are sent (none
        for a removed document); returns the number of chunks sent.
        """
        if paths is not None and not paths:
            return 0
        self.delete_paths(paths)
        with mapped_errors("collection", f"{index.path}: cannot read chunks to send to "
                           "Elasticsearch"), index.connect() as conn:
            sent = self.bulk(stored_chunks(conn, paths))
        self.refresh()
        return sent

    # ------------------------------------------------------------------ search

    def search(self, query: str, k: int) -> list[Hit]:
        """The ``k`` best chunks by the cluster's BM25 (title boosted twice)."""
        if not query.strip():
            return []
        body = {"size": k, "_source": SOURCE_FIELDS,
                "query": {"multi_match": {"query": query, "fields": ["title^2", "text"]}}}
        data = self.cluster.json("POST", f"{self._path}/_search", f"search {self.name}",
                                 body=body)
        outer = data.get("hits")
        hits = outer.get("hits") if isinstance(outer, dict) else None
        if not isinstance(hits, list):
            raise CollectionError(f"Elasticsearch at {self.cluster.display_url} gave an "
                                  f"unexpected answer when searching {self.name} (no hits)")
        return [hit for hit in map(_hit, hits) if hit is not None]


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _hit(raw: Any) -> Hit | None:
    """One ES hit as the embedded index's :class:`Hit`; ``None`` when it is not a chunk."""
    source = raw.get("_source") if isinstance(raw, dict) else None
    if not isinstance(source, dict):
        return None
    chunk_id, start, end = (_int(source.get(f)) for f in ("chunk_id", "start", "end"))
    text, path = source.get("text"), source.get("path")
    if chunk_id is None or start is None or end is None or not isinstance(text, str) \
            or not isinstance(path, str):
        return None
    heading_path = source.get("heading_path")
    if isinstance(heading_path, str):  # a single value comes back unwrapped
        heading_path = [heading_path]
    heading = source.get("heading")
    score = raw.get("_score")
    return Hit(chunk_id=chunk_id, text=text, start=start, end=end,
               page=_int(source.get("page")),
               heading=heading if isinstance(heading, str) else None,
               title=str(source.get("title") or ""), path=path,
               kind=str(source.get("kind") or ""),
               score=float(score) if isinstance(score, int | float) else 0.0,
               heading_path=tuple(str(h) for h in heading_path)
               if isinstance(heading_path, list) else ())


def stored_chunks(conn: sqlite3.Connection, paths: set[str] | None) -> Iterator[Hit]:
    """The chunks the SQLite file holds for these documents (``None``: all), in order."""
    groups: list[list[str]] | list[None]
    if paths is None:
        groups = [None]
    else:
        keys = sorted(paths)
        groups = [keys[i:i + TERMS_BATCH] for i in range(0, len(keys), TERMS_BATCH)]
    for group in groups:
        where = "" if group is None else f"WHERE d.path IN ({','.join('?' * len(group))})"
        for row in conn.execute(_CHUNKS_SQL.format(where=where), group or ()):
            yield Hit(chunk_id=row[0], text=row[1], start=row[2], end=row[3], page=row[4],
                      heading=row[5], heading_path=split_heading_path(row[6]), title=row[7],
                      path=row[8], kind=row[9], score=0.0)


# ----------------------------------------------------------- pending mirroring


def load_pending(index: Index) -> set[str] | None:
    """Document keys whose mirroring an earlier ``add`` still owes (``None``: all)."""
    raw = index.get_meta(PENDING_KEY)
    if not raw:
        return set()
    if raw == ALL:
        return None
    try:
        keys = json.loads(raw)
    except ValueError:
        return None
    return {str(k) for k in keys} if isinstance(keys, list) else None


def store_pending(index: Index, keys: set[str] | None) -> None:
    """Record what is still owed (``None``: everything, the marker while an add runs)."""
    value = ALL if keys is None else json.dumps(sorted(keys), ensure_ascii=False)
    with index.connect() as conn:
        Index.set_meta(conn, PENDING_KEY, value)
