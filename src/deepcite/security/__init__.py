"""Security boundaries: untrusted-text fencing (egress policy comes with web search)."""

from deepcite.security.fencing import UNTRUSTED_NOTICE, fence

__all__ = ["UNTRUSTED_NOTICE", "fence"]
