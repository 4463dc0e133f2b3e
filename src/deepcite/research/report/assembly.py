"""A detailed report put together: its parts' text, the outline without empty parts,
contents, Summary, numbered parts, and the one result the store keeps.

The parts are written elsewhere (:mod:`deepcite.research.report.part_writing`); this
module only assembles what was written, so the report's shape (what is numbered, which
headings are printed, in what language) is decided in one place. The Sources block is
not part of the body: it is rendered from the source numbering on output
(``to_markdown``), so body and block always read the same numbers.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from deepcite.citations.render import answer_body
from deepcite.citations.verify import anchored
from deepcite.llm.client import Usage
from deepcite.text.frames import frame
from deepcite.text.language import DEFAULT, detect
from deepcite.types import (
    Finding,
    OutlineEntry,
    ResearchResult,
    RunMetrics,
    RunNotice,
    Source,
    VerificationCounts,
    WarningCode,
)

from .part_passages import without_headlines

_HEADING_LINE = re.compile(r"^[ ]{0,3}#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)


@dataclass
class Part:
    """A written part: its index in the outline and its text."""

    index: int
    text: str


@dataclass
class Tally:
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


def report_result(question: str, summary: ResearchResult, entries: list[OutlineEntry],
                  parts: Sequence[Part], tally: Tally, *, sources: list[Source],
                  usage: Usage, cancelled: bool, wall: float) -> ResearchResult:
    """The report as one result: its body, the whole report's metrics (``usage``: the
    client's usage since the report started, the outline call too), every run's checks,
    warnings and findings."""
    body = assemble_body(summary_body(summary), entries, parts, language=detect(question))
    results = tally.results
    metrics = RunMetrics(
        model_calls=usage.calls, prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens, model_seconds=usage.seconds,
        search_seconds=sum(r.metrics.search_seconds for r in results),
        searches=sum(r.metrics.searches for r in results), wall_seconds=wall,
        cached_tokens=usage.cached_tokens,
        model=next((r.metrics.model for r in results if r.metrics.model), None))
    checked = [r.verification for r in results if r.verification is not None]
    verification = VerificationCounts.total(checked) if checked else None
    errors = [r.error for r in results if r.error]
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
                  parts: Sequence[Part], *, language: str = DEFAULT) -> str:
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


def without_parts(entries: Sequence[OutlineEntry], parts: Sequence[Part],
                  dropped: set[int]) -> tuple[list[OutlineEntry], list[Part]]:
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




__all__ = ["Part", "Tally", "assemble_body", "report_result", "report_title", "section_body",
           "summary_body", "without_parts"]
