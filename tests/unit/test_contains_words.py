"""Whole-word containment (``text.words.contains_words``), the one test grounded answers,
answer types and the precision handler share: a figure or name counts only where it
stands as words, so "3.2" is not found in "3.25" and "cache" not in "caches"."""

from __future__ import annotations

import pytest

from deepcite.text.words import contains_words


@pytest.mark.parametrize(("text", "phrase", "found"), [
    ("The Heron  cache keeps entries.", "heron cache", True),  # case and spaces
    ("Heron caches are fast.", "heron cache", False),          # not part of a word
    ("Added in Python 3.25.", "3.2", False),
    ("Added in Python 3.2.", "3.2", True),
    ("斑马缓存的条目保留三百秒。", "三百秒", True),                  # CJK: no spaces, substring
    ("斑马缓存的条目保留三百秒。", "三十秒", False),
    ("Anything at all.", "  ", False),                          # an empty phrase is nowhere
])
def test_whole_words_only_and_cjk_at_any_character(text: str, phrase: str,
                                                   found: bool) -> None:
    assert contains_words(text, phrase) is found
