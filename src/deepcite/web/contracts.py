"""What the web app's routes get: the settings (swapped whole when the settings page saves
a change), the executor, the access rules, the collections' indexing jobs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from deepcite.config import Settings
from deepcite.runs.executor import RunExecutor
from deepcite.web.collection_jobs import IndexJobs


@dataclass
class WebState:
    """What every route gets: the settings, the executor and the access rules.

    ``token`` is required for the API (``Authorization: Bearer ...``) and as the pages'
    login password when the server binds to a non-loopback address; ``None`` on
    loopback. ``folder_roots`` are the server folders collections may be added from.

    ``allowed_hosts`` are the ``Host`` names the server answers (the forms are in
    :mod:`deepcite.web.front_door`); others get 421, so a DNS-rebound page cannot read it.
    Empty means no host check - for in-process test clients; ``deepcite serve`` always
    passes its bind address's names (:func:`deepcite.web.front_door.allowed_hosts_for`).

    ``jobs`` is the collections' background indexing, one for the app: the pages and the
    API's uploads start and see the same jobs.
    """

    settings: Settings
    executor: RunExecutor
    token: str | None = None
    folder_roots: tuple[str, ...] = ()
    allowed_hosts: tuple[str, ...] = ()
    jobs: IndexJobs = field(default_factory=IndexJobs)
    #: Told of new settings after the executor (``deepcite serve`` adds its watch
    #: service, whose watch runs are admitted with them).
    on_settings: list[Callable[[Settings], None]] = field(default_factory=list)

    def use_settings(self, settings: Settings) -> None:
        """Serve with ``settings`` from now on: routes read :attr:`settings` per request
        and the executor admits new runs with them, so a change saved on the settings
        page takes effect without a restart. Runs already going keep their snapshot;
        what the server reads only at start (:func:`deepcite.config.needs_restart`) is
        for the caller to have left as it was (:func:`deepcite.config.with_current`)."""
        self.executor.use_settings(settings)
        for listener in self.on_settings:
            listener(settings)
        self.settings = settings
