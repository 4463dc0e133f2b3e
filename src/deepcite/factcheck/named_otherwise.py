"""The search three rules share: a thing the claim names (a rename, an install line, a
kind of order) that a sentence names otherwise.

Where any sentence names the claim's own (the same rename, the same package, the same
order) the claim is left to the other rules, wherever that sentence stands; else the
first sentence naming the same thing otherwise is the one that contradicts it. One
loop, so the three rules cannot drift apart in what "anywhere" and "first" mean.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from deepcite.factcheck.passages import Pool

__all__ = ["first_named_otherwise"]

Mine = TypeVar("Mine")
Theirs = TypeVar("Theirs")


def first_named_otherwise(
        pool: Pool, mine: Sequence[Mine], found_in: Callable[[str], Iterable[Theirs]],
        same_thing: Callable[[Mine, Theirs], bool], same_name: Callable[[Mine, Theirs], bool],
        related: Callable[[Mine, Theirs], bool] = lambda _mine, _theirs: True,
) -> tuple[Mine, Theirs, int] | None:
    """The claim's item, the sentence's item naming the same thing otherwise and the
    sentence's index in ``pool``, for the first such sentence; None where none does or
    any sentence names the thing as the claim does. ``related`` narrows which other
    names count (a package of a related name, not any)."""
    other: tuple[Mine, Theirs, int] | None = None
    for index, sentence in enumerate(pool.sentences):
        for theirs in found_in(sentence.text):
            for item in mine:
                if not same_thing(item, theirs):
                    continue
                if same_name(item, theirs):
                    return None
                if other is None and related(item, theirs):
                    other = (item, theirs, index)
    return other
