"""Running a stored run again: its request, with the settings it was made with.

A stored run keeps what is needed to make it again: its request (without the user's
materials, which the history never keeps), the settings snapshot (without secrets),
and through its sources and citation checks the texts it cited. :func:`rerun_plan`
turns that back into a request and settings on this machine - the snapshot over the
local settings, secrets, data folder and store from here (:func:`~deepcite.store.
snapshot.restore_settings`) - and says what cannot be the same: materials that were
handed in, and of course the web, which answers differently over time.
``deepcite rerun ID`` runs the plan and ``deepcite compare`` shows what changed.

The plan names the stored run's parent by id and no more: like any run, a rerun is
admitted (:func:`deepcite.runs.admission.admit`) before it is recorded, and admission
reads and checks the parent - as the local user's run from the command line and the
Python API, with the rights of whoever asks on a server.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from deepcite.config import Settings
from deepcite.errors import InputError
from deepcite.runs.request import RunRequest, per_run_setting
from deepcite.store import StoredRun
from deepcite.store.convert import USER_MATERIAL
from deepcite.store.snapshot import restore_settings

__all__ = ["RerunPlan", "rerun_plan"]


@dataclass(frozen=True)
class RerunPlan:
    """What a rerun of a stored run will do, and what it cannot repeat."""

    #: The stored run's request; its ``parent_id`` names the run it followed up.
    request: RunRequest
    settings: Settings
    notes: list[str] = field(default_factory=list)


def rerun_plan(stored: StoredRun, local: Settings) -> RerunPlan:
    """The request and settings that make ``stored`` again on this machine (its
    parent, if any, is read and checked when the run is admitted)."""
    notes: list[str] = []
    kept = dict(stored.request or {"question": stored.result.question, "mode": stored.mode})
    if stored.request is None:
        notes.append("This run was stored before requests were kept: it is run again "
                     "from its question, mode and settings")
    parent = kept.get("parent_id")
    if parent is not None and parent != stored.parent_id:
        kept["parent_id"] = stored.parent_id
    try:
        request = RunRequest.parse(**kept)
    except InputError as exc:
        raise InputError(f"Run {stored.id[:8]} cannot be run again: {exc}") from None
    materials = [s for s in stored.result.sources if s.engine == USER_MATERIAL]
    if materials:
        notes.append(f"The run cited {len(materials)} material(s) of yours; the history "
                     "keeps only their cited passages (or none), so the rerun goes "
                     "without them - hand them in again with `deepcite ask -m FILE`")
    settings = restore_settings(stored.settings, local)
    request = request.model_copy(update={"settings": {
        **_per_run_differences(settings, local), **request.settings}})
    return RerunPlan(request, settings, notes)


def _per_run_differences(made_with: Settings, local: Settings) -> dict[str, Any]:
    """The per-run settings (:data:`~deepcite.runs.request.PER_RUN_SETTINGS`) the run was
    made with that differ from this machine's: carried in the request, so an executor
    that starts from its own settings (the web app's pool, the queue) makes the same run."""
    ours, theirs = local.model_dump(mode="json"), made_with.model_dump(mode="json")
    changed: dict[str, Any] = {}
    for section in ("research", "report", "citations", "search"):
        for key, value in theirs.get(section, {}).items():
            dotted = f"{section}.{key}"
            if per_run_setting(dotted) and ours.get(section, {}).get(key) != value:
                changed[dotted] = value
    return changed
