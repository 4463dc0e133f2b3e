"""Canonical URLs: one key per document, however it was reached.

Two results whose URLs differ only in case of scheme/host, userinfo, default port,
fragment (except a ``#page=N`` that addresses a page of a local file), tracking
parameters or a trailing slash are the same document and share one Sources entry.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

TRACKING_PARAMS = frozenset(
    {
        "fbclid", "gclid", "msclkid", "yclid", "dclid", "gad_source", "mc_eid", "mc_cid",
        "ref_src", "igshid", "_ga", "_gl",
    }
)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _is_tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered.startswith("utm_") or lowered in TRACKING_PARAMS


def canonical_url(url: str) -> str:
    """Return the canonical form of ``url`` used to group and dedupe sources.

    Anything that is not a URL with a scheme and a host comes back stripped and
    otherwise unchanged (``file:`` URLs of local documents included).
    """
    parts = urlsplit(url.strip())
    if not parts.scheme or not parts.netloc:
        return url.strip()
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    port = parts.port if parts.port and _DEFAULT_PORTS.get(scheme) != parts.port else None
    netloc = host if port is None else f"{host}:{port}"
    if ":" in host and not host.startswith("["):
        netloc = f"[{host}]" if port is None else f"[{host}]:{port}"
    path = parts.path
    if len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/") or "/"
    query = urlencode(
        [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _is_tracking(k)]
    )
    fragment = parts.fragment if scheme == "file" and parts.fragment.startswith("page=") else ""
    return urlunsplit((scheme, netloc, path, query, fragment))
