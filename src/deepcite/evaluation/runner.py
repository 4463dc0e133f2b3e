"""``deepcite bench run``: every question through the real research pipeline, resumably.

Each question is asked on a fresh :class:`~deepcite.research.Researcher` (its own source
numbering, its own cost counters), scored, graded when a judge is given, and appended
to ``results.jsonl`` as one line, flushed and synced before the next one is counted. So
a Ctrl-C, a crash or a killed machine loses at most the questions in flight, and
running the same command again skips every question already in the file (questions
whose run raised are asked again). ``config.json`` records what produced the folder;
resuming with other settings is refused, because one folder with two configurations
would average them into figures that describe neither.

Questions run ``parallel`` at a time (threads: the work is waiting on models and
searches; the bundled llama.cpp model serialises its own calls). Cancelling stops the
runs in flight at their next step and writes nothing for them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from deepcite._version import __version__
from deepcite.build_once import BuildLock, build_once, lock_file
from deepcite.collections import Collection
from deepcite.config import Settings
from deepcite.errors import CollectionError, DeepciteError, InputError
from deepcite.evaluation.bench_schema import (
    CONFIG_FILE,
    RESULTS_FILE,
    SUMMARY_FILE,
    BenchConfig,
    Dataset,
    EvalItem,
    QuestionResult,
)
from deepcite.evaluation.datasets import write_documents
from deepcite.evaluation.judge import Judge, Verdict
from deepcite.evaluation.metrics import holds_answer
from deepcite.evaluation.scoring import failed, score
from deepcite.evaluation.summary import summarise
from deepcite.runs import CancelScope, RunRequest, execute
from deepcite.store.snapshot import REDACTED_KEY, settings_snapshot

logger = logging.getLogger(__name__)

#: Chunks searched per gold answer when checking whether a collection holds it.
GOLD_CHECK_HITS = 20
#: Settings that describe where things live, not how questions are answered: they may
#: differ between the first run and a resume (another machine, another data dir).
_PLACE_KEYS = frozenset({"data_dir", REDACTED_KEY})

OnResult = Callable[[QuestionResult], None]


def dataset_collection(dataset: Dataset, settings: Settings,
                       progress: Callable[[int, int], None] | None = None) -> str:
    """Index the dataset's own documents as a collection (once) and return its name.

    The name carries a hash of the documents, so another file (or an edited one) gets
    its own collection and an unchanged one is reused without re-reading.
    """
    digest = hashlib.sha1()
    for doc in dataset.documents:
        digest.update(f"{doc.name}\0{doc.title}\0{doc.text}\0".encode())
    stem = "".join(c if c.isalnum() else "-" for c in dataset.name.lower()).strip("-")
    name = f"bench-{stem[:40] or 'dataset'}-{digest.hexdigest()[:8]}"
    collection = Collection.create(name, settings=settings)
    folder = settings.data_dir / "bench-documents" / name

    def find() -> str | None:
        return name if collection.info().documents == len(dataset.documents) else None

    def build() -> str:
        # Under the lock: another bench process must not rewrite the files mid-add.
        write_documents(dataset.documents, folder)
        collection.add(folder, None if progress is None else
                       (lambda step: progress(step.done, step.total)))
        return name

    lock = BuildLock(lock_file(folder), what=f"the bench collection {name!r}",
                     error=CollectionError)
    return build_once(lock, find, build)


def _fingerprint(config: BenchConfig) -> dict[str, Any]:
    settings = {k: v for k, v in config.settings.items() if k not in _PLACE_KEYS}
    return {"dataset": config.dataset, "sample": config.sample, "settings": settings,
            "judge": config.judge}


def prepare_folder(folder: Path, config: BenchConfig) -> dict[str, QuestionResult]:
    """Create or reopen a results folder; the questions it already finished, by id.

    Raises :class:`InputError` when the folder holds a run of another configuration.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"Cannot create the results folder {folder}: {exc.strerror} - "
                         f"pass another -o folder") from exc
    config_file = folder / CONFIG_FILE
    if config_file.exists():
        try:
            stored = BenchConfig.model_validate_json(config_file.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise InputError(f"{config_file} is not a deepcite bench config - pass another "
                             f"-o folder or delete it") from exc
        if _fingerprint(stored) != _fingerprint(config):
            differ = sorted(k for k, v in _fingerprint(stored).items()
                            if _fingerprint(config)[k] != v)
            raise InputError(f"{folder} holds results of another configuration ({', '.join(differ)}"
                             f" differ) - pass another -o folder, or delete it to start over")
    else:
        config_file.write_text(config.model_dump_json(indent=2) + "\n", encoding="utf-8")
    _end_last_line(folder / RESULTS_FILE)
    return {r.id: r for r in read_results(folder) if r.error is None}


def _end_last_line(path: Path) -> None:
    """End a line cut by a kill, so the next result starts a line of its own (the cut
    one is skipped when read)."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb+") as file:
        file.seek(-1, os.SEEK_END)
        if file.read(1) != b"\n":
            file.write(b"\n")


def read_results(folder: Path) -> list[QuestionResult]:
    """The valid lines of ``results.jsonl`` (a line cut by a kill is skipped), last wins."""
    path = folder / RESULTS_FILE
    if not path.exists():
        return []
    found: dict[str, QuestionResult] = {}
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            try:
                result = QuestionResult.model_validate_json(line)
            except ValueError:
                continue
            found.pop(result.id, None)
            found[result.id] = result
    return list(found.values())


def write_summary(folder: Path) -> dict[str, Any]:
    """(Re)write ``summary.json`` from every result in the folder; return it."""
    summary = summarise(read_results(folder))
    (folder / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


@dataclass
class Outcome:
    """What one ``run`` call did: questions asked now, found done, and whether it was
    cancelled before the end."""

    asked: int = 0
    already_done: int = 0
    cancelled: bool = False
    results: list[QuestionResult] = field(default_factory=list)


class BenchRunner:
    """Runs ``items`` with ``settings`` into ``folder`` (see the module docstring)."""

    def __init__(self, settings: Settings, items: Sequence[EvalItem], folder: Path,
                 config: BenchConfig, *, judge: Judge | None = None, parallel: int = 1,
                 on_result: OnResult | None = None, own_documents: bool = False) -> None:
        if parallel < 1:
            raise InputError(f"--parallel must be at least 1, not {parallel}")
        self.settings = settings
        self.items = list(items)
        self.folder = folder
        self.config = config
        self.judge = judge
        self.parallel = parallel
        self.on_result = on_result
        #: The collection searched is the dataset's own documents, so the dataset's
        #: ``answerable`` says whether the answer is in it (SQuAD: always).
        self.own_documents = own_documents
        self._cancelled = threading.Event()
        self._lock = threading.Lock()
        self._active: set[CancelScope] = set()
        self._collections: list[Collection] | None = None
        self._done: dict[str, QuestionResult] | None = None

    def cancel(self) -> None:
        """Stop: no new question starts, and the runs in flight stop at their next step."""
        self._cancelled.set()
        with self._lock:
            active = list(self._active)
        for scope in active:
            scope.cancel()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def prepare(self) -> int:
        """Create or reopen the folder (see :func:`prepare_folder`); how many of the
        questions are already done. ``run`` calls it when it was not called."""
        self._done = prepare_folder(self.folder, self.config)
        return sum(item.id in self._done for item in self.items)

    def run(self) -> Outcome:
        """Ask every question not yet in the folder; returns when all are done or cancelled."""
        if self._done is None:
            self.prepare()
        done = self._done or {}
        todo = [(i, item) for i, item in enumerate(self.items) if item.id not in done]
        outcome = Outcome(already_done=len(self.items) - len(todo))
        with (self.folder / RESULTS_FILE).open("a", encoding="utf-8") as sink, \
                ThreadPoolExecutor(self.parallel, thread_name_prefix="bench") as pool:
            pending: set[Future[QuestionResult | None]] = set()
            queue = iter(todo)
            while True:
                while len(pending) < self.parallel and not self.cancelled:
                    nxt = next(queue, None)
                    if nxt is None:
                        break
                    pending.add(pool.submit(self._ask, *nxt))
                if not pending:
                    break
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    result = future.result()
                    if result is not None:
                        self._append(sink, result)
                        outcome.asked += 1
                        outcome.results.append(result)
                        if self.on_result is not None:
                            self.on_result(result)
        outcome.cancelled = self.cancelled and outcome.asked < len(todo)
        write_summary(self.folder)
        return outcome

    def _append(self, sink: IO[str], result: QuestionResult) -> None:
        sink.write(result.model_dump_json() + "\n")
        sink.flush()
        os.fsync(sink.fileno())

    def _ask(self, index: int, item: EvalItem) -> QuestionResult | None:
        """One question; ``None`` when it was cancelled (nothing is written for it)."""
        if self.cancelled:
            return None
        started = time.perf_counter()
        scope = CancelScope()
        with self._lock:
            self._active.add(scope)
        if self.cancelled:
            scope.cancel()
        try:
            request = RunRequest.parse(question=item.question, origin="bench")
            result = execute(request, self.settings, cancel=scope)
        except DeepciteError as exc:
            return failed(item, index, str(exc), seconds=time.perf_counter() - started)
        except Exception as exc:  # one question's crash is recorded; the run goes on
            logger.exception("question %s failed", item.id)
            return failed(item, index, f"{type(exc).__name__}: {exc}",
                          seconds=time.perf_counter() - started)
        finally:
            with self._lock:
                self._active.discard(scope)
        seconds = time.perf_counter() - started
        if result.cancelled:
            return None
        verdict: Verdict | None = None
        if self.judge is not None and result.error is None:
            verdict = self.judge.grade(item.question, item.answers, result.answer)
        return score(item, index, result, seconds=seconds, verdict=verdict,
                     gold_in_collection=self._gold_in_collection(item))

    def _gold_in_collection(self, item: EvalItem) -> bool | None:
        """Whether a searched collection answers the question (a chunk holding a gold
        answer among the question's words); the dataset's say without collections."""
        if self.own_documents and item.answerable is not None:
            return item.answerable
        collections = self._open_collections()
        if not collections:
            return item.answerable
        for collection in collections:
            for answer in item.answers:
                try:
                    hits = collection.search(answer, GOLD_CHECK_HITS)
                except CollectionError:
                    continue
                if any(holds_answer(hit.snippet, item.question, [answer]) for hit in hits):
                    return True
        return False

    def _open_collections(self) -> list[Collection]:
        with self._lock:
            if self._collections is None:
                self._collections = [Collection.open(name, settings=self.settings)
                                     for name in self.settings.search.collections]
            return self._collections


def bench_config(settings: Settings, dataset: Dataset, dataset_path: Path,
                 sample: dict[str, Any], *, label: str | None, judge: Judge | None
                 ) -> BenchConfig:
    """The ``config.json`` of a run with ``settings`` over ``dataset``."""
    llm = settings.llm
    strategy = settings.research.strategy
    model = llm.model or ("bundled" if llm.provider in {"auto", "local"} else "default")
    return BenchConfig(
        label=label or f"{strategy} · {llm.provider}:{model}",
        dataset=dataset_path.name, dataset_format=dataset.format, sample=sample,
        strategy=strategy, provider=llm.provider, model=model,
        judge=judge.name if judge else None,
        collections=list(settings.search.collections),
        settings=settings_snapshot(settings),
        deepcite_version=__version__, created=time.time())
