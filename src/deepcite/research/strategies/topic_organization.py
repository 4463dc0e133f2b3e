"""Search like the default strategy, then group the sources into topics and write the
answer topic by topic.

A broad question ("How do I parse command line arguments?") has several distinct
answers (argparse, getopt, sys.argv); one paragraph over ten sources blurs them. Here
the model first groups the registered sources into a few topics (one short JSON call),
then writes one section per topic seeing only that topic's sources, which keeps each
prompt small enough for small models and each citation close to its passage. Every
section goes through ``finalise_reply``, so every marker resolves to the registry.
Model calls stay bounded: the search calls, one grouping call, at most five sections.
"""

from __future__ import annotations

import re
from typing import Any

from deepcite.citations.handlers.base import NO_SOURCES_ANSWER
from deepcite.citations.handlers.standard import build_prompt, evidence_answer, finalise_reply
from deepcite.llm.parsing import parse_json_lenient
from deepcite.research.context import RunContext, StrategyOutcome
from deepcite.research.ranking import fuse
from deepcite.research.search_phase import IterativeSearch
from deepcite.research.steps import CANCELLED_INTRO, register_sources
from deepcite.security.fencing import UNTRUSTED_NOTICE, fence
from deepcite.types import (
    Finding,
    PhaseStarted,
    Source,
)

MAX_TOPICS = 5
OTHER_TOPIC = "Other"
TOPIC_SNIPPET_CHARS = 300
TOPICS_TOKENS = 300
MAX_TITLE_CHARS = 80

TOPICS_SYSTEM = (
    "You organise research sources. Group the numbered sources into 2 to 5 topics. "
    'Reply with JSON only, like {"topics": [{"title": "Topic name", "sources": [1, 2]}]}. '
    + UNTRUSTED_NOTICE
)
SECTION_SYSTEM = (
    "You are a careful research assistant writing one section of a longer answer. Using "
    "only the numbered sources, write one short paragraph of plain prose about the topic "
    "named in the question. End every sentence with the numbers of the sources it comes "
    "from in square brackets, like [1] or [2][3]. Do not cite numbers that are not "
    "listed. " + UNTRUSTED_NOTICE
)

Topic = tuple[str, list[Source]]


class TopicOrganizationStrategy:
    """Iterative search, then sources grouped into topics, one cited section each."""

    name = "topic-organization"
    description = "Iterative search, then an answer organised into cited topic sections."

    def __init__(self, context: RunContext) -> None:
        self._ctx = context

    def run(self, question: str) -> StrategyOutcome:
        ctx = self._ctx
        search = IterativeSearch(ctx)
        search.run(question)
        by_iteration = search.by_iteration
        sources = register_sources(ctx, fuse(search.result_lists,
                                             ctx.settings.research.max_sources))
        findings = [Finding(phase=f"iteration {i}", question=question, content="\n".join(qs))
                    for i, qs in by_iteration.items()]
        if ctx.cancel.cancelled:
            answer = evidence_answer(question, sources, intro=CANCELLED_INTRO)
            return StrategyOutcome(answer, sources, by_iteration, findings, cancelled=True)
        if not sources:  # the gate: never ask a model to cite sources it was not given
            return StrategyOutcome(NO_SOURCES_ANSWER, sources, by_iteration, findings)

        ctx.emit(PhaseStarted(phase="topics"))
        topics = self._topics(question, sources)
        findings.append(Finding(phase="topics", question=question, content="\n".join(
            f"{title}: {', '.join(str(s.number) for s in group)}" for title, group in topics)))
        ctx.emit(PhaseStarted(phase="synthesis"))
        sections: list[str] = []
        removed = 0
        for index, (title, group) in enumerate(topics):
            if ctx.cancel.cancelled:
                rest = [s for _, later in topics[index:] for s in later]
                sections.append(evidence_answer(question, rest, intro=CANCELLED_INTRO))
                break  # ``rest`` is never empty: every topic holds at least one source
            focus = f"{question} (this section: {title})"
            user = build_prompt(focus, group, ctx.client.prompt_budget_chars)
            cited = finalise_reply(focus, ctx.client.complete("topic_section", SECTION_SYSTEM,
                                                              user), group)
            if cited.fallback:
                ctx.warn("synthesis_fallback", f"Model reply for topic {title!r} not usable "
                         f"({cited.fallback}); quoted its passages instead")
            removed += cited.removed_markers
            sections.append(f"### {title}\n\n{cited.text}")
        if removed:
            ctx.warn("invalid_citations",
                     f"Removed {removed} citation(s) to sources that do not exist")
        answer = "\n\n".join(sections)
        findings.append(Finding(phase="synthesis", question=question, content=answer))
        return StrategyOutcome(answer, sources, by_iteration, findings,
                               cancelled=ctx.cancel.cancelled)

    def _topics(self, question: str, sources: list[Source]) -> list[Topic]:
        """The model's grouping, cleaned; by document title when it is unusable."""
        ctx = self._ctx
        per_source = max(80, min(TOPIC_SNIPPET_CHARS, (ctx.client.prompt_budget_chars - 800)
                                 // len(sources)))
        blocks = [fence(" ".join(s.text.split())[:per_source], number=s.number, title=s.title)
                  for s in sources]
        user = ("Sources:\n\n" + "\n\n".join(blocks) + f"\n\nQuestion: {question}\n\n"
                "Group the sources into 2 to 5 topics. JSON:")
        reply = ctx.client.complete("topics", TOPICS_SYSTEM, user, max_tokens=TOPICS_TOKENS)
        by_number = {s.number: s for s in sources}
        parsed, unknown = _parse_topics(parse_json_lenient(reply), by_number)
        if unknown:
            ctx.warn("invalid_citations",
                     f"Dropped {unknown} topic source number(s) that do not exist")
        if not parsed:
            ctx.warn("topics_unusable",
                     "Could not use the model's topic grouping; grouped sources by document")
            parsed = _by_title(sources)
        return _bounded(parsed, sources)


def _parse_topics(value: Any, by_number: dict[int, Source]) -> tuple[list[Topic], int]:
    """Topics with known, not yet placed sources, and how many numbers were unknown."""
    entries = value.get("topics") if isinstance(value, dict) else value
    if not isinstance(entries, list):
        return [], 0
    topics: list[Topic] = []
    placed: set[int] = set()
    unknown = 0
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        title = _clean_title(entry.get("title"))
        numbers = entry.get("sources")
        if not title or not isinstance(numbers, list):
            continue
        group: list[Source] = []
        for raw in numbers:
            number = _as_int(raw)
            if number is None or number not in by_number:
                unknown += 1
            elif number not in placed:
                placed.add(number)
                group.append(by_number[number])
        if group:
            topics.append((title, group))
    return topics, unknown


def _as_int(raw: object) -> int | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str) and raw.strip().strip("[]").isdigit():
        return int(raw.strip().strip("[]"))
    return None


def _clean_title(raw: object) -> str:
    """A one-line heading: no Markdown or tag characters, short."""
    if not isinstance(raw, str):
        return ""
    title = re.sub(r"[#<>\[\]*_`]", "", " ".join(raw.split())).strip(" :-")
    return title if len(title) <= MAX_TITLE_CHARS else title[:MAX_TITLE_CHARS].rsplit(" ", 1)[0]


def _by_title(sources: list[Source]) -> list[Topic]:
    """One topic per distinct document title, in source order."""
    groups: dict[str, list[Source]] = {}
    for source in sources:
        short = re.split(r"\s[—–-]\s|\s\(", source.title)[0]  # "argparse — Command..."
        groups.setdefault(_clean_title(short) or OTHER_TOPIC, []).append(source)
    return list(groups.items())


def _bounded(topics: list[Topic], sources: list[Source]) -> list[Topic]:
    """At most MAX_TOPICS topics; sources no topic kept go to an ``Other`` topic."""
    kept = topics[:MAX_TOPICS]
    placed = {s.number for _, group in kept for s in group}
    if len(placed) < len(sources) and len(kept) >= MAX_TOPICS:
        kept = kept[: MAX_TOPICS - 1]
        placed = {s.number for _, group in kept for s in group}
    rest = [s for s in sources if s.number not in placed]
    if rest:
        other = next((g for t, g in kept if t.lower() == OTHER_TOPIC.lower()), None)
        if other is not None:
            other.extend(rest)
        else:
            kept.append((OTHER_TOPIC, rest))
    return kept
