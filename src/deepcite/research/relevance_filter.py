"""An optional relevance filter: one model call keeps and ranks this run's results.

Search engines return near misses; a capable model can tell which passages actually
bear on the question. The filter sees only the candidates of the current run, labelled
with temporary ids (``C1``, ``C2`` ...), never with registry numbers, so it
cannot renumber or drop sources that earlier runs (earlier report sections) already
cited. A reply that names nothing usable keeps every candidate, with a warning: a
filter that fails must not empty the answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepcite.research.context import RunContext
from deepcite.security.fencing import UNTRUSTED_NOTICE, fence
from deepcite.types import SearchResult

SYSTEM = (
    "You judge search results. Reply with the ids of the results that help answer the "
    "question, most useful first, separated by commas, e.g. C3, C1. Leave out results "
    "that do not help. " + UNTRUSTED_NOTICE
)
SNIPPET_CHARS = 400
_ID = re.compile(r"\bC(\d{1,3})\b", re.IGNORECASE)


def filter_relevant(ctx: RunContext, question: str,
                    candidates: Sequence[SearchResult]) -> list[SearchResult]:
    """The relevant ``candidates``, best first; all of them when the reply is unusable."""
    blocks = [fence(" ".join(c.snippet.split())[:SNIPPET_CHARS], title=f"C{i} {c.title}")
              for i, c in enumerate(candidates, 1)]
    user = f"Question: {question}\n\n" + "\n\n".join(blocks) + "\n\nRelevant ids:"
    reply = ctx.client.complete("relevance", SYSTEM, user, max_tokens=60)
    chosen: list[int] = []
    for match in _ID.finditer(reply):
        index = int(match.group(1))
        if 1 <= index <= len(candidates) and index not in chosen:
            chosen.append(index)
    if not chosen:
        ctx.warn("relevance_unusable", "The relevance filter's reply named no result; "
                 "keeping all of them")
        return list(candidates)
    return [candidates[i - 1] for i in chosen]
