"""``deepcite serve``: the web app and REST API on a local port.

Binding to anything but a loopback address exposes the research runner (and the
history) to the network, so it is refused without a token or user accounts (``deepcite
users add``: then every route needs a user's login or personal token); on loopback
neither is needed. The web extra is imported only here, inside the command, so ``deepcite
--help`` works without it.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Annotated

import typer

from deepcite.cli.common import fail, settings_from, user_errors
from deepcite.security.hosts import is_loopback

TOKEN_ENV = "DEEPCITE_WEB_TOKEN"


def serve_command(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.", min=1, max=65535)] = 8765,
    workers: Annotated[int, typer.Option(help="Research runs at once; more wait in a queue.",
                                         min=1, max=64)] = 2,
    token: Annotated[str | None, typer.Option(
        help=f"Token the API and pages require (or set {TOKEN_ENV}); needed off loopback.")
    ] = None,
    folder_root: Annotated[list[Path] | None, typer.Option(
        "--folder-root", help="A server folder collections may be indexed from "
        "(repeatable).")] = None,
    allowed_host: Annotated[list[str] | None, typer.Option(
        "--allowed-host", help="Another name the server answers to, e.g. a reverse "
        "proxy's (repeatable; *.example.com for every name below it, * for any). "
        "Requests for other hosts get 421.")] = None,
) -> None:
    """Serve the web app and the REST API (/api/v1)."""
    token = token or os.environ.get(TOKEN_ENV) or None
    roots = []
    for root in folder_root or []:
        if not root.is_dir():
            fail(f"--folder-root {root} is not a folder", 2)
        roots.append(str(root.resolve()))
    try:
        from deepcite.runs import RunExecutor
        from deepcite.runs.build import warm_up
        from deepcite.runs.heap import limit_malloc_arenas
        from deepcite.runs.local import LocalRunExecutor
        from deepcite.web.app import create_app
        from deepcite.web.contracts import WebState
        from deepcite.web.front_door import allowed_hosts_for, bad_allowed_host
        from deepcite.web.serving import serve_app
    except ImportError as exc:
        fail(f"The web app needs the web extra ({exc.name} is missing): "
             "pip install 'deepcite[web]'")
    for entry in allowed_host or []:
        problem = bad_allowed_host(entry)
        if problem:
            fail(problem, 2)
    limit_malloc_arenas()  # before the executor's threads: see deepcite.runs.heap
    with user_errors():
        settings = settings_from({})
        executor: RunExecutor
        if settings.queue.url:
            from deepcite.runs.queue.executor import QueueExecutor

            executor = QueueExecutor(settings)  # runs go to `deepcite worker` processes
        else:
            executor = LocalRunExecutor(settings, workers=workers)
        if not is_loopback(host) and not token and not executor.store.has_users():
            executor.shutdown()
            fail(f"Serving on {host} exposes deepcite to the network: add user accounts "
                 f"(deepcite users add NAME --admin) or set a token with --token or "
                 f"{TOKEN_ENV}", 2)
    # Never empty: the app answers only the names it is bound to (DNS rebinding).
    state = WebState(settings=settings, executor=executor, token=token,
                     folder_roots=tuple(roots),
                     allowed_hosts=allowed_hosts_for(host, allowed_host or []))
    # Watches run on this server's executor (queued for workers with queue.url); the
    # store's claims make one process run each due watch, however many serve.
    from deepcite.watches.scheduler import WatchScheduler
    from deepcite.watches.service import WatchService

    service = WatchService(executor.store, settings, executor)
    state.on_settings.append(service.use_settings)  # the settings page's saved changes
    scheduler = WatchScheduler(service)
    scheduler.start()
    # SIGTERM and SIGINT alike: no new runs, running ones cancelled and stored with
    # their events and partial results, then exit 0 (see deepcite.web.serving).
    # Runs in this process (no queue): the demo index and the model are made ready
    # while the server waits, so the first question does not pay for them.
    warm = None if settings.queue.url else functools.partial(warm_up, settings)
    serve_app(create_app(state), executor, host=host, port=port, on_stop=scheduler.stop,
              on_start=warm)
