"""Citation handlers, chosen by name; an unknown name falls back to ``standard``."""

from __future__ import annotations

from collections.abc import Callable

from deepcite.citations.handlers.base import NO_SOURCES_ANSWER, CitedAnswer, Completer
from deepcite.citations.handlers.standard import StandardCitationHandler

HANDLERS: dict[str, type[StandardCitationHandler]] = {"standard": StandardCitationHandler}


def get_handler(
    name: str, client: Completer, warn: Callable[[str], None] | None = None
) -> StandardCitationHandler:
    """The handler registered as ``name``; unknown names fall back to ``standard``."""
    key = name.strip().lower().replace("_", "-")
    handler = HANDLERS.get(key)
    if handler is None:
        if warn is not None:
            warn(f"Unknown citation handler {name!r}; using 'standard' "
                 f"(known: {', '.join(sorted(HANDLERS))})")
        handler = StandardCitationHandler
    return handler(client)


__all__ = [
    "HANDLERS",
    "NO_SOURCES_ANSWER",
    "CitedAnswer",
    "Completer",
    "StandardCitationHandler",
    "get_handler",
]
