"""The writer's own comment a claim ends with: a clause after a comma, opening with
"which", "so", "since" ..., that speaks of the writer ("we", "us", "our", "I") -
"Incremental backups only work against Postgres, which is fine for us since we have
no MySQL left". No source states the writer's situation: the claim is what comes
before it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["without_comment", "writer_comment"]

_COMMENT = re.compile(
    r",\s+(?:which|so|since|because|as|meaning|so\s+that)\b(?P<rest>[^;:]*)$",
    re.IGNORECASE)
_WRITER = re.compile(r"\b(?:we|us|our|ours|I|me|my)\b")


# a name inside the comment: a capitalised word not all in capitals ("Lena", not "CI")
_NAME = re.compile(r"\b[A-Z][a-z]+\b")


def writer_comment(text: str, unknown: Callable[[str], bool] | None = None) -> int | None:
    """Where the writer's comment ``text`` ends with starts (its comma), or None. With
    ``unknown``, a comment naming someone it says no source names ("so Tomasz won't
    need WSL", "which Lena wants for the dashboard": the writer's colleagues) is the
    writer's too."""
    match = _COMMENT.search(text)
    if match is None:
        return None
    rest = match.group("rest")
    if not _WRITER.search(rest) and (unknown is None or not any(
            unknown(name.group(0)) for name in _NAME.finditer(rest))):
        return None
    if _WRITER.search(text[:match.start()]):
        return None  # a claim about the writer ("I pay ..., so I ...") is theirs throughout
    return match.start()


def without_comment(text: str, unknown: Callable[[str], bool] | None = None) -> str:
    """``text`` without the writer's comment it ends with (its full stop kept)."""
    at = writer_comment(text, unknown)
    if at is None:
        return text
    end = text.rstrip()[-1:]
    return text[:at] + (end if end in ".!?" else "")
