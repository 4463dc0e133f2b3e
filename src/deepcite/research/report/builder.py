"""The detailed report: research once, outline, research each part, assemble.

1. **Research** the question once with the run's strategy; its answer becomes the
   report's Summary, and what it found grounds the outline.
2. **Outline**: one model call proposes sections and subsections with a one-line
   purpose each (:mod:`deepcite.research.report.outline` parses it leniently and drops
   sections about sources or methodology). When the model cannot write one, and
   always for a small model (never asked: it cannot, and would answer differently each
   run), the outline is built from the question's facets and the evidence found
   (:mod:`deepcite.research.report.facets`), each part with passages of its own.
   ``outline_review`` lets the user edit or approve it first.
3. **Sections**: every part gets its own research run on the *same* Researcher, so the
   one SourceNumbering numbers the whole report - sources keep their numbers, new ones
   continue the count. The writer sees the most recent parts already written (at most
   ``report.max_context_sections`` parts and ``report.max_context_chars`` characters,
   cut at a sentence boundary), fenced as not to be repeated. A part whose research
   found nothing of its own is left out, never printed empty. Each part's answer is
   verified like a quick answer (the citation step does it for every run). Parts get
   passages of their own (:mod:`deepcite.research.report.part_passages`): a part of a
   facet outline is written from its facet's passages alone, and no passage is quoted
   in two parts.
4. **Assembly**: contents, Summary, numbered sections. The Sources block is not part of
   the body: it is rendered from the source numbering on output (``to_markdown``), in the store
   and in every export, so body and block always read the same numbers.

The report's budget (``research.max_*``) holds for the whole report: every run counts
from the report's start (one :class:`~deepcite.research.run_budget.Budget`), and once it
is spent the remaining parts say so instead of being researched. Cancelling keeps the
parts written so far and returns them as a cancelled report.
"""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from deepcite.citations.answer_mode import use_grounded
from deepcite.citations.handlers import AnswerStyle
from deepcite.citations.numbering import SourceNumbering
from deepcite.citations.render import answer_body
from deepcite.citations.verify import anchored
from deepcite.errors import DeepciteError, InputError
from deepcite.materials import MaterialBinding, log_missing_material_evidence
from deepcite.research import Researcher
from deepcite.research.brief import Gathered, RunBrief
from deepcite.research.cancel_token import CancelToken
from deepcite.research.iterative_search import queries_by_model
from deepcite.research.material_runs import MaterialPlan, Materials, log_route
from deepcite.research.ranking import fuse
from deepcite.research.run_budget import Budget
from deepcite.security.fencing import UNTRUSTED_NOTICE
from deepcite.text.frames import frame, frame_for, variants
from deepcite.text.language import DEFAULT, detect
from deepcite.text.sentences import cut_at_sentence
from deepcite.types import (
    Finding,
    OutlineEntry,
    OutlineReady,
    PhaseStarted,
    ResearchResult,
    RunMetrics,
    RunNotice,
    RunWarning,
    SectionStarted,
    Source,
    VerificationCounts,
    WarningCode,
)

from .facets import facet_outline
from .outline import (
    OUTLINE_SYSTEM,
    outline_bindings,
    outline_prompt,
    parse_outline,
    research_parts,
)
from .part_passages import (
    MATERIAL_ENGINE,
    PartPassages,
    answers,
    as_result,
    on_cue,
    without_headlines,
)
from .parts_ahead import PartsAhead

#: Reviews the proposed outline before sections are written: returns the outline to
#: use (the same, edited, or ``None`` to stop without writing sections).
OutlineReview = Callable[[list[OutlineEntry]], list[OutlineEntry] | None]

# In English; a report says them in its question's language (:mod:`deepcite.text.frames`).
SUMMARY_HEADING = frame("summary")
NO_SOURCES_LINE = frame("part_no_sources")
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

_HEADING_LINE = re.compile(r"^[ ]{0,3}#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)


@dataclass
class _Part:
    """A written part: its index in the outline and its text."""

    index: int
    text: str


@dataclass(frozen=True)
class _PartPlan:
    """What one part researches: its query, its writer's style, its materials' plan."""

    query: str
    style: AnswerStyle | None
    materials: MaterialPlan | None = None


@dataclass
class _Tally:
    """What the report's runs add up to."""

    results: list[ResearchResult] = field(default_factory=list)
    warnings: list[RunNotice] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def add(self, result: ResearchResult, label: str) -> None:
        self.results.append(result)
        for notice in result.warnings:
            self.warn(notice.code, f"{label}: {notice.message}" if label else notice.message)
        self.findings.append(Finding(phase=label or "research", question=result.question,
                                     content=result.answer))

    def warn(self, code: WarningCode, message: str) -> None:
        if all(notice.message != message for notice in self.warnings):
            self.warnings.append(RunNotice(code=code, message=message))


def already_written(parts: Sequence[str], *, max_parts: int, max_chars: int) -> str:
    """The context the next part's writer sees: the last ``max_parts`` parts, cut."""
    if max_parts <= 0 or max_chars <= 0:
        return ""
    return cut_at_sentence("\n\n".join(parts[-max_parts:]), max_chars)


def section_body(answer: str) -> str:
    """A part's answer as report text: no Sources block of its own, and headings made
    bold lines so the report's own structure (and its contents list) stays true."""
    body = answer_body(answer)[0].strip()
    return _HEADING_LINE.sub(lambda m: f"**{m.group(1).strip()}**", body)


def summary_body(summary: ResearchResult) -> str:
    """The Summary as report text, without the headings its sentences may quote (a
    report quotes no heading, table row or navigation line as a sentence)."""
    body = section_body(summary.answer)
    return without_headlines(body, summary.sources) or body


class DetailedReport:
    """Builds one detailed report on a Researcher; :meth:`cancel` stops it cleanly."""

    def __init__(self, researcher: Researcher, *,
                 outline_review: OutlineReview | None = None) -> None:
        self._researcher = researcher
        self._review = outline_review
        self._materials: Materials | None = None
        #: The outline's material bindings (with roles) by case-folded part title.
        self._roles: dict[str, list[MaterialBinding]] = {}
        #: The passages of each part of an outline built from the question's facets
        #: (:mod:`~deepcite.research.report.facets`), by case-folded title: such a part
        #: is written from them alone, so no two parts quote the same passage.
        self._assigned: dict[str, list[Source]] = {}
        #: What the sentences of a facet part must hold (its examples, its limits).
        self._cues: dict[str, re.Pattern[str]] = {}
        #: The parts researched that found no evidence of their own (left out).
        self._dropped: set[int] = set()
        self._cancelled = threading.Event()
        self._usage_start = researcher.client.usage
        #: Stops the parts being researched ahead (a report's own, made per report).
        self._scouts = CancelToken()

    def cancel(self) -> None:
        """Stop the report: the run in progress returns what it has, the parts being
        researched ahead stop searching, and no part follows."""
        self._cancelled.set()
        self._scouts.cancel()
        self._researcher.cancel()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def run(self, question: str, *, materials: Materials | None = None) -> ResearchResult:
        """Research ``question`` as a sectioned report; see the module docstring.

        ``materials`` (analysed by :func:`~deepcite.research.material_runs.
        analyse_materials`) are bound to the parts by the outline and given to each
        part's run as evidence.
        """
        researcher = self._researcher
        self._materials = materials
        started = time.perf_counter()
        budget = Budget(researcher.settings.research, lambda: researcher.client.usage)
        self._usage_start = budget.usage_start
        tally = _Tally()
        materials = self._materials
        summary_brief = RunBrief(budget=budget)
        if materials is not None:
            for message in materials.warnings:
                tally.warn("materials", message)
            plan = materials.plan(question, materials.usable_ids,
                                  limit=researcher.settings.research.max_sources,
                                  whole_question=True,
                                  budget_chars=researcher.client.prompt_budget_chars)
            summary_brief = dataclasses.replace(summary_brief, evidence=plan.evidence,
                                                search_queries=plan.search_queries,
                                                style=plan.style(None))
        early: Future[str] | None = None
        if (materials is None and researcher.settings.report.parallel_parts > 1
                and not self._small_model
                and not researcher.client.one_call_at_a_time):
            # Search once, then write the Summary and ask for the outline at the same
            # time: the outline needs what was found, not the Summary's text.
            gathered = researcher.gather(question, brief=summary_brief, cancel=self._scouts,
                                         announce=True)
            if gathered is not None:
                summary_brief = dataclasses.replace(summary_brief, gathered=gathered)
                early = self._outline_ahead(question, gathered, budget)
        try:
            summary = researcher.run(question, brief=summary_brief)
        finally:
            if early is not None and self.cancelled:
                early.cancel()
        if materials is not None:
            log_route(SUMMARY_HEADING, plan, len(materials.usable_ids), summary)
        question = summary.question  # as the Researcher cleaned it
        tally.add(summary, "")
        parts: list[_Part] = []
        entries: list[OutlineEntry] = []
        if not (summary.cancelled or self.cancelled):
            entries = self._outline(question, summary, budget, tally, early=early)
        if entries and not self.cancelled:
            parts = self._sections(question, entries, summary, budget, tally)
            entries, parts = without_parts(entries, parts, self._dropped)
        cancelled = self.cancelled or any(r.cancelled for r in tally.results)
        return self._assemble(question, summary, entries, parts, tally, cancelled,
                              time.perf_counter() - started)

    # ------------------------------------------------------------------ outline

    def _outline_ahead(self, question: str, gathered: Gathered,
                       budget: Budget) -> Future[str] | None:
        """The outline call, started while the Summary is written (``None`` when the
        budget cannot pay for both). Its prompt shows what the search found, numbered as
        the Summary will number it."""
        if budget.exhausted(model_calls=2) is not None:
            return None
        preview = SourceNumbering().add_many(
            fuse([list(found) for found in gathered.result_lists],
                 self._researcher.settings.research.max_sources))
        prompt = outline_prompt(question, preview)
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deepcite-outline")
        try:
            return pool.submit(self._researcher.client.complete, "outline", OUTLINE_SYSTEM,
                               prompt)
        finally:
            pool.shutdown(wait=False)

    @property
    def _small_model(self) -> bool:
        """Whether the model is one whose answers are grounded (the bundled one): it is
        not asked for an outline, which it cannot write and would write differently on
        every run; the outline is built from the question's facets instead."""
        researcher = self._researcher
        return use_grounded(researcher.settings, researcher.client)

    def _outline(self, question: str, summary: ResearchResult, budget: Budget,
                 tally: _Tally, *, early: Future[str] | None = None) -> list[OutlineEntry]:
        researcher = self._researcher
        cfg = researcher.settings.report
        entries: list[OutlineEntry] = []
        problem = "the model's outline was unusable"
        reason = None if early is not None else budget.exhausted(model_calls=1)
        small = early is None and self._small_model
        if small:  # the outline is built from the question's facets, no call: still a phase
            researcher.emit(PhaseStarted(phase="outline"))
            problem = ""
        elif reason is not None:
            problem = f"the {reason} before an outline was asked for"
        else:
            researcher.emit(PhaseStarted(phase="outline"))
            try:
                manifest = self._materials.analysis.manifest if self._materials else ""
                known = self._materials.ids if self._materials else []
                reply = early.result() if early is not None else researcher.client.complete(
                    "outline", OUTLINE_SYSTEM,
                    outline_prompt(question, summary.sources, manifest=manifest))
                entries = parse_outline(reply, max_sections=cfg.max_sections,
                                        max_subsections=cfg.max_subsections,
                                        material_ids=known)
                self._roles = outline_bindings(reply, known)
            except DeepciteError as exc:
                problem = f"the outline call failed ({exc})"
        fallback = not entries
        if fallback:
            found = facet_outline(question, [s for s in summary.sources
                                             if s.engine != MATERIAL_ENGINE],
                                  max_sections=cfg.max_sections)
            entries = found.entries
            self._assigned = {entries[index].title.casefold(): passages
                              for index, passages in found.passages.items()}
            self._cues = {entries[index].title.casefold(): cue
                          for index, cue in found.cues.items()}
            if problem:
                message = ("Built the outline from the question and the evidence found: "
                           f"{problem}")
                tally.warn("outline_fallback", message)
                researcher.emit(RunWarning(code="outline_fallback", message=message))
        if self._review is not None and not self.cancelled:
            reviewed = self._review(list(entries))
            if reviewed is None:
                self._cancelled.set()
                return entries
            if not reviewed:
                raise InputError("The reviewed outline has no sections - keep at least one")
            entries = reviewed
        entries = self._bind_all_when_unbound(entries)
        researcher.emit(OutlineReady(entries=entries, fallback=fallback))
        return entries

    def _bind_all_when_unbound(self, entries: list[OutlineEntry]) -> list[OutlineEntry]:
        """An outline that binds no material at all (a facet outline, a model that
        ignored the ids) gets every usable material on each section: the user handed
        them in to be used, and a report that leaves them all out is the failure users
        complain of most. An outline that binds some keeps its choice."""
        materials = self._materials
        if materials is None or not materials.usable_ids \
                or any(entry.materials for entry in entries):
            return entries
        return [entry.model_copy(update={"materials": list(materials.usable_ids)})
                if entry.level == 1 else entry for entry in entries]

    # ----------------------------------------------------------------- sections

    def _sections(self, question: str, entries: list[OutlineEntry], summary: ResearchResult,
                  budget: Budget, tally: _Tally) -> list[_Part]:
        researcher = self._researcher
        cfg = researcher.settings.report
        todo = research_parts(entries)
        inherited = _inherited_materials(entries)
        plans = {index: self._part_plan(question, entries, index, heading, inherited)
                 for index, _, heading in todo}
        self._scouts = CancelToken()
        if self.cancelled:
            self._scouts.cancel()
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
                     plans: dict[int, _PartPlan], ahead: PartsAhead, budget: Budget,
                     tally: _Tally, summary: ResearchResult) -> list[_Part]:
        """Write the parts in outline order, each from what was found for it (researched
        ahead, or now), with the parts already written as context."""
        language = detect(summary.question)
        written: list[str] = [f"## {frame('summary', language)}\n\n{summary_body(summary)}"]
        parts: list[_Part] = []
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
                    stopped = f"Not researched: the report's {reason}."
                    tally.warn("budget", f"Stopped early: {reason}; the remaining parts "
                               "are not researched")
            if stopped is not None:
                parts.append(_Part(index, f"_{stopped}_"))
                continue
            researcher.emit(SectionStarted(index=count, total=len(todo), title=heading))
            context = already_written(written, max_parts=cfg.max_context_sections,
                                      max_chars=cfg.max_context_chars)
            part = plans[index]
            query, plan = part.query, part.materials
            brief = dataclasses.replace(
                self._part_brief(part, budget, cfg.section_iterations),
                written=context, avoid=" ".join(" ".join(written).split()),
                gathered=ahead.result(index))
            own = self._assigned.get(entry.title.casefold())
            if own:
                brief = self._own_passages(brief, passages, own)
            result = researcher.run(query, brief=brief)
            if materials is not None and plan is not None:
                log_route(f"{number} {entry.title}", plan, len(entry.materials), result)
                material_docs += sum(1 for s in result.sources if s.engine == "user_material")
            tally.add(result, f"{number} {entry.title}")
            text = _part_text(result, language)
            if text not in variants("part_no_sources"):
                text = passages.unrepeated(entry.title, text, query, result.sources,
                                           "\n\n".join(written), prose=bool(own))
                text = (without_headlines(text, result.sources)
                        or frame_for("already_quoted", summary.question))
                if (cue := self._cues.get(entry.title.casefold())) is not None:
                    text = on_cue(text, cue)
            if not (result.cancelled or self.cancelled) and (
                    text in variants("part_no_sources") or text in variants("already_quoted")
                    or (own and not answers(text))):  # a facet's part must answer its purpose
                self._dropped.add(index)  # no evidence of its own: no part, never empty
                continue
            parts.append(_Part(index, text))
            written.append(f"## {number} {entry.title}\n\n{text}")
            if result.cancelled:
                break
        bound = [m for entry in entries for m in entry.materials]
        if materials is not None and bound and parts and not material_docs:
            log_missing_material_evidence(ids=list(dict.fromkeys(bound)))
        return parts

    def _part_plan(self, question: str, entries: list[OutlineEntry], index: int,
                   heading: str, inherited: dict[int, list[str]]) -> _PartPlan:
        """What part ``index`` researches: its query, and the materials bound to it."""
        entry = entries[index]
        researcher = self._researcher
        query = _query(question, heading, entry.purpose)
        if entry.title.casefold() in self._assigned:
            query = entry.purpose or question  # the facet's own question
        style = _section_style(researcher.settings.llm.max_tokens)
        materials = self._materials
        if materials is None:
            return _PartPlan(query, style)
        ids = materials.bound(entry.materials or None, inherited.get(index, []))
        plan = materials.plan(query, ids, limit=researcher.settings.research.max_sources,
                              bindings=self._declared(entries, index),
                              budget_chars=researcher.client.prompt_budget_chars)
        return _PartPlan(query, plan.style(style), plan)

    @staticmethod
    def _part_brief(part: _PartPlan, budget: Budget, iterations: int) -> RunBrief:
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

    # ----------------------------------------------------------------- assembly

    def _assemble(self, question: str, summary: ResearchResult,
                  entries: list[OutlineEntry], parts: list[_Part], tally: _Tally,
                  cancelled: bool, wall: float) -> ResearchResult:
        researcher = self._researcher
        body = assemble_body(summary_body(summary), entries, parts, language=detect(question))
        results = tally.results
        usage = researcher.client.usage.since(self._usage_start)  # the outline call too
        metrics = RunMetrics(
            model_calls=usage.calls, prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens, model_seconds=usage.seconds,
            search_seconds=sum(r.metrics.search_seconds for r in results),
            searches=sum(r.metrics.searches for r in results), wall_seconds=wall,
            cached_tokens=usage.cached_tokens)
        checked = [r.verification for r in results if r.verification is not None]
        verification = VerificationCounts.total(checked) if checked else None
        errors = [r.error for r in results if r.error]
        sources = researcher.numbering.sources()
        return ResearchResult(
            question=question, answer=body, strategy=summary.strategy,
            handler=summary.handler, sources=sources,
            questions_by_iteration=summary.questions_by_iteration,
            findings=tally.findings, metrics=metrics, warnings=tally.warnings,
            cancelled=cancelled,
            error=errors[0] if errors else None, verification=verification,
            citation_checks=anchored([c for r in results for c in r.citation_checks],
                                     sources),
            unsupported_sentences=[s for r in results for s in r.unsupported_sentences],
            mode="detailed", title=report_title(question), outline=entries,
        )


def assemble_body(summary: str, entries: Sequence[OutlineEntry],
                  parts: Sequence[_Part], *, language: str = DEFAULT) -> str:
    """Contents, Summary and the numbered parts: the body the store keeps (no Sources).

    Parts a cancelled report never reached are left out of the body (the outline keeps
    them); a section heading is kept when any of its subsections was written. The
    "Contents" and "Summary" headings are in ``language`` (the question's).
    """
    written = {part.index: part.text for part in parts}
    summary_heading = frame("summary", language)
    contents = [f"- {summary_heading}"]
    sections: list[str] = [f"## {summary_heading}\n\n{section_body(summary)}"]
    number = sub = 0
    pending: str | None = None  # a section heading waiting for its first written child
    for index, entry in enumerate(entries):
        if entry.level == 1:
            number, sub = number + 1, 0
            label = f"{number}. {entry.title}"
            contents.append(f"- {label}")
            heading = f"## {label}"
            pending = heading
        else:
            sub += 1
            label = f"{number}.{sub} {entry.title}"
            contents.append(f"    - {label}")
            heading = f"### {label}"
        text = written.get(index)
        if text is None:
            continue
        if entry.level == 2 and pending is not None:
            sections.append(pending)
        pending = None
        sections.append(f"{heading}\n\n{text}")
    return "\n\n".join([f"## {frame('contents', language)}\n\n" + "\n".join(contents),
                        *sections])


def without_parts(entries: Sequence[OutlineEntry], parts: Sequence[_Part],
                  dropped: set[int]) -> tuple[list[OutlineEntry], list[_Part]]:
    """The outline and parts without the ``dropped`` parts (researched, nothing of their
    own found) and without a section all of whose subsections were dropped: a report
    prints no empty part, and its contents list no part it does not print."""
    keep: list[int] = []
    for index, entry in enumerate(entries):
        if index in dropped:
            continue
        if entry.level == 1:
            children = [i for i in range(index + 1, len(entries))
                        if all(entries[j].level == 2 for j in range(index + 1, i + 1))]
            if children and all(i in dropped for i in children):
                continue
        keep.append(index)
    moved = {old: new for new, old in enumerate(keep)}
    return ([entries[i] for i in keep],
            [dataclasses.replace(part, index=moved[part.index]) for part in parts
             if part.index in moved])


def report_title(question: str) -> str:
    """The question as the report's title, first letter capitalised."""
    text = " ".join(question.split())
    return text[:1].upper() + text[1:]


def _inherited_materials(entries: Sequence[OutlineEntry]) -> dict[int, list[str]]:
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


def _query(question: str, heading: str, purpose: str) -> str:
    """What a part researches: the report's question narrowed to the part."""
    query = f"{question} - {heading}" + (f": {purpose}" if purpose else "")
    return query if len(query) <= MAX_QUERY_CHARS else cut_at_word(query, MAX_QUERY_CHARS)


def cut_at_word(text: str, limit: int) -> str:
    return text[:limit].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]


def _section_style(max_tokens: int) -> AnswerStyle:
    """How a part is written: the one system prompt of every part (the part itself is
    named in its question line, :func:`_query`)."""
    return AnswerStyle(purpose="section", system=SECTION_SYSTEM, max_tokens=max_tokens)


def _part_text(result: ResearchResult, language: str = DEFAULT) -> str:
    """The written part, or one line (in ``language``) when its research found nothing."""
    if not result.sources or result.answer.strip() in variants("no_sources"):
        return frame("part_no_sources", language)
    return section_body(result.answer)
