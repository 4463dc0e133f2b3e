"""The index under stress: interrupts, crashes, format upgrades, change detection, ranking."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from deepcite.collections import Collection
from deepcite.collections import indexer as indexer_module
from deepcite.collections.index import INDEXER_VERSION, SCHEMA_VERSION, Index, retrieval
from deepcite.collections.loaders import LoadedDocument, load_document
from deepcite.errors import CollectionError

OLD = time.time() - 3600  # stat data this old is trusted without hashing


def _folder(root: Path, count: int = 6) -> Path:
    folder = root / "docs"
    folder.mkdir()
    for n in range(count):
        path = folder / f"doc{n}.md"
        path.write_text(f"# Document {n}\n\nword{n} appears here. " + "filler text. " * 50)
        os.utime(path, (OLD, OLD))
    return folder


def _chunk_rows(collection: Collection) -> tuple[int, int, int]:
    """(chunks, sum of per-document chunk counts, distinct (doc, ord) pairs)."""
    with sqlite3.connect(collection.path) as conn:
        chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        listed = conn.execute("SELECT sum(chunks) FROM documents").fetchone()[0]
        distinct = conn.execute("SELECT count(DISTINCT doc_id || ':' || ord) FROM chunks"
                                ).fetchone()[0]
        fts = conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
    assert fts == chunks
    return chunks, listed, distinct


# ----------------------------------------------------------------- interruption


def test_ctrl_c_in_a_loader_keeps_finished_files_and_a_rerun_completes(
    make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _folder(tmp_path)
    calls = []

    def interrupting(path: Path) -> LoadedDocument:
        calls.append(path)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return load_document(path)

    monkeypatch.setattr(indexer_module, "load_document", interrupting)
    collection = Collection.create("c", settings=make_settings())
    with pytest.raises(KeyboardInterrupt):
        collection.add(folder)
    reopened = Collection.open("c", settings=make_settings())
    assert reopened.info().documents == 3  # the three files before Ctrl-C
    assert reopened.search("word1")[0].title == "Document 1"
    assert reopened.search("word4") == []
    monkeypatch.setattr(indexer_module, "load_document", load_document)
    report = reopened.add(folder)
    assert (len(report.added), len(report.skipped)) == (3, 3)
    assert reopened.info().documents == 6
    chunks, listed, distinct = _chunk_rows(reopened)
    assert chunks == listed == distinct
    assert reopened.search("word4")[0].title == "Document 4"


def test_interrupt_while_writing_a_file_keeps_its_old_version(
    make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _folder(tmp_path, count=2)
    collection = Collection.create("c", settings=make_settings())
    collection.add(folder)
    (folder / "doc0.md").write_text("# Document 0\n\nreplacement words only\n")
    real = Index._delete_chunks

    def delete_then_interrupt(conn: sqlite3.Connection, path: str) -> None:
        real(conn, path)
        raise KeyboardInterrupt  # after the old chunks are gone, before the new ones

    monkeypatch.setattr(Index, "_delete_chunks", staticmethod(delete_then_interrupt))
    with pytest.raises(KeyboardInterrupt):
        collection.add(folder)
    monkeypatch.undo()
    assert collection.search("word0")[0].title == "Document 0"
    assert collection.search("replacement") == []
    assert [p.name for p in collection.add(folder).updated] == ["doc0.md"]
    assert collection.search("replacement")[0].title == "Document 0"
    chunks, listed, distinct = _chunk_rows(collection)
    assert chunks == listed == distinct


def test_killed_process_leaves_a_usable_index(make_settings: Any, tmp_path: Path) -> None:
    folder = _folder(tmp_path, count=8)
    settings = make_settings()
    collection = Collection.create("c", settings=settings)
    collection.add(folder / "doc0.md")
    script = textwrap.dedent(f"""
        import os
        from pathlib import Path
        from deepcite.collections import indexer
        from deepcite.collections.index import Index
        real = indexer.load_document
        seen = []
        def dying(path):
            seen.append(path)
            if len(seen) == 5:
                os._exit(3)  # no cleanup at all, like kill -9
            return real(path)
        indexer.load_document = dying
        indexer.add_to_index(Index(Path({str(collection.path)!r})), Path({str(folder)!r}))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 3, done.stderr
    reopened = Collection.open("c", settings=settings)
    assert reopened.search("word0")[0].title == "Document 0"
    report = reopened.add(folder)
    assert len(report.added) + len(report.skipped) == 8
    assert reopened.info().documents == 8
    chunks, listed, distinct = _chunk_rows(reopened)
    assert chunks == listed == distinct


# ------------------------------------------------------------- change detection


def test_unchanged_files_are_not_even_hashed(
    make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _folder(tmp_path)
    collection = Collection.create("c", settings=make_settings())
    collection.add(folder)
    hashed: list[Path] = []
    real_hash = indexer_module.hash_file

    def counting_hash(path: Path, **options: Any) -> str:
        hashed.append(path)
        return real_hash(path, **options)

    monkeypatch.setattr(indexer_module, "hash_file", counting_hash)
    report = collection.add(folder)
    assert len(report.skipped) == 6 and hashed == []
    touched = folder / "doc2.md"
    os.utime(touched, (OLD + 60, OLD + 60))  # new mtime, same content: hashed, not parsed
    report = collection.add(folder)
    assert len(report.skipped) == 6 and [p.name for p in hashed] == ["doc2.md"]
    hashed.clear()
    assert len(collection.add(folder).skipped) == 6 and hashed == []  # stat re-recorded


def test_recently_modified_files_are_rechecked_by_hash(
    make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "fresh"
    folder.mkdir()
    path = folder / "a.md"
    path.write_text("# A\n\nalpha version\n")
    collection = Collection.create("c", settings=make_settings())
    collection.add(folder)
    stat = path.stat()
    path.write_text("# A\n\ngamma version\n")  # same size, maybe the same mtime tick
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    report = collection.add(folder)
    assert [p.name for p in report.updated] == ["a.md"]
    assert collection.search("gamma")[0].title == "A"
    assert collection.search("alpha") == []


# -------------------------------------------------------------------- upgrades

_V1_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE documents(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL, kind TEXT NOT NULL, sha256 TEXT NOT NULL, size INTEGER NOT NULL,
    mtime REAL NOT NULL, chunks INTEGER NOT NULL DEFAULT 0);
CREATE TABLE chunks(id INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL REFERENCES documents(id),
    ord INTEGER NOT NULL, text TEXT NOT NULL, title TEXT NOT NULL, start INTEGER NOT NULL,
    "end" INTEGER NOT NULL, page INTEGER, heading TEXT);
CREATE INDEX chunks_doc ON chunks(doc_id);
CREATE VIRTUAL TABLE chunks_fts USING fts5(text, title, content='chunks', content_rowid='id',
    tokenize='porter unicode61');
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text, title) VALUES (new.id, new.text, new.title); END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, title)
    VALUES ('delete', old.id, old.text, old.title); END;
CREATE TRIGGER chunks_au AFTER UPDATE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, title)
    VALUES ('delete', old.id, old.text, old.title);
    INSERT INTO chunks_fts(rowid, text, title) VALUES (new.id, new.text, new.title); END;
"""


def _v1_collection(file: Path, docs: dict[Path, tuple[str, str | None]]) -> None:
    """A collection file exactly as format 1 wrote it, one chunk per document."""
    file.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(file) as conn:
        conn.executescript(_V1_SCHEMA)
        conn.executemany("INSERT INTO meta VALUES (?, ?)", [
            ("schema_version", "1"), ("name", "old"), ("created", "1"), ("updated", "1")])
        for path, (title, heading) in docs.items():
            text = path.read_text()
            stat = path.stat()
            doc_id = conn.execute(
                "INSERT INTO documents(path, title, kind, sha256, size, mtime, chunks) "
                "VALUES (?, ?, 'markdown', ?, ?, ?, 1)",
                (str(path), title, hashlib.sha256(path.read_bytes()).hexdigest(),
                 stat.st_size, stat.st_mtime)).lastrowid
            conn.execute('INSERT INTO chunks(doc_id, ord, text, title, start, "end", page, '
                         "heading) VALUES (?, 0, ?, ?, 0, ?, NULL, ?)",
                         (doc_id, text, title, len(text), heading))
    conn.close()


def test_format_1_files_are_upgraded_in_place(make_settings: Any, tmp_path: Path) -> None:
    folder = tmp_path / "old-docs"
    folder.mkdir()
    (folder / "en.md").write_text("# Sailing\n\nKnots hold the rigging.\n")
    (folder / "zh.md").write_text("# 航海\n\n水手在甲板上打结。\n", encoding="utf-8")
    settings = make_settings()
    file = settings.data_dir / "collections" / "old.sqlite"
    _v1_collection(file, {(folder / "en.md").resolve(): ("Sailing", "Sailing"),
                          (folder / "zh.md").resolve(): ("航海", "航海")})
    collection = Collection.open("old", settings=settings)
    assert collection.index.get_meta("schema_version") == SCHEMA_VERSION
    hit = collection.search("rigging")[0]
    assert (hit.title, hit.metadata["heading_path"]) == ("Sailing", ["Sailing"])
    assert collection.search("甲板")[0].title == "航海"  # CJK pairs filled in
    with sqlite3.connect(file) as conn:
        assert {row[0] for row in conn.execute("SELECT indexer FROM documents")} == {1}
    conn.close()
    report = collection.add(folder)  # indexed by the old chunker: re-indexed once
    assert sorted(p.name for p in report.updated) == ["en.md", "zh.md"]
    assert collection.info().documents == 2
    chunks, listed, distinct = _chunk_rows(collection)
    assert chunks == listed == distinct
    with sqlite3.connect(file) as conn:
        assert {row[0] for row in conn.execute("SELECT indexer FROM documents")} == {
            INDEXER_VERSION}
    conn.close()
    assert len(collection.add(folder).skipped) == 2


_V2_TRIGGERS = """
DROP TRIGGER chunks_fi; DROP TRIGGER chunks_fd; DROP TRIGGER chunks_fu; DROP TABLE fts_pending;
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text, title, cjk) VALUES (new.id, new.text, new.title, new.cjk);
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, title, cjk)
    VALUES ('delete', old.id, old.text, old.title, old.cjk);
END;
CREATE TRIGGER chunks_au AFTER UPDATE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, title, cjk)
    VALUES ('delete', old.id, old.text, old.title, old.cjk);
    INSERT INTO chunks_fts(rowid, text, title, cjk) VALUES (new.id, new.text, new.title, new.cjk);
END;
UPDATE meta SET value = '2' WHERE key = 'schema_version';
"""


def _fts_matches_chunks(file: Path) -> None:
    """FTS5's own check of its index against the chunks table (fails on any drift)."""
    with sqlite3.connect(file) as conn:
        conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)")
        assert conn.execute("SELECT count(*) FROM fts_pending").fetchone()[0] == 0
    conn.close()


def test_format_2_files_are_upgraded_in_place_and_keep_their_index(
    make_settings: Any, tmp_path: Path
) -> None:
    folder = _folder(tmp_path, 3)
    settings = make_settings()
    collection = Collection.create("two", settings=settings)
    collection.add(folder)
    with sqlite3.connect(collection.path) as conn:
        conn.executescript(_V2_TRIGGERS)
    conn.close()
    reopened = Collection.open("two", settings=settings)
    assert reopened.index.get_meta("schema_version") == SCHEMA_VERSION
    assert reopened.search("word1")[0].title == "Document 1"
    (folder / "doc1.md").write_text("# Document 1\n\nquokkas now. " + "other text. " * 40)
    (folder / "doc9.md").write_text("# Document 9\n\nwombats. " + "more text. " * 40)
    (folder / "doc2.md").unlink()
    report = reopened.add(folder)
    assert (len(report.added), len(report.updated), len(report.removed)) == (1, 1, 1)
    assert reopened.search("quokkas")[0].title == "Document 1"
    assert reopened.search("wombats")[0].title == "Document 9"
    assert not reopened.search("word1") and not reopened.search("word2")
    _fts_matches_chunks(reopened.path)
    chunks, listed, distinct = _chunk_rows(reopened)
    assert chunks == listed == distinct


def test_a_pdf_indexed_before_placeholder_titles_is_retitled_by_the_next_add(
    make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Indexer 3 titles a PDF whose metadata title is a placeholder by its first line; a
    PDF indexed by indexer 2 kept "untitled", and the next add of its folder, the file
    unchanged, re-indexes it (the stamp, not the file, says it is out of date)."""
    import dataclasses

    from deepcite.collections.index import sqlite_index
    from tests.factories import make_pdf

    folder = tmp_path / "papers"
    folder.mkdir()
    make_pdf(folder / "meadow.pdf", ["Soil Moisture in Alpine Meadows",
                                     "We measured water content weekly."], title="untitled")
    (folder / "note.md").write_text("# Note\n\nA note on meadows.\n")
    for path in folder.iterdir():
        os.utime(path, (OLD, OLD))
    settings = make_settings()
    collection = Collection.create("papers", settings=settings)
    with monkeypatch.context() as old:  # indexer 2: the metadata's placeholder kept
        old.setattr(indexer_module, "INDEXER_VERSION", 2)
        old.setattr(sqlite_index, "INDEXER_VERSION", 2)
        old.setattr(indexer_module, "load_document", lambda path: dataclasses.replace(
            load_document(path), title="untitled") if path.suffix == ".pdf"
            else load_document(path))
        collection.add(folder)
    assert collection.search("water content")[0].title == "untitled"
    report = collection.add(folder)
    assert [p.name for p in report.updated] == ["meadow.pdf", "note.md"]
    assert collection.search("water content")[0].title == "Soil Moisture in Alpine Meadows"
    assert len(collection.add(folder).skipped) == 2
    _fts_matches_chunks(collection.path)


def test_chunks_written_and_removed_in_one_batch_keep_fts_intact(
    make_settings: Any, tmp_path: Path
) -> None:
    """FTS5 is told about a batch's chunks only at its commit, so a chunk written and
    removed before then must never reach it as a delete (that corrupts the index)."""
    from deepcite.collections.chunking import chunk_text
    from deepcite.collections.index import DocumentRecord

    collection = Collection.create("batch", settings=make_settings())
    index = collection.index

    def record(name: str) -> DocumentRecord:
        return DocumentRecord(str(tmp_path / name), name, "markdown", name, 1, 1.0)

    with index.connect() as conn:
        with index.batch(conn):
            index.put_document(conn, record("a.md"), chunk_text("alpacas graze."))
            index.put_document(conn, record("a.md"), chunk_text("llamas graze."))
            index.put_document(conn, record("b.md"), chunk_text("bison roam."))
            index.delete_document(conn, str(tmp_path / "b.md"))
            index.checkpoint(conn)
            index.put_document(conn, record("c.md"), chunk_text("camels rest."))
        with index.transaction(conn):
            index.put_document(conn, record("a.md"), chunk_text("vicunas graze."))
    _fts_matches_chunks(collection.path)
    assert [hit.title for hit in collection.search("graze")] == ["a.md"]
    assert collection.search("vicunas") and collection.search("camels")
    for word in ("alpacas", "llamas", "bison"):
        assert not collection.search(word)


def test_upgrade_failure_and_unknown_formats_are_one_line_errors(
    make_settings: Any, tmp_path: Path
) -> None:
    settings = make_settings()
    future = settings.data_dir / "collections" / "future.sqlite"
    future.parent.mkdir(parents=True)
    with sqlite3.connect(future) as conn:
        conn.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute("INSERT INTO meta VALUES ('schema_version', '99')")
    conn.close()
    with pytest.raises(CollectionError, match="unsupported collection format '99'"):
        Collection.open("future", settings=settings)
    broken = settings.data_dir / "collections" / "broken.sqlite"
    with sqlite3.connect(broken) as conn:  # claims format 1 but lacks its tables
        conn.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    conn.close()
    with pytest.raises(CollectionError) as info:
        Collection.open("broken", settings=settings)
    assert "cannot upgrade this collection" in str(info.value)
    assert "re-add its folders" in str(info.value) and "\n" not in str(info.value)
    with sqlite3.connect(broken) as conn:  # the failed upgrade changed nothing
        assert conn.execute("SELECT value FROM meta").fetchone()[0] == "1"
    conn.close()


# --------------------------------------------------------------------- ranking


@pytest.fixture
def library(make_settings: Any, tmp_path: Path) -> Collection:
    folder = tmp_path / "library"
    folder.mkdir()
    topics = {
        "asyncio": "Python asyncio runs coroutines on an event loop. Await a coroutine.",
        "pathlib": "Python pathlib offers Path objects for file system paths.",
        "json": "Python json encodes and decodes JSON documents.",
        "guide": "Installing Python: download it, run the installer, check the version.",
    }
    for name, text in topics.items():
        (folder / f"{name}.md").write_text(f"# {name}\n\n{text} Python Python.\n")
    (folder / "manual.md").write_text(
        "# Manual\n\n## Installation\n\n### On Linux\n\nUse the package manager to install "
        "the interpreter.\n\n### On Windows\n\nRun the graphical installer.\n")
    collection = Collection.create("lib", settings=make_settings())
    collection.add(folder)
    return collection


def test_ranking_prefers_rare_terms_and_titles(library: Collection) -> None:
    assert library.search("How do I await a coroutine in Python?")[0].title == "asyncio"
    assert library.search("pathlib")[0].title == "pathlib"  # title and text
    results = library.search("python", k=10)
    assert len(results) == 4  # the manual never says "python"
    scores = [r.metadata["score"] for r in results]
    assert scores == sorted(scores, reverse=True)


def test_heading_paths_in_results(library: Collection) -> None:
    hit = library.search("package manager")[0]
    assert hit.metadata["heading_path"] == ["Manual", "Installation", "On Linux"]
    assert hit.metadata["heading"] == "On Linux"
    windows = library.search("graphical installer")[0]
    assert windows.metadata["heading_path"] == ["Manual", "Installation", "On Windows"]
    assert "package manager" not in windows.snippet  # one section per chunk


def test_common_terms_are_dropped_only_beyond_the_budget(
    library: Collection, monkeypatch: pytest.MonkeyPatch
) -> None:
    with library.index.connect() as conn:
        atoms = ['"python"', '"asyncio"', '"loop"']
        assert retrieval.affordable_atoms(conn, atoms) == atoms
        monkeypatch.setattr(retrieval, "SCORE_BUDGET", 2)
        assert retrieval.affordable_atoms(conn, atoms) == ['"asyncio"', '"loop"']
        assert retrieval.affordable_atoms(conn, ['"python"']) == ['"python"']
        monkeypatch.setattr(retrieval, "SCORE_BUDGET", 0)
        assert retrieval.affordable_atoms(conn, ['"python"', '"json"']) == ['"json"']
    assert library.search("python asyncio event loop")[0].title == "asyncio"
