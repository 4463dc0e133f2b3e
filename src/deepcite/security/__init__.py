"""Security boundaries: the egress policy, untrusted-text fencing, terminal-safe text.

The public names are imported on first use: every command prints through
:mod:`deepcite.security.terminal`, and importing the package for it must not load the
HTTP client behind :func:`egress_client` (httpx, a tenth of a second).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcite._lazy import lazy_names

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


__getattr__, __dir__ = lazy_names(__name__, _LAZY)


__all__ = [
    "UNTRUSTED_NOTICE",
    "EgressPolicy",
    "check_url",
    "egress_client",
    "fence",
    "one_line",
    "terminal_safe",
]
