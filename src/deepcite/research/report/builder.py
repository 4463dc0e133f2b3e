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
3. **Parts**: every part gets its own research run on the *same* Researcher, written
   from passages of its own (:mod:`deepcite.research.report.part_writing`); a part that
   found nothing of its own is left out, never printed empty.
4. **Assembly**: contents, Summary, numbered parts, and the one result the store keeps
   (:mod:`deepcite.research.report.assembly`).

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
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from deepcite.citations.answer_mode import use_grounded
from deepcite.citations.numbering import SourceNumbering
from deepcite.errors import DeepciteError, InputError
from deepcite.materials import MaterialBinding
from deepcite.research import Researcher
from deepcite.research.brief import Gathered, RunBrief
from deepcite.research.cancel_token import CancelToken
from deepcite.research.material_runs import Materials, log_route
from deepcite.research.ranking import fuse
from deepcite.research.run_budget import Budget
from deepcite.text.frames import frame
from deepcite.types import (
    OutlineEntry,
    OutlineReady,
    PhaseStarted,
    ResearchResult,
    RunWarning,
    Source,
)

from .assembly import (
    Part,
    Tally,
    assemble_body,
    report_result,
    report_title,
    section_body,
    summary_body,
    without_parts,
)
from .facets import facet_outline
from .outline import OUTLINE_SYSTEM, outline_bindings, outline_prompt, parse_outline
from .part_passages import MATERIAL_ENGINE
from .part_writing import (
    MAX_QUERY_CHARS,
    SECTION_SYSTEM,
    PartWriter,
    already_written,
    cut_at_word,
)

#: Reviews the proposed outline before sections are written: returns the outline to
#: use (the same, edited, or ``None`` to stop without writing sections).
OutlineReview = Callable[[list[OutlineEntry]], list[OutlineEntry] | None]

# In English; a report says them in its question's language (:mod:`deepcite.text.frames`).
SUMMARY_HEADING = frame("summary")
NO_SOURCES_LINE = frame("part_no_sources")


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
        tally = Tally()
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
        parts: list[Part] = []
        entries: list[OutlineEntry] = []
        if not (summary.cancelled or self.cancelled):
            entries = self._outline(question, summary, budget, tally, early=early)
        if entries and not self.cancelled:
            self._scouts = CancelToken()  # the summary's search is done: the parts'
            if self.cancelled:
                self._scouts.cancel()
            writer = PartWriter(researcher, materials=materials, roles=self._roles,
                                assigned=self._assigned, cues=self._cues,
                                cancelled=self._cancelled, scouts=self._scouts)
            parts = writer.write(question, entries, summary, budget, tally)
            entries, parts = without_parts(entries, parts, writer.dropped)
        cancelled = self.cancelled or any(r.cancelled for r in tally.results)
        return report_result(question, summary, entries, parts, tally,
                             sources=researcher.numbering.sources(),
                             usage=researcher.client.usage.since(self._usage_start),
                             cancelled=cancelled, wall=time.perf_counter() - started)

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
                 tally: Tally, *, early: Future[str] | None = None) -> list[OutlineEntry]:
        researcher = self._researcher
        cfg = researcher.settings.report
        entries: list[OutlineEntry] = []
        problem = "the model's outline was unusable"
        reason = None if early is not None else budget.exhausted(model_calls=1)
        small = early is None and self._small_model
        if small or reason is None:  # built from the facets without a call: still a phase
            researcher.emit(PhaseStarted(phase="outline"))
        if small:
            problem = ""
        elif reason is not None:
            problem = f"the {reason} before an outline was asked for"
        else:
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


__all__ = ["MAX_QUERY_CHARS", "NO_SOURCES_LINE", "SECTION_SYSTEM", "SUMMARY_HEADING",
           "DetailedReport", "OutlineReview", "Part", "already_written", "assemble_body",
           "cut_at_word", "report_title", "section_body", "summary_body", "without_parts"]
