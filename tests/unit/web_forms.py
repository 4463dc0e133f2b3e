"""The CSRF token a web page's form carries, read from the page as a browser would.

Every web test that posts a form first reads this token: one reader, so a change to how
pages carry it is made once."""

from __future__ import annotations

import re
from typing import Any, Protocol

_TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


class _Client(Protocol):
    def get(self, url: str, **kwargs: Any) -> Any: ...


def csrf_token(client: _Client, path: str = "/", **headers: str) -> str:
    """The token in the form of the page at ``path`` (fetched with ``headers``)."""
    page = client.get(path, headers=headers) if headers else client.get(path)
    match = _TOKEN.search(page.text)
    assert match, f"{path} has no CSRF field ({page.status_code})"
    return match.group(1)
