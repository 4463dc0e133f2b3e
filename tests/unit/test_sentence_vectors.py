"""The sentence vector store: a sentence seen before is not encoded again, in this process
or the next, and a broken store file never fails a question."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from deepcite.citations.sentence_meaning import dense_similarity
from deepcite.citations.sentence_vectors import FILE_NAME, SentenceVectors, store_for


class CountingEncoder:
    """An encoder that records what it was asked to encode (a vector per text: its length
    and its first letter's code, so two texts' vectors differ)."""

    def __init__(self, scale: float = 1.0) -> None:
        self.encoded: list[str] = []
        self.scale = scale

    def __call__(self, texts: list[str]) -> NDArray[np.float32]:
        self.encoded.extend(texts)
        return np.array([[len(t) * self.scale, ord(t[0])] for t in texts], dtype=np.float32)


def test_a_sentence_seen_before_is_not_encoded_again(tmp_path: Path) -> None:
    store, encode = SentenceVectors(tmp_path / FILE_NAME), CountingEncoder()
    first = store.vectors("enc", ["alpha.", "beta!"], encode)
    again = store.vectors("enc", ["beta!", "gamma", "alpha."], encode)
    assert encode.encoded == ["alpha.", "beta!", "gamma"]  # only the new one the second time
    assert again.tolist() == [first[1].tolist(), [5, ord("g")], first[0].tolist()]


def test_the_vectors_outlive_the_process(tmp_path: Path) -> None:
    SentenceVectors(tmp_path / FILE_NAME).vectors("enc", ["alpha.", "beta!"], CountingEncoder())
    encode = CountingEncoder()
    later = SentenceVectors(tmp_path / FILE_NAME).vectors("enc", ["beta!", "alpha."], encode)
    assert encode.encoded == []
    assert later.tolist() == [[5, ord("b")], [6, ord("a")]]


def test_two_encoders_never_share_a_vector(tmp_path: Path) -> None:
    store = SentenceVectors(tmp_path / FILE_NAME)
    small, large = CountingEncoder(), CountingEncoder(scale=10)
    store.vectors("e5 query", ["alpha."], small)
    other = store.vectors("e5 passage", ["alpha."], large)
    assert large.encoded == ["alpha."] and other.tolist() == [[60, ord("a")]]
    # ... and the file keeps them apart too
    reopened = SentenceVectors(tmp_path / FILE_NAME)
    assert reopened.vectors("e5 query", ["alpha."], CountingEncoder()).tolist() == [[6, 97]]


def test_the_least_recently_used_are_dropped_past_the_limits(tmp_path: Path) -> None:
    store = SentenceVectors(tmp_path / FILE_NAME, memory_rows=2, disk_rows=3)
    for text in ["a1", "b2", "c3", "d4"]:
        store.vectors("enc", [text], CountingEncoder())
    assert len(store) == 2  # memory: the last two
    encode = CountingEncoder()
    SentenceVectors(tmp_path / FILE_NAME).vectors("enc", ["a1", "b2", "c3", "d4"], encode)
    assert encode.encoded == ["a1"]  # disk: the last three


def test_a_vector_used_again_is_kept_over_one_unused(tmp_path: Path) -> None:
    earlier = SentenceVectors(tmp_path / FILE_NAME, disk_rows=2)
    for text in ["a1", "b2"]:  # a1 the older
        earlier.vectors("enc", [text], CountingEncoder())
    store = SentenceVectors(tmp_path / FILE_NAME, disk_rows=2)
    store.vectors("enc", ["a1"], CountingEncoder())  # read from disk: used now
    store.vectors("enc", ["c3"], CountingEncoder())  # one too many: b2 goes
    encode = CountingEncoder()
    SentenceVectors(tmp_path / FILE_NAME).vectors("enc", ["a1", "b2", "c3"], encode)
    assert encode.encoded == ["b2"]


@pytest.mark.parametrize("breakage", ["corrupt", "unwritable"])
def test_a_broken_file_warns_once_and_the_store_works_in_memory(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, breakage: str) -> None:
    if breakage == "corrupt":
        path = tmp_path / FILE_NAME
        path.write_bytes(b"this is not a SQLite database, it was cut short" * 50)
    else:
        (tmp_path / "a-file").write_text("not a folder")
        path = tmp_path / "a-file" / FILE_NAME
    store, encode = SentenceVectors(path), CountingEncoder()
    with caplog.at_level(logging.WARNING, logger="deepcite.citations.sentence_vectors"):
        first = store.vectors("enc", ["alpha."], encode)
        second = store.vectors("enc", ["alpha.", "beta!"], encode)
    assert first.tolist() == [[6, 97]] and second.tolist() == [[6, 97], [5, 98]]
    assert encode.encoded == ["alpha.", "beta!"]  # kept in memory all the same
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and str(path) in warnings[0].getMessage()
    assert store.path is None


def test_the_data_dir_has_one_store_per_process(tmp_path: Path) -> None:
    assert store_for(tmp_path) is store_for(tmp_path / "." )
    assert store_for(tmp_path).path == tmp_path.resolve() / FILE_NAME
    assert store_for(tmp_path) is not store_for(tmp_path / "other")


def test_scores_from_stored_vectors_are_the_encoders_own(tmp_path: Path) -> None:
    """An answer does not change with what the store held: the cosines from stored
    vectors are exactly those of a fresh encoding (the real e5 encoder)."""
    question = "How long does the zebra cache keep an entry?"
    sentences: Sequence[str] = ["The zebra cache keeps every entry for 300 seconds.",
                                "The zebra cache is written in Rust."]
    fresh = dense_similarity(question, sentences)
    store = SentenceVectors(tmp_path / FILE_NAME)
    assert dense_similarity(question, sentences, store=store) == fresh
    assert dense_similarity(question, sentences,
                            store=SentenceVectors(tmp_path / FILE_NAME)) == fresh
