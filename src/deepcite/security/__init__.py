"""Security boundaries: the egress policy, untrusted-text fencing, terminal-safe text.

The public names are imported on first use: every command prints through
:mod:`deepcite.security.terminal`, and importing the package for it must not load the
HTTP client behind :func:`egress_client` (httpx, a tenth of a second).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deepcite.security.egress import EgressPolicy, check_url
    from deepcite.security.fencing import UNTRUSTED_NOTICE, fence
    from deepcite.security.terminal import one_line, terminal_safe
    from deepcite.security.transport import egress_client

_LAZY = {
    "EgressPolicy": "deepcite.security.egress",
    "check_url": "deepcite.security.egress",
    "UNTRUSTED_NOTICE": "deepcite.security.fencing",
    "fence": "deepcite.security.fencing",
    "one_line": "deepcite.security.terminal",
    "terminal_safe": "deepcite.security.terminal",
    "egress_client": "deepcite.security.transport",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'deepcite.security' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "UNTRUSTED_NOTICE",
    "EgressPolicy",
    "check_url",
    "egress_client",
    "fence",
    "one_line",
    "terminal_safe",
]
