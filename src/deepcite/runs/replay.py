"""Replaying a stored run's citation verification offline, from what the store kept.

A run's citations are verified once, at its end (:meth:`deepcite.research.citation_step.
CitationStep.finish`): the answer the handler wrote, its markers resolved, goes through
:func:`deepcite.citations.verify.verify` against the run's sources with the run's
``citations.*`` settings. :func:`replay_verification` does that again with nothing but
the history: no search, no fetch, no model call. It shows that the stored verdicts
follow from the stored answer and source texts - and, after an edit to either (a
damaged or tampered history, a deepcite whose checks changed), what no longer does.

What is verified again, and against what:

* **The text.** The stored answer is what the run *left* after verification
  (unsupported citations removed or flagged, uncited sentences attributed, flagged
  passages and evidence appended), so it is not what was verified. The text that was
  is the run's ``synthesis`` finding - the handler's answer, kept verbatim with the
  run - and that is what is replayed. A run that ended before an answer was written
  (cancelled, out of budget, failed) answered with quoted passages and has no such
  finding; its passages are built again from the stored sources (the sources and their
  order are read from the stored answer's passage lines), which is the text its
  verification read. Only when even that is not possible (a passage's own citation
  was removed) is the stored answer verified again - inexact wherever verification
  removed or attribution added a citation. ``ReplayOutcome.verified_text`` says which
  text was used.
* **The sources.** Verification read each source's ``full_text`` when one was fetched,
  else its ``snippet`` (:attr:`deepcite.types.Source.text`); the store keeps both, so a
  snippet-only source is replayed against the very snippet the run checked. The
  user's own materials (engine ``user_material``) are replayed against the passages
  the run cited, which the store keeps by default; with ``store.keep_material_text =
  false`` it keeps none of their text, and their citations are checked only against
  the same materials handed in again (``materials``, matched as a follow-up matches
  them: :mod:`deepcite.runs.kept_materials`) - without them they replay as
  unsupported and the notes name each one. On PostgreSQL a NUL character in a
  source became U+FFFD (one for one, so offsets hold).
* **The settings.** The ``citations`` section of the run's settings snapshot, read with
  :class:`~deepcite.config.CitationSettings` (keys it does not know are ignored); keys
  the snapshot lacks - a run stored by an older deepcite - come from the ``settings``
  given (the current ones).
* **The model.** With the default ``citations.verify_with_model = false`` verification
  never calls a model, and the replay reproduces the stored counts and citation checks
  exactly. With it on, citations the cheap checks could not decide went to the model;
  the replay calls none - each such citation gets the verdict stored for it, which
  counts again only if its stored quote is still found verbatim in the source (the rule
  that made the model's verdict count in the first place). A model-decided citation
  with no stored verdict falls to verification's fallback rule, and shows as a
  difference.

Not replayed: attribution (``unsupported_sentences``), which runs after verification
and is not part of its counts. Detailed reports are refused: each part was verified
on its own, from a text the report does not keep.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from deepcite.citations.answer import evidence_answer
from deepcite.citations.markers import clean_markers
from deepcite.citations.verify import verify
from deepcite.config import CitationSettings, Settings
from deepcite.errors import DeepciteError, InputError, ModelError
from deepcite.materials import UserMaterial
from deepcite.research.citation_step import (
    citation_checks,
    verification_counts,
)
from deepcite.runs.kept_materials import missing_text, restore_material_text, unchecked_notice
from deepcite.store import ACTIVE
from deepcite.store.convert import USER_MATERIAL
from deepcite.store.read_models import StoredRun
from deepcite.text.frames import variants
from deepcite.types import CitationCheck, ResearchResult, Source, VerificationCounts

__all__ = [
    "ReplayDifference",
    "ReplayOutcome",
    "VerifiedText",
    "replay_verification",
    "stored_citation_settings",
    "verified_text",
]

#: Which text was verified again: the run's ``synthesis`` finding (the text its
#: verification read); for a run that ended early its quoted ``passages``, built again;
#: failing both, its stored ``answer``.
VerifiedText = Literal["synthesis", "passages", "answer"]
SYNTHESIS_PHASE = "synthesis"
#: The intros of the answers a run gives when it ends before one was written, in every
#: language of the frame (:mod:`deepcite.text.frames`).
EXIT_INTROS = tuple(intro for key in ("cancelled", "budget", "agent_budget", "error")
               for intro in variants(key))
#: A passage line of :func:`~deepcite.citations.answer.evidence_list`: its own citation
#: follows the closing quote (brackets inside the quote are escaped).
_PASSAGE_LINE = re.compile(r"^- \u201c.*\u201d \[(\d+)\]")
_SOURCE_ID = re.compile(r'<source id="(\d+)"')
_CLAIM = "\n\nClaim: "


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ReplayDifference(_Record):
    """One thing the replay found otherwise than the store has it.

    ``field`` is a dotted path: ``verification.supported``, ``citation_checks[2].outcome``,
    ``citation_checks[5]`` (a whole check only one side has), ``verification`` (one side
    has no counts). ``citation`` names the check (``[2] The sentence ...``).
    """

    field: str
    stored: str | None
    replayed: str | None
    citation: str | None = None

    def describe(self) -> str:
        """One line: where, and stored → replayed."""
        where = f"{self.field} ({self.citation})" if self.citation else self.field
        return f"{where}: {self.stored or 'none'} → {self.replayed or 'none'}"


class ReplayOutcome(_Record):
    """What :func:`replay_verification` found; ``matches`` when there is no difference.

    ``verification`` and ``citation_checks`` are the recomputed ones (``None``/empty
    when verification is off, the run has no sources, or verification failed);
    ``notes`` say what of this run the replay could not check as the run did.
    """

    run_id: str
    verified_text: VerifiedText
    citations: CitationSettings
    verification: VerificationCounts | None
    citation_checks: list[CitationCheck]
    stored_verification: VerificationCounts | None
    matches: bool
    differences: list[ReplayDifference]
    notes: list[str]


def stored_citation_settings(snapshot: Mapping[str, Any],
                             fallback: CitationSettings) -> CitationSettings:
    """The ``citations`` settings a run used: its snapshot's section, keys it does not
    know ignored, keys it lacks taken from ``fallback``.

    A value the section cannot hold (edited by hand, or written by another deepcite) is
    an :class:`~deepcite.errors.InputError` naming it.
    """
    section = snapshot.get("citations")
    known = CitationSettings.model_fields
    given = ({key: value for key, value in section.items() if key in known}
             if isinstance(section, Mapping) else {})
    try:
        return CitationSettings.model_validate({**fallback.model_dump(), **given})
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise InputError(f"The run's stored settings cannot be replayed (citations.{where}: "
                         f"{problem['msg']})") from None


def verified_text(result: ResearchResult) -> tuple[str, VerifiedText]:
    """The text the run's verification read, and where it comes from (see the module
    docstring): the last ``synthesis`` finding; for a run that ended early its quoted
    passages, built again from its sources; else the stored answer."""
    for finding in reversed(result.findings):
        if finding.phase == SYNTHESIS_PHASE:
            return finding.content, "synthesis"
    passages = _passages(result)
    if passages is not None:
        return passages, "passages"
    return result.answer, "answer"


def _passages(result: ResearchResult) -> str | None:
    """The quoted-passages answer of a run that ended early, as it was before
    verification; ``None`` when the stored answer is not one or its lines do not say
    which sources it quoted."""
    intro = next((i for i in EXIT_INTROS if result.answer.startswith(f"{i}\n\n")), None)
    if intro is None:
        return None
    lines = result.answer[len(intro) + 2:].split("\n\n", 1)[0].split("\n")
    by_number = {source.number: source for source in result.sources}
    quoted: list[Source] = []
    for line in lines:
        match = _PASSAGE_LINE.match(line)
        source = by_number.get(int(match.group(1))) if match else None
        if source is None:
            return None
        quoted.append(source)
    return evidence_answer(result.question, quoted, intro=intro)


class _StoredVerdicts:
    """A stand-in for the model that answers verification's ``verify`` calls with the
    verdicts the run stored: the citations whose check was decided by the model.

    Its reply is shaped like the model's (``VERDICT:``/``QUOTE:``), so verification
    applies its own rule to it: a verdict counts only with a quote found verbatim in
    the source. A call it has no verdict for fails like a failed model call, leaving
    the citation to the fallback rule.
    """

    prompt_budget_chars = 6600  # the largest excerpt verification would send

    def __init__(self, checks: list[CitationCheck]) -> None:
        self._verdicts = {(check.sentence, check.number): check
                          for check in checks if check.method == "model"}
        self.missing = 0

    def complete(self, purpose: str, system: str, user: str, *,
                 max_tokens: int | None = None,
                 enough: Callable[[str], bool] | None = None) -> str:
        number = _SOURCE_ID.match(user)
        claim = user.rsplit(_CLAIM, 1)[-1] if _CLAIM in user else None
        check = (self._verdicts.get((claim, int(number.group(1))))
                 if number and claim is not None else None)
        if purpose != "verify" or check is None:
            self.missing += 1
            raise ModelError("no stored verdict for this citation (offline replay)")
        if check.outcome == "unsupported" or not check.quote:
            return "VERDICT: UNSUPPORTED\nQUOTE: none"
        return f"VERDICT: {check.outcome.upper()}\nQUOTE: {' '.join(check.quote.split())}"


def replay_verification(stored: StoredRun, settings: Settings,
                        materials: Sequence[UserMaterial] = ()) -> ReplayOutcome:
    """Verify ``stored``'s answer again against its stored source texts, offline, and
    compare with the stored verification counts and citation checks.

    ``materials`` are the run's materials handed in again, for the cited passages the
    history keeps no text of (``store.keep_material_text = false``).

    ``settings`` fills in ``citations`` keys the run's snapshot lacks (see
    :func:`stored_citation_settings`). A detailed report, a document check, or a run
    with no result yet, is an :class:`~deepcite.errors.InputError`. See the module
    docstring for what is reproduced exactly and what cannot be.
    """
    result = stored.result
    short = stored.id[:8]
    if stored.mode == "detailed" or result.mode == "detailed":
        raise InputError(f"Run {short} is a detailed report: each of its parts was verified "
                         "on its own, from a text the history does not keep, so it cannot be "
                         "replayed offline (quick runs can)")
    if stored.mode == "check" or result.mode == "check":
        raise InputError(f"Run {short} is a document check: its verdicts come from "
                         "searching each claim, not from citations of an answer - check it "
                         f"again with `deepcite rerun {short}` (without --offline)")
    if stored.status in ACTIVE or not (result.answer or result.findings):
        raise InputError(f"Run {short} has no result to replay (status {stored.status})")
    cfg = stored_citation_settings(stored.settings, settings.citations)
    sources = restore_material_text(result.sources, materials)
    handed_in = [s.number for s, was in zip(sources, result.sources, strict=True)
                 if s.text and not was.text]
    result = result.model_copy(update={"sources": sources})
    text, origin = verified_text(result)
    notes: list[str] = []
    if "citations" not in stored.settings:
        notes.append("The run's settings hold no citations section; the current "
                     "citations settings were used")
    if origin == "passages":
        notes.append("The run ended before an answer was written: its quoted passages "
                     "were built again from the stored sources and verified")
    elif origin == "answer":
        notes.append("No synthesis finding is stored and the answer's passages cannot be "
                     "built again, so the stored answer was verified again: citations "
                     "verification removed or attribution added make it differ")
    if handed_in:
        notes.append(f"Source(s) {_listed(handed_in)} were checked against the materials "
                     "handed in again")
    missing = missing_text(result)
    uncited = [s.number for s in result.sources
               if s.engine == USER_MATERIAL and not s.text and s not in missing]
    if uncited:
        notes.append(f"Source(s) {_listed(uncited)} are the user's materials the run does "
                     "not cite: the history keeps no text of them, and no check needs it")
    if missing:
        notes.append(unchecked_notice(missing, where="the run") + "; they replay as "
                     "unsupported")

    replayed: VerificationCounts | None = None
    checks: list[CitationCheck] = []
    model = _StoredVerdicts(result.citation_checks) if cfg.verify_with_model else None
    if not cfg.verify:
        notes.append("Citation verification was off for this run (citations.verify)")
    elif not result.sources:
        notes.append("The run has no sources, so nothing was verified")
    else:
        answer, _ = clean_markers(text, {s.number for s in result.sources})
        try:
            checked = verify(answer, result.sources, model=model,
                             unsupported=cfg.unsupported)
        except DeepciteError as exc:
            notes.append(f"Verification failed ({exc})")
        else:
            replayed, checks = verification_counts(checked), citation_checks(checked)
    if model is not None:
        notes.append("Model verdicts were taken from the stored checks (no model was "
                     "called); each counted again only with its quote found in the source")
        if model.missing:
            notes.append(f"{model.missing} citation(s) the cheap checks left undecided have "
                         "no stored model verdict; the fallback rule decided them")

    # the history keeps no quote from a material it keeps no text of: nothing to compare
    unquoted = {s.number for s in stored.result.sources
                if s.engine == USER_MATERIAL and not s.text}
    differences = [*_count_differences(result.verification, replayed),
                   *_check_differences(result.citation_checks, checks, unquoted)]
    return ReplayOutcome(
        run_id=stored.id, verified_text=origin, citations=cfg, verification=replayed,
        citation_checks=checks, stored_verification=result.verification,
        matches=not differences, differences=differences, notes=notes)


def _listed(numbers: list[int]) -> str:
    return ", ".join(str(n) for n in numbers)


def _shown(value: object) -> str | None:
    return None if value is None else str(value)


def _count_differences(stored: VerificationCounts | None, replayed: VerificationCounts | None
                       ) -> list[ReplayDifference]:
    if stored is None and replayed is None:
        return []
    if stored is None or replayed is None:
        return [ReplayDifference(field="verification",
                                 stored=None if stored is None else "counted",
                                 replayed=None if replayed is None else "counted")]
    return [ReplayDifference(field=f"verification.{name}",
                             stored=_shown(getattr(stored, name)),
                             replayed=_shown(getattr(replayed, name)))
            for name in VerificationCounts.model_fields
            if getattr(stored, name) != getattr(replayed, name)]


def _label(check: CitationCheck) -> str:
    sentence = " ".join(check.sentence.split())
    return f"[{check.number}] {sentence if len(sentence) <= 60 else sentence[:59] + '…'}"


def _summary(check: CitationCheck) -> str:
    return f"{check.outcome} by {check.method}"


def _check_differences(stored: list[CitationCheck], replayed: list[CitationCheck],
                       unquoted: Collection[int] = ()) -> list[ReplayDifference]:
    """Position by position, as verification lists them (the answer's order); the
    quote of a check of an ``unquoted`` source (not stored) is not compared."""
    differences: list[ReplayDifference] = []
    for index in range(max(len(stored), len(replayed))):
        mine = stored[index] if index < len(stored) else None
        theirs = replayed[index] if index < len(replayed) else None
        if mine is None or theirs is None:
            known = mine or theirs
            assert known is not None
            differences.append(ReplayDifference(
                field=f"citation_checks[{index}]", citation=_label(known),
                stored=_summary(mine) if mine else None,
                replayed=_summary(theirs) if theirs else None))
            continue
        for name in CitationCheck.model_fields:
            if name == "quote" and mine.quote is None and mine.number in unquoted:
                continue
            if getattr(mine, name) != getattr(theirs, name):
                differences.append(ReplayDifference(
                    field=f"citation_checks[{index}].{name}", citation=_label(mine),
                    stored=_shown(getattr(mine, name)),
                    replayed=_shown(getattr(theirs, name))))
    return differences
