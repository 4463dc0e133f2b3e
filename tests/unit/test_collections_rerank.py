"""The Lucene-IDF re-scoring keeps topic words that occur everywhere useful."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepcite.collections import Collection


def test_words_in_most_chunks_still_count(make_settings: Any, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    # "python" is in 3 of 4 files: classic BM25 gives it an IDF of ~0, Lucene's does not.
    (docs / "a.txt").write_text("Python decorators wrap functions.\n", encoding="utf-8")
    (docs / "b.txt").write_text("Python lists hold items.\n", encoding="utf-8")
    (docs / "c.txt").write_text("Python dictionaries map keys.\n", encoding="utf-8")
    (docs / "d.txt").write_text("Decorators on cakes are edible.\n", encoding="utf-8")
    collection = Collection.create("r", settings=make_settings())
    collection.add(docs)
    hits = collection.search("python decorators", k=4)
    assert hits[0].metadata["path"].endswith("a.txt")
    scores = [h.metadata["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert collection.index.get_meta("chunk_count") == "4"
    assert float(collection.index.get_meta("avg_chunk_chars") or 0) > 10
