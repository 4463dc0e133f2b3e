"""The tantivy inverted index beside a collection: in step with the file, crash-safe, exact."""

from __future__ import annotations

import math
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import tantivy

from deepcite.collections import Collection
from deepcite.collections.collection import remove_collection
from deepcite.collections.index import Index, inverted, inverted_rescore, rerank

OLD = 1_600_000_000


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    os.utime(path, (OLD, OLD))
    return path


def _docs(root: Path, count: int = 6) -> Path:
    folder = root / "docs"
    for n in range(count):
        _write(folder, f"doc{n}.md", f"# Document {n}\n\nword{n} appears here. "
                                     + "filler text. " * 50)
    return folder


def _no_fts5(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any use of the FTS5 path fail, so a passing search used the index."""
    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("searched FTS5, not the inverted index")

    monkeypatch.setattr(rerank, "search", refuse)


def _indexed(collection: Collection) -> int:
    """Live documents in the tantivy index (after a fresh open)."""
    index = tantivy.Index.open(str(inverted.folder_of(collection.path)))
    return int(index.searcher().num_docs)


def _pending(collection: Collection) -> int:
    with collection.index.connect() as conn:
        return inverted.pending(conn)


def test_an_add_leaves_the_index_in_step_and_searches_use_it(
    make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    collection = Collection.create("c", settings=make_settings())
    collection.add(_docs(tmp_path))
    assert inverted.folder_of(collection.path).is_dir()
    assert _pending(collection) == 0
    assert _indexed(collection) == collection.info().chunks
    _no_fts5(monkeypatch)
    hit = collection.search("Where does word3 appear?")[0]
    assert hit.title == "Document 3"
    assert hit.metadata["heading_path"] == ["Document 3"]
    start, end = hit.metadata["start"], hit.metadata["end"]
    source = (tmp_path / "docs" / "doc3.md").read_text(encoding="utf-8")
    assert source[start:end].strip() and "word3" in source[start:end]
    assert collection.search("the of and") == []  # stopwords only


def test_updates_and_removals_are_reflected(
    make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _docs(tmp_path, count=3)
    collection = Collection.create("c", settings=make_settings())
    collection.add(folder)
    _write(folder, "doc1.md", "# Changed\n\nPelicans replaced the old words.\n")
    (folder / "doc2.md").unlink()
    _write(folder, "new.txt", "Albatross notes.\n")
    report = collection.add(folder)
    assert (len(report.updated), len(report.removed), len(report.added)) == (1, 1, 1)
    _no_fts5(monkeypatch)
    assert collection.search("word1") == []
    assert collection.search("word2") == []
    assert collection.search("pelicans")[0].title == "Changed"
    assert collection.search("albatross")[0].metadata["path"].endswith("new.txt")
    assert _indexed(collection) == collection.info().chunks


def test_a_crash_between_the_two_commits_is_repaired_without_duplicates(
    make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _docs(tmp_path, count=3)
    collection = Collection.create("c", settings=make_settings())
    collection.add(folder)
    _write(folder, "extra.md", "# Extra\n\nCormorants dive.\n")

    def crash(*_: Any) -> None:  # tantivy has committed, SQLite has not
        raise OSError("simulated crash")

    monkeypatch.setattr(inverted, "_done", crash)
    collection.add(folder)
    assert _pending(collection) > 0
    # Behind the file: searches use FTS5 and still see everything.
    assert collection.search("cormorants")[0].title == "Extra"
    monkeypatch.undo()
    collection.add(folder)  # nothing changed on disk; the index catches up
    assert _pending(collection) == 0
    assert _indexed(collection) == collection.info().chunks
    _no_fts5(monkeypatch)
    assert [h.title for h in collection.search("cormorants")] == ["Extra"]


def test_a_killed_add_leaves_a_searchable_consistent_index(
    make_settings: Any, tmp_path: Path
) -> None:
    folder = _docs(tmp_path, count=8)
    settings = make_settings()
    collection = Collection.create("c", settings=settings)
    collection.add(folder / "doc0.md")
    script = textwrap.dedent(f"""
        import os
        from pathlib import Path
        from deepcite.collections import indexer
        from deepcite.collections.index import inverted
        from deepcite.collections.index import Index
        def dying(*args):  # tantivy has committed ...
            os._exit(3)  # ... and the process dies before SQLite commits
        indexer.BATCH_SECONDS = 0.0
        indexer.SYNC_EVERY = 1
        inverted._done = dying
        indexer.add_to_index(Index(Path({str(collection.path)!r})), Path({str(folder)!r}))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 3, done.stderr
    reopened = Collection.open("c", settings=settings)
    assert _pending(reopened) > 0
    assert reopened.search("word0")[0].title == "Document 0"  # FTS5 meanwhile
    reopened.add(folder)
    assert reopened.info().documents == 8
    assert _pending(reopened) == 0
    assert _indexed(reopened) == reopened.info().chunks
    assert {reopened.search(f"word{n}")[0].title for n in range(8)} == {
        f"Document {n}" for n in range(8)}


def test_a_missing_or_foreign_index_folder_is_rebuilt(
    make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _docs(tmp_path, count=4)
    collection = Collection.create("c", settings=make_settings())
    collection.add(folder)
    side = inverted.folder_of(collection.path)
    shutil.rmtree(side)
    assert collection.search("word2")[0].title == "Document 2"  # FTS5
    collection.add(folder)
    assert _indexed(collection) == collection.info().chunks
    # A state file that belongs to another file (a restored backup, a copy).
    (side / inverted.STATE_FILE).write_text("aaaa bbbb\n", encoding="ascii")
    assert collection.search("word2")[0].title == "Document 2"
    collection.add(folder)
    assert _indexed(collection) == collection.info().chunks
    _no_fts5(monkeypatch)
    assert collection.search("word2")[0].title == "Document 2"


def test_a_file_from_before_the_index_gets_one(
    make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _docs(tmp_path, count=3)
    collection = Collection.create("c", settings=make_settings())
    collection.add(folder)
    with sqlite3.connect(collection.path) as conn:
        for trigger in ("chunks_pi", "chunks_pd", "chunks_pu"):
            conn.execute(f"DROP TRIGGER {trigger}")
        conn.execute("DROP TABLE inverted_pending")
        conn.execute("DELETE FROM meta WHERE key = ?", (inverted.STATE_KEY,))
    shutil.rmtree(inverted.folder_of(collection.path))
    assert collection.search("word1")[0].title == "Document 1"
    collection.add(folder)
    _no_fts5(monkeypatch)
    assert collection.search("word1")[0].title == "Document 1"


def test_cjk_questions_still_find_words_inside_sentences(
    make_settings: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    _write(folder, "zh.txt", "我们研究自然语言处理的方法。\n")
    _write(folder, "en.txt", "Natural language processing in English.\n")
    collection = Collection.create("c", settings=make_settings())
    collection.add(folder)
    assert collection.search("自然语言")[0].metadata["path"].endswith("zh.txt")
    assert collection.search("natural language")[0].metadata["path"].endswith("en.txt")


def test_title_only_matches_follow_text_matches(
    make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "docs"
    _write(folder, "herons.txt", "Tall wading birds.\n")  # the title is the file name
    _write(folder, "birds.txt", "Herons stand still in shallow water.\n")
    collection = Collection.create("c", settings=make_settings())
    collection.add(folder)
    _no_fts5(monkeypatch)
    hits = collection.search("herons")
    assert [h.metadata["path"][-10:] for h in hits] == ["/birds.txt", "herons.txt"]
    assert hits[1].metadata["score"] == 0.0


def test_removing_the_collection_removes_its_index(make_settings: Any, tmp_path: Path) -> None:
    settings = make_settings()
    collection = Collection.create("gone", settings=settings)
    collection.add(_docs(tmp_path, count=2))
    side = inverted.folder_of(collection.path)
    assert side.is_dir()
    assert collection.info().size_bytes > collection.path.stat().st_size
    remove_collection("gone", settings)
    assert not side.exists() and not collection.path.exists()


# ------------------------------------------------------------- no pruning error


def _synthetic(root: Path, rng: random.Random, files: int = 40) -> Path:
    """Files of Zipf-distributed words, so common words occur in most chunks."""
    vocab = [f"w{n}" for n in range(400)]
    weights = [1 / (n + 1) for n in range(len(vocab))]
    folder = root / "synthetic"
    for f in range(files):
        paragraphs = [" ".join(rng.choices(vocab, weights, k=rng.randint(20, 120)))
                      for _ in range(rng.randint(2, 6))]
        _write(folder, f"f{f:03d}.txt", "\n\n".join(paragraphs) + "\n")
    return folder


def test_pruned_top_k_equals_the_exhaustive_ranking(
    make_settings: Any, tmp_path: Path
) -> None:
    rng = random.Random(5)
    collection = Collection.create("s", settings=make_settings())
    folder = _synthetic(tmp_path, rng)
    for part in sorted(folder.iterdir()):  # many small tantivy segments
        collection.add(part)
    index = tantivy.Index.open(str(inverted.folder_of(collection.path)))
    searcher = index.searcher()
    assert searcher.num_segments > 1
    for _ in range(30):
        terms = rng.sample([f"w{n}" for n in range(60)], rng.randint(1, 5))
        query = inverted._query("text", terms)
        pruned = searcher.search(query, 10, count=False).hits
        exhaustive = searcher.search(query, 10, count=True).hits  # counting scores all
        assert [(round(s, 5), a.segment_ord, a.doc) for s, a in pruned] == \
            [(round(s, 5), a.segment_ord, a.doc) for s, a in exhaustive]


def test_search_equals_brute_force_scoring_on_a_small_corpus(
    make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(9)
    collection = Collection.create("s", settings=make_settings())
    collection.add(_synthetic(tmp_path, rng, files=6))
    with collection.index.connect() as conn:
        rows = conn.execute("SELECT id, text FROM chunks").fetchall()
        _, avg = rerank.stats(conn)
    assert len(rows) < inverted.POOL  # every match is re-scored: nothing can be missed
    tokens = {cid: inverted_rescore.ANALYZER.analyze(text) for cid, text in rows}
    lengths = {cid: len(text) for cid, text in rows}
    _no_fts5(monkeypatch)
    for _ in range(20):
        terms = rng.sample([f"w{n}" for n in range(80)], rng.randint(1, 4))
        n = len(rows)
        expected = []
        for cid, toks in tokens.items():
            tf = Counter(t for t in toks if t in terms)
            norm = 1 - inverted_rescore.B + inverted_rescore.B * lengths[cid] / avg
            score = 0.0
            for term, f in tf.items():
                df = sum(1 for other in tokens.values() if term in other)
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                score += idf * f * (inverted_rescore.K1 + 1) / (f + inverted_rescore.K1 * norm)
            if score > 0:
                expected.append((round(score, 6), cid))
        expected.sort(key=lambda item: -item[0])
        got = [(round(h.metadata["score"], 6), h.metadata["chunk_id"])
               for h in collection.search(" ".join(terms), k=10)]
        assert [s for s, _ in got] == [s for s, _ in expected[:10]]
        assert {c for _, c in got} <= {c for _, c in expected}


def test_index_sync_is_a_no_op_when_in_step(make_settings: Any, tmp_path: Path) -> None:
    collection = Collection.create("c", settings=make_settings())
    collection.add(_docs(tmp_path, count=2))
    state = (inverted.folder_of(collection.path) / inverted.STATE_FILE).read_text()
    index = Index(collection.path)
    with index.connect() as conn:
        assert index.sync_inverted(conn)
    assert (inverted.folder_of(collection.path) / inverted.STATE_FILE).read_text() == state


def test_reused_chunk_ids_never_show_old_content(
    make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _docs(tmp_path, count=3)
    collection = Collection.create("c", settings=make_settings())
    collection.add(folder)
    with collection.index.connect() as conn:
        last = conn.execute("SELECT max(id) FROM chunks").fetchone()[0]
    (folder / "doc2.md").unlink()  # holds the highest chunk ids
    collection.add(folder)
    _write(folder, "doc9.md", "# Nine\n\nFlamingos.\n")
    collection.add(folder)
    with collection.index.connect() as conn:
        assert conn.execute("SELECT max(id) FROM chunks").fetchone()[0] <= last  # reused
    _no_fts5(monkeypatch)
    assert collection.search("word2") == []
    assert [h.title for h in collection.search("flamingos")] == ["Nine"]
    assert _indexed(collection) == collection.info().chunks


def test_a_feed_that_differs_from_the_file_is_discarded(
    make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _docs(tmp_path, count=2)
    collection = Collection.create("c", settings=make_settings())
    collection.add(folder)
    _write(folder, "more.md", "# More\n\nSandpipers run.\n")
    index = Index(collection.path)
    feed = inverted.Feeder(collection.path)
    with index.connect() as conn:
        feed.start(conn)
        assert feed.writer is not None
        # A file written while feeding, then rolled back: fed, but never pending.
        feed.added([(10_000, "ghostly gannets", "Ghost")])
        conn.execute("BEGIN")
        conn.execute("INSERT INTO chunks(doc_id, ord, text, title, start, \"end\") "
                     "SELECT id, 99, 'Real puffins', title, 0, 1 FROM documents LIMIT 1")
        conn.execute("COMMIT")
        assert not feed.matches(conn, inverted._meta_state(conn))
        assert index.sync_inverted(conn, feed)
    assert feed.writer is None
    _no_fts5(monkeypatch)
    assert collection.search("gannets") == []
    assert collection.search("puffins")[0].snippet == "Real puffins"
    assert _indexed(collection) == collection.info().chunks


def test_a_damaged_index_folder_is_rebuilt(
    make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _docs(tmp_path, count=3)
    collection = Collection.create("c", settings=make_settings())
    collection.add(folder)
    side = inverted.folder_of(collection.path)
    (side / "meta.json").write_text("not json", encoding="utf-8")
    monkeypatch.setattr(inverted, "_OPENED", {})  # as in a fresh process
    assert collection.search("word1")[0].title == "Document 1"  # FTS5
    collection.add(folder)  # nothing changed, but the folder is rebuilt
    assert _indexed(collection) == collection.info().chunks
    _no_fts5(monkeypatch)
    assert collection.search("word1")[0].title == "Document 1"


_ENGLISH = [
    "manage", "managed", "management", "manager", "managing", "man", "many", "manner",
    "memory", "memories", "memorize", "memorial", "use", "used", "user", "useful", "using",
    "reuse", "thus", "cause", "because", "run", "running", "runner", "rerun", "connect",
    "connection", "connected", "disconnect", "query", "queries", "queried", "index",
    "indexes", "indexing", "indexed",
]


def test_scores_count_inflected_words_exactly_as_the_index_does(
    make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Re-scoring counts the words that stem to a query term, and only those: words that
    share a prefix, a term inside another word ("thus" holds "us"), "_" joins."""
    rng = random.Random(3)
    folder = tmp_path / "english"
    for f in range(6):
        words = rng.choices(_ENGLISH, k=rng.randint(30, 90))
        text = " ".join(w if rng.random() > 0.1 else f"{w}_{rng.choice(_ENGLISH)}"
                        for w in words)
        _write(folder, f"e{f}.txt", text.capitalize() + ".\n")
    collection = Collection.create("e", settings=make_settings())
    collection.add(folder)
    with collection.index.connect() as conn:
        rows = conn.execute("SELECT id, text FROM chunks").fetchall()
        _, avg = rerank.stats(conn)
    assert len(rows) < inverted.POOL
    tokens = {cid: inverted_rescore.ANALYZER.analyze(text) for cid, text in rows}
    _no_fts5(monkeypatch)
    for _ in range(25):
        question = " ".join(rng.sample(_ENGLISH, rng.randint(1, 4)))
        terms = set(inverted_rescore.ANALYZER.analyze(question))
        expected = {}
        for cid, toks in tokens.items():
            tf = Counter(t for t in toks if t in terms)
            norm = 1 - inverted_rescore.B + inverted_rescore.B * len(dict(rows)[cid]) / avg
            score = 0.0
            for term, f in tf.items():
                df = sum(1 for other in tokens.values() if term in other)
                idf = math.log(1 + (len(rows) - df + 0.5) / (df + 0.5))
                score += idf * f * (inverted_rescore.K1 + 1) / (f + inverted_rescore.K1 * norm)
            if score > 0:
                expected[cid] = round(score, 6)
        got = {h.metadata["chunk_id"]: round(h.metadata["score"], 6)
               for h in collection.search(question, k=10)}
        assert got == expected, question


def test_a_collection_made_again_at_the_same_path_is_searched_afresh(
    make_settings: Any, tmp_path: Path
) -> None:
    """Searches reuse their thread's connection, never one to a file that was replaced."""
    settings = make_settings()
    first = Collection.create("again", settings=settings)
    first.add(_docs(tmp_path / "one", count=2))
    assert first.search("word1")
    remove_collection("again", settings)
    second = Collection.create("again", settings=settings)
    _write(tmp_path / "two", "other.md", "# Other\n\nOnly quokkas live here.\n")
    second.add(tmp_path / "two")
    assert second.search("word1") == []
    assert [h.title for h in second.search("quokkas")] == ["Other"]


def test_searches_from_many_threads_and_adds_between_them(
    make_settings: Any, tmp_path: Path
) -> None:
    import concurrent.futures

    collection = Collection.create("threads", settings=make_settings())
    collection.add(_docs(tmp_path, count=8))
    expected = {n: [h.metadata["chunk_id"] for h in collection.search(f"word{n}")]
                for n in range(8)}
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            got = list(pool.map(
                lambda n: [h.metadata["chunk_id"] for h in collection.search(f"word{n}")],
                range(8)))
            assert got == [expected[n] for n in range(8)]
        # the threads' open read connections hold no lock: an add still goes through
        _write(tmp_path / "docs", "late.md", "# Late\n\nwombats arrive late.\n")
        collection.add(tmp_path / "docs")
        found = list(pool.map(lambda _: [h.title for h in collection.search("wombats")],
                              range(4)))
    assert found == [["Late"]] * 4


def test_a_page_name_repeated_in_a_chunk_does_not_outrank_the_word_asked(
    make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every chunk of the ziplib page is about ziplib; the one the question wants is the
    # chunk holding "unpackall", not the class listing that says "ziplib" ten times.
    folder = tmp_path / "docs"
    listing = " ".join(f"ziplib.Archive{n} is a class of ziplib." for n in range(10))
    method = ("The unpackall method writes every member to a folder. "
              + "Members keep their names and times. " * 20)
    filler = "Each member has a name, a size and a time of its own. " * 20
    _write(folder, "ziplib.md", f"# ziplib\n\n## Classes\n\n{listing}\n\n{filler}\n\n"
                                f"## Methods\n\n{method}\n\n## Notes\n\n{filler}\n")
    for n in range(6):
        _write(folder, f"other{n}.md", f"# Other {n}\n\n" + "filler text. " * 80)
    collection = Collection.create("c", settings=make_settings())
    collection.add(folder)
    _no_fts5(monkeypatch)
    page = (folder / "ziplib.md").read_text(encoding="utf-8")
    texts = [page[h.metadata["start"]:h.metadata["end"]]
             for h in collection.search("What does ziplib.Archive.unpackall do?")]
    assert "unpackall" in texts[0]
    assert any("Archive3" in text for text in texts[1:])  # the listing still comes
