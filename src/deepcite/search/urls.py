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
#: What a source may link to: web pages and the user's own files. ``javascript:``,
#: ``data:`` and the like would become clickable with ``--links``.
SOURCE_SCHEMES = frozenset({"http", "https", "file"})


def source_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a source's link (``None`` when it can).

    A source needs an http(s) URL with a host and a valid port, or a ``file:`` URL.
    Engines return whatever their index holds, so malformed hosts (``http://[::1/x``),
    ports above 65535 and other schemes are dropped before anything parses them again.
    """
    try:
        parts = urlsplit(url.strip())
        _ = parts.port  # raises ValueError for a port that is not a number in range
    except ValueError as exc:
        return f"malformed URL ({exc})"
    scheme = parts.scheme.lower()
    if scheme not in SOURCE_SCHEMES:
        return f"{scheme or 'no'} scheme (only http, https and file URLs are sources)"
    if scheme != "file" and not parts.hostname:
        return "no host"
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url.strip()):
        return "control characters or spaces in the URL"
    return None


def _is_tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered.startswith("utm_") or lowered in TRACKING_PARAMS


def canonical_url(url: str) -> str:
    """Return the canonical form of ``url`` used to group and dedupe sources.

    Anything that is not a URL with a scheme and a host comes back stripped and
    otherwise unchanged (``file:`` URLs of local documents included).
    """
    try:
        parts = urlsplit(url.strip())
        given_port = parts.port
    except ValueError:  # a malformed host or port: no canonical form, keep it as given
        return url.strip()
    if not parts.scheme or not parts.netloc:
        return url.strip()
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    port = given_port if given_port and _DEFAULT_PORTS.get(scheme) != given_port else None
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
