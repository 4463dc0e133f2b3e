"""Product manuals as sources, and the grounded answer's first line over them.

Shared by the Chinese product-page tests (``test_cjk_spec_pages``, ``test_cjk_synonyms``):
each page is titled by its first heading, as a Markdown material is, and every sentence
is equally close in meaning to the question, below what vouches for a paraphrase, so
words and value rules alone decide what leads.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.citations.grounded import grounded_answer
from deepcite.types import Source


def manual_page(number: int, text: str) -> Source:
    """A page titled by its first heading."""
    url = f"file:///manuals/{number}.md"
    title = text.splitlines()[0].lstrip("# ")
    return Source(number=number, title=title, url=url, canonical_url=url, snippet=text[:80],
                  engine="user_material", full_text=text)


def equally_close(question: str, texts: Sequence[str]) -> list[float]:
    """Every sentence equally close in meaning, below what vouches for a paraphrase."""
    return [0.6] * len(texts)


def lead_line(question: str, sources: Sequence[Source]) -> str:
    """The first line of the grounded answer (the bold short answer, or the lead)."""
    answer = grounded_answer(question, list(sources), similarity=equally_close)
    assert answer is not None, question
    return answer.text.split("\n")[0]
