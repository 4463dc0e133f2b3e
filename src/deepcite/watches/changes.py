"""What changed since a watch's previous run, built on :func:`deepcite.runs.compare.
compare_runs`.

A watch cares about what is *new* or *worse*: sources that appeared or vanished, claims
the answer makes for the first time, claims whose support weakened (supported to
partial) or was lost (to unsupported), and claims the answer no longer makes. A claim
the answer no longer makes because the document it cited was edited so that it no longer
holds the claim is one whose support weakened or was lost, not merely one no longer made
(:func:`_recheck_dropped`): an answer built from the sources' own sentences (the bundled
model's) cannot repeat a sentence its source lost, so that is how such a claim shows. Sources
both runs cite are mapped by number (the previous run's [3] is this run's [5]), so a
reader can follow a claim across runs. A change with none of these is "nothing new":
its summary is one line, ``Nothing new since <date>``, and senders may send that line
alone instead of the whole report again.

A change is read by others - the notice's email, webhook and feed, the watch's page - so
a local document's URL in it is the one a web download gives it, ``collection:NAME/FILE``,
never a path on the server (:func:`_shown_urls`: the exports' own
:func:`~deepcite.export.base.without_local_paths`); the runs are compared by their real
URLs first.

The Markdown is inert: every title, URL and sentence is one line and escaped
(:func:`~deepcite.citations.text.escape_quoted`), so a document cannot add headings,
links or citations of its own to a notice.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TypeVar

from pydantic import BaseModel, ConfigDict

from deepcite.citations.markers import clean_markers
from deepcite.citations.support import SourceIndex
from deepcite.citations.text import escape_quoted
from deepcite.runs.compare import (
    ClaimChange,
    ClaimRef,
    KeptSource,
    RunComparison,
    SourceRef,
    VerdictChange,
    compare_runs,
)
from deepcite.security.terminal import one_line
from deepcite.store import StoredRun
from deepcite.store.watch_records import WatchInfo, utc_minute
from deepcite.types import CitationOutcome
from deepcite.watches.notice import Notice

__all__ = ["WatchChange", "build_notice", "change_markdown", "watch_change"]

_RANK: dict[CitationOutcome, int] = {"supported": 2, "partial": 1, "unsupported": 0}


class WatchChange(BaseModel):
    """What one run of a watch found compared with the watch's previous completed run
    (``previous_run_id`` ``None``: the first run, which has nothing to compare with)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    previous_run_id: str | None = None
    #: When the previous run was made (the "since" of the summary).
    since: datetime | None = None
    new_sources: list[SourceRef] = []
    vanished_sources: list[SourceRef] = []
    #: Sources both runs cite: the previous run's number and this run's.
    kept_sources: list[KeptSource] = []
    new_claims: list[ClaimRef] = []
    #: Supported before, partly supported now.
    weakened_claims: list[ClaimChange] = []
    #: Supported or partly supported before, unsupported now.
    lost_support: list[ClaimChange] = []
    #: Made before, not made now (each source it cited unchanged, or gone).
    dropped_claims: list[ClaimRef] = []
    #: Better supported now than before.
    strengthened_claims: list[ClaimChange] = []
    #: A watch of a document check: the claims whose verdict is not what it was (or
    #: that only one of the two checks has).
    verdicts_changed: list[VerdictChange] = []
    #: The first run: its sources and claims, for the summary.
    sources: int = 0
    claims: int = 0

    @property
    def first(self) -> bool:
        return self.previous_run_id is None

    @property
    def nothing_new(self) -> bool:
        """Nothing a reader needs to see: no source or claim came, went or got worse."""
        return not self.first and not (
            self.new_sources or self.vanished_sources or self.new_claims
            or self.weakened_claims or self.lost_support or self.dropped_claims
            or self.verdicts_changed)

    @property
    def renumbered(self) -> list[KeptSource]:
        return [kept for kept in self.kept_sources if kept.renumbered]

    def summary(self) -> str:
        """The one line every notice starts with."""
        if self.first:
            return (f"First run: {_count(self.sources, 'source')}, "
                    f"{_count(self.claims, 'cited claim')}")
        if self.nothing_new:
            return f"Nothing new since {_when(self.since)}"
        parts = []
        if self.new_sources:
            parts.append(_count(len(self.new_sources), "new source"))
        if self.vanished_sources:
            parts.append(_count(len(self.vanished_sources), "source", "sources") + " gone")
        if self.new_claims:
            parts.append(_count(len(self.new_claims), "new claim"))
        if self.lost_support:
            count = len(self.lost_support)
            parts.append(_count(count, "claim") + (" lost its support" if count == 1
                                                   else " lost their support"))
        if self.weakened_claims:
            parts.append(_count(len(self.weakened_claims), "claim") + " weakened")
        if self.dropped_claims:
            parts.append(_count(len(self.dropped_claims), "claim") + " no longer made")
        if self.verdicts_changed:
            parts.append(_count(len(self.verdicts_changed), "verdict") + " changed")
        return ", ".join(parts) + f" since {_when(self.since)}"


def watch_change(previous: StoredRun | None, current: StoredRun) -> WatchChange:
    """The change from ``previous`` (the watch's previous completed run; ``None`` for
    its first) to ``current``."""
    if previous is None:
        claims = {check.sentence for check in current.result.citation_checks}
        return WatchChange(run_id=current.id, sources=len(current.result.sources),
                           claims=len(claims) or len(current.result.claims))
    cmp = compare_runs(previous, current)
    weakened, lost, stronger = [], [], []
    for claim in cmp.claims_changed:
        before, after = _RANK[claim.a_support], _RANK[claim.b_support]
        if claim.b_support == "unsupported":
            lost.append(claim)
        elif after < before:
            weakened.append(claim)
        else:
            stronger.append(claim)
    dropped = []
    for gone in cmp.claims_lost:
        rechecked = _recheck_dropped(gone, previous, current, cmp)
        if rechecked is None:
            dropped.append(gone)
        else:
            (lost if rechecked.b_support == "unsupported" else weakened).append(rechecked)
    shown_before, shown_now = _shown_urls(previous), _shown_urls(current)
    return WatchChange(
        run_id=current.id, previous_run_id=previous.id, since=previous.created_at,
        new_sources=[_shown(s, shown_now) for s in cmp.sources_gained],
        vanished_sources=[_shown(s, shown_before) for s in cmp.sources_lost],
        kept_sources=[_shown(s, shown_now) for s in cmp.sources_kept],
        new_claims=cmp.claims_gained,
        weakened_claims=weakened, lost_support=lost, dropped_claims=dropped,
        strengthened_claims=stronger, verdicts_changed=cmp.verdicts_changed,
        sources=cmp.b.sources,
        claims=len(cmp.claims_changed) + len(cmp.claims_gained) + cmp.claims_unchanged)


def _shown_urls(run: StoredRun) -> dict[str, str]:
    """Each local source URL of ``run`` as a download from the web app names it
    (``collection:NAME/FILE``), by :func:`~deepcite.export.base.without_local_paths`
    itself, so a watch and an export never name one document two ways."""
    from deepcite.export.base import without_local_paths

    shown = without_local_paths(run.result).sources
    return {source.url: other.url
            for source, other in zip(run.result.sources, shown, strict=True)
            if source.url != other.url}


_Ref = TypeVar("_Ref", SourceRef, KeptSource)


def _shown(ref: _Ref, urls: dict[str, str]) -> _Ref:
    return ref.model_copy(update={"url": urls[ref.url]}) if ref.url in urls else ref


def _recheck_dropped(claim: ClaimRef, previous: StoredRun, current: StoredRun,
                     cmp: RunComparison) -> ClaimChange | None:
    """A claim ``current`` no longer makes, checked against what its sources say now: a
    :class:`ClaimChange` when every source it cited that ``current`` still has was
    edited and none of them holds the claim as well as before; ``None`` (merely no
    longer made) when a source it cited is unchanged, or none is left to check."""
    before = {source.number: source for source in previous.result.sources}
    now = {source.number: source for source in current.result.sources}
    text, _ = clean_markers(claim.sentence, ())
    verdicts: list[CitationOutcome] = []
    numbers: list[int] = []
    for number in claim.numbers:
        mapped = cmp.b_number(number)
        old, new = before.get(number), now.get(mapped) if mapped is not None else None
        if old is None or new is None or mapped is None:
            continue  # the source is gone: said as such, nothing to check it against
        if old.text == new.text:
            return None  # it still says what it said: the claim was just not repeated
        numbers.append(mapped)
        verdicts.append(SourceIndex(new.text).check(text).outcome or "unsupported")
    if not verdicts:
        return None
    best = max(verdicts, key=lambda verdict: _RANK[verdict])
    if _RANK[best] >= _RANK[claim.support]:
        return None
    return ClaimChange(sentence=claim.sentence, a_support=claim.support, b_support=best,
                       a_numbers=claim.numbers, b_numbers=sorted(numbers))


def change_markdown(change: WatchChange, *, name: str, question: str) -> str:
    """``change`` as Markdown: the summary, then each kind of change, claim by claim."""
    lines = [f"# {_safe(name)}: {_safe(change.summary())}", "",
             f"Question: {_safe(question)}", ""]
    if change.first:
        lines += ["The first run of this watch: later runs say what changed since it."]
        return "\n".join(lines).rstrip() + "\n"
    if change.nothing_new:
        lines += [f"The sources and claims are those of the run of {_when(change.since)}."]
        return "\n".join(lines).rstrip() + "\n"

    def sources(heading: str, refs: list[SourceRef]) -> None:
        if refs:
            lines.extend([f"## {heading}", ""])
            lines.extend(f"- [{s.number}] {_safe(s.title)} ({_safe(s.url)})" for s in refs)
            lines.append("")

    def changed(heading: str, claims: list[ClaimChange]) -> None:
        if claims:
            lines.extend([f"## {heading}", ""])
            lines.extend(f"- \u201c{_safe(c.sentence)}\u201d: {c.a_support} "
                         f"{_numbers(c.a_numbers)} \u2192 {c.b_support} "
                         f"{_numbers(c.b_numbers)}" for c in claims)
            lines.append("")

    def made(heading: str, claims: list[ClaimRef]) -> None:
        if claims:
            lines.extend([f"## {heading}", ""])
            lines.extend(f"- \u201c{_safe(c.sentence)}\u201d: {c.support} "
                         f"{_numbers(c.numbers)}" for c in claims)
            lines.append("")

    sources("New sources", change.new_sources)
    sources("Sources gone (numbers of the previous run)", change.vanished_sources)
    made("New claims", change.new_claims)
    changed("Claims that lost their support", change.lost_support)
    changed("Claims whose support weakened", change.weakened_claims)
    made("Claims no longer made (numbers of the previous run)", change.dropped_claims)
    changed("Claims better supported now", change.strengthened_claims)
    if change.verdicts_changed:
        lines.extend(["## Verdicts changed (previous \u2192 now)", ""])
        lines.extend(f"- \u201c{_safe(v.text)}\u201d: {v.a_verdict or 'not in the document'} "
                     f"\u2192 {v.b_verdict or 'no longer in the document'}"
                     + (f" ({_safe(v.b_note)})" if v.b_note else "")
                     for v in change.verdicts_changed)
        lines.append("")
    if change.renumbered:
        lines.extend(["## Sources renumbered (previous \u2192 now)", ""])
        lines.extend(f"- [{k.a_number}] \u2192 [{k.b_number}] {_safe(k.title)}"
                     for k in change.renumbered)
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def build_notice(watch: WatchInfo, change: WatchChange, *, created_at: datetime | None = None,
                 url: str | None = None) -> Notice:
    """The notice every delivery target of ``watch`` gets for ``change``."""
    question = watch.question
    return Notice(watch_id=watch.id, watch_name=watch.name, run_id=change.run_id,
                  previous_run_id=change.previous_run_id, question=question,
                  created_at=created_at or datetime.now(UTC), summary=change.summary(),
                  nothing_new=change.nothing_new,
                  changes_markdown=change_markdown(change, name=watch.name,
                                                   question=question),
                  url=url)


def _count(count: int, singular: str, plural: str | None = None) -> str:
    return f"{count} {singular if count == 1 else plural or singular + 's'}"


def _when(moment: datetime | None) -> str:
    return utc_minute(moment) if moment is not None else "the previous run"


def _safe(text: str) -> str:
    return escape_quoted(one_line(text))


def _numbers(numbers: list[int]) -> str:
    return "".join(f"[{n}]" for n in numbers) or "-"
