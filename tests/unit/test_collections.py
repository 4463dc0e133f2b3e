"""Collections end to end: real files in tmp_path, real SQLite FTS5 indexes."""

from __future__ import annotations

import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from deepcite.collections import (
    AddProgress,
    Collection,
    LocalSearchEngine,
    ensure_demo_collection,
    list_collections,
    remove_collection,
)
from deepcite.collections import demo as demo_module
from deepcite.collections.engine import CJK_RESULTS
from deepcite.collections.index.query import build_match_query
from deepcite.config import Settings, load_settings
from deepcite.errors import CollectionError, SearchError
from deepcite.search.base import SearchEngine
from tests.factories import make_pdf


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return load_settings({"data_dir": str(tmp_path / "data")}, config_files=[], environ={})


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A small folder with one file of each supported type, a corrupt PDF and hidden files."""
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / ".git").mkdir()
    (folder / "garden.md").write_text(
        "# Gardening notes\n\n" + "Compost feeds the soil with organic matter. " * 30
        + "\n\n## Tomatoes\n\nTomatoes need full sun and deep watering.\n"
    )
    (folder / "sub" / "bread.txt").write_text(
        "Baking bread\n============\n\nKnead the dough until it is smooth and elastic.\n"
    )
    (folder / "sub" / "astronomy.rst").write_text(
        "Astronomy\n=========\n\nJupiter is the largest planet; its moons orbit quickly.\n"
    )
    (folder / "bikes.html").write_text(
        "<html><head><title>Bicycle repair</title></head><body>"
        "<p>To fix a flat tyre, remove the inner tube and patch the puncture.</p>"
        "</body></html>"
    )
    make_pdf(folder / "ocean.pdf", ["Coral reefs grow in warm shallow water.",
                                    "Whales migrate thousands of kilometres each year."],
             title="Ocean facts")
    (folder / "sub" / "broken.pdf").write_bytes(b"not really a pdf")
    (folder / ".hidden.md").write_text("# Secret\n\nhiddenword\n")
    (folder / ".git" / "notes.md").write_text("# Git\n\nhiddenword\n")
    (folder / "image.png").write_bytes(b"\x89PNG")
    return folder


@pytest.fixture
def filled(settings: Settings, docs: Path) -> Collection:
    collection = Collection.create("notes", settings=settings)
    collection.add(docs)
    return collection


# --------------------------------------------------------------------- indexing


def test_add_indexes_every_type_and_reports_the_corrupt_pdf(
    settings: Settings, docs: Path
) -> None:
    collection = Collection.create("notes", settings=settings)
    events: list[AddProgress] = []
    report = collection.add(docs, progress=events.append)
    names = sorted(p.name for p in report.added)
    assert names == ["astronomy.rst", "bikes.html", "bread.txt", "garden.md", "ocean.pdf"]
    assert [(p.name, reason.split(" (")[0]) for p, reason in report.failed] == [
        ("broken.pdf", "not a valid PDF")
    ]
    assert report.failed[0][0] == (docs / "sub" / "broken.pdf").resolve()
    assert not report.updated and not report.removed and not report.skipped
    assert [e.done for e in events] == list(range(1, 7))
    assert {e.total for e in events} == {6}
    assert collection.search("hiddenword") == []
    info = collection.info()
    assert (info.name, info.documents) == ("notes", 5)
    assert info.chunks >= 6 and info.size_bytes > 0 and info.updated is not None


def test_search_ranks_the_relevant_document_first(filled: Collection) -> None:
    results = filled.search("How do I patch a flat tyre?")
    assert results[0].title == "Bicycle repair"
    assert results[0].engine == "local"
    bread = filled.search("knead dough")[0]
    assert bread.title == "Baking bread"
    assert bread.url == (filled.path.parent.parent.parent / "docs" / "sub" /
                         "bread.txt").resolve().as_uri()
    assert set(bread.metadata) == {"collection", "path", "page", "heading", "heading_path",
                                   "kind", "start", "end", "score", "chunk_id",
                                   "document_title"}
    assert bread.metadata["heading_path"] == ["Baking bread"]
    assert bread.metadata["kind"] == "text"
    assert bread.metadata["collection"] == "notes"
    assert bread.metadata["score"] > 0
    assert bread.metadata["page"] is None


def test_markdown_heading_reaches_the_result(filled: Collection) -> None:
    result = filled.search("tomatoes sun")[0]
    assert result.title == "Gardening notes"
    assert result.metadata["heading"] == "Tomatoes"


def test_pdf_hits_carry_page_numbers(filled: Collection) -> None:
    whales = filled.search("whales migrate")[0]
    assert whales.title == "Ocean facts"
    assert whales.metadata["page"] == 2
    assert whales.url.endswith("ocean.pdf#page=2")
    coral = filled.search("coral reefs")[0]
    assert coral.url.endswith("#page=1")
    start, end = coral.metadata["start"], coral.metadata["end"]
    assert coral.snippet == "Coral reefs grow in warm shallow water."[: end - start]


def test_readding_unchanged_folder_skips_everything(filled: Collection, docs: Path) -> None:
    report = filled.add(docs)
    assert len(report.skipped) == 5
    assert not report.added and not report.updated and not report.removed
    assert len(report.failed) == 1  # the corrupt PDF is still corrupt
    assert not report.changed


def test_modified_file_is_updated_and_deleted_file_removed(
    filled: Collection, docs: Path
) -> None:
    (docs / "garden.md").write_text("# Gardening notes\n\nCucumbers climb trellises.\n")
    (docs / "sub" / "astronomy.rst").unlink()
    report = filled.add(docs)
    assert [p.name for p in report.updated] == ["garden.md"]
    assert [p.name for p in report.removed] == ["astronomy.rst"]
    assert report.changed
    assert filled.search("tomatoes") == []
    assert filled.search("cucumbers")[0].title == "Gardening notes"
    assert filled.search("jupiter") == []
    assert filled.info().documents == 4


def test_removal_only_touches_the_added_folder(
    settings: Settings, docs: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.md").write_text("# Keep\n\nzebra stripes\n")
    collection = Collection.create("mixed", settings=settings)
    collection.add([docs, other / "keep.md"])
    (docs / "garden.md").unlink()
    report = collection.add(docs)
    assert [p.name for p in report.removed] == ["garden.md"]
    assert collection.search("zebra")[0].title == "Keep"


def test_file_that_becomes_corrupt_is_failed_and_dropped(
    filled: Collection, docs: Path
) -> None:
    (docs / "ocean.pdf").write_bytes(b"%PDF-1.4 truncated")
    report = filled.add(docs)
    assert sorted(p.name for p, _ in report.failed) == ["broken.pdf", "ocean.pdf"]
    assert filled.search("whales") == []


def test_pdf_pages_without_text_become_warnings(settings: Settings, tmp_path: Path) -> None:
    folder = tmp_path / "scans"
    folder.mkdir()
    make_pdf(folder / "scan.pdf", ["", "some words"])
    report = Collection.create("scans", settings=settings).add(folder)
    assert report.warnings == [
        f"{(folder / 'scan.pdf').resolve()}: page 1: no extractable text (scanned image?)"
    ]


def test_explicit_files_and_unsupported_files(settings: Settings, docs: Path) -> None:
    collection = Collection.create("files", settings=settings)
    report = collection.add([docs / "garden.md", docs / "image.png"])
    assert [p.name for p in report.added] == ["garden.md"]
    assert [p.name for p, _ in report.failed] == ["image.png"]
    assert "unsupported file type .png" in report.failed[0][1]


def test_missing_folder_raises(settings: Settings, tmp_path: Path) -> None:
    collection = Collection.create("x", settings=settings)
    missing = tmp_path / "nope"
    with pytest.raises(CollectionError, match=f"^Folder not found: {missing}$"):
        collection.add(missing)


def test_interrupted_add_leaves_a_usable_index(settings: Settings, docs: Path) -> None:
    collection = Collection.create("partial", settings=settings)

    def interrupt(event: AddProgress) -> None:
        if event.done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        collection.add(docs, progress=interrupt)
    reopened = Collection.open("partial", settings=settings)
    assert reopened.info().documents >= 1
    report = reopened.add(docs)
    assert len(report.added) + len(report.skipped) == 5
    assert reopened.info().documents == 5


# -------------------------------------------------------------------- lifecycle


@pytest.mark.parametrize("name", ["bad name", "", "-x", "a/b", "é", "x" * 65])
def test_bad_collection_names(settings: Settings, name: str) -> None:
    with pytest.raises(CollectionError, match=re.escape("letters, digits, '_', '.' and '-'")):
        Collection.create(name, settings=settings)


def test_missing_collection_message(settings: Settings) -> None:
    with pytest.raises(CollectionError) as info:
        Collection.open("x", settings=settings)
    assert str(info.value) == (
        "No collection named 'x' - create it with `deepcite collection add FOLDER --name x`"
    )


def test_create_existing_opens_it_and_open_by_path(filled: Collection, settings: Settings) -> None:
    again = Collection.create("notes", settings=settings)
    assert again.info().documents == 5
    by_path = Collection.open(filled.path, settings=settings)
    assert by_path.name == "notes"
    assert by_path.path == settings.data_dir / "collections" / "notes.sqlite"


def test_custom_path_and_non_collection_file(settings: Settings, tmp_path: Path) -> None:
    custom = Collection.create("elsewhere", tmp_path / "custom" / "c.sqlite", settings=settings)
    assert custom.path.is_file()
    assert Collection.open(str(custom.path), settings=settings).name == "elsewhere"
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"definitely not sqlite" * 100)
    with pytest.raises(CollectionError, match="not a deepcite collection"):
        Collection.open(junk, settings=settings)


def test_list_and_remove_collections(filled: Collection, settings: Settings) -> None:
    Collection.create("empty", settings=settings)
    infos = list_collections(settings)
    assert [(i.name, i.documents) for i in infos] == [("empty", 0), ("notes", 5)]
    remove_collection("notes", settings)
    assert not filled.path.exists()
    assert [i.name for i in list_collections(settings)] == ["empty"]
    with pytest.raises(CollectionError, match="No collection named 'notes'"):
        remove_collection("notes", settings)


def test_list_collections_without_data_dir(settings: Settings) -> None:
    assert list_collections(settings) == []


# ------------------------------------------------------------------------ query


def test_stopword_only_query_returns_nothing(filled: Collection) -> None:
    assert filled.search("how do I do the what is a") == []
    assert filled.search("") == []
    with pytest.raises(CollectionError, match="at least 1"):  # was []: k=0 is a caller bug
        filled.search("tomatoes", k=0)


def test_fts_syntax_in_questions_is_harmless(filled: Collection) -> None:
    for query in ['"unbalanced', "tomatoes AND NOT (", "sun* -water NEAR(", "col:on ^x"]:
        filled.search(query)


def test_build_match_query() -> None:
    assert build_match_query("How do I parse the Command-line?") == (
        '"parse" OR "command" OR "line"'
    )
    assert build_match_query("what is a") is None


def test_concurrent_searches(filled: Collection) -> None:
    queries = ["whales", "bread dough", "flat tyre", "jupiter moons"] * 10
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda q: filled.search(q, k=3), queries))
    assert all(r for r in results)
    assert results[0][0].title == results[4][0].title == "Ocean facts"


# ----------------------------------------------------------------------- engine


def test_local_engine_merges_collections(filled: Collection, settings: Settings,
                                         tmp_path: Path) -> None:
    folder = tmp_path / "more"
    folder.mkdir()
    (folder / "whales.md").write_text("# Whale songs\n\nHumpback whales sing; whales whales.\n")
    more = Collection.create("more", settings=settings)
    more.add(folder)
    engine = LocalSearchEngine([filled, more])
    assert isinstance(engine, SearchEngine)
    assert engine.name == "local"
    results = engine.search("whales", max_results=5)
    assert {r.metadata["collection"] for r in results} == {"notes", "more"}
    scores = [r.metadata["score"] for r in results]
    assert scores == sorted(scores, reverse=True)
    assert len(engine.search("whales", max_results=1)) == 1
    named = LocalSearchEngine.from_settings(settings, ["notes", "more"])
    assert [c.name for c in named.collections] == ["notes", "more"]


def test_local_engine_gives_a_cjk_query_more_chunks(settings: Settings,
                                                    tmp_path: Path) -> None:
    # a CJK chunk holds a quarter of an English one's text (a character is a token)
    folder = tmp_path / "cards"
    folder.mkdir()
    for number in range(4):
        (folder / f"card{number}.md").write_text(
            f"# 读者证{number}\n\n读者证{number}每次可借{number + 2}本书。\n", encoding="utf-8")
    cards = Collection.create("cards", settings=settings)
    cards.add(folder)
    engine = LocalSearchEngine(cards)
    assert len(engine.search("读者证可借几本书", max_results=1)) == CJK_RESULTS
    assert len(engine.search("读者证可借几本书", max_results=2)) == 2 * CJK_RESULTS


def test_local_engine_turns_failures_into_search_errors(filled: Collection) -> None:
    engine = LocalSearchEngine(filled)
    remove_collection("notes", load_settings(
        {"data_dir": str(filled.path.parent.parent)}, config_files=[], environ={}))
    with pytest.raises(SearchError, match="local search in 'notes' failed"):
        engine.search("whales", max_results=3)


# ------------------------------------------------------------------------- demo


def test_demo_collection_builds_offline_and_finds_argparse(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = time.monotonic()
    demo = ensure_demo_collection(settings)
    elapsed = time.monotonic() - started
    assert elapsed < 60
    assert demo.name == "demo"
    info = demo.info()
    assert info.documents > 100
    titles = [r.title for r in demo.search("parse command line arguments", k=3)]
    assert any(t.startswith("argparse — ") for t in titles), titles
    assert (settings.data_dir / "demo-src" / "module-argparse.txt").is_file()
    topic = demo.search("assert statement", k=5)
    assert any(r.title == "Python language reference: assert" for r in topic)

    def fail(folder: Path) -> int:
        raise AssertionError("the fast path must not re-render")

    monkeypatch.setattr(demo_module, "write_demo_sources", fail)
    assert ensure_demo_collection(settings).info().documents == info.documents


def test_demo_sources_are_stable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(demo_module, "DEMO_MODULES", ("argparse", "no_such_module_xyz"))
    demo_module.write_demo_sources(tmp_path)
    first = {p.name: os.stat(p).st_mtime_ns for p in tmp_path.iterdir()}
    demo_module.write_demo_sources(tmp_path)
    assert {p.name: os.stat(p).st_mtime_ns for p in tmp_path.iterdir()} == first
    assert "module-argparse.txt" in first and "module-no_such_module_xyz.txt" not in first
