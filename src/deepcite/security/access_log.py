"""Keeping secrets that travel in URLs out of the access log.

A watch's Atom feed is served at ``/feeds/watches/<token>.atom``: a feed reader cannot
log in, so the address is the credential, and the store keeps only its hash. uvicorn's
access log writes every request line whole, so without this the log would hold what
the store so carefully does not. :class:`UrlSecretsFilter` rewrites each record's
arguments before any handler formats them:

- a path segment holding a deepcite token (``dc_...`` API tokens, ``dcf_...`` feed
  tokens), read after percent-decoding so ``%64cf_`` hides nothing, becomes
  :data:`REDACTED`;
- a query parameter whose name says it is a secret (``token``, ``key``, ``secret``,
  ``password``, ``signature``, ``code``, ...) or whose value holds a token keeps its
  name and loses its value.

:mod:`deepcite.security.log_redaction` solves a different problem - quotes of texts
registered in advance (a run's materials) - and cannot help here: the server never
holds a feed token to register, only its hash. What is matched is the *shape* of a
secret, so a route added later with a token in its path or query is covered too.
"""

from __future__ import annotations

import copy
import logging
import re
from typing import Any
from urllib.parse import unquote

__all__ = ["REDACTED", "TOKEN_PREFIXES", "UrlSecretsFilter", "log_config", "redact_url"]

#: What a secret in a logged URL becomes.
REDACTED = "[redacted]"
#: How deepcite's tokens start: ``deepcite.store.users_ops.TOKEN_PREFIX`` and
#: ``deepcite.store.watches_ops.FEED_TOKEN_PREFIX`` (a layer above this one; a test
#: checks they agree).
TOKEN_PREFIXES = ("dc_", "dcf_")

_TOKEN = re.compile(r"(?<![A-Za-z0-9_\-])(?:" + "|".join(TOKEN_PREFIXES) + r")[A-Za-z0-9_\-]{6,}")
_SECRET_PARAM = re.compile(r"token|key|secret|passw|pwd|sig|auth|code|session|credential",
                           re.IGNORECASE)


def _holds_token(text: str) -> bool:
    return _TOKEN.search(unquote(text)) is not None


def _param(pair: str) -> str:
    name, sep, value = pair.partition("=")
    if sep and value and (_SECRET_PARAM.search(unquote(name)) or _holds_token(value)):
        return f"{name}={REDACTED}"
    return REDACTED if not sep and _holds_token(name) else pair


def redact_url(text: str) -> str:
    """``text`` (a request target: path and query) with every secret in it replaced
    by :data:`REDACTED` (see the module docstring); anything else unchanged."""
    if "/" not in text and "?" not in text and not _holds_token(text):
        return text
    path, sep, query = text.partition("?")
    path = "/".join(REDACTED if _holds_token(part) else part for part in path.split("/"))
    if sep:
        query = "&".join(_param(pair) for pair in query.split("&"))
    return path + sep + query


class UrlSecretsFilter(logging.Filter):
    """Redacts secrets in URLs among a record's string arguments (uvicorn's access
    line is ``'%s - "%s %s HTTP/%s" %d'`` with the target third) and in a message that
    came without arguments. Never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and record.args:
            record.args = tuple(redact_url(arg) if isinstance(arg, str) else arg
                                for arg in record.args)
        elif not record.args and isinstance(record.msg, str):
            record.msg = redact_url(record.msg) if _holds_token(record.msg) else record.msg
        return True


def log_config(base: dict[str, Any]) -> dict[str, Any]:
    """uvicorn's logging configuration ``base`` (``uvicorn.config.LOGGING_CONFIG``) with
    :class:`UrlSecretsFilter` on its loggers and handlers, for ``uvicorn.Config``'s
    ``log_config``: a record is redacted before any handler formats it."""
    config = copy.deepcopy(base)
    config.setdefault("filters", {})["url_secrets"] = {"()": UrlSecretsFilter}
    for section in ("loggers", "handlers"):
        for entry in config.get(section, {}).values():
            filters = entry.setdefault("filters", [])
            if "url_secrets" not in filters:
                filters.append("url_secrets")
    return config
