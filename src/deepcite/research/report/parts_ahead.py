"""A detailed report's parts researched ahead of their writing, several at a time.

Only the searching runs ahead (:meth:`~deepcite.research.Researcher.gather`): nothing
is numbered there, and each part is then written in outline order from what was found
for it (:mod:`deepcite.research.report.builder`), so sources are numbered as they would be
one part after another, and every writer still sees the parts before it.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future, ThreadPoolExecutor

from deepcite.research import Researcher
from deepcite.research.brief import Gathered, RunBrief
from deepcite.research.cancel_token import CancelToken

logger = logging.getLogger(__name__)


class PartsAhead:
    """Parts researched ahead of their writing, at most ``workers`` at a time
    (``report.parallel_parts``; 1 researches each part when it is written).

    Only the searching runs ahead (:meth:`Researcher.gather`): nothing is numbered
    there, and each part is then written in outline order from what was found for it,
    so sources are numbered as they would be one part after another, and every writer
    still sees the parts before it. The report's budget counts the searches wherever
    they run; ``cancel`` stops them.
    """

    def __init__(self, researcher: Researcher, workers: int, cancel: CancelToken) -> None:
        self._researcher = researcher
        self._cancel = cancel
        self._pool = (ThreadPoolExecutor(max_workers=workers,
                                         thread_name_prefix="deepcite-part")
                      if workers > 1 else None)
        self._futures: dict[int, Future[Gathered | None]] = {}

    def start(self, index: int, query: str, brief: RunBrief) -> None:
        """Start researching part ``index`` (nothing when it searches nothing)."""
        if self._pool is None or brief.search_queries == ():
            return
        self._futures[index] = self._pool.submit(self._researcher.gather, query,
                                                 brief=brief, cancel=self._cancel)

    def result(self, index: int) -> Gathered | None:
        """What was found for part ``index``; ``None`` when it was not researched ahead
        (or that failed): its run then searches itself."""
        future = self._futures.pop(index, None)
        if future is None:
            return None
        try:
            return future.result()
        except Exception:  # a bug in one part's search must not end the report
            logger.exception("researching a part ahead failed")
            return None

    def stop(self) -> None:
        """Stop what is still running or waiting (the report ended early)."""
        if self._pool is None:
            return
        if self._futures:
            self._cancel.cancel()
        self._pool.shutdown(wait=False, cancel_futures=True)


__all__ = ["PartsAhead"]

