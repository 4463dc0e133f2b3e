"""Dense collections end to end through Collection: embed on add, hybrid search."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from deepcite.collections import Collection
from tests.unit.test_collections_embeddings import FakeEncoder

SYNONYMS = {"feline": "cat", "kitty": "cat", "rug": "mat", "carpet": "mat"}


class SynonymEncoder(FakeEncoder):
    """Knows that a feline is a cat: what dense retrieval adds over BM25."""

    def encode(self, texts: Any, batch_size: int = 32) -> NDArray[np.float32]:
        mapped = [" ".join(SYNONYMS.get(w, w) for w in t.lower().split()) for t in texts]
        return super().encode(mapped, batch_size)


@pytest.fixture
def encoder(monkeypatch: pytest.MonkeyPatch) -> SynonymEncoder:
    fake = SynonymEncoder()
    monkeypatch.setattr("deepcite.collections.index.dense.load_encoder", lambda path=None: fake)
    return fake


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pets.md").write_text("# Pets\n\nThe feline slept on the rug all afternoon.\n",
                                  encoding="utf-8")
    (docs / "money.md").write_text("# Money\n\nQuarterly revenue grew by four percent.\n",
                                   encoding="utf-8")
    return docs


def test_dense_collection_finds_paraphrases_bm25_misses(make_settings: Any, folder: Path,
                                                        encoder: SynonymEncoder) -> None:
    settings = make_settings()
    plain = Collection.create("plain", settings=settings)
    plain.add(folder)
    assert plain.search("cat on a mat", k=3) == []
    dense = Collection.create("dense", settings=settings)
    report = dense.add(folder, dense=True)
    assert report.embedded == 2
    hits = dense.search("cat on a mat", k=3)
    assert hits and hits[0].metadata["path"].endswith("pets.md")


def test_dense_collections_stay_dense_and_embed_incrementally(
        make_settings: Any, folder: Path, encoder: SynonymEncoder) -> None:
    collection = Collection.create("notes", settings=make_settings())
    assert collection.add(folder, dense=True).embedded == 2
    (folder / "more.md").write_text("A kitty on the carpet.\n", encoding="utf-8")
    again = collection.add(folder)  # no flag: the collection is dense already
    assert again.embedded == 1
    assert collection.add(folder, reembed=True).embedded == 3


def test_dense_setting_turns_it_on(make_settings: Any, folder: Path,
                                   encoder: SynonymEncoder) -> None:
    collection = Collection.create("s", settings=make_settings(**{"search.dense": True}))
    assert collection.add(folder).embedded == 2
