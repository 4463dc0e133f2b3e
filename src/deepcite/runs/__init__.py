"""Runs: the application layer between the front ends and the research engine.

This package is the only place that turns a request into a stored, cancellable,
observable run. A front end (CLI, Python API, web app, MCP, queue worker, ``bench
run``) parses what it was given into a :class:`RunRequest` and admits it with
:func:`admit` - the one door, whose :class:`Door` says whose run it is (the local
user's, or one a server took from others) and so what is checked - then records and
runs what was admitted (:meth:`Admitted.record`, :meth:`Admitted.run`; or
:func:`execute` without a history) with a :class:`RunSink` for the events and a
:class:`CancelScope` to stop it; background runs go through a
:class:`RunExecutor` (:class:`deepcite.runs.local.LocalRunExecutor` in process, or the
queue). See ``docs/architecture.md``.

Submodules are imported by their own names (``deepcite.runs.local``,
``deepcite.runs.compare``, ``deepcite.runs.replay``) so importing this package stays
cheap; the names below are the layer's interface.
"""

from deepcite.runs.admission import Admitted, Door, admit
from deepcite.runs.cancel_scope import CancelScope
from deepcite.runs.execute import execute, run_recorded
from deepcite.runs.executor import EventBatch, RunExecutor, RunInfo, RunState
from deepcite.runs.parents import ParentError, parent_run
from deepcite.runs.recorder import Recorder
from deepcite.runs.request import RunBudget, RunRequest
from deepcite.runs.settings import checked_settings, settings_for_run
from deepcite.runs.sink import CallbackSink, NullSink, RunSink, tee

__all__ = ["Admitted", "CallbackSink", "CancelScope", "Door", "EventBatch", "NullSink",
           "ParentError", "Recorder", "RunBudget", "RunExecutor", "RunInfo", "RunRequest",
           "RunSink", "RunState", "admit", "checked_settings", "execute", "parent_run",
           "run_recorded", "settings_for_run", "tee"]
