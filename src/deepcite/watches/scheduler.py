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
   :class:`Sender` of its channel (:mod:`deepcite.watches.channels`); a
   :class:`~deepcite.errors.DeliveryError` is retried with backoff (never sooner than a
   webhook's ``Retry-After`` asks), and after ``delivery.max_attempts`` tries marked
   failed.

``deepcite serve`` runs one (with its executor: runs in process, or queued with
``queue.url``), and so does ``deepcite worker`` when ``queue.url`` is set; every one of
them may tick, since the store decides who does what. Senders come by injection (a
mapping channel name -> :class:`Sender`); by default those of every registered channel
(:func:`default_senders`). A retryable failure is tried again after the senders'
backoff (``delivery.backoff_base_seconds``, doubling); one that is not (a 4xx answer, a
refused login) is failed at once, with its error kept for the owner to see.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from deepcite.config import Settings
from deepcite.errors import ConfigError, DeepciteError, DeliveryError, ExportError, error_line
from deepcite.export import ExportOptions, export_report
from deepcite.store import HistoryStore
from deepcite.watches.channels import DeliveryTarget, Sender, parse_target, senders_from_settings
from deepcite.watches.delivery import next_attempt, retryable
from deepcite.watches.notice import Notice
from deepcite.watches.service import TickReport, WatchService

__all__ = ["Sender", "WatchScheduler", "default_senders", "deliver_due"]

logger = logging.getLogger(__name__)


def default_senders(settings: Settings, store: HistoryStore) -> Mapping[str, Sender]:
    """The senders of every channel for ``settings`` (email only with
    ``delivery.smtp_host``), webhooks signed with each watch's secret from ``store``.
    Settings they cannot use leave that process without senders, said once in the log:
    its deliveries wait for a process that has them, visibly pending."""
    try:
        return senders_from_settings(settings, secret_for=store.webhook_secret)
    except ConfigError as exc:
        logger.error("watch deliveries are not sent from this process: %s", error_line(exc))
        return {}


def deliver_due(store: HistoryStore, settings: Settings, senders: Mapping[str, Sender],
                now: datetime | None = None, *, watch_id: str | None = None
                ) -> list[tuple[int, str]]:
    """Send the deliveries due now (``watch_id``: that watch's only); ``(delivery id,
    status)`` for each one tried."""
    moment = now or datetime.now(UTC)
    backoff = settings.delivery
    attempts = backoff.max_attempts
    done: list[tuple[int, str]] = []
    for delivery in store.claim_due_deliveries(moment, watch_id=watch_id):
        sender = senders.get(delivery.kind)
        if sender is None:  # no sender for it in this process: leave it for one that has
            status = store.mark_delivery(delivery.id, "retry", max_attempts=attempts + 1,
                                         error=f"no {delivery.kind} sender configured here")
            done.append((delivery.id, status))
            continue
        try:
            target = parse_target({**delivery.target, "kind": delivery.kind})
            notice = Notice.model_validate(delivery.notice)
            sender.send(target, notice,
                        attachment=_attachment(store, settings, delivery.id, target, notice))
        except DeliveryError as exc:
            retry_at = (next_attempt(delivery.attempts, moment, backoff.backoff_base_seconds,
                                     attempts, max_seconds=backoff.backoff_max_seconds,
                                     not_before=_asked_wait(exc, moment))
                        if retryable(exc) else None)
            status = store.mark_delivery(delivery.id, "retry" if retry_at else "failed",
                                         error=error_line(exc), max_attempts=attempts,
                                         now=moment, retry_at=retry_at)
        except Exception as exc:  # a sender's bug must not stop the tick, nor retry forever
            logger.exception("delivery %d crashed", delivery.id)
            status = store.mark_delivery(delivery.id, "retry", error=error_line(exc),
                                         max_attempts=attempts)
        else:
            status = store.mark_delivery(delivery.id, "sent")
        done.append((delivery.id, status))
    return done


def _asked_wait(error: DeliveryError, moment: datetime) -> datetime | None:
    """The earliest next try the target asked for (``Retry-After``), or ``None``.

    Its seconds count from the answer, which came after ``moment`` (the tick's time,
    taken before the send): they are counted from the later of the two, so a retry is
    never sooner than the receiver asked, whatever clock the caller passed."""
    if error.retry_after is None:
        return None
    return max(moment, datetime.now(UTC)) + timedelta(seconds=error.retry_after)


def _attachment(store: HistoryStore, settings: Settings, delivery_id: int,
                target: DeliveryTarget, notice: Notice) -> tuple[str, bytes] | None:
    """The report attached for ``target`` (its channel's attachment format), if any.

    Sent to someone else, like a web download: a local document is named by its
    collection and file name (``collection:NAME/FILE``), never by the server's path
    (``ExportOptions.local_paths``, the web exports' own switch)."""
    fmt = target.attachment_format()
    if not fmt:
        return None
    try:
        stored = store.get(notice.run_id)
        exported = export_report(stored.result, fmt,
                                 ExportOptions.for_run(stored.settings, settings,
                                                       local_paths=False))
    except (DeepciteError, ExportError) as exc:
        logger.warning("delivery %d: no attachment: %s", delivery_id, error_line(exc))
        return None
    return exported.filename, exported.data


class WatchScheduler:
    """The background scheduler of one process (see the module docstring)."""

    def __init__(self, service: WatchService, *,
                 senders: Mapping[str, Sender] | None = None,
                 tick_seconds: float | None = None) -> None:
        self.service = service
        self.senders = (senders if senders is not None
                        else default_senders(service.settings, service.store))
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
