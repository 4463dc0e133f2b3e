"""What a grounded answer must not quote again, and how strictly.

A report part must not repeat what earlier parts said, and a follow-up should answer
with something the earlier turn did not quote. The two differ in one thing: a
follow-up whose only answer is a sentence the earlier turn already quoted gets it
again rather than "not found", while a report part never repeats itself. Both the
text and that softness travel together from the brief to the sentence filter, so they
are one value rather than two parameters threaded through every step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar


class _Quoted(Protocol):
    @property
    def text(self) -> str: ...


_S = TypeVar("_S", bound=_Quoted)


@dataclass(frozen=True)
class Avoid:
    """Text already said (whitespace collapsed) and whether it may be said again when
    nothing else answers (``softly``: a follow-up)."""

    text: str = ""
    softly: bool = False

    @classmethod
    def said(cls, text: str, *, softly: bool = False) -> Avoid:
        """``text`` as written (Markdown, any whitespace) to avoid quoting again."""
        return cls(" ".join(text.split()), softly)

    def __bool__(self) -> bool:
        return bool(self.text)

    def fresh(self, ranked: Sequence[_S]) -> list[_S]:
        """``ranked`` without the sentences already said, in order.

        A sentence is written with its citation before the full stop, so it is compared
        without its closing punctuation. Softly, everything comes back when nothing new
        is left."""
        if not self.text:
            return list(ranked)
        new = [s for s in ranked if s.text.rstrip(".!?。！？ ") not in self.text]
        return new or list(ranked) if self.softly else new


NOTHING = Avoid()
"""Nothing to avoid: a first answer."""
