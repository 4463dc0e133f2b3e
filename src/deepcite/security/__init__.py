"""Security boundaries: the egress policy and untrusted-text fencing."""

from deepcite.security.egress import EgressPolicy, check_url, request_hook
from deepcite.security.fencing import UNTRUSTED_NOTICE, fence

__all__ = ["UNTRUSTED_NOTICE", "EgressPolicy", "check_url", "fence", "request_hook"]
