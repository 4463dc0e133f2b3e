"""How deepcite starts uvicorn (``deepcite serve``, ``deepcite mcp --transport http``).

uvicorn's defaults are wrong for a server that decides trust by address: its proxy
headers middleware (``proxy_headers=True``) rewrites the client address from
``X-Forwarded-For`` whenever the peer is in ``forwarded_allow_ips`` - loopback by
default, or whatever the ``FORWARDED_ALLOW_IPS`` environment variable says - so any
local process could claim to be a trusted proxy, or a new address per request. Here it
is off, and no environment variable turns it back on; which forwarded headers count is
decided by :mod:`deepcite.security.client_address` from ``web.trusted_proxies`` alone.
The access log goes through :class:`~deepcite.security.access_log.UrlSecretsFilter`,
so a token in a URL never reaches it.

Every place that starts uvicorn builds its configuration here: a new one cannot forget.
"""

from __future__ import annotations

from typing import Any

import uvicorn
from uvicorn.config import LOGGING_CONFIG

from deepcite.security.access_log import log_config

__all__ = ["server_config"]


def server_config(app: Any, *, host: str, port: int, log_level: str = "info",
                  **options: Any) -> uvicorn.Config:
    """A ``uvicorn.Config`` serving ``app`` on ``host``:``port`` without uvicorn's
    proxy-header handling and with a redacted access log; ``options`` are further
    ``uvicorn.Config`` arguments (never the ones this decides)."""
    decided = {"proxy_headers", "forwarded_allow_ips", "log_config"} & options.keys()
    if decided:
        raise TypeError(f"server_config() decides {', '.join(sorted(decided))} itself")
    return uvicorn.Config(app, host=host, port=port, log_level=log_level,
                          proxy_headers=False, forwarded_allow_ips=[],
                          log_config=log_config(LOGGING_CONFIG), **options)
