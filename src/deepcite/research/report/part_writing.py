"""A report's parts written: each part's research run, its passages, its text.

Every part gets its own research run on the report's *one* Researcher, so the one
SourceNumbering numbers the whole report - sources keep their numbers, new ones continue
the count. The writer sees the most recent parts already written (at most
``report.max_context_sections`` parts and ``report.max_context_chars`` characters, cut
at a sentence boundary), fenced as not to be repeated. Each part's answer is verified
like a quick answer by the run's citation step, which also keeps a small model's
unsupported prose from leading a part
(:func:`~deepcite.citations.supported_first.supported_first`).

Parts get passages of their own (:mod:`deepcite.research.report.part_passages`): a part
of a facet outline is written from its facet's passages alone, and no passage is quoted
in two parts. A part whose research found nothing of its own is dropped, never printed
empty (:func:`~deepcite.research.report.assembly.without_parts` removes it). Generated
lines ("no sources for this part", "not researched") are in the question's language.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from deepcite.citations.avoid import Avoid
from deepcite.citations.handlers import AnswerStyle
from deepcite.materials import MaterialBinding, log_missing_material_evidence
from deepcite.research import Researcher
from deepcite.research.brief import RunBrief
from deepcite.research.cancel_token import CancelToken
from deepcite.research.iterative_search import queries_by_model
from deepcite.research.material_runs import MaterialPlan, Materials, log_route
from deepcite.research.run_budget import Budget
from deepcite.security.fencing import UNTRUSTED_NOTICE
from deepcite.text.frames import frame, variants
from deepcite.text.language import DEFAULT, detect
from deepcite.text.sentences import cut_at_sentence
from deepcite.types import OutlineEntry, ResearchResult, SectionStarted, Source

from .assembly import Part, Tally, section_body, summary_body
from .outline import research_parts
from .part_passages import PartPassages, answers, as_result, on_cue, without_headlines
from .parts_ahead import PartsAhead

MAX_QUERY_CHARS = 300

#: The same for every part of every report, so that a provider's prompt cache (vLLM's
#: prefix cache, OpenAI's and Anthropic's) can reuse it across the report's calls: what
#: differs, the part and its question, comes last, in the prompt's question line.
SECTION_SYSTEM = (
    "You are writing one part of a research report. The question line gives the "
    "report's question and, after the dash, the part to write and what it covers. "
    "Write that part using only the numbered sources, in one to three short paragraphs "
    "of plain prose, without headings and without a list of sources. End every sentence "
    "with the numbers of the sources it comes from in square brackets, like [1] or "
    "[2][3]. Do not cite numbers that are not listed. Text between the CONTENT ALREADY "
    "WRITTEN markers is already in the report: do not repeat it. " + UNTRUSTED_NOTICE
)



@dataclass(frozen=True)
class PartPlan:
    """What one part researches: its query, its writer's style, its materials' plan."""

    query: str
    style: AnswerStyle | None
    materials: MaterialPlan | None = None


def already_written(parts: Sequence[str], *, max_parts: int, max_chars: int) -> str:
    """The context the next part's writer sees: the last ``max_parts`` parts, cut."""
    if max_parts <= 0 or max_chars <= 0:
        return ""
    return cut_at_sentence("\n\n".join(parts[-max_parts:]), max_chars)


class PartWriter:
    """Writes the parts of one outline, in order, each from passages of its own.

    ``assigned`` and ``cues`` are a facet outline's passages and sentence cues by
    case-folded part title (empty for a model's outline); ``roles`` the outline's
    material bindings by title. ``dropped`` collects the parts that found nothing of
    their own; ``cancelled`` and ``scouts`` are the report's, so cancelling the report
    stops the part being written and those searched ahead.
    """

    def __init__(self, researcher: Researcher, *, materials: Materials | None,
                 roles: dict[str, list[MaterialBinding]], assigned: dict[str, list[Source]],
                 cues: dict[str, re.Pattern[str]], cancelled: threading.Event,
                 scouts: CancelToken) -> None:
        self._researcher = researcher
        self._materials = materials
        self._roles = roles
        self._assigned = assigned
        self._cues = cues
        self._cancelled = cancelled
        self._scouts = scouts
        self.dropped: set[int] = set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def write(self, question: str, entries: list[OutlineEntry], summary: ResearchResult,
              budget: Budget, tally: Tally) -> list[Part]:
        """The written parts of ``entries`` (those researched ahead start searching now,
        several at a time), in outline order; the dropped ones are in :attr:`dropped`."""
        researcher = self._researcher
        cfg = researcher.settings.report
        todo = research_parts(entries)
        inherited = inherited_materials(entries)
        plans = {index: self._part_plan(question, entries, index, heading, inherited)
                 for index, _, heading in todo}
        workers = cfg.parallel_parts
        if researcher.client.one_call_at_a_time and queries_by_model(
                researcher.settings, researcher.client, summary.handler):
            workers = 1  # its calls would only change places: keep the order one by one
        ahead = PartsAhead(researcher, workers, self._scouts)
        for index, _, _ in todo:
            if entries[index].title.casefold() not in self._assigned:  # those have theirs
                ahead.start(index, plans[index].query,
                            self._part_brief(plans[index], budget, cfg.section_iterations))
        try:
            return self._write_parts(entries, todo, plans, ahead, budget, tally, summary)
        finally:
            ahead.stop()

    def _write_parts(self, entries: list[OutlineEntry], todo: list[tuple[int, str, str]],
                     plans: dict[int, PartPlan], ahead: PartsAhead, budget: Budget,
                     tally: Tally, summary: ResearchResult) -> list[Part]:
        """Write the parts in outline order, each from what was found for it (researched
        ahead, or now), with the parts already written as context."""
        language = detect(summary.question)
        written: list[str] = [f"## {frame('summary', language)}\n\n{summary_body(summary)}"]
        parts: list[Part] = []
        passages = PartPassages(outline_sources=summary.sources,
                                titles=[entry.title for entry in entries])
        stopped: str | None = None
        researcher = self._researcher
        cfg = researcher.settings.report
        materials = self._materials
        material_docs = 0
        for count, (index, number, heading) in enumerate(todo, start=1):
            entry = entries[index]
            if self.cancelled:
                break
            if stopped is None:
                reason = budget.exhausted(model_calls=1, searches=1)
                if reason is not None:
                    stopped = frame("part_not_researched", language).format(reason=reason)
                    tally.warn("budget", f"Stopped early: {reason}; the remaining parts "
                               "are not researched")
            if stopped is not None:
                parts.append(Part(index, stopped))
                continue
            researcher.emit(SectionStarted(index=count, total=len(todo), title=heading))
            context = already_written(written, max_parts=cfg.max_context_sections,
                                      max_chars=cfg.max_context_chars)
            part = plans[index]
            query, plan = part.query, part.materials
            brief = dataclasses.replace(
                self._part_brief(part, budget, cfg.section_iterations),
                written=context, avoid=Avoid.said(" ".join(written)),
                gathered=ahead.result(index))
            own = self._assigned.get(entry.title.casefold())
            if own:
                brief = self._own_passages(brief, passages, own)
            result = researcher.run(query, brief=brief)
            if materials is not None and plan is not None:
                log_route(f"{number} {entry.title}", plan, len(entry.materials), result)
                material_docs += sum(1 for s in result.sources if s.engine == "user_material")
            tally.add(result, f"{number} {entry.title}")
            text = part_text(result, language)
            if text not in variants("part_no_sources"):
                text = passages.unrepeated(entry.title, text, query, result.sources,
                                           "\n\n".join(written), prose=bool(own))
                text = (without_headlines(text, result.sources)
                        or frame("already_quoted", language))
                if (cue := self._cues.get(entry.title.casefold())) is not None:
                    text = on_cue(text, cue)
            if not (result.cancelled or self.cancelled) and (
                    text in variants("part_no_sources") or text in variants("already_quoted")
                    or (own and not answers(text))):  # a facet's part must answer its purpose
                self.dropped.add(index)  # no evidence of its own: no part, never empty
                continue
            parts.append(Part(index, text))
            written.append(f"## {number} {entry.title}\n\n{text}")
            if result.cancelled:
                break
        bound = [m for entry in entries for m in entry.materials]
        if materials is not None and bound and parts and not material_docs:
            log_missing_material_evidence(ids=list(dict.fromkeys(bound)))
        return parts

    def _part_plan(self, question: str, entries: list[OutlineEntry], index: int,
                   heading: str, inherited: dict[int, list[str]]) -> PartPlan:
        """What part ``index`` researches: its query, and the materials bound to it."""
        entry = entries[index]
        researcher = self._researcher
        query = part_query(question, heading, entry.purpose)
        if entry.title.casefold() in self._assigned:
            query = entry.purpose or question  # the facet's own question
        style = section_style(researcher.settings.llm.max_tokens)
        materials = self._materials
        if materials is None:
            return PartPlan(query, style)
        ids = materials.bound(entry.materials or None, inherited.get(index, []))
        plan = materials.plan(query, ids, limit=researcher.settings.research.max_sources,
                              bindings=self._declared(entries, index),
                              budget_chars=researcher.client.prompt_budget_chars)
        return PartPlan(query, plan.style(style), plan)

    @staticmethod
    def _part_brief(part: PartPlan, budget: Budget, iterations: int) -> RunBrief:
        """The brief of a part's run before the report's written text is added."""
        brief = RunBrief(style=part.style, iterations=iterations, budget=budget)
        if part.materials is None:
            return brief
        return dataclasses.replace(brief, evidence=part.materials.evidence,
                                   search_queries=part.materials.search_queries)

    @staticmethod
    def _own_passages(brief: RunBrief, passages: PartPassages, own: Sequence[Source]
                      ) -> RunBrief:
        """``brief`` for a part of a facet outline: written from the passages assigned
        to its facet (and its materials) alone, no search, which would bring back the
        other parts' passages."""
        passages.pin(own)
        return dataclasses.replace(brief, evidence=(*brief.evidence, *map(as_result, own)),
                                   search_queries=())

    def _declared(self, entries: Sequence[OutlineEntry], index: int) -> list[MaterialBinding]:
        """The outline's bindings (roles) for part ``index``: its own, then its section's
        (a subsection inherits the roles of the materials it inherits)."""
        declared = list(self._roles.get(entries[index].title.casefold(), []))
        for parent in range(index, -1, -1):
            if entries[parent].level == 1:
                if parent != index:
                    declared += self._roles.get(entries[parent].title.casefold(), [])
                break
        return declared

def inherited_materials(entries: Sequence[OutlineEntry]) -> dict[int, list[str]]:
    """For each subsection (by index), its section's bound materials: a subsection that
    names none is written from its section's."""
    inherited: dict[int, list[str]] = {}
    section: list[str] = []
    for index, entry in enumerate(entries):
        if entry.level == 1:
            section = list(entry.materials)
        else:
            inherited[index] = section
    return inherited


def part_query(question: str, heading: str, purpose: str) -> str:
    """What a part researches: the report's question narrowed to the part."""
    query = f"{question} - {heading}" + (f": {purpose}" if purpose else "")
    return query if len(query) <= MAX_QUERY_CHARS else cut_at_word(query, MAX_QUERY_CHARS)


def cut_at_word(text: str, limit: int) -> str:
    return text[:limit].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]


def section_style(max_tokens: int) -> AnswerStyle:
    """How a part is written: the one system prompt of every part (the part itself is
    named in its question line, :func:`part_query`)."""
    return AnswerStyle(purpose="section", system=SECTION_SYSTEM, max_tokens=max_tokens)


def part_text(result: ResearchResult, language: str = DEFAULT) -> str:
    """The written part, or one line (in ``language``) when its research found nothing."""
    if not result.sources or result.answer.strip() in variants("no_sources"):
        return frame("part_no_sources", language)
    return section_body(result.answer)


__all__ = ["MAX_QUERY_CHARS", "SECTION_SYSTEM", "PartPlan", "PartWriter", "already_written",
           "cut_at_word", "inherited_materials", "part_query", "part_text", "section_style"]
