"""Keeping registered texts out of every log record, whatever module logs them.

With ``security.redact_material_text`` a run's materials must not reach a log line -
not through our modules, not through a library that logs an exception carrying a
prompt. Asking every ``logger.info`` to be careful cannot promise that, so
:func:`redacting_texts` works on the records themselves, for as long as it is entered:

- a log-record factory (:func:`logging.setLogRecordFactory`) formats each new record's
  message (and its exception text) and replaces every stretch of registered text in it
  by :data:`REDACTED`, so every handler - files, the terminal, pytest's ``caplog`` -
  sees only the redacted message;
- a filter on the handlers of the root and ``deepcite`` loggers does the same to
  string fields a caller put in ``extra``.

Texts are matched after dropping case, spaces and punctuation, so a quote that was
re-wrapped, made one line or cut mid-sentence still matches: every
:data:`WINDOW`-character window (letters and digits only) starting at each sentence or
line, at each :data:`STRIDE`-th position, and ending each sentence, is indexed by hash.
So every registered sentence or line of at least :data:`WINDOW` letters and digits, and
any quote of at least ``WINDOW + STRIDE - 1`` of them, is found; the match is then
extended against the text it came from to cover the whole quote. Shorter fragments
(a few words) are not redacted.

Entering with nothing to register, or not at all, changes nothing: no factory, no
filter, no cost. Scopes may be nested and entered from several threads at once (runs
in a pool); a record is redacted against every scope active when it is made.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

#: What a redacted stretch of text becomes.
REDACTED = "[material text redacted]"
#: Letters and digits in one indexed window.
WINDOW = 20
#: Windows are indexed at every ``STRIDE``-th position besides sentence starts and ends.
STRIDE = 8

_SENTENCE_END = re.compile(r"[.!?;:\n\u3002\uff01\uff1f\uff1b]")
_NOT_ALNUM = re.compile(r"[\W_]+")


def _normalise(text: str) -> tuple[str, list[int]]:
    """``text`` reduced to its casefolded letters and digits, and each one's position
    in ``text`` (for log messages, which are short)."""
    chars: list[str] = []
    where: list[int] = []
    for index, char in enumerate(text):
        if char.isalnum():
            for folded in char.casefold():
                if folded.isalnum():
                    chars.append(folded)
                    where.append(index)
    return "".join(chars), where


def _index(text: str) -> tuple[str, set[int]]:
    """``text`` normalised like :func:`_normalise` (without positions: registered texts
    may be megabytes) and the hashes of its indexed windows."""
    pieces = [_NOT_ALNUM.sub("", piece.casefold()) for piece in _SENTENCE_END.split(text)]
    norm = "".join(pieces)
    if len(norm) < WINDOW:
        return norm, set()
    starts = set(range(0, len(norm) - WINDOW + 1, STRIDE))
    starts.add(len(norm) - WINDOW)
    offset = 0
    for piece in pieces:
        if len(piece) >= WINDOW:
            starts.update((offset, offset + len(piece) - WINDOW))
        offset += len(piece)
    return norm, {hash(norm[start:start + WINDOW]) for start in starts}


class RedactionScope:
    """The texts one :func:`redacting_texts` block registered; add more with :meth:`add`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._hashes: frozenset[int] = frozenset()
        self._texts: tuple[str, ...] = ()  # normalised, to extend a match to the quote

    def __bool__(self) -> bool:
        return bool(self._texts)

    def add(self, texts: Iterable[str]) -> None:
        """Register ``texts`` (each of :data:`WINDOW` letters and digits or more)."""
        hashes: set[int] = set()
        found: list[str] = []
        for text in texts:
            norm, windows = _index(text)
            if windows:
                hashes |= windows
                found.append(norm)
        if found:
            with self._lock:  # copy on write: readers keep a consistent snapshot
                self._hashes = self._hashes | hashes
                self._texts = self._texts + tuple(found)

    def spans(self, norm: str) -> list[tuple[int, int]]:
        """Stretches ``[start, end)`` of normalised text ``norm`` that quote a registered text."""
        hashes, texts = self._hashes, self._texts
        found: list[tuple[int, int]] = []
        position = 0
        while position + WINDOW <= len(norm):
            window = norm[position:position + WINDOW]
            if hash(window) not in hashes:
                position += 1
                continue
            for text in texts:
                at = text.find(window)
                if at < 0:
                    continue
                left = 0
                while (left < position and left < at
                       and norm[position - left - 1] == text[at - left - 1]):
                    left += 1
                right = WINDOW
                while (position + right < len(norm) and at + right < len(text)
                       and norm[position + right] == text[at + right]):
                    right += 1
                found.append((position - left, position + right))
                position += right
                break
            else:  # a hash collision, not a quote
                position += 1
        return found


_lock = threading.Lock()
_scopes: tuple[RedactionScope, ...] = ()
_previous_factory: Callable[..., logging.LogRecord] | None = None
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message", "asctime", "taskName"}


def redact(text: str, scopes: Iterable[RedactionScope] | None = None) -> str:
    """``text`` with every stretch quoting a registered text replaced by :data:`REDACTED`."""
    active = tuple(scopes) if scopes is not None else _scopes
    if not active or len(text) < WINDOW:
        return text
    norm, where = _normalise(text)
    spans: list[tuple[int, int]] = []
    for scope in active:
        spans.extend((where[s], where[e - 1] + 1) for s, e in scope.spans(norm))
    if not spans:
        return text
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and not any(c.isalnum() for c in text[merged[-1][1]:start]):
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    parts: list[str] = []
    cursor = 0
    for start, end in merged:
        parts += [text[cursor:start], REDACTED]
        cursor = end
    parts.append(text[cursor:])
    return "".join(parts)


def _redact_value(value: Any, scopes: tuple[RedactionScope, ...]) -> Any:
    """``value`` with registered text redacted in its strings (lists, tuples and dicts
    one level deep are rebuilt; other values are left alone)."""
    if isinstance(value, str):
        return redact(value, scopes)
    if isinstance(value, list | tuple):
        return type(value)(redact(v, scopes) if isinstance(v, str) else v for v in value)
    if isinstance(value, dict):
        return {k: redact(v, scopes) if isinstance(v, str) else v for k, v in value.items()}
    return value


def _scrub(record: logging.LogRecord, scopes: tuple[RedactionScope, ...]) -> None:
    """Make ``record``'s message, exception and stack text redacted, in place."""
    try:
        message = record.getMessage()
    except Exception:  # noqa: BLE001 - a bad format must not print the arguments later
        message = f"{record.msg} (unformattable log arguments)"
    record.msg, record.args = redact(message, scopes), ()
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        redacted = redact(record.exc_text, scopes)
        if redacted != record.exc_text:
            # handlers print exc_text; exc_info, which still holds the text, must go
            record.exc_text, record.exc_info = redacted, None
    if record.stack_info:
        record.stack_info = redact(record.stack_info, scopes)


def _factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
    """The log-record factory while any scope is active (a pass-through when none is)."""
    previous = _previous_factory or logging.LogRecord
    record = previous(*args, **kwargs)
    scopes = _scopes
    if scopes:
        _scrub(record, scopes)
    return record


class _ExtrasFilter(logging.Filter):
    """Redacts string fields given in ``extra`` (the factory never sees them)."""

    def filter(self, record: logging.LogRecord) -> bool:
        scopes = _scopes
        if scopes:
            for key, value in list(vars(record).items()):
                if key not in _STANDARD:
                    setattr(record, key, _redact_value(value, scopes))
        return True


_EXTRAS = _ExtrasFilter()
_filtered: list[logging.Handler] = []


def _install() -> None:
    """Start redacting (the lock is held): the factory, and the filter on handlers."""
    global _previous_factory
    current = logging.getLogRecordFactory()
    if current is not _factory:
        _previous_factory = current
        logging.setLogRecordFactory(_factory)
    for name in ("", "deepcite"):
        for handler in logging.getLogger(name or None).handlers:
            if _EXTRAS not in handler.filters:
                handler.addFilter(_EXTRAS)
                _filtered.append(handler)


def _uninstall() -> None:
    """Stop redacting (the lock is held). A factory someone set on top of ours keeps
    ours beneath it, which then passes records through."""
    global _previous_factory
    if logging.getLogRecordFactory() is _factory:
        logging.setLogRecordFactory(_previous_factory or logging.LogRecord)
        _previous_factory = None
    for handler in _filtered:
        handler.removeFilter(_EXTRAS)
    _filtered.clear()


@contextmanager
def redacting_texts(texts: Iterable[str] = (), *, enabled: bool = True
                    ) -> Iterator[RedactionScope]:
    """Redact ``texts`` from every log record made until the block exits.

    The scope it yields takes more texts (``scope.add``) - those made during the run,
    such as summaries. With ``enabled`` false it yields a scope that registers nothing
    and touches no logging state.
    """
    global _scopes
    if not enabled:
        yield _DisabledScope()
        return
    scope = RedactionScope()
    scope.add(texts)
    with _lock:
        if not _scopes:
            _install()
        _scopes = (*_scopes, scope)
    try:
        yield scope
    finally:
        with _lock:
            _scopes = tuple(s for s in _scopes if s is not scope)
            if not _scopes:
                _uninstall()


class _DisabledScope(RedactionScope):
    """The scope of a block entered with redaction off: it ignores what it is given."""

    def add(self, texts: Iterable[str]) -> None:
        del texts


def active() -> bool:
    """Whether any redaction scope is active now."""
    return bool(_scopes)
