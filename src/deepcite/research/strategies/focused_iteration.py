"""Many short search iterations aimed at one precise answer (fact questions).

A fact question ("Which flag makes argparse accept a variable number of values?") is
answered by one good passage, not by a broad survey. So each iteration shows the model
only the few best passages found so far and asks for sharper queries; the loop stops as
soon as an iteration finds nothing new (saturation), which keeps easy questions cheap.
The answer is one or two sentences citing the registry, followed by the quoted evidence
so the reader can check the fact at a glance.
"""

from __future__ import annotations

from deepcite.citations.handlers.base import NO_SOURCES_ANSWER
from deepcite.citations.handlers.standard import (
    build_prompt,
    evidence_answer,
    evidence_list,
    finalise_reply,
)
from deepcite.llm import parse_list
from deepcite.research.context import RunContext, StrategyOutcome
from deepcite.research.questions import QUERY_LIST_TOKENS, filter_queries
from deepcite.research.ranking import fuse, passage_key
from deepcite.research.steps import CANCELLED_INTRO, register_sources, search_iteration
from deepcite.security.fencing import UNTRUSTED_NOTICE, fence
from deepcite.types import (
    Finding,
    PhaseStarted,
    SearchResult,
)

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


class FocusedIterationStrategy:
    """Short, saturating search iterations, then a short cited answer plus evidence."""

    name = "focused-iteration"
    description = "Many short searches aimed at one precise fact; short answer plus evidence."

    iterations = FOCUSED_ITERATIONS
    queries_per_iteration = QUERIES

    def __init__(self, context: RunContext) -> None:
        self._ctx = context

    def run(self, question: str) -> StrategyOutcome:
        ctx = self._ctx
        by_iteration: dict[int, list[str]] = {}
        result_lists: list[list[SearchResult]] = []
        seen: set[tuple[str, str]] = set()
        asked: list[str] = []
        findings: list[Finding] = []
        for iteration in range(1, self.iterations + 1):
            if ctx.cancel.cancelled:
                break
            ctx.emit(PhaseStarted(phase="questions", iteration=iteration))
            queries = self._queries(question, iteration, result_lists, asked)
            if not queries:
                findings.append(Finding(phase=f"iteration {iteration}", question=question,
                                        content="No new queries; stopped."))
                break
            by_iteration[iteration] = queries
            asked.extend(queries)
            new = 0
            for found in search_iteration(ctx, iteration, queries):
                result_lists.append(found)
                for result in found:
                    key = passage_key(result)
                    if key not in seen:
                        seen.add(key)
                        new += 1
            findings.append(Finding(phase=f"iteration {iteration}", question=question,
                                    content="\n".join(queries) + f"\n({new} new passages)"))
            if new == 0:
                break  # saturated: sharper queries keep finding the same passages

        sources = register_sources(ctx, fuse(result_lists, ctx.settings.research.max_sources))
        if ctx.cancel.cancelled:
            answer = evidence_answer(question, sources, intro=CANCELLED_INTRO)
            return StrategyOutcome(answer, sources, by_iteration, findings, cancelled=True)
        if not sources:  # the gate: never ask a model to cite sources it was not given
            return StrategyOutcome(NO_SOURCES_ANSWER, sources, by_iteration, findings)

        ctx.emit(PhaseStarted(phase="synthesis"))
        user = build_prompt(question, sources, ctx.client.prompt_budget_chars)
        reply = ctx.client.complete("focused_answer", ANSWER_SYSTEM, user,
                                    max_tokens=ANSWER_TOKENS)
        cited = finalise_reply(question, reply, sources)
        passages = ""
        if cited.fallback:
            ctx.warn("synthesis_fallback",
                     f"Model reply not usable ({cited.fallback}); answered with quoted passages")
        elif "uncited" in cited.notes:
            ctx.warn("uncited_answer", "The model cited no source; passages were appended")
        else:
            # Fallback and uncited answers already end in the quoted passages. The
            # evidence follows the answer only after verification, so that it cannot
            # pass for the support of an answer whose own citations were removed.
            passages = f"Evidence:\n\n{evidence_list(question, sources)}"
        if cited.removed_markers:
            ctx.warn("invalid_citations",
                     f"Removed {cited.removed_markers} citation(s) to sources that do not exist")
        findings.append(Finding(phase="synthesis", question=question, content=cited.text))
        return StrategyOutcome(cited.text, sources, by_iteration, findings, passages=passages)

    def _queries(self, question: str, iteration: int,
                 result_lists: list[list[SearchResult]], asked: list[str]) -> list[str]:
        """Up to ``queries_per_iteration`` new queries; the question itself when the
        model's reply is unusable and the question was not searched yet."""
        ctx = self._ctx
        cfg = ctx.settings.research
        limit = self.queries_per_iteration
        verbatim = (iteration == 1 and cfg.search_original_query
                    and len(question) <= cfg.max_query_chars)
        first = [question] if verbatim else []
        reply = ctx.client.complete("focused_queries", QUERY_SYSTEM,
                                    self._query_prompt(question, result_lists, asked, limit),
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

    def _query_prompt(self, question: str, result_lists: list[list[SearchResult]],
                      asked: list[str], count: int) -> str:
        """The question, the best few passages so far (fenced) and the queries asked."""
        budget = self._ctx.client.prompt_budget_chars - 600
        blocks: list[str] = []
        used = 0
        for result in fuse(result_lists, KNOWN_RESULTS):
            block = fence(" ".join(result.snippet.split())[:SNIPPET_CHARS], title=result.title)
            if used + len(block) > budget:
                break
            blocks.append(block)
            used += len(block)
        parts = [f"Question: {question}"]
        if asked:
            parts.append("Queries already searched:\n" + "\n".join(f"- {q}" for q in asked))
        if blocks:
            parts.append("What we know so far:\n\n" + "\n\n".join(blocks))
        parts.append(f"Write {count} short search queries that would find the exact answer.")
        return "\n\n".join(parts)
