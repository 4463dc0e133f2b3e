"""Which addresses are this machine only: the rule the servers (``deepcite serve``,
``deepcite mcp``) bind by - elsewhere only with a token, or with consent - and protect
against DNS rebinding on."""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False
