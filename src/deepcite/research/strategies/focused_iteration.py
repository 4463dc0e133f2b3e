"""Many short search iterations aimed at one precise answer (fact questions).

A fact question ("Which flag makes argparse accept a variable number of values?") is
answered by one good passage, not by a broad survey. So each iteration shows the model
only the few best passages found so far and asks for sharper queries; the loop stops as
soon as an iteration finds nothing new (saturation), which keeps easy questions cheap.
The answer is one or two sentences citing the source numbering, followed by the quoted evidence
so the reader can check the fact at a glance. The long-form variant
(:mod:`~deepcite.research.strategies.focused_standard`) runs the same loop and changes
only the answer, through :attr:`FocusedIterationStrategy.answer_style` and
:attr:`FocusedIterationStrategy.evidence`.
"""

from __future__ import annotations

from typing import ClassVar

from deepcite.citations.handlers import AnswerStyle
from deepcite.llm import parse_list
from deepcite.research.context import RunContext, StrategyOutcome
from deepcite.research.questions import QUERY_LIST_TOKENS, filter_queries
from deepcite.research.ranking import fuse, passage_key
from deepcite.research.search_loop import SearchLoop
from deepcite.research.steps import select_sources
from deepcite.research.strategies.base import SearchLoopStrategy
from deepcite.security.fencing import UNTRUSTED_NOTICE, fence
from deepcite.types import Finding, SearchResult

FOCUSED_ITERATIONS = 8
QUERIES = 5
KNOWN_RESULTS = 5  # "what we know so far": enough to aim, short enough for small models
SNIPPET_CHARS = 300
MAX_QUERY_WORDS = 12  # a focused query is short; longer "queries" are the model rambling
_CODE_CHARS = frozenset("(){}=;<>`")
ANSWER_TOKENS = 120  # one or two sentences; more would be a survey, not a fact

QUERY_SYSTEM = (
    "You search for one precise fact. Given the question and what was found so far, "
    "write short search queries that would find the exact answer. Reply with one query "
    "per line and nothing else. " + UNTRUSTED_NOTICE
)
ANSWER_SYSTEM = (
    "You answer fact questions. Using only the numbered sources, answer in one or two "
    "short sentences. End every sentence with the numbers of the sources it comes from "
    "in square brackets, like [1]. Do not cite numbers that are not listed. If the "
    "sources do not answer the question, say so. " + UNTRUSTED_NOTICE
)
#: The standard handler's answer, shaped for a fact: one or two sentences.
ANSWER_STYLE = AnswerStyle(purpose="focused_answer", system=ANSWER_SYSTEM,
                           max_tokens=ANSWER_TOKENS)


class FocusedSearch(SearchLoop):
    """Focused iteration's search: up to ``per_iteration`` sharp queries an iteration,
    aimed by the best passages so far, until an iteration finds nothing new."""

    def __init__(self, context: RunContext, iterations: int, per_iteration: int) -> None:
        super().__init__(context, iterations)
        self._per_iteration = per_iteration
        self._seen: set[tuple[str, str]] = set()
        #: One finding per iteration: its queries and how many new passages they found.
        self.findings: list[Finding] = []

    def nothing_to_ask(self, question: str, iteration: int) -> bool:
        """No new query: the search is done."""
        self.findings.append(Finding(phase=f"iteration {iteration}", question=question,
                                     content="No new queries; stopped."))
        return False

    def take(self, question: str, iteration: int, queries: list[str],
             lists: list[list[SearchResult]]) -> bool:
        """Keep everything; go on only while an iteration finds new passages."""
        new = 0
        for found in lists:
            self.result_lists.append(found)
            for result in found:
                key = passage_key(result)
                if key not in self._seen:
                    self._seen.add(key)
                    new += 1
        self.findings.append(Finding(phase=f"iteration {iteration}", question=question,
                                     content="\n".join(queries) + f"\n({new} new passages)"))
        return new > 0  # saturated: sharper queries keep finding the same passages

    def queries(self, question: str, iteration: int) -> list[str]:
        """Up to ``per_iteration`` new queries; the question itself when the
        model's reply is unusable and the question was not searched yet."""
        ctx = self._ctx
        cfg = ctx.settings.research
        asked = self.asked
        limit = self._per_iteration
        verbatim = (iteration == 1 and cfg.search_original_query
                    and len(question) <= cfg.max_query_chars)
        first = [question] if verbatim else []
        if not ctx.budget_left(model_calls=2):  # one call is kept for the answer
            return (first or [question[: cfg.max_query_chars]]) if iteration == 1 else []
        reply = ctx.client.complete("focused_queries", QUERY_SYSTEM,
                                    self._query_prompt(question, limit),
                                    max_tokens=QUERY_LIST_TOKENS)
        # Small models answer with code lines or prose; neither is a search query.
        parsed = [q for q in parse_list(reply, limit=limit * 3)
                  if len(q.split()) <= MAX_QUERY_WORDS and not _CODE_CHARS & set(q)]
        generated = filter_queries(parsed, question, asked, limit - len(first))
        if generated:
            return first + generated
        if parsed and iteration > 1:
            return []  # the model only repeated earlier queries: nothing new to ask
        fallback = [q for q in first or [question[: cfg.max_query_chars]] if q not in asked]
        ctx.warn("questions_unusable",
                 f"Could not use the model's queries in iteration {iteration}; "
                 + ("searching the question only" if fallback else "stopping the search"))
        return fallback

    def _query_prompt(self, question: str, count: int) -> str:
        """The question, the best few passages so far (fenced) and the queries asked."""
        budget = self._ctx.client.prompt_budget_chars - 600
        blocks: list[str] = []
        used = 0
        for result in fuse(self.result_lists, KNOWN_RESULTS):
            block = fence(" ".join(result.snippet.split())[:SNIPPET_CHARS], title=result.title)
            if used + len(block) > budget:
                break
            blocks.append(block)
            used += len(block)
        parts = [f"Question: {question}"]
        if self.asked:
            parts.append("Queries already searched:\n" + "\n".join(f"- {q}" for q in self.asked))
        if blocks:
            parts.append("What we know so far:\n\n" + "\n\n".join(blocks))
        parts.append(f"Write {count} short search queries that would find the exact answer.")
        return "\n\n".join(parts)


class FocusedIterationStrategy(SearchLoopStrategy[FocusedSearch]):
    """Short, saturating search iterations, then a short cited answer plus evidence.

    The answer is the configured handler's: with ``standard`` one or two cited
    sentences, with ``precision`` the confirmed short fact, with ``forced`` a definite
    (labelled) guess. Each is followed by the quoted evidence once it is verified.
    """

    name = "focused-iteration"
    description = "Many short searches aimed at one precise fact; short answer plus evidence."

    iterations = FOCUSED_ITERATIONS
    queries_per_iteration = QUERIES
    #: The standard handler's answer shape; ``None`` is its own full cited answer.
    answer_style: ClassVar[AnswerStyle | None] = ANSWER_STYLE
    #: Whether the quoted evidence follows the answer (worth it under a short one).
    evidence: ClassVar[bool] = True

    def _search_loop(self) -> FocusedSearch:
        return FocusedSearch(self._ctx, self.iterations, self.queries_per_iteration)

    def run(self, question: str) -> StrategyOutcome:
        self._search.run(question)
        sources = select_sources(self._ctx, question, self._search.result_lists)
        return self._step.answer(question, sources, self.by_iteration, self._search.findings,
                                 style=self.answer_style, evidence=self.evidence)
