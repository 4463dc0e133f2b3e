"""The text of a grounded answer: the chosen sentences as quoted, each followed by the
``[n]`` of the source it was copied from, after the short answer or the model's lead.

Kept apart because this is where source text meets our Markdown: every quoted sentence
is cleaned for display, kept on one line and escaped (:func:`shown`) so a page's markup,
brackets or HTML cannot pose as structure or a citation, and a how-to answer's code
example is fenced (:func:`fenced`) so it is shown as written. Each citation is true by
construction: verification finds each sentence verbatim in the source it cites.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepcite.citations.candidates import Sentence
from deepcite.citations.display import clean_quote
from deepcite.citations.text import escape_quoted
from deepcite.security.terminal import one_line


def assemble(chosen: Sequence[Sentence], *, lead: str | None = None,
             short: tuple[str, Sequence[int]] | None = None, example: bool = False
             ) -> tuple[str, bool]:
    """The answer's text, and whether it shows a code example.

    ``short`` (the short answer and the sources citing it) comes first, in bold; then
    ``lead`` (already cited) and the ``chosen`` sentences, each cited. With ``example``
    (a how-to question) the first example a chosen sentence comes with is shown right
    after that sentence: the sentence's citation vouches for it. A sentence without an
    example shows the call signature it describes instead (``listdir(path=None)``
    above "Return a list containing the names of the files in the directory."): the
    reader learns which function does it, which the sentence itself does not name.
    """
    parts: list[str] = []
    if short is not None:
        answer, numbers = short
        parts.append(f"**{shown(answer)}** " + "".join(f"[{n}]" for n in numbers))
    body = [cite(shown(s.text), s.source.number) for s in chosen]
    shows = next((i for i, s in enumerate(chosen) if s.example or s.signature),
                 None) if example else None
    if shows is None:
        parts.append(" ".join(([lead] if lead else []) + body))
    else:
        parts.append(" ".join(([lead] if lead else []) + body[:shows + 1]))
        parts.append(fenced(chosen[shows].example or chosen[shows].signature))
        parts += [" ".join(body[shows + 1:])] if body[shows + 1:] else []
    return "\n\n".join(parts), shows is not None


def cite(sentence: str, number: int) -> str:
    """``sentence`` with ``[number]`` before its final punctuation (``x [2].``)."""
    body = sentence.rstrip()
    end = len(body)
    while end and body[end - 1] in ".!?;:\u3002\uff01\uff1f\uff1b\uff1a":
        end -= 1
    return f"{body[:end].rstrip()} [{number}]{body[end:] or '.'}"


def shown(text: str) -> str:
    """Source text readable and safe inside our Markdown: its markup (reST roles, table
    pipes, entities) cleaned for display (:func:`~deepcite.citations.display.clean_quote`;
    verification maps it back), one line, brackets and HTML escaped."""
    return escape_quoted(one_line(clean_quote(text)))


def fenced(code: str) -> str:
    """``code`` as a Markdown code block: shown as written, never read as Markdown, HTML
    or a citation (:func:`~deepcite.citations.markers.prose_only` blanks code blocks),
    with a fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{code}\n{fence}"


__all__ = ["assemble", "cite", "fenced", "shown"]
