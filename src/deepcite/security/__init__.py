"""Security boundaries: the egress policy, untrusted-text fencing, terminal-safe text."""

from deepcite.security.egress import EgressPolicy, check_url
from deepcite.security.fencing import UNTRUSTED_NOTICE, fence
from deepcite.security.terminal import one_line, terminal_safe
from deepcite.security.transport import egress_client

__all__ = [
    "UNTRUSTED_NOTICE",
    "EgressPolicy",
    "check_url",
    "egress_client",
    "fence",
    "one_line",
    "terminal_safe",
]
