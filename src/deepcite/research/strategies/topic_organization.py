"""Search like the default strategy, then group the sources into topics and write the
answer topic by topic.

A broad question ("How do I parse command line arguments?") has several distinct
answers (argparse, getopt, sys.argv); one paragraph over ten sources blurs them. Here
the model first groups the registered sources into a few topics (one short JSON call),
then writes one section per topic seeing only that topic's sources, which keeps each
prompt small enough for small models and each citation close to its passage. Every
section is written by the standard handler in the citation step, so every marker
resolves to the source numbering. Model calls stay bounded: the search calls, one grouping
call, at most five sections, each within the run's budget (when only one call is
left, one answer over all sources is written instead).

Sections are the standard handler's shape. The precision and forced handlers answer in
their own shape - one confirmed short fact, one definite guess - so with them this
strategy gives that one answer over all its sources, without grouping them: a short
fact per topic would repeat the same fact under several headings.
"""

from __future__ import annotations

import re
from typing import Any

from deepcite.citations.answer import evidence_answer
from deepcite.citations.handlers import AnswerStyle
from deepcite.citations.share import cut_note, share_texts
from deepcite.llm.parsing import parse_json_lenient
from deepcite.research.context import StrategyOutcome
from deepcite.research.iterative_search import IterativeSearch
from deepcite.research.steps import iteration_findings, select_sources
from deepcite.research.strategies.base import SearchLoopStrategy
from deepcite.security.fencing import UNTRUSTED_NOTICE, fence
from deepcite.text.frames import frame_for
from deepcite.types import Finding, Source

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
#: The standard handler's answer, shaped as one section of a longer answer.
SECTION_STYLE = AnswerStyle(purpose="topic_section", system=SECTION_SYSTEM)

Topic = tuple[str, list[Source]]


class TopicOrganizationStrategy(SearchLoopStrategy[IterativeSearch]):
    """Iterative search, then sources grouped into topics, one cited section each."""

    name = "topic-organization"
    description = "Iterative search, then an answer organised into cited topic sections."

    #: The grouping of the sources into topics, then the sections.
    answer_steps = 2

    def _search_loop(self) -> IterativeSearch:
        return IterativeSearch(self._ctx)

    def run(self, question: str) -> StrategyOutcome:
        ctx = self._ctx
        self._search.run(question)
        by_iteration = self.by_iteration
        sources = self._step.with_pinned(
            select_sources(ctx, question, self._search.result_lists))
        findings = iteration_findings(question, by_iteration)
        if ctx.cancel.cancelled or not sources or not self._step.handler.follows_strategy:
            # The exits, and the handlers that give one answer: the shared step decides.
            return self._step.answer(question, sources, by_iteration, findings)
        if not ctx.budget_left(model_calls=2):  # no call for grouping and a section
            return self._step.answer(question, sources, by_iteration, findings)

        ctx.phase("topics")
        topics = self._topics(question, sources)
        findings.append(Finding(phase="topics", question=question, content="\n".join(
            f"{title}: {', '.join(str(s.number) for s in group)}" for title, group in topics)))
        ctx.phase("synthesis")
        answer, cancelled = self._sections(question, topics)
        findings.append(Finding(phase="synthesis", question=question, content=answer))
        return StrategyOutcome(answer, sources, dict(by_iteration), findings,
                               cancelled=cancelled)

    def _sections(self, question: str, topics: list[Topic]) -> tuple[str, bool]:
        """One cited section per topic; the topics left when the run is cancelled or its
        budget is spent are given as quoted passages. Returns the text and whether the
        run was cancelled."""
        ctx = self._ctx
        sections: list[str] = []
        for index, (title, group) in enumerate(topics):
            rest = [s for _, later in topics[index:] for s in later]  # never empty
            if ctx.cancel.cancelled:
                sections.append(evidence_answer(question, rest,
                                                intro=frame_for("cancelled", question)))
                return "\n\n".join(sections), True
            if not ctx.budget_left(model_calls=1):
                sections.append(evidence_answer(question, rest,
                                                intro=frame_for("budget", question)))
                break
            focus = f"{question} (this section: {title})"
            cited = self._step.write(focus, group, style=SECTION_STYLE)
            if cited is None:  # cancelled while the model wrote this section
                sections.append(evidence_answer(question, rest,
                                                intro=frame_for("cancelled", question)))
                return "\n\n".join(sections), True
            self._step.report(cited, f"for topic {title!r}")
            sections.append(f"### {title}\n\n{cited.text}")
        return "\n\n".join(sections), False

    def _topics(self, question: str, sources: list[Source]) -> list[Topic]:
        """The model's grouping, cleaned; by document title when it is unusable."""
        ctx = self._ctx
        # the sources' one fair share of the prompt (citations.share), as every writer's
        texts = [" ".join(s.text.split()) for s in sources]
        overheads = [len(fence("", number=s.number, title=s.title)) + 2 for s in sources]
        share = share_texts(texts, ctx.client.prompt_budget_chars - 800, floor=80,
                            ceiling=TOPIC_SNIPPET_CHARS, overheads=overheads)
        blocks = [fence(text, number=s.number, title=s.title)
                  for s, text in zip(sources, share.texts, strict=False)]
        note = cut_note(share, len(sources))
        user = ("Sources:\n\n" + "\n\n".join(blocks) + (f"\n\n{note}" if note else "")
                + f"\n\nQuestion: {question}\n\nGroup the sources into 2 to 5 topics. JSON:")
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
    text = raw.strip().strip("[]") if isinstance(raw, str) else ""
    # isdecimal: exactly what int() reads (isdigit also takes "²"); the length bounds
    # what int() will convert at all
    if text.isdecimal() and len(text) <= 9:
        return int(text)
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
