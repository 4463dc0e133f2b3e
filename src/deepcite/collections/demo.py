"""The ``demo`` collection: Python's own documentation, built offline on first use.

A new user should be able to try deepcite without downloading anything or pointing it
at their files. Every Python installation carries two bodies of real documentation: the
language reference topics in ``pydoc_data.topics`` and the docstrings of the standard
library, which ``pydoc`` renders as plain text. Both are written as ``.txt`` files into
``<data_dir>/demo-src`` (so the indexed files exist and citations point at something
a user can open) and indexed like any folder.

What is indexed is Python's documentation and nothing about the machine that built it.
pydoc, left to itself, prints the live value of every module attribute - ``os.environ``
with every environment variable (API keys included), ``sys.path``, ``sys.executable`` -
the installation path of every module, ``$PYTHONDOCS`` and memory addresses. The demo
renderer (:class:`_DemoDoc`) prints module and class data by name only, function defaults
only when they are small literals, a module's file relative to the standard library, and
the reference link without the environment; what is left of local paths (the home and
working folders, a virtual environment) is replaced as a last guard. An index built
before that (without the current :data:`DEMO_FORMAT` stamp) is rebuilt on first use.

The index is built during set-up (``deepcite collection demo``, which ``make setup``
runs) so the first question does not wait for it, and still on first use when set-up
did not build it. A complete index is stamped with what built it (:func:`built_by`:
the Python whose documentation it holds and the collection format it was written in);
one built by another Python or format is rebuilt once, with a one-line notice.
"""

from __future__ import annotations

import enum
import importlib
import inspect
import logging
import os
import pydoc
import re
import sqlite3
import sys
import sysconfig
import threading
import warnings
from collections.abc import Callable
from pathlib import Path, PurePath
from types import ModuleType
from typing import Any

from deepcite.build_once import BuildLock, build_once
from deepcite.collections.collection import Collection, collection_path, remove_collection
from deepcite.collections.file_access import DamagedCollectionError, can_write, read_only_error
from deepcite.collections.index import SCHEMA_VERSION, Index
from deepcite.collections.indexer import ProgressCallback
from deepcite.config import Settings
from deepcite.errors import CollectionError, mapped_errors

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

DEMO_FORMAT = "2"
"""What the demo documents hold, stamped into the index when a build completes. An
index with another stamp, or none (built before stamps, or a build cut short), is
rebuilt on first use. 2: no live values, local paths or addresses (1 held them)."""

BUILD_LOCK = "demo-build.lock"
"""The lock file, in the data folder, of whoever builds ``demo-src`` and the index (the
index's own lock, ``demo.sqlite.lock``, is taken by the add inside the build)."""

_FORMAT_KEY = "demo_format"
_BUILT_BY_KEY = "demo_built_by"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_OWN_FILES = re.compile(r"(reference|module)-.+\.txt")  # what write_demo_sources writes
_MAX_LITERAL = 40  # longest string or bytes default shown as it is
_LOCAL = "<local path>"
# Never replaced: they name no one's machine, and Python's docs mention them.
_SYSTEM_DIRS = frozenset({"/", "/usr", "/usr/local", "/opt", "/tmp", "/var/tmp", "/bin"})


class _Shown:
    """A stand-in default whose ``repr`` is the text already decided on."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _literal(value: object, depth: int = 0) -> str | None:
    """``repr`` of a small literal (numbers, short strings, small tuples of them...).

    Anything else gives ``None``: its ``repr`` may quote the running process (a list
    of live handlers, an address), so it is not written down.
    """
    kind = type(value)
    if value is None or value is Ellipsis or kind in (bool, int, float, complex):
        return repr(value)
    if isinstance(value, str | bytes) and kind in (str, bytes):
        return repr(value) if len(value) <= _MAX_LITERAL else None
    if kind in (tuple, list, set, frozenset) and depth < 2:
        items = list(value)  # type: ignore[call-overload]
        parts = [_literal(item, depth + 1) for item in items[:9]]
        if len(items) > 8 or any(part is None for part in parts):
            return None
        texts = [part for part in parts if part is not None]
        if kind in (set, frozenset):
            texts.sort()  # set order changes with the hash seed
        inner = ", ".join(texts)
        if kind is tuple:
            return f"({inner}{',' if len(texts) == 1 else ''})"
        if kind is list:
            return f"[{inner}]"
        braced = f"{{{inner}}}" if texts else ""
        return braced or "set()" if kind is set else f"frozenset({braced})"
    if kind is dict and depth < 2:
        pairs = list(value.items())  # type: ignore[attr-defined]
        shown = [(_literal(k, depth + 1), _literal(v, depth + 1)) for k, v in pairs[:9]]
        if len(pairs) > 8 or any(k is None or v is None for k, v in shown):
            return None
        return "{" + ", ".join(f"{k}: {v}" for k, v in shown) + "}"
    return None


def _type_name(kind: type) -> str:
    module = getattr(kind, "__module__", "")
    qualname = getattr(kind, "__qualname__", kind.__name__)
    return qualname if module in ("builtins", "") else f"{module}.{qualname}"


def _shown_default(value: object) -> str:
    """How a default value is written in a signature: literals as they are, named things
    (classes, functions, enum members) by name, everything else by its type alone."""
    literal = _literal(value)
    if literal is not None:
        return literal
    if isinstance(value, enum.Enum) and value.name:  # a combined flag may have no name
        return f"{_type_name(type(value))}.{value.name}"
    if isinstance(value, type):
        return f"<class '{_type_name(value)}'>"
    if isinstance(value, ModuleType):
        return f"<module '{value.__name__}'>"
    if inspect.isroutine(value):
        return f"<function {getattr(value, '__qualname__', None) or type(value).__name__}>"
    return f"<{_type_name(type(value))} object>"


def _parameters_text(signature: inspect.Signature) -> str:
    """The parameter list as pydoc prints it, without parentheses or return annotation."""
    return str(signature.replace(return_annotation=inspect.Signature.empty))[1:-1]


def _with_safe_defaults(routine: object, text: str) -> str:
    """``text`` (pydoc's entry for a function or class) with the defaults of its first
    signature, the entry's own, as :func:`_shown_default` writes them; pydoc itself
    writes ``repr(default)``, process state and memory addresses included."""
    if not (inspect.isroutine(routine) or inspect.isclass(routine)):
        return text
    try:
        signature = inspect.signature(routine)
    except (TypeError, ValueError):
        return text
    shown = [parameter if parameter.default is inspect.Parameter.empty
             else parameter.replace(default=_Shown(_shown_default(parameter.default)))
             for parameter in signature.parameters.values()]
    before = _parameters_text(signature)
    after = _parameters_text(signature.replace(parameters=shown))
    return text if before == after else text.replace(before, after, 1)


def _in_stdlib(file: str) -> str:
    """A module's file as it is within any Python installation (``json/__init__.py``)."""
    for key in ("platstdlib", "stdlib"):
        base = sysconfig.get_path(key)
        if base and file.startswith(base.rstrip(os.sep) + os.sep):
            relative = PurePath(os.path.relpath(file, base)).as_posix()
            return f"{relative} (in the Python standard library)"
    return PurePath(file).name


class _DemoDoc(pydoc.TextDoc):
    """pydoc's plain text, less everything that describes this machine instead of Python."""

    def bold(self, text: str) -> str:
        """No backspace bolding: the text is indexed, not paged."""
        return text

    def docother(self, object: object, name: str | None = None, mod: str | None = None,
                 parent: str | None = None, *ignored: object, maxlen: int | None = None,
                 doc: Any | None = None) -> str:
        """A data attribute by name only.

        Its value is whatever the building process holds - ``os.environ`` with every
        environment variable, ``sys.path``, ``sys.executable``, ``time.tzname``, the
        handlers ``logging`` has - not documentation; even a plain literal like
        ``sys.platform`` describes the machine. A docstring given for it is kept.
        """
        line = name or ""
        if doc:
            line += "\n" + self.indent(str(doc)) + "\n"
        return line

    def docroutine(self, object: object, name: str | None = None, *args: Any,
                   **kwargs: Any) -> str:
        """pydoc's entry with defaults written safely (see :func:`_with_safe_defaults`)."""
        return _with_safe_defaults(object, super().docroutine(object, name, *args, **kwargs))

    def docclass(self, object: object, name: str | None = None, mod: str | None = None,
                 *ignored: object) -> str:
        """pydoc's class entry with the class signature's defaults written safely."""
        return _with_safe_defaults(object, super().docclass(object, name, mod))

    def docmodule(self, object: object, name: str | None = None, mod: Any | None = None,
                  *ignored: object) -> str:
        """pydoc's module page with its FILE relative to the standard library: the
        absolute path says where (and often under whose home) Python is installed."""
        text = super().docmodule(object, name, mod)
        try:
            file = inspect.getabsfile(object)  # type: ignore[arg-type]
        except TypeError:  # built-in: pydoc says "(built-in)"
            return text
        return text.replace(self.section("FILE", file), self.section("FILE", _in_stdlib(file)))

    def getdocloc(self, object: object, basedir: str | None = None) -> str | None:
        """The module's page on docs.python.org, for this Python's version.

        pydoc takes the base from ``$PYTHONDOCS`` (a local mirror, say) and decides
        "standard library" by the installation path; neither belongs in an index.
        """
        name = getattr(object, "__name__", None)
        if not isinstance(object, ModuleType) or not isinstance(name, str):
            return None
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
        return f"https://docs.python.org/{version}/library/{name.lower()}.html"


_RENDERER = _DemoDoc()


def _local_paths() -> list[str]:
    """Paths that say whose machine this is, longest first: the home folder (``$HOME``
    and the account's), the working folder, a virtual environment, and Python itself
    when it is installed in one of those (pyenv, uv)."""
    homes = {os.path.expanduser("~"), os.environ.get("HOME", "")}
    try:
        import pwd

        homes.add(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError, AttributeError, OSError):
        pass
    private = {*homes, os.getcwd()}
    if sys.prefix != sys.base_prefix:
        private.add(sys.prefix)
    installed = {sys.base_prefix, sys.base_exec_prefix, sys.exec_prefix, sys.executable}
    private |= {path for path in installed
                if any(path.startswith(place.rstrip(os.sep) + os.sep) for place in homes
                       if len(place) > 1)}
    found = {path.rstrip(os.sep) for path in private if path}
    return sorted((path for path in found if len(path) >= 4 and path not in _SYSTEM_DIRS),
                  key=len, reverse=True)


def _scrub(text: str, local_paths: list[str]) -> str:
    """The last guard: a local path that still got into a document is replaced."""
    for path in local_paths:
        text = text.replace(path, _LOCAL)
    return text


def _document(title: str, body: str) -> str:
    # An underlined first line is what the plain-text loader takes as the title.
    return f"{title}\n{'=' * len(title)}\n\n{body.strip()}\n"


def _write(folder: Path, stem: str, content: str) -> str:
    """Write one document unless it is already there as it is; return its file name."""
    path = folder / f"{_UNSAFE.sub('_', stem)}.txt"
    # Rewriting identical bytes would be harmless (same hash), but skipping keeps mtimes.
    if not path.is_file() or path.read_text(encoding="utf-8") != content:
        path.write_text(content, encoding="utf-8")
    return path.name


def _import(name: str) -> ModuleType | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return importlib.import_module(name)
    except ImportError as exc:
        logger.debug("demo collection: skipping %s (%s)", name, exc)
        return None


_PYDOC_LOCK = threading.Lock()
"""pydoc is not thread safe: rendering reads signatures, which parses text with the
``ast`` module, and CPython's ``ast`` before 3.13 keeps its recursion depth in state
shared by threads - two renders at once failed a run with "AST constructor recursion
depth mismatch". ``warnings.catch_warnings`` is process-wide state too. So one render
at a time in this process, whoever calls it."""


def _settle_annotations(module: ModuleType) -> None:
    """Give every class of ``module`` (and its bases) its ``__annotations__`` first.

    Reading ``cls.__annotations__`` on a class that has none stores an empty dict on
    it, and pydoc lists such a dict as an attribute. A render reads some of them, so
    the first render of ``typing`` lacked entries the second one had, and two builds
    of the demo in one process wrote different text. Reading them all beforehand makes
    every render of a module the same.
    """
    for value in list(vars(module).values()):
        if not isinstance(value, type):
            continue
        for cls in value.__mro__:
            try:
                getattr(cls, "__annotations__", None)
            except Exception:  # noqa: BLE001 - a class's own property may raise anything
                logger.debug("demo collection: %r has unreadable annotations", cls)


def _module_text(module: ModuleType) -> str:
    with _PYDOC_LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _settle_annotations(module)
        return pydoc.render_doc(module, renderer=_RENDERER)


RenderCallback = Callable[[int, int], None]
"""Told ``(done, total)`` after each demo document is rendered (about half a build)."""


def write_demo_sources(folder: Path, progress: RenderCallback | None = None) -> int:
    """Write the demo documents into ``folder``; return how many were written.

    ``progress`` is told after each document; a module this Python lacks counts as
    done, so the total is known up front and the count never runs backwards.
    """
    from pydoc_data.topics import topics  # imported late: a ~0.5 MB dict

    folder.mkdir(parents=True, exist_ok=True)
    local_paths = _local_paths()
    written: set[str] = set()
    total = len(topics) + len(DEMO_MODULES)
    done = 0

    def step() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    for topic, text in sorted(topics.items()):
        written.add(_write(folder, f"reference-{topic}", _document(
            f"Python language reference: {topic}", _scrub(text, local_paths))))
        step()
    for name in DEMO_MODULES:
        module = _import(name)
        if module is None:
            step()
            continue
        synopsis = pydoc.splitdoc(module.__doc__ or "")[0].strip().rstrip(".")
        title = f"{name} — Python standard library module documentation"
        if synopsis:
            title = f"{name} — {synopsis} (Python standard library module documentation)"
        written.add(_write(folder, f"module-{name}",
                           _scrub(_document(title, _module_text(module)), local_paths)))
        step()
    # A document an older version wrote and this one does not would still be indexed.
    for stale in folder.glob("*.txt"):
        if _OWN_FILES.fullmatch(stale.name) and stale.name not in written:
            stale.unlink()
    return len(written)


def built_by() -> str:
    """What this process builds the demo index with, as its stamp records it.

    The Python (major.minor): the documents are its own documentation, linked to its
    pages on docs.python.org, so another Python's index answers about the wrong one.
    The collection format (:data:`~deepcite.collections.index.SCHEMA_VERSION`): an index
    upgraded in place from an older format keeps that format's chunks.
    """
    return (f"Python {sys.version_info.major}.{sys.version_info.minor}, "
            f"collection format {SCHEMA_VERSION}")


def ensure_demo_collection(
    settings: Settings, progress: ProgressCallback | None = None,
    on_build: Callable[[], None] | None = None, *,
    rebuild: bool = False, on_render: RenderCallback | None = None,
    on_notice: Callable[[str], None] | None = None,
    on_wait: Callable[[], None] | None = None,
) -> Collection:
    """Open the ``demo`` collection, building it first if it is missing, empty or stale.

    The fast path (it exists, has documents and the current :data:`DEMO_FORMAT` and
    :func:`built_by` stamps) renders nothing, so calling this at the start of every run
    costs three small SQLite queries; it works in a read-only data folder too. A stale
    index (an older format, which held the builder's environment, one built by another
    Python or collection format, or a build cut short) is rebuilt when the folder is
    writable - ``on_notice`` (else the log) is told why, in one line - and used as it
    is, with a warning, when it is not. ``rebuild`` builds it again even when it is
    current (``deepcite collection demo --rebuild``). The existing
    file is deleted and rebuilt when it is positively damaged (not a database, corrupt,
    not a collection) and the folder is writable. An error that says nothing about the
    data - permissions, a lock, a read-only folder - is raised as it is: deleting on
    such an error once threw away good indexes.

    One builder at a time (:func:`~deepcite.build_once.build_once`): a second run, in
    this process or another, waits for the first one's build and then uses it; one
    that finds an unstamped index after its builder died builds it again. ``on_build``
    is told, once, when this call builds or waits for a build (not on the fast path):
    a run shows its ``index`` phase then; ``on_wait`` when it waits for another
    builder. ``on_render`` is told each document rendered, ``progress`` each file
    indexed.
    """
    path = collection_path(DEMO_NAME, settings)

    def build() -> Collection:
        return _build(settings, progress, on_render=on_render,
                      on_notice=None if rebuild else on_notice)

    def find() -> Collection | None:
        return None if rebuild else _usable(path, settings)

    found = find()
    if found is not None:
        return found
    _require_writable(path, "build the demo collection")
    if on_build is not None:
        on_build()
    lock = BuildLock(settings.data_dir / BUILD_LOCK, what="the demo collection",
                     error=CollectionError)
    return build_once(lock, find, build, on_wait)


def _usable(path: Path, settings: Settings) -> Collection | None:
    """The demo collection as it is, when it can be used without building; ``None``
    when it must be built (missing, empty, unstamped or stale, damaged) here.

    Reads only: what is to be removed is removed by :func:`_build`, under the lock, so
    a waiter never deletes what another builder is making. A damaged or missing file
    in a read-only folder raises the read-only error (nothing can be built there); a
    stale one there is used as it is.
    """
    if not path.exists():
        return None
    try:
        existing = Collection.open(DEMO_NAME, settings=settings)
    except DamagedCollectionError as exc:
        _require_writable(path, "rebuild the damaged demo collection")
        logger.warning("the demo collection is damaged and will be rebuilt: %s", exc)
        return None
    if existing.info().documents == 0:  # a first build was interrupted (or is running)
        return None
    reason = _stale_reason(existing)
    if reason is None:
        return existing
    if not can_write(path):
        logger.warning("the demo collection at %s is not current (%s) and cannot be "
                       "rebuilt in a read-only folder; using it as it is", path, reason)
        return existing
    return None


def _build(settings: Settings, progress: ProgressCallback | None, *,
           on_render: RenderCallback | None = None,
           on_notice: Callable[[str], None] | None = None) -> Collection:
    """Build the demo collection (under its :class:`BuildLock`): what is there - damaged,
    stale, half-built by a builder that died, or current when a rebuild was asked for -
    is replaced; an empty file (a first build cut short before any document) is filled
    in place. Why a complete index is replaced goes to ``on_notice`` (else the log)."""
    path = collection_path(DEMO_NAME, settings)
    if path.exists():
        reason: str | None = None
        try:
            existing: Collection | None = Collection.open(DEMO_NAME, settings=settings)
        except DamagedCollectionError as exc:
            logger.info("the demo collection cannot be read as it is: %s", exc)
            existing = None
            reason = "its index is damaged, or in a format this deepcite cannot read"
        if existing is None or existing.info().documents > 0:
            if existing is not None:
                reason = _stale_reason(existing)
            if reason is not None:
                notice = f"Rebuilding the demo collection once: {reason}"
                if on_notice is not None:
                    on_notice(notice)
                else:
                    logger.warning(notice)
            remove_collection(DEMO_NAME, settings)
    source = settings.data_dir / "demo-src"
    written = write_demo_sources(source, on_render)
    logger.info("demo collection: indexing %d documents from %s", written, source)
    collection = Collection.create(DEMO_NAME, settings=settings)
    report = collection.add(source, progress)
    if report.failed:
        logger.warning("demo collection: %d files failed: %s", len(report.failed), report.failed)
    _stamp(collection)
    return collection


def _built_format(collection: Collection) -> str | None:
    """The :data:`DEMO_FORMAT` the collection was completed with (``None``: unstamped)."""
    with mapped_errors("collection", f"{collection.path}: cannot read collection"):
        return collection.index.get_meta(_FORMAT_KEY)


def demo_built_by(collection: Collection) -> str | None:
    """What built the demo index, as :func:`built_by` said then (``None``: not recorded,
    an index from before these stamps or a build cut short)."""
    with mapped_errors("collection", f"{collection.path}: cannot read collection"):
        return collection.index.get_meta(_BUILT_BY_KEY)


def _stale_reason(collection: Collection) -> str | None:
    """Why the demo index must be built again (one line), or ``None`` when it is current."""
    built_format = _built_format(collection)
    if built_format is None:
        return "it is not stamped complete (a build cut short, or an older deepcite)"
    if built_format != DEMO_FORMAT:
        return f"it holds demo format {built_format}, this deepcite writes {DEMO_FORMAT}"
    was, now = demo_built_by(collection), built_by()
    if was is None:
        return f"it was built by an older deepcite, not stamped with {now}"
    if was != now:
        return f"it was built by {was}, this is {now}"
    return None


def _stamp(collection: Collection) -> None:
    """Mark the build complete and current; only then does the fast path take it."""
    index = collection.index
    try:
        with index.connect() as conn, index.transaction(conn):
            Index.set_meta(conn, _BUILT_BY_KEY, built_by())
            Index.set_meta(conn, _FORMAT_KEY, DEMO_FORMAT)
    except sqlite3.Error as exc:
        raise index.write_error(exc, "finish the demo collection") from exc


def _require_writable(path: Path, action: str) -> None:
    """Refuse before rendering or deleting anything when the data folder is read-only."""
    if not can_write(path):
        raise read_only_error(path, action)
