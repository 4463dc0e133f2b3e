"""Collections indexed into Elasticsearch/OpenSearch, against a recorded cluster (respx).

:class:`FakeCluster` answers the handful of REST calls the backend makes (HEAD/PUT/
DELETE of an index, ``_bulk``, ``_delete_by_query``, ``_refresh``, ``_search``,
``_count``) and keeps the chunks it was sent, so a test can compare them with the
embedded index of the same folder. One live test runs against a real cluster when
``DEEPCITE_TEST_ELASTICSEARCH_URL`` is set; otherwise it is skipped with the reason
(also in CI: no cluster package is reachable there).
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from typer.testing import CliRunner

from deepcite.cli import app
from deepcite.collections import Collection, LocalSearchEngine, remove_collection
from deepcite.collections.index import Hit
from deepcite.collections.index.elastic import MAPPINGS, index_name
from deepcite.config import Settings, load_settings
from deepcite.errors import CollectionError
from deepcite.security.egress import resolve_host as real_resolve_host
from tests.factories import make_pdf

ES = "http://es.test:9200"
LIVE_URL = os.environ.get("DEEPCITE_TEST_ELASTICSEARCH_URL") or None  # read before the
# autouse fixture clears DEEPCITE_* variables
runner = CliRunner()


class FakeCluster:
    """A tiny in-memory Elasticsearch: one index per name, documents by ``_id``."""

    def __init__(self, router: respx.MockRouter, base: str = ES) -> None:
        self.indices: dict[str, dict[str, dict[str, Any]]] = {}
        self.mappings: dict[str, Any] = {}
        self.requests: list[httpx.Request] = []
        self.bulk_sent: list[list[dict[str, Any]]] = []
        self.deleted_queries: list[dict[str, Any]] = []
        self.bulk_error: str | None = None
        router.route(url__regex=re.escape(base) + r"/.*").mock(side_effect=self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        parts = request.url.path.strip("/").split("/")
        method = request.method
        if parts == ["_bulk"]:
            return self._bulk(request)
        name = parts[0]
        if len(parts) == 1:
            if method == "HEAD":
                return httpx.Response(200 if name in self.indices else 404)
            if method == "PUT":
                if name in self.indices:
                    return httpx.Response(400, json={"error": {
                        "type": "resource_already_exists_exception", "reason": "exists"}})
                self.indices[name] = {}
                self.mappings[name] = json.loads(request.content)["mappings"]
                return httpx.Response(200, json={"acknowledged": True})
            if method == "DELETE":
                if self.indices.pop(name, None) is None:
                    return httpx.Response(404, json={"error": {"type": "index_not_found"}})
                return httpx.Response(200, json={"acknowledged": True})
        if name not in self.indices:
            return httpx.Response(404, json={"error": {
                "type": "index_not_found_exception", "reason": f"no such index [{name}]"}})
        docs = self.indices[name]
        action = parts[1]
        if action == "_refresh":
            return httpx.Response(200, json={"_shards": {}})
        if action == "_count":
            return httpx.Response(200, json={"count": len(docs)})
        body = json.loads(request.content)
        if action == "_delete_by_query":
            query = body["query"]
            self.deleted_queries.append(query)
            if "match_all" in query:
                gone = list(docs)
            else:
                paths = set(query["terms"]["path"])
                gone = [i for i, d in docs.items() if d["path"] in paths]
            for doc_id in gone:
                del docs[doc_id]
            return httpx.Response(200, json={"deleted": len(gone)})
        if action == "_search":
            return self._search(docs, body)
        return httpx.Response(400, json={"error": {"reason": f"unknown call {parts}"}})

    def _bulk(self, request: httpx.Request) -> httpx.Response:
        assert request.headers["content-type"] == "application/x-ndjson"
        lines = request.content.decode().splitlines()
        sent, items = [], []
        for action, source in zip(lines[::2], lines[1::2], strict=True):
            meta = json.loads(action)["index"]
            doc = json.loads(source)
            sent.append(doc)
            if self.bulk_error:
                items.append({"index": {"_id": meta["_id"], "status": 400, "error": {
                    "type": "mapper_parsing_exception", "reason": self.bulk_error}}})
                continue
            self.indices[meta["_index"]][meta["_id"]] = doc
            items.append({"index": {"_id": meta["_id"], "status": 201}})
        self.bulk_sent.append(sent)
        return httpx.Response(200, json={"errors": bool(self.bulk_error), "items": items})

    @staticmethod
    def _search(docs: dict[str, dict[str, Any]], body: dict[str, Any]) -> httpx.Response:
        if "aggs" in body:
            paths = {d["path"] for d in docs.values()}
            return httpx.Response(200, json={"hits": {"hits": []},
                                             "aggregations": {"documents": {"value": len(paths)}}})
        words = re.findall(r"\w+", body["query"]["multi_match"]["query"].lower())
        scored = []
        for doc_id, doc in docs.items():
            text, title = doc["text"].lower(), doc["title"].lower()
            score = sum(text.count(w) + 2 * title.count(w) for w in words)
            if score:
                scored.append((float(score), doc_id, doc))
        scored.sort(key=lambda s: (-s[0], s[1]))
        hits = [{"_index": "x", "_id": i, "_score": s,
                 "_source": {k: v for k, v in d.items() if k in body["_source"]}}
                for s, i, d in scored[:body["size"]]]
        return httpx.Response(200, json={"hits": {"total": {"value": len(hits)},
                                                  "hits": hits}})

    def chunks(self, name: str) -> list[dict[str, Any]]:
        return sorted(self.indices[name].values(), key=lambda d: (d["path"], d["start"]))


@pytest.fixture
def router() -> Iterator[respx.MockRouter]:
    with respx.mock(assert_all_called=False) as mock:
        yield mock


@pytest.fixture
def cluster(router: respx.MockRouter) -> FakeCluster:
    return FakeCluster(router)


@pytest.fixture(autouse=True)
def _no_cluster_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("ELASTICSEARCH_URL", "ELASTICSEARCH_API_KEY"):
        monkeypatch.delenv(var, raising=False)


def make(tmp_path: Path, data: str = "data", **overrides: Any) -> Settings:
    values: dict[str, Any] = {"data_dir": str(tmp_path / data),
                              "engines.elasticsearch_url": ES, **overrides}
    return load_settings(values, config_files=[], environ={})


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return make(tmp_path)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "garden.md").write_text(
        "# Gardening notes\n\n" + "Compost feeds the soil with organic matter. " * 40
        + "\n\n## Tomatoes\n\nTomatoes need full sun and deep watering.\n")
    (folder / "sub" / "bread.txt").write_text(
        "Baking bread\n============\n\nKnead the dough until it is smooth and elastic.\n")
    make_pdf(folder / "ocean.pdf", ["Coral reefs grow in warm shallow water.",
                                    "Whales migrate thousands of kilometres each year."],
             title="Ocean facts")
    return folder


FIELDS = ("path", "title", "heading", "heading_path", "page", "kind", "start", "end", "text")


def embedded_chunks(collection: Collection) -> list[dict[str, Any]]:
    """Every chunk of the SQLite file in the shape the cluster is sent."""
    with collection.index.connect() as conn:
        rows = conn.execute(
            'SELECT c.id, c.text, c.start, c."end", c.page, c.heading, c.heading_path, '
            "d.title, d.path, d.kind FROM chunks c JOIN documents d ON d.id = c.doc_id").fetchall()
    out = []
    for r in rows:
        out.append({"chunk_id": r[0], "text": r[1], "start": r[2], "end": r[3], "page": r[4],
                    "heading": r[5], "heading_path": r[6].split(" > ") if r[6] else [],
                    "title": r[7], "path": r[8], "kind": r[9]})
    return sorted(out, key=lambda d: (d["path"], d["start"]))


def strip(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: c[k] for k in FIELDS} for c in chunks]


# ----------------------------------------------------------------------- indexing


def test_add_creates_the_index_and_sends_the_embedded_chunks(
        cluster: FakeCluster, settings: Settings, tmp_path: Path, docs: Path) -> None:
    remote = Collection.create("Notes", settings=settings, backend="elasticsearch")
    report = remote.add(docs)
    assert len(report.added) == 3 and remote.backend == "elasticsearch"
    assert cluster.mappings["deepcite-notes"] == MAPPINGS
    assert remote.index.get_meta("backend") == "elasticsearch"
    assert remote.index.get_meta("index") == "deepcite-notes"
    sent = cluster.chunks("deepcite-notes")
    assert sent == [{**c, "collection": "Notes"} for c in embedded_chunks(remote)]
    # The same folder in an embedded collection: identical text, offsets, pages, headings.
    local = Collection.create("plain", settings=make(tmp_path, "other"))
    local.add(docs)
    assert strip(sent) == strip(embedded_chunks(local))
    assert {c["page"] for c in sent if c["kind"] == "pdf"} == {1, 2}
    assert any(c["heading_path"] == ["Gardening notes", "Tomatoes"] for c in sent)
    info = remote.info()
    assert (info.backend, info.chunks) == ("elasticsearch", len(sent))


def test_readding_after_an_edit_sends_only_that_file(
        cluster: FakeCluster, settings: Settings, docs: Path) -> None:
    collection = Collection.create("notes", settings=settings, backend="elasticsearch")
    collection.add(docs)
    bread = str((docs / "sub" / "bread.txt").resolve())
    cluster.bulk_sent.clear()
    cluster.deleted_queries.clear()
    assert collection.add(docs).changed is False
    assert cluster.bulk_sent == [] and cluster.deleted_queries == []  # unchanged: no calls
    (docs / "sub" / "bread.txt").write_text("Sourdough\n=========\n\nFeed the starter daily.\n")
    report = collection.add(docs)
    assert [p.name for p in report.updated] == ["bread.txt"]
    assert cluster.deleted_queries == [{"terms": {"path": [bread]}}]
    assert [{c["path"] for c in batch} for batch in cluster.bulk_sent] == [{bread}]
    assert strip(cluster.chunks("deepcite-notes")) == strip(embedded_chunks(collection))
    [hit] = collection.search("starter")
    assert hit.metadata["path"] == bread
    assert collection.search("knead") == []


def test_removing_a_file_deletes_its_chunks(cluster: FakeCluster, settings: Settings,
                                            docs: Path) -> None:
    collection = Collection.create("notes", settings=settings, backend="elasticsearch")
    collection.add(docs)
    pdf = str((docs / "ocean.pdf").resolve())
    (docs / "ocean.pdf").unlink()
    cluster.bulk_sent.clear()
    report = collection.add(docs)
    assert [str(p) for p in report.removed] == [pdf]
    assert cluster.deleted_queries[-1] == {"terms": {"path": [pdf]}}
    assert cluster.bulk_sent == []
    assert all(c["path"] != pdf for c in cluster.chunks("deepcite-notes"))
    assert strip(cluster.chunks("deepcite-notes")) == strip(embedded_chunks(collection))


def test_search_gives_the_same_results_as_the_embedded_index(
        cluster: FakeCluster, settings: Settings, tmp_path: Path, docs: Path) -> None:
    remote = Collection.create("notes", settings=settings, backend="elasticsearch")
    remote.add(docs)
    local = Collection.create("notes", settings=make(tmp_path, "other"))
    local.add(docs)
    [whales] = remote.search("whales migrate", k=3)
    [expected] = local.search("whales migrate", k=1)
    assert set(whales.metadata) == set(expected.metadata)
    assert whales.url == expected.url and whales.url.endswith("#page=2")
    assert (whales.title, whales.snippet) == (expected.title, expected.snippet)
    for key in ("path", "page", "start", "end", "chunk_id", "heading", "heading_path",
                "kind", "document_title", "collection"):
        assert whales.metadata[key] == expected.metadata[key], key
    assert whales.metadata["score"] > 0
    body = json.loads(cluster.requests[-1].content)
    assert body["query"] == {"multi_match": {"query": "whales migrate",
                                             "fields": ["title^2", "text"]}}
    assert body["size"] == 3
    # The local engine searches either backend.
    engine = LocalSearchEngine.from_settings(settings, ["notes"])
    assert engine.search("tomatoes", max_results=2)[0].metadata["path"].endswith("garden.md")
    assert remote.search("   ") == []


def test_backend_cannot_change(cluster: FakeCluster, settings: Settings, docs: Path) -> None:
    Collection.create("notes", settings=settings).add(docs)
    with pytest.raises(CollectionError, match="uses the sqlite backend; it cannot change"):
        Collection.create("notes", settings=settings, backend="elasticsearch")
    with pytest.raises(CollectionError, match="Unknown collection backend 'solr'"):
        Collection.create("other", settings=settings, backend="solr")
    assert Collection.create("notes", settings=settings).backend == "sqlite"


def test_dense_is_refused(cluster: FakeCluster, settings: Settings, docs: Path) -> None:
    collection = Collection.create("notes", settings=settings, backend="elasticsearch")
    with pytest.raises(CollectionError, match="no dense"):
        collection.add(docs, dense=True)


# ---------------------------------------------------------------- search only


def test_a_machine_without_the_file_searches_through_the_cluster(
        cluster: FakeCluster, settings: Settings, tmp_path: Path, docs: Path) -> None:
    Collection.create("notes", settings=settings, backend="elasticsearch").add(docs)
    worker = make(tmp_path, "worker")  # another data folder: no SQLite file there
    collection = Collection.open("notes", settings=worker)
    assert collection.search_only and collection.backend == "elasticsearch"
    [result] = collection.search("coral reefs", k=1)
    assert result.url.endswith("ocean.pdf#page=1")
    assert result.metadata["page"] == 1
    info = collection.info()
    assert (info.documents, info.chunks, info.read_only) == (3, len(
        cluster.chunks("deepcite-notes")), True)
    with pytest.raises(CollectionError, match="lives in Elasticsearch; index it from the "
                                              "machine that holds its files"):
        collection.add(docs)
    with pytest.raises(CollectionError, match="lives in Elasticsearch"):
        Collection.create("notes", settings=worker, backend="elasticsearch")
    with pytest.raises(CollectionError, match="lives in Elasticsearch"):
        remove_collection("notes", worker)


def test_search_only_open_of_a_missing_index(cluster: FakeCluster, tmp_path: Path) -> None:
    with pytest.raises(CollectionError, match=r"No collection named 'ghost'.*neither here nor "
                                              r"as index deepcite-ghost at http://es.test:9200"):
        Collection.open("ghost", settings=make(tmp_path))
    unconfigured = load_settings({"data_dir": str(tmp_path / "d")}, config_files=[],
                                 environ={})
    with pytest.raises(CollectionError, match=r"^No collection named 'ghost' - create it"):
        Collection.open("ghost", settings=unconfigured)
    assert [r.method for r in cluster.requests] == ["HEAD"]


# ------------------------------------------------------------- errors and egress


def test_unreachable_cluster_is_one_line(router: respx.MockRouter, settings: Settings,
                                         docs: Path) -> None:
    router.route(url__startswith=ES).mock(side_effect=httpx.ConnectError("refused"))
    with pytest.raises(CollectionError) as caught:
        Collection.create("notes", settings=settings, backend="elasticsearch")
    assert str(caught.value) == (
        "Elasticsearch at http://es.test:9200 is unreachable (ConnectError) - check "
        "engines.elasticsearch_url / ELASTICSEARCH_URL")
    assert not (settings.data_dir / "collections" / "notes.sqlite").exists()
    with pytest.raises(CollectionError, match=r"could not be asked: Elasticsearch at "
                                              r"http://es.test:9200 is unreachable"):
        Collection.open("notes", settings=settings)


def test_unreachable_cluster_during_add_is_made_good_later(
        router: respx.MockRouter, settings: Settings, docs: Path) -> None:
    cluster = FakeCluster(router)
    collection = Collection.create("notes", settings=settings, backend="elasticsearch")
    collection.add(docs)
    (docs / "sub" / "bread.txt").write_text("Rye bread\n\nRye needs a long proof.\n")
    cluster.bulk_error = "failed to parse field [page]"
    with pytest.raises(CollectionError, match=r"rejected chunks of deepcite-notes: failed "
                                              r"to parse field \[page\]"):
        collection.add(docs)
    cluster.bulk_error = None
    report = collection.add(docs)  # the SQLite file is current; the cluster is owed bread
    assert not report.changed
    assert strip(cluster.chunks("deepcite-notes")) == strip(embedded_chunks(collection))
    assert collection.search("rye")[0].metadata["path"].endswith("bread.txt")


def test_an_index_deleted_on_the_cluster_is_sent_again(
        cluster: FakeCluster, settings: Settings, docs: Path) -> None:
    collection = Collection.create("notes", settings=settings, backend="elasticsearch")
    collection.add(docs)
    del cluster.indices["deepcite-notes"]
    collection.add(docs)
    assert strip(cluster.chunks("deepcite-notes")) == strip(embedded_chunks(collection))


def test_api_key_header_is_sent(cluster: FakeCluster, tmp_path: Path, docs: Path) -> None:
    settings = make(tmp_path, "data", **{"engines.elasticsearch_api_key": "s3cret"})
    Collection.create("notes", settings=settings, backend="elasticsearch").add(docs)
    assert cluster.requests
    assert {r.headers.get("authorization") for r in cluster.requests} == {"ApiKey s3cret"}


def test_http_errors_name_the_cluster(router: respx.MockRouter, settings: Settings) -> None:
    router.head(f"{ES}/deepcite-notes").respond(401, json={"error": "unauthorized"})
    with pytest.raises(CollectionError, match=r"refused to look up index deepcite-notes "
                                              r"\(HTTP 401.*elasticsearch_api_key"):
        Collection.create("notes", settings=settings, backend="elasticsearch")


def test_offline_allows_a_local_cluster_exactly(router: respx.MockRouter,
                                                tmp_path: Path, docs: Path) -> None:
    """Like the elasticsearch web engine: the configured cluster needs no allow-list
    entry, offline too when it is on this machine or the user's network; an internet
    cluster is refused offline."""
    cluster = FakeCluster(router, "http://localhost:9200")
    offline = make(tmp_path, "data", **{"engines.elasticsearch_url": "http://localhost:9200",
                                "security.offline": True})
    collection = Collection.create("notes", settings=offline, backend="elasticsearch")
    collection.add(docs)
    assert collection.search("whales")
    assert cluster.chunks("deepcite-notes")
    public = make(tmp_path, "pub", **{"security.offline": True})  # es.test is public
    with pytest.raises(CollectionError, match=r"^Elasticsearch at http://es.test:9200: "
                                              r"Refused .*offline"):
        Collection.create("notes", settings=public, backend="elasticsearch")


def test_missing_cluster_url(tmp_path: Path) -> None:
    settings = load_settings({"data_dir": str(tmp_path / "d")}, config_files=[], environ={})
    with pytest.raises(CollectionError, match=r"need a cluster URL - set "
                                              r"engines.elasticsearch_url or ELASTICSEARCH_URL"):
        Collection.create("notes", settings=settings, backend="elasticsearch")


def test_remove_deletes_the_index_or_says_it_could_not(
        router: respx.MockRouter, settings: Settings, docs: Path) -> None:
    cluster = FakeCluster(router)
    Collection.create("notes", settings=settings, backend="elasticsearch").add(docs)
    Collection.create("kept", settings=settings, backend="elasticsearch")
    assert remove_collection("notes", settings) is None
    assert "deepcite-notes" not in cluster.indices
    router.routes.clear()
    router.route(url__startswith=ES).mock(side_effect=httpx.ConnectError("down"))
    warning = remove_collection("kept", settings)
    assert warning is not None and warning.startswith(
        "index deepcite-kept was left on the cluster - delete it there by hand")
    assert not (settings.data_dir / "collections" / "kept.sqlite").exists()


def test_hits_without_chunk_fields_are_dropped(router: respx.MockRouter,
                                               settings: Settings, docs: Path) -> None:
    FakeCluster(router)
    collection = Collection.create("notes", settings=settings, backend="elasticsearch")
    router.routes.clear()
    router.post(f"{ES}/deepcite-notes/_search").respond(json={"hits": {"hits": [
        {"_score": 1.0, "_source": {"title": "not ours"}},
        {"_score": 2.5, "_source": {"chunk_id": 7, "path": "/x/a.md", "title": "A",
                                    "heading": None, "heading_path": "Intro", "page": None,
                                    "kind": "markdown", "start": 0, "end": 5,
                                    "text": "hello"}}]}})
    [result] = collection.search("hello")
    assert result.metadata["heading_path"] == ["Intro"] and result.metadata["score"] == 2.5
    assert isinstance(collection.elastic.search("hello", 1)[0], Hit)  # type: ignore[union-attr]


# ------------------------------------------------------------------------ CLI


def test_cli_add_list_rm(cluster: FakeCluster, tmp_path: Path, docs: Path,
                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ELASTICSEARCH_URL", ES)
    added = runner.invoke(app, ["collection", "add", str(docs), "--name", "notes",
                                "--backend", "elasticsearch"])
    assert added.exit_code == 0, added.output
    assert "3 added" in added.output and cluster.chunks("deepcite-notes")
    listed = runner.invoke(app, ["collection", "list", "--json"])
    assert json.loads(listed.stdout)[0]["backend"] == "elasticsearch"
    again = runner.invoke(app, ["collection", "add", str(docs), "--name", "notes",
                                "--backend", "sqlite"])
    assert again.exit_code == 1 and "cannot change" in again.output
    bad = runner.invoke(app, ["collection", "add", str(docs), "--name", "x",
                              "--backend", "solr"])
    assert bad.exit_code == 2 and "Unknown backend 'solr'" in bad.output
    found = runner.invoke(app, ["collection", "search", "notes", "whales"])
    assert found.exit_code == 0 and "#page=2" in found.output
    removed = runner.invoke(app, ["collection", "rm", "notes"])
    assert removed.exit_code == 0 and "deepcite-notes" not in cluster.indices


# ------------------------------------------------------------------------ live


@pytest.mark.skipif(LIVE_URL is None, reason="no Elasticsearch/OpenSearch server: set "
                    "DEEPCITE_TEST_ELASTICSEARCH_URL to run against a real cluster")
def test_live_cluster_add_and_search(tmp_path: Path, docs: Path, socket_enabled: None,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("deepcite.security.egress.resolve_host", real_resolve_host)
    name = f"test-{uuid.uuid4().hex[:12]}"
    settings = load_settings({"data_dir": str(tmp_path / "data"),
                              "engines.elasticsearch_url": LIVE_URL,
                              "security.allow_private_networks": True},
                             config_files=[], environ={})
    collection = Collection.create(name, settings=settings, backend="elasticsearch")
    try:
        collection.add(docs)
        [whales] = collection.search("whales migrate", k=1)
        assert whales.url.endswith("ocean.pdf#page=2")
        assert collection.info().chunks == len(embedded_chunks(collection))
        assert index_name(name) in repr(collection.elastic)
    finally:
        remove_collection(name, settings)
