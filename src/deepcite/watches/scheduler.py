"""The scheduler: one APScheduler interval job that keeps every watch going.

Each tick (``watches.tick_seconds``, 30 by default; the first at start, so a watch missed
while everything was down runs once as soon as a process is back):

1. claims the watches due now and submits their runs (:meth:`WatchService.submit_due`:
   the store's compare-and-set lets one process claim each due slot, however many web
   processes and workers tick at once);
2. finishes the watch runs whose runs have ended: the change stored, notices queued
   (:meth:`WatchService.finish_ended`, once per run however many processes see it end);
3. sends the deliveries that are due, each leased by one process
   (:meth:`~deepcite.store.HistoryStore.claim_due_deliveries`), through the
   :class:`Sender` registered for its kind; a :class:`~deepcite.errors.DeliveryError` is
   retried with backoff, and after ``delivery.max_attempts`` tries marked failed.

``deepcite serve`` runs one (with its executor: runs in process, or queued with
``queue.url``), and so does ``deepcite worker`` when ``queue.url`` is set; every one of
them may tick, since the store decides who does what. Senders come by injection (a
mapping kind -> :class:`Sender`); by default those of ``deepcite.watches.delivery``
(``senders(settings)``), or none when that package is not there.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

from deepcite.config import Settings
from deepcite.errors import DeepciteError, DeliveryError, ExportError, error_line
from deepcite.export import ExportOptions, export_report
from deepcite.store import HistoryStore
from deepcite.store.watch_records import DeliveryInfo
from deepcite.watches.notice import DeliveryTarget, Notice
from deepcite.watches.service import TARGETS, TickReport, WatchService

__all__ = ["Sender", "WatchScheduler", "default_senders", "deliver_due"]

logger = logging.getLogger(__name__)


class Sender(Protocol):
    """Sends one notice to one target; raises :class:`~deepcite.errors.DeliveryError`
    when it could not (the outbox tries again later)."""

    def send(self, target: DeliveryTarget, notice: Notice, *,
             attachment: tuple[str, bytes] | None) -> None: ...


def default_senders(settings: Settings) -> Mapping[str, Sender]:
    """The senders of ``deepcite.watches.delivery`` (its ``senders(settings)``), or none
    when it is not installed yet."""
    try:  # built on another branch: by name, so this works before and after it lands
        delivery = importlib.import_module("deepcite.watches.delivery")
    except ImportError:
        return {}
    make = getattr(delivery, "senders", None)
    if not callable(make):
        return {}
    made: Mapping[str, Sender] = make(settings)
    return made


def deliver_due(store: HistoryStore, settings: Settings, senders: Mapping[str, Sender],
                now: datetime | None = None) -> list[tuple[int, str]]:
    """Send the deliveries due now; ``(delivery id, status)`` for each one tried."""
    moment = now or datetime.now(UTC)
    attempts = settings.delivery.max_attempts
    done: list[tuple[int, str]] = []
    for delivery in store.claim_due_deliveries(moment):
        sender = senders.get(delivery.kind)
        if sender is None:  # no sender for it in this process: leave it for one that has
            status = store.mark_delivery(delivery.id, "retry", max_attempts=attempts + 1,
                                         error=f"no {delivery.kind} sender configured here")
            done.append((delivery.id, status))
            continue
        try:
            target = TARGETS.validate_python([delivery.target])[0]
            notice = Notice.model_validate(delivery.notice)
            sender.send(target, notice, attachment=_attachment(store, settings, delivery))
        except DeliveryError as exc:
            status = store.mark_delivery(delivery.id, "retry", error=error_line(exc),
                                         max_attempts=attempts)
        except Exception as exc:  # a sender's bug must not stop the tick, nor retry forever
            logger.exception("delivery %d crashed", delivery.id)
            status = store.mark_delivery(delivery.id, "retry", error=error_line(exc),
                                         max_attempts=attempts)
        else:
            status = store.mark_delivery(delivery.id, "sent")
        done.append((delivery.id, status))
    return done


def _attachment(store: HistoryStore, settings: Settings, delivery: DeliveryInfo
                ) -> tuple[str, bytes] | None:
    """The report attached to an email target (its ``attach`` format), if any."""
    fmt = delivery.target.get("attach") if delivery.kind == "email" else None
    if not fmt:
        return None
    try:
        stored = store.get(str(delivery.notice["run_id"]))
        exported = export_report(stored.result, str(fmt),
                                 ExportOptions.for_run(stored.settings, settings))
    except (DeepciteError, ExportError) as exc:
        logger.warning("delivery %d: no attachment: %s", delivery.id, error_line(exc))
        return None
    return exported.filename, exported.data


class WatchScheduler:
    """The background scheduler of one process (see the module docstring)."""

    def __init__(self, service: WatchService, *,
                 senders: Mapping[str, Sender] | None = None,
                 tick_seconds: float | None = None) -> None:
        self.service = service
        self.senders = (senders if senders is not None
                        else default_senders(service.settings))
        self.tick_seconds = tick_seconds or service.settings.watches.tick_seconds
        self._scheduler: Any = None
        self._lock = threading.Lock()

    def tick(self, now: datetime | None = None) -> TickReport:
        """One round: due watches submitted, ended runs finished, deliveries sent."""
        with self._lock:  # one tick at a time in this process
            report = TickReport()
            for step in (lambda: self.service.submit_due(now, report),
                         lambda: self.service.finish_ended(report),
                         lambda: deliver_due(self.service.store, self.service.settings,
                                             self.senders, now)):
                try:
                    step()
                except DeepciteError as exc:  # the store or queue is away: next tick
                    logger.warning("watch scheduler: %s", error_line(exc))
                except Exception:
                    logger.exception("watch scheduler tick failed")
            return report

    def start(self) -> None:
        """Tick now and then every ``tick_seconds`` on a background thread."""
        from apscheduler.schedulers.background import BackgroundScheduler

        scheduler = BackgroundScheduler(timezone=UTC, daemon=True)
        scheduler.add_job(self.tick, "interval", seconds=self.tick_seconds,
                          id="deepcite-watches", max_instances=1, coalesce=True,
                          next_run_time=datetime.now(UTC), misfire_grace_time=None)
        scheduler.start()
        self._scheduler = scheduler
        logger.info("watch scheduler started (every %.0f s)", self.tick_seconds)

    def stop(self, *, wait: bool = True) -> None:
        """Stop ticking; with ``wait``, let a tick in progress end first."""
        scheduler, self._scheduler = self._scheduler, None
        if scheduler is not None:
            scheduler.shutdown(wait=wait)

    @property
    def running(self) -> bool:
        return self._scheduler is not None
