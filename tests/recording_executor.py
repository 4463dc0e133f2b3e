"""A run executor that records what reaches it and runs nothing, for the web tests
that check what a route hands on (the front door, the upload form)."""

from __future__ import annotations

from datetime import UTC, datetime

from deepcite.config import Settings, load_settings
from deepcite.runs import EventBatch, RunInfo, RunRequest, RunState
from deepcite.store import HistoryStore


class RecordingExecutor:
    """Keeps every submitted request and cancel; every run reads as ``state``."""

    def __init__(self, state: RunState = "queued") -> None:
        self.requests: list[RunRequest] = []
        self.cancelled: list[str] = []
        self._state: RunState = state
        self._store: HistoryStore | None = None

    @property
    def store(self) -> HistoryStore:
        """The history the routes read (the test's own, isolated data folder)."""
        if self._store is None:
            self._store = HistoryStore.open(load_settings())
        return self._store

    def submit(self, request: RunRequest) -> str:
        self.requests.append(request)
        return f"run{len(self.requests)}"

    def use_settings(self, settings: Settings) -> None:
        self.settings = settings

    def cancel(self, run_id: str) -> bool:
        self.cancelled.append(run_id)
        return True

    def status(self, run_id: str) -> RunInfo:
        return RunInfo(id=run_id, question="q", mode="quick", state=self._state,
                       created_at=datetime.now(UTC))

    def events(self, run_id: str, after: int = 0, timeout: float = 0.0) -> EventBatch:
        return EventBatch([], finished=False)

    def drain(self) -> None:
        pass

    def shutdown(self) -> None:
        pass
