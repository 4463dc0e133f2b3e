"""Each source's fair share of a prompt: a floor, a ceiling, and water-filling between.

An equal split (budget / n) fails both ways: with a large model one long page takes
tens of thousands of characters that every other source then lacks, and with many
sources pinned each gets too little to be worth citing. So every source gets at least
``floor`` characters and at most ``ceiling`` (4,000 by default, the cap the reference
systems use: about 1,000 tokens, enough for the passages a citation needs), and what
short sources leave unused goes to the longer ones, level by level, until the budget
is spent (water-filling).

When even the floors do not fit, the last sources (callers pass them best first) are
left out entirely rather than sending a prompt larger than the model's context. What is
cut is never silent: a cut text ends in ``[truncated]`` and :func:`cut_note` is the line
a prompt carries to say how many sources and characters did not fit.

Texts are weighed by what they cost of a budget counted in characters
(:func:`~deepcite.materials.tokens.budget_size`): a Chinese character is about a token,
four English characters are, so CJK text gets fewer characters for the same share. The
module needs only that function of deepcite, so any prompt (answers, topics) can share
it without an import cycle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deepcite.materials.tokens import budget_size

#: Characters every shown source gets, however many sources share the budget.
FLOOR_CHARS = 200
#: Characters no single source exceeds, however large the budget.
CEILING_CHARS = 4000
TRUNCATED = "[truncated]"
_MARK = " " + TRUNCATED


@dataclass(frozen=True)
class Share:
    """The texts as given to the model, and what was cut from them.

    ``texts`` holds one entry per source that fits, in the order given; sources past
    ``len(texts)`` were left out. ``cut`` counts texts shortened, ``chars_left_out`` the
    characters of the originals that the model does not see (left-out sources included).
    """

    texts: tuple[str, ...]
    cut: int
    left_out: int
    chars_left_out: int

    @property
    def complete(self) -> bool:
        """Whether the model sees every source whole."""
        return self.cut == 0 and self.left_out == 0


def fair_limits(lengths: Sequence[int], budget: int, *, floor: int = FLOOR_CHARS,
                ceiling: int | None = CEILING_CHARS,
                overheads: Sequence[int] | None = None) -> list[int]:
    """Characters each source may have: water-filled between ``floor`` and ``ceiling``.

    ``overheads`` are the characters each source costs besides its text (its fence and
    title); they come out of ``budget`` too. The result is shorter than ``lengths``
    when not every source fits at its floor (the first source is always kept); the
    limits never add up to more than ``budget`` unless the first floor alone does not fit.
    """
    extra = list(overheads) if overheads is not None else [0] * len(lengths)
    needs = [max(0, n if ceiling is None else min(n, ceiling)) for n in lengths]
    kept = len(needs)
    while kept > 1 and sum(extra[i] + min(needs[i], floor) for i in range(kept)) > budget:
        kept -= 1
    needs = needs[:kept]
    remaining = budget - sum(extra[:kept])
    limits = [0] * kept
    for done, index in enumerate(sorted(range(kept), key=lambda i: needs[i])):
        level = max(remaining // (kept - done), min(needs[index], floor))
        limits[index] = min(needs[index], level)
        remaining -= limits[index]
    return limits


def cut_text(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, ``[truncated]`` included, at a word end when
    one is in the second half (text without spaces, like Chinese, is cut where it is)."""
    if len(text) <= limit:
        return text
    room = max(0, limit - len(_MARK))
    cut = text[:room]
    space = cut.rfind(" ")
    return (cut[:space] if space > room // 2 else cut).rstrip() + _MARK


def share_texts(texts: Sequence[str], budget: int, *, floor: int = FLOOR_CHARS,
                ceiling: int | None = CEILING_CHARS,
                overheads: Sequence[int] | None = None) -> Share:
    """``texts`` cut to their fair limits (:func:`fair_limits`), each text weighed by
    what it costs of the budget (:func:`~deepcite.materials.tokens.budget_size`: CJK
    text costs about three characters per character, as each is about a token)."""
    costs = [budget_size(t) for t in texts]
    limits = fair_limits(costs, budget, floor=floor, ceiling=ceiling, overheads=overheads)
    shown = tuple(cut_text(text, limit if cost <= len(text) else limit * len(text) // cost)
                  for text, limit, cost in zip(texts, limits, costs, strict=False))
    cut = sum(1 for text, kept in zip(texts, shown, strict=False) if kept != text)
    lost = sum(len(text) - len(kept.removesuffix(_MARK)) if kept != text else 0
               for text, kept in zip(texts, shown, strict=False))
    lost += sum(len(text) for text in texts[len(shown):])
    return Share(texts=shown, cut=cut, left_out=len(texts) - len(shown), chars_left_out=lost)


def cut_note(share: Share, total: int) -> str:
    """The prompt line saying what did not fit (empty when everything did), so the model
    knows the passages it sees are partial and does not take silence for absence."""
    if share.complete:
        return ""
    said = []
    if share.cut:
        said.append(f"{share.cut} of {total} sources were cut to fit (marked {TRUNCATED})")
    if share.left_out:
        said.append(f"{share.left_out} of {total} sources did not fit and are not shown")
    return (f"Note: {'; '.join(said)}; {share.chars_left_out:,} characters of source "
            "text were left out.")
