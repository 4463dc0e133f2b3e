"""Claims worded otherwise than their source: matched by closeness in meaning when a
sentence encoder is there, by words alone when it is not."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from deepcite.citations import sentence_meaning
from deepcite.config import load_settings
from deepcite.factcheck import meaning as meaning_module
from deepcite.factcheck.judge import judge
from deepcite.factcheck.meaning import EncoderMeaning, load_meaning
from tests.fakes import passage

SOURCES = [
    passage("Waste", "General waste in Ostby is collected every two weeks. Food waste is "
            "collected every week in the small caddy. Dogs are not allowed in the "
            "recycling yard. The basic permit costs 12 euros per year."),
    passage("Yard", "The Ostby recycling yard was opened in 1998 by the county council."),
]


class TableMeaning:
    """Closeness in meaning from a table: each sentence named in it is that close to
    every claim, the others far."""

    def __init__(self, close: dict[str, float]) -> None:
        self.close = close
        self.asked: list[str] = []

    def similarities(self, claim: str, sentences: Sequence[str]) -> list[float]:
        self.asked.append(claim)
        return [self.close.get(sentence, 0.1) for sentence in sentences]


def test_a_reworded_true_claim_is_supported_with_meaning_and_not_by_words_alone() -> None:
    claim = "Ostby picks up household rubbish every fortnight."
    close = TableMeaning({"General waste in Ostby is collected every two weeks.": 0.8})
    assert judge(claim, SOURCES).verdict != "supported"
    judgement = judge(claim, SOURCES, meaning=close)
    assert judgement.verdict == "supported"
    assert judgement.quotes[0].text == "General waste in Ostby is collected every two weeks."
    assert close.asked


def test_closeness_in_meaning_never_hides_a_changed_value_or_an_opposite() -> None:
    close = TableMeaning({"General waste in Ostby is collected every two weeks.": 0.9,
                          "Dogs are not allowed in the recycling yard.": 0.9,
                          "The Ostby recycling yard was opened in 1998 by the county "
                          "council.": 0.9})
    assert judge("Ostby collects general waste every three weeks.", SOURCES,
                 meaning=close).verdict == "contradicted"
    assert judge("Dogs are allowed in the recycling yard.", SOURCES,
                 meaning=close).verdict == "contradicted"
    opened = judge("The county council opened the Ostby recycling yard in 2001.", SOURCES,
                   meaning=close)
    assert opened.verdict == "contradicted"
    assert any(c.source == "1998" for c in opened.conflicts)


def test_a_denial_closest_in_words_counts_when_meaning_ranks_another_first() -> None:
    sources = [passage("Regatta", "The Ostby women's crew won the Harl Cup in 2019. The "
                       "Ostby men's crew has never won the Harl Cup.")]
    close = TableMeaning({"The Ostby women's crew won the Harl Cup in 2019.": 0.9,
                          "The Ostby men's crew has never won the Harl Cup.": 0.5})
    judgement = judge("The Ostby men's crew won the Harl Cup in 2021.", sources,
                      meaning=close)
    assert judgement.verdict == "contradicted"
    assert any("never won" in c.source for c in judgement.conflicts)


def test_a_claim_of_two_clauses_close_to_a_sentence_saying_one_is_partly_supported() -> None:
    close = TableMeaning({"The basic permit costs 12 euros per year.": 0.85})
    judgement = judge("The basic permit costs 12 euros per year and includes a free "
                      "compost bin delivered to your door.", SOURCES, meaning=close)
    assert judgement.verdict == "partly_supported"


def test_a_heading_close_in_meaning_does_not_state_a_claim() -> None:
    sources = [passage("Zorvex", "Zorvex Cache\n\nZorvex Cache keeps keys in memory.")]
    close = TableMeaning({"Zorvex Cache": 0.95})
    assert judge("Zorvex Cache shards keys across regions automatically.", sources,
                 meaning=close).verdict == "not_found"


class CountingEncoder:
    """Unit vectors from a text's length; counts what it was asked to encode."""

    model_id = "fake"
    fingerprint = "fake"
    dim = 2

    def __init__(self) -> None:
        self.encoded: list[str] = []

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> Any:
        self.encoded += texts
        vectors = np.array([[1.0, len(t) / 100] for t in texts], dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_each_sentence_is_encoded_once_per_check() -> None:
    encoder = CountingEncoder()
    meaning = EncoderMeaning(encoder)
    first = meaning.similarities("a claim", ["one sentence", "another sentence"])
    again = meaning.similarities("another claim", ["one sentence", "another sentence"])
    assert encoder.encoded == ["a claim", "one sentence", "another sentence", "another claim"]
    assert len(first) == len(again) == 2 and all(-1.0 <= v <= 1.0001 for v in first)


def test_without_the_embeddings_extra_the_check_matches_words(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    from deepcite.collections.index import embeddings

    monkeypatch.setattr(embeddings, "default_model_path", lambda: None)
    monkeypatch.setattr(sentence_meaning, "e5_available", lambda: False)
    settings = load_settings({"data_dir": str(tmp_path)}, config_files=[], environ={})
    assert load_meaning(settings) is None
    assert meaning_module.load_meaning is load_meaning


def test_a_sentence_found_by_meaning_alone_names_no_other_name() -> None:
    # closest in meaning, the sentence is on the topic; its "Linux" is not what the
    # claim's "Bluetooth" is, so nothing contradicts an uncovered claim
    sources = [passage("About", "quillsync copies notebooks between devices. quillsync "
                                "runs on Linux and macOS. It listens on port 7410.")]
    meaning = TableMeaning({"quillsync runs on Linux and macOS.": 0.7})
    judged = judge("quillsync can sync over Bluetooth.", sources, meaning=meaning)
    assert judged.verdict == "not_found"
    # found by its words, a different name still contradicts
    moved = judge("quillsync runs on FreeBSD.", sources, meaning=meaning)
    assert moved.verdict == "contradicted"
