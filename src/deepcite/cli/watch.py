"""``deepcite watch``: questions researched again on a schedule, and what changed.

``add`` stores a watch (its request checked as a run's would be) and prints its id and
feed token, once; ``list`` and ``show`` read them (``show`` prints the latest change);
``run`` runs one now, in this process, prints its change and sends its deliveries;
``pause``, ``resume`` and ``rm`` do what they say. Where a watch delivers is given per
channel (:mod:`deepcite.watches.channels`): ``--email`` and ``--webhook``, or
``--deliver CHANNEL=VALUE`` for any channel, a plugin's included. Ids are given as for
runs: the full
id or a unique prefix of 4+ characters. The command line sees every watch (as it sees
every run). Scheduled runs are made by ``deepcite serve`` (or ``deepcite worker`` with
``queue.url``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from deepcite.cli.common import err, fail, out, settings_from, user_errors
from deepcite.runs import RunRequest
from deepcite.security.terminal import one_line
from deepcite.types import ReportMode

if TYPE_CHECKING:
    from deepcite.store.watch_records import DeliveryInfo

watch_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None,
                        help="Questions researched again on a schedule.")


@contextmanager
def _service() -> Iterator[Any]:
    """The watch service over the configured store, closed when the block ends."""
    from deepcite.store import HistoryStore
    from deepcite.watches.service import WatchService

    settings = settings_from({})
    with HistoryStore.open(settings) as store:
        yield WatchService(store, settings)


@watch_app.command("add")
def add_command(
    question: Annotated[str, typer.Argument(help="The question to research each time.")],
    every: Annotated[str | None, typer.Option(
        "--every", help="Run every 30m, 6h, 1d, 2w (at least 1 minute).")] = None,
    cron: Annotated[str | None, typer.Option(
        "--cron", help="Run on a 5-field cron expression, in UTC (\"0 6 * * 1-5\").")] = None,
    manual: Annotated[bool, typer.Option(
        "--manual", help="Run only when asked (deepcite watch run ID).")] = False,
    name: Annotated[str | None, typer.Option(help="A name (default: the question).")] = None,
    mode: Annotated[ReportMode, typer.Option(help="quick or detailed.")] = "quick",
    document: Annotated[Path | None, typer.Option(
        "--document", help="Check this document claim by claim each time (a document "
        "check, docs/check.md) instead of researching QUESTION, which then names the "
        "watch; the text is read now and kept with the watch.")] = None,
    collection: Annotated[list[str] | None, typer.Option(
        "--collection", "-c", help="Search this collection (repeatable).")] = None,
    engine: Annotated[list[str] | None, typer.Option(
        "--engine", "-e", help="Search this engine (repeatable).")] = None,
    strategy: Annotated[str | None, typer.Option(help="Research strategy.")] = None,
    provider: Annotated[str | None, typer.Option(help="LLM provider.")] = None,
    model: Annotated[str | None, typer.Option(help="Model name for the provider.")] = None,
    email: Annotated[list[str] | None, typer.Option(
        "--email", help="Send each change to this address (repeatable).")] = None,
    attach: Annotated[str, typer.Option(
        help="Export format attached to emails, or none.")] = "markdown",
    webhook: Annotated[list[str] | None, typer.Option(
        "--webhook", help="POST each change to this URL (repeatable).")] = None,
    deliver: Annotated[list[str] | None, typer.Option(
        "--deliver", metavar="CHANNEL=VALUE", help="Send each change on a delivery channel "
        "(repeatable): email=ADDRESS, webhook=URL, or a plugin channel's.")] = None,
    max_runs_per_day: Annotated[int | None, typer.Option(
        help="Runs this watch may start in 24 hours.", min=1, max=10_000)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Watch a question: store it with a schedule and where to send what changes."""
    chosen = [given for given in (every and f"every {every.removeprefix('every ').strip()}",
                                  cron, "on demand" if manual else None) if given]
    if len(chosen) != 1:
        fail("Give one schedule: --every 6h, --cron \"0 6 * * *\" or --manual", 2)
    given: dict[str, list[str]] = {"email": list(email or []), "webhook": list(webhook or [])}
    for item in deliver or []:
        channel, equals, value = item.partition("=")
        if not equals or not channel.strip():
            fail(f"--deliver takes CHANNEL=VALUE (email=ann@example.org), not {item!r}", 2)
        given.setdefault(channel.strip(), []).append(value.strip())
    with user_errors():
        from deepcite.watches.channels import targets_from_input

        checked: dict[str, object] = {"mode": mode}
        if document is not None:
            from deepcite.factcheck import read_document

            checked = {"mode": "check", "document": {"text": read_document(document),
                                                     "filename": document.name}}
        request = RunRequest.parse(question=question, collections=collection or [],
                                   engines=engine or [], strategy=strategy, provider=provider,
                                   model=model, origin="cli", **checked)
        targets = targets_from_input(given, attach=None if attach.lower() == "none"
                                     else attach)
        with _service() as service:
            watch, token = service.add(request, chosen[0], targets=targets, name=name,
                                       max_runs_per_day=max_runs_per_day)
            secret = service.store.webhook_secret(watch.id) or ""
    from deepcite.watches.service import feed_path

    if as_json:
        out.print_json(json.dumps({**watch.model_dump(mode="json"), "feed_token": token,
                                   "feed_path": feed_path(token), "webhook_secret": secret}))
        return
    out.print(Text(f"Watch {watch.id[:8]} added: {one_line(watch.name)} ({watch.schedule}"
                   + (f", next {_when(watch.next_run_at)}" if watch.next_run_at else "")
                   + ")"))
    out.print(Text(f"Atom feed (shown once; `deepcite watch feed {watch.id[:8]}` makes a new "
                   f"one): {feed_path(token)} on the server"))
    if any(target.signed for target in targets):
        out.print(Text(f"Webhook secret (checks X-Deepcite-Signature): {secret}"))


@watch_app.command("list")
def list_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List the watches, newest first."""
    with user_errors(), _service() as service:
        watches = service.list()
    if as_json:
        out.print_json(json.dumps([w.model_dump(mode="json") for w in watches]))
        return
    if not watches:
        out.print(Text("No watches yet - `deepcite watch add QUESTION --every 1d`"))
        return
    table = Table("id", "name", "schedule", "status", "next run", "last run")
    for watch in watches:
        table.add_row(watch.id[:8], Text(one_line(watch.name)), watch.schedule, watch.status,
                      _when(watch.next_run_at), _when(watch.last_run_at))
    out.print(table)


#: Outbox rows ``watch show`` prints, newest first.
_DELIVERIES_SHOWN = 5


@watch_app.command("show")
def show_command(
    watch: Annotated[str, typer.Argument(help="Watch id or a unique prefix.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Show a watch and the latest change it found."""
    with user_errors(), _service() as service:
        view = service.view(watch)
        targets = service.targets(view.watch)
        runs = service.store.watch_runs(view.watch.id, limit=10)
        deliveries = service.store.deliveries(view.watch.id, limit=_DELIVERIES_SHOWN)
    found = view.watch
    if as_json:
        out.print_json(json.dumps({
            **found.model_dump(mode="json"),
            "runs": [r.model_dump(mode="json") for r in runs],
            "deliveries": [d.model_dump(mode="json") for d in deliveries]}))
        return
    out.print(Text(f"Watch {found.id} - {one_line(found.name)}"))
    out.print(Text(f"Question: {one_line(found.question)}"))
    out.print(Text(f"Schedule: {found.schedule} ({found.status}); next run "
                   f"{_when(found.next_run_at)}"))
    for target in targets:
        out.print(Text(f"Delivers to: {target.channel()} {one_line(target.where())}"))
    for delivery in deliveries:
        out.print(Text(_delivery_line(delivery)))
    latest = view.latest
    if latest is not None and latest.status == "refused":  # said first: it is news
        out.print(Text(f"{one_line(latest.summary or latest.error or 'Not run')} "
                       f"(latest slot {_when(latest.finished_at)})"))
        latest = next((run for run in runs if run.status in ("done", "failed")), None)
    if latest is None:
        out.print(Text("No run has finished yet - `deepcite watch run "
                       f"{found.id[:8]}` runs it now"))
        return
    out.print(Text(f"Latest run {(latest.run_id or '-')[:8]} ({_when(latest.created_at)}): "
                   f"{one_line(latest.summary or '')}"))
    if latest.changes_markdown and not latest.nothing_new:
        out.print("")
        out.print(latest.changes_markdown, markup=False)


@watch_app.command("run")
def run_command(
    watch: Annotated[str, typer.Argument(help="Watch id or a unique prefix.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Run a watch now, in this process, and print what changed since its last run."""
    with user_errors(), _service() as service:
        err.print(Text(f"Running watch {watch} ..."))
        done = service.run_here(watch)
        sent = _deliver(service, done.watch_id)
    if sent:
        err.print(Text(sent))
    if as_json:
        out.print_json(json.dumps(done.model_dump(mode="json")))
        return
    out.print(Text(f"Run {(done.run_id or '-')[:8]}: {one_line(done.summary or '')}"))
    if done.changes_markdown and not done.nothing_new:
        out.print("")
        out.print(done.changes_markdown, markup=False)
    if done.status == "failed":
        raise typer.Exit(1)


#: How an outbox row's status reads, in the order a summary of several names them.
_DELIVERY_STATES = {"sent": "sent", "pending": "to be retried", "failed": "failed"}


def _where(kind: str, data: dict[str, Any]) -> str:
    """Where a queued delivery sends, as its channel says (an email's addresses, a
    webhook's URL); empty when its channel is gone or its target no longer reads."""
    from deepcite.errors import InputError
    from deepcite.watches.channels import parse_target

    try:
        return parse_target({**data, "kind": kind}).where()
    except InputError:
        return ""


def _delivery_line(delivery: DeliveryInfo) -> str:
    """One outbox row: where, how it stands, after how many tries, and why not yet."""
    state = _DELIVERY_STATES[delivery.status]
    where = _where(delivery.kind, delivery.target)
    line = (f"Delivery {delivery.id} ({delivery.kind} {where}): {state} after "
            f"{delivery.attempts} tr{'y' if delivery.attempts == 1 else 'ies'}")
    if delivery.status == "pending" and delivery.next_attempt_at is not None:
        line += f", next {_when(delivery.next_attempt_at)}"
    if delivery.last_error and delivery.status != "sent":
        line += f" - {delivery.last_error}"
    return one_line(line)


def _deliver(service: Any, watch_id: str) -> str:
    """Send what the run just queued for ``watch_id`` (email, webhooks) from here, so a
    watch run from the command line is delivered without a server running; one line
    saying how it went (empty with no targets). What fails stays in the outbox, retried
    by ``serve`` or a worker and shown by ``watch show``."""
    from deepcite.watches.scheduler import default_senders, deliver_due

    tried = deliver_due(service.store, service.settings,
                        default_senders(service.settings, service.store), watch_id=watch_id)
    if not tried:
        return ""
    counts = Counter(status for _, status in tried)
    parts = [f"{counts[status]} {word}" for status, word in _DELIVERY_STATES.items()
             if counts[status]]
    return f"Deliveries: {', '.join(parts)}" + (
        " - `deepcite watch show` says why" if counts["pending"] or counts["failed"] else "")


def _set_state(watch: str, *, pause: bool) -> None:
    with user_errors(), _service() as service:
        changed = service.pause(watch) if pause else service.resume(watch)
    state = "paused" if changed.status == "paused" else (
        f"active, next run {_when(changed.next_run_at)}")
    out.print(Text(f"Watch {changed.id[:8]}: {state}"))


@watch_app.command("pause")
def pause_command(watch: Annotated[str, typer.Argument(help="Watch id or prefix.")]) -> None:
    """Stop running a watch on its schedule."""
    _set_state(watch, pause=True)


@watch_app.command("resume")
def resume_command(watch: Annotated[str, typer.Argument(help="Watch id or prefix.")]) -> None:
    """Run a paused watch on its schedule again, from its next slot."""
    _set_state(watch, pause=False)


@watch_app.command("feed")
def feed_command(watch: Annotated[str, typer.Argument(help="Watch id or prefix.")]) -> None:
    """Make a new address for the watch's Atom feed (the old one stops working)."""
    from deepcite.watches.service import feed_path

    with user_errors(), _service() as service:
        token = service.rotate_feed_token(watch)
    out.print(Text(f"Atom feed (shown once): {feed_path(token)} on the server"))


@watch_app.command("rm")
def rm_command(watch: Annotated[str, typer.Argument(help="Watch id or prefix.")]) -> None:
    """Delete a watch (its runs stay in the history)."""
    with user_errors(), _service() as service:
        removed = service.remove(watch)
    out.print(Text(f"Deleted watch {removed[:8]}; its runs stay in the history."))


def _when(moment: datetime | None) -> str:
    from deepcite.store.watch_records import utc_minute

    return utc_minute(moment) if moment is not None else "-"
