"""What of an answer is stored: the body, never a Sources block; and its search text.

``ResearchResult.answer`` should hold no Sources block - it is rendered from the
structured sources on output - but a model's reply sometimes ends (or, in a long
report, is interrupted) with its own "## References" list. Stored as it is, that list
would be printed above the real Sources block on every ``deepcite show``, with numbers
the real block may contradict.

What counts as a Sources block is what :func:`deepcite.citations.render.answer_body`
says (a Markdown heading "Sources", "References", "Bibliography" or "Citations",
outside code), so the store, the renderer and the hyperlinker agree on it. Unlike the
renderer, the store removes only that section - up to the next heading of the same or
a higher level - and keeps any report text after it.
"""

from __future__ import annotations

import re

from deepcite.citations.markers import prose_only
from deepcite.citations.render import answer_body

_HEADING = re.compile(r"^[ ]{0,3}(#{1,6})[ \t]", re.MULTILINE)


def stored_body(answer: str) -> str:
    """``answer`` without any Sources section; unchanged when it has none."""
    body, section = answer_body(answer)
    if not section:
        return answer
    kept = [body]
    while section:
        rest = section[_section_end(section):]
        body, section = answer_body(rest)
        kept.append(body)
    return "".join(kept).rstrip()


def _section_end(section: str) -> int:
    """Where the section opened by the heading at ``section[0]`` ends."""
    code_free = prose_only(section)
    opening = _HEADING.match(code_free)
    level = len(opening.group(1)) if opening else 1
    for match in _HEADING.finditer(code_free, 1):
        if len(match.group(1)) <= level:
            return match.start()
    return len(section)


def search_text(question: str, title: str | None, body: str | None) -> str:
    """The text ``HistoryStore.list(search=...)`` matches: case-folded, so ``ß`` finds
    ``SS`` and ``Ä`` finds ``ä`` on every backend (SQLite's ``LIKE`` and ``lower()``
    fold ASCII only). Revision 0002 fills old rows with a frozen copy of this rule."""
    return "\n".join(part for part in (question, title, body) if part).casefold()
