"""The writer's own comment a claim ends with: a clause after a comma, opening with
"which", "so", "since" ..., that speaks of the writer ("we", "us", "our", "I") -
"Incremental backups only work against Postgres, which is fine for us since we have
no MySQL left". No source states the writer's situation: the claim is what comes
before it.
"""

from __future__ import annotations

import re

__all__ = ["without_comment", "writer_comment"]

_COMMENT = re.compile(
    r",\s+(?:which|so|since|because|as|meaning|so\s+that)\b(?P<rest>[^;:]*)$",
    re.IGNORECASE)
_WRITER = re.compile(r"\b(?:we|us|our|ours|I|me|my)\b")


def writer_comment(text: str) -> int | None:
    """Where the writer's comment ``text`` ends with starts (its comma), or None."""
    match = _COMMENT.search(text)
    if match is None or not _WRITER.search(match.group("rest")):
        return None
    if _WRITER.search(text[:match.start()]):
        return None  # a claim about the writer ("I pay ..., so I ...") is theirs throughout
    return match.start()


def without_comment(text: str) -> str:
    """``text`` without the writer's comment it ends with (its full stop kept)."""
    at = writer_comment(text)
    if at is None:
        return text
    end = text.rstrip()[-1:]
    return text[:at] + (end if end in ".!?" else "")
