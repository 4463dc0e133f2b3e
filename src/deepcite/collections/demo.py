"""The ``demo`` collection: Python's own documentation, built offline on first use.

A new user should be able to try deepcite without downloading anything or pointing it
at their files. Every Python installation carries two bodies of real documentation: the
language reference topics in ``pydoc_data.topics`` and the docstrings of the standard
library, which ``pydoc`` renders as plain text. Both are written as ``.txt`` files into
``<data_dir>/demo-src`` (so the indexed files exist and citations point at something
a user can open) and indexed like any folder.
"""

from __future__ import annotations

import importlib
import logging
import pydoc
import re
import warnings
from pathlib import Path
from types import ModuleType

from deepcite.collections.access import DamagedCollectionError, can_write, read_only_error
from deepcite.collections.collection import Collection, collection_path, remove_collection
from deepcite.collections.indexer import ProgressCallback
from deepcite.config import Settings

logger = logging.getLogger(__name__)

DEMO_NAME = "demo"

DEMO_MODULES: tuple[str, ...] = (
    "argparse", "getopt", "optparse", "shlex", "sys", "os", "os.path", "pathlib", "shutil",
    "glob", "json", "csv", "sqlite3", "re", "datetime", "time", "logging", "functools",
    "itertools", "collections", "subprocess", "threading", "concurrent.futures", "asyncio",
    "unittest", "tempfile", "urllib.parse", "urllib.request", "http.client", "hashlib",
    "random", "math", "statistics", "textwrap", "string", "typing", "dataclasses", "enum",
    "contextlib", "io", "pickle", "zipfile", "tarfile", "gzip", "configparser", "socket",
    "email", "decimal", "fractions", "heapq", "bisect", "copy", "pprint", "traceback",
    "warnings", "weakref", "abc", "inspect", "secrets", "uuid", "base64",
)
"""Standard library modules whose pydoc text goes into the demo collection."""

_BOLD = re.compile(".\b")
# ``pydoc.plaintext`` renders without backspace bolding; typeshed does not declare it.
_RENDERER: pydoc.TextDoc = getattr(pydoc, "plaintext", None) or pydoc.TextDoc()
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _document(title: str, body: str) -> str:
    # An underlined first line is what the plain-text loader takes as the title.
    return f"{title}\n{'=' * len(title)}\n\n{body.strip()}\n"


def _write(folder: Path, stem: str, content: str) -> None:
    path = folder / f"{_UNSAFE.sub('_', stem)}.txt"
    # Rewriting identical bytes would be harmless (same hash), but skipping keeps mtimes.
    if not path.is_file() or path.read_text(encoding="utf-8") != content:
        path.write_text(content, encoding="utf-8")


def _import(name: str) -> ModuleType | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return importlib.import_module(name)
    except ImportError as exc:
        logger.debug("demo collection: skipping %s (%s)", name, exc)
        return None


def _module_text(module: ModuleType) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = pydoc.render_doc(module, renderer=_RENDERER)
    return _BOLD.sub("", text)


def write_demo_sources(folder: Path) -> int:
    """Write the demo documents into ``folder``; return how many were written."""
    from pydoc_data.topics import topics  # imported late: a ~0.5 MB dict

    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for topic, text in sorted(topics.items()):
        _write(folder, f"reference-{topic}",
               _document(f"Python language reference: {topic}", text))
        count += 1
    for name in DEMO_MODULES:
        module = _import(name)
        if module is None:
            continue
        synopsis = pydoc.splitdoc(module.__doc__ or "")[0].strip().rstrip(".")
        title = f"{name} — Python standard library module documentation"
        if synopsis:
            title = f"{name} — {synopsis} (Python standard library module documentation)"
        _write(folder, f"module-{name}", _document(title, _module_text(module)))
        count += 1
    return count


def ensure_demo_collection(
    settings: Settings, progress: ProgressCallback | None = None
) -> Collection:
    """Open the ``demo`` collection, building it first if it is missing or empty.

    The fast path (it exists and has documents) renders nothing, so calling this at the
    start of every run costs one small SQLite query; it works in a read-only data
    folder too. The existing file is deleted and rebuilt only when it is positively
    damaged (not a database, corrupt, not a collection) and the folder is writable. An
    error that says nothing about the data - permissions, a lock, a read-only folder -
    is raised as it is: deleting on such an error once threw away good indexes.
    """
    path = collection_path(DEMO_NAME, settings)
    if path.exists():
        try:
            existing = Collection.open(DEMO_NAME, settings=settings)
        except DamagedCollectionError as exc:
            _require_writable(path, "rebuild the damaged demo collection")
            logger.warning("rebuilding the demo collection: %s", exc)
            remove_collection(DEMO_NAME, settings)
        else:
            if existing.info().documents > 0:
                return existing
            # Empty: a first build was interrupted; it is filled in place below.
    _require_writable(path, "build the demo collection")
    source = settings.data_dir / "demo-src"
    written = write_demo_sources(source)
    logger.info("demo collection: indexing %d documents from %s", written, source)
    collection = Collection.create(DEMO_NAME, settings=settings)
    report = collection.add(source, progress)
    if report.failed:
        logger.warning("demo collection: %d files failed: %s", len(report.failed), report.failed)
    return collection


def _require_writable(path: Path, action: str) -> None:
    """Refuse before rendering or deleting anything when the data folder is read-only."""
    if not can_write(path):
        raise read_only_error(path, action)
