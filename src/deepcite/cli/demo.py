"""``deepcite collection demo``: build the bundled demo collection's index now.

Without it the first ``deepcite ask ... -c demo`` of a fresh data dir renders Python's
documentation and indexes it before it can answer (seconds the user spends looking at
a question that seems stuck). ``make setup`` runs this after installing, so the first
question finds the index ready. The progress shown is the build's own: documents
rendered, then files indexed, each with its real count; a second call finds the index
current and does nothing.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from deepcite.cli.common import err, out, settings_from, user_errors, warn
from deepcite.collections import AddProgress, display_path
from deepcite.collections.demo import built_by, demo_built_by, ensure_demo_collection


def demo_command(
    rebuild: Annotated[bool, typer.Option(
        "--rebuild", help="Build it again even when it is current.")] = False,
) -> None:
    """Build the bundled demo collection (Python's own documentation, offline) into the
    data dir, so the first question on it does not wait; nothing to do when it is
    already built by this Python and this deepcite."""
    built = False
    started = time.perf_counter()
    with user_errors():
        settings = settings_from({})
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=err, transient=True) as bar:
            task = bar.add_task("Checking the demo collection", total=None)

            def on_build() -> None:
                nonlocal built
                built = True
                bar.update(task, description="Building the demo collection")

            def on_wait() -> None:
                bar.update(task, description="Waiting for another process building the "
                                             "demo collection")

            def on_render(done: int, total: int) -> None:
                bar.update(task, total=total, completed=done,
                           description="Writing Python's documentation")

            def on_index(step: AddProgress) -> None:
                bar.update(task, total=step.total, completed=step.done,
                           description=f"Indexing {display_path(Path(step.path.name))}")

            collection = ensure_demo_collection(
                settings, on_index, on_build, rebuild=rebuild, on_render=on_render,
                on_notice=warn, on_wait=on_wait)
        info = collection.info()
        stamp = demo_built_by(collection) or "not stamped"
    sizes = f"{info.documents} documents, {info.chunks} chunks"
    if built:
        out.print(f"Demo collection built: {sizes} in {time.perf_counter() - started:.1f} s "
                  f"({built_by()}), in {display_path(info.path)}", markup=False,
                  highlight=False)
    else:
        out.print(f"Demo collection already built: {sizes} ({stamp}) - nothing to do; "
                  "--rebuild builds it again", markup=False, highlight=False)
