"""Adding to an ``elasticsearch`` collection: index into the SQLite file, then mirror.

The SQLite file stays the record of what was indexed; the cluster holds a copy that
searches go to. What is still owed to the cluster is written down in the file, so an
add that fails or is interrupted leaves a record of exactly what to send next time.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from deepcite.collections.index import Index, elastic
from deepcite.collections.index.elastic import ElasticIndex
from deepcite.collections.indexer import IndexReport, ProgressCallback, add_to_index
from deepcite.config import Settings


def add_mirrored(index: Index, remote: ElasticIndex, inputs: list[Path],
                 progress: ProgressCallback | None, settings: Settings,
                 refuse_hard_links: bool = False) -> IndexReport:
    """Index ``inputs`` into ``index``, then mirror the changed documents to ``remote``.

    What is still owed to the cluster is recorded first as "everything" (so a crash
    leads to a full re-send next time) and, when the add or the mirroring fails or
    is interrupted, as exactly the documents concerned.
    """
    pending = elastic.load_pending(index)
    if not remote.exists():  # first use, or the index was deleted on the cluster
        remote.create()
        pending = None
    elastic.store_pending(index, None)
    changed: set[str] = set()
    search = settings.search
    try:
        report = add_to_index(index, inputs, progress,
                              target_tokens=search.chunk_tokens,
                              overlap_tokens=search.chunk_overlap_tokens,
                              on_change=changed.add,
                              refuse_hard_links=refuse_hard_links)
        remote.mirror(index, None if pending is None else pending | changed)
    except BaseException:
        owed = None if pending is None else pending | changed
        with contextlib.suppress(sqlite3.Error):  # else "*" stays: all is re-sent
            elastic.store_pending(index, owed)
        raise
    elastic.store_pending(index, set())
    return report
