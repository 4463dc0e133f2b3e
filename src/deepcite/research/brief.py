"""What a run builds on beyond its question: earlier answers, written parts, a budget.

A quick answer needs nothing but its question. The runs of a detailed report and of a
follow-up do: a report section must not repeat the sections written before it and
shares the report's budget; a follow-up builds on an earlier answer whose citations
must stay valid. The :class:`RunBrief` carries those to the one place that uses each -
the citation step (prompt context, style, sentences to avoid), the run context
(budget) and the Researcher (iterations) - so that no strategy needs to know about
reports or follow-ups.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from deepcite.citations.avoid import NOTHING, Avoid
from deepcite.citations.handlers import AnswerStyle
from deepcite.research.run_budget import Budget
from deepcite.types import RunNotice, SearchResult, Source

WRITTEN_OPEN = "=== CONTENT ALREADY WRITTEN (DO NOT REPEAT) ==="
WRITTEN_CLOSE = "=== END OF CONTENT ALREADY WRITTEN ==="


@dataclass(frozen=True)
class Gathered:
    """What a run's search found before the run was asked to answer: a report part
    researched ahead, while earlier parts were still being written
    (:meth:`~deepcite.research.Researcher.gather`). Nothing in it is numbered yet, so
    the part's own run numbers its sources in the report's order."""

    result_lists: tuple[tuple[SearchResult, ...], ...]
    by_iteration: dict[int, list[str]] = field(default_factory=dict)
    warnings: tuple[RunNotice, ...] = ()
    searches: int = 0
    search_seconds: float = 0.0
    #: Whether its queries were announced as it searched (a report's first search);
    #: else the run adopting it announces them when it begins (a part's searched ahead).
    announced: bool = False


@dataclass(frozen=True)
class RunBrief:
    """Context for one run; the default brief is a plain quick answer.

    ``prior_knowledge`` is an earlier answer with its citations (a follow-up's parent);
    the numbers it cites are those of ``prior_sources``, which stay valid citations and
    count as this run's sources for checking. ``written`` is what the report already
    says (shown to the writer fenced, not to be repeated) and ``avoid`` the whole text
    written so far: a grounded answer does not quote a sentence found in it again.
    ``style`` is how the answer is written when the strategy has no style of its own;
    ``iterations`` overrides ``research.iterations`` for this run. ``evidence`` and
    ``search_queries`` let a run build on the user's materials and search only for what
    they leave open.

    ``budget`` is the budget the run spends (a detailed report's, shared by all its
    runs); ``None`` gives the run a budget of its own. The brief is frozen, but the
    :class:`~deepcite.research.run_budget.Budget` it refers to is not: the runs count their
    searches in it and read the client's usage through it.
    """

    prior_knowledge: str = ""
    prior_sources: tuple[Source, ...] = ()
    written: str = ""
    #: What the answer must not quote again (a follow-up's softly: see ``Avoid``).
    avoid: Avoid = NOTHING
    style: AnswerStyle | None = None
    iterations: int | None = None
    budget: Budget | None = None
    #: Passages the run starts with (the user's materials): registered first and always
    #: given to the answer, ahead of whatever the search finds.
    evidence: tuple[SearchResult, ...] = ()
    #: What to search instead of the question (a part's open gaps); ``()`` searches
    #: nothing - the answer is written from ``evidence`` alone.
    search_queries: tuple[str, ...] | None = None
    #: What this run's search already found (a report part researched ahead): the
    #: strategy answers from it instead of searching again.
    gathered: Gathered | None = None

    def handler_context(self, *, has_sources: bool) -> str:
        """The earlier knowledge the handler is given with the sources.

        The already-written parts go only with sources: without any, the handler's gate
        must answer "no sources" rather than let the model rewrite earlier sections.
        """
        parts = []
        if self.prior_knowledge.strip():
            parts.append(self.prior_knowledge.strip())
        if has_sources and self.written.strip():
            parts.append(f"{WRITTEN_OPEN}\n{self.written.strip()}\n{WRITTEN_CLOSE}")
        return "\n\n".join(parts)
