"""Citations: numbering (SourceNumbering), markers, handlers, verification, rendering.

The public names are imported on first use: the history store needs only the marker
helpers, and ``deepcite history`` must not load verification (rapidfuzz), hyperlinks
(the Public Suffix List) or the search package for them.
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deepcite.citations.hyperlinks import MODES as CITATION_LINK_MODES
    from deepcite.citations.hyperlinks import hyperlink
    from deepcite.citations.markers import cited_numbers, clean_markers
    from deepcite.citations.numbering import SourceNumbering
    from deepcite.citations.render import answer_body, render_sources
    from deepcite.citations.verify import Verification, verify
    from deepcite.types import CitationCheck

# public name -> (module, attribute there)
_LAZY = {
    "CITATION_LINK_MODES": ("deepcite.citations.hyperlinks", "MODES"),
    "hyperlink": ("deepcite.citations.hyperlinks", "hyperlink"),
    "cited_numbers": ("deepcite.citations.markers", "cited_numbers"),
    "clean_markers": ("deepcite.citations.markers", "clean_markers"),
    "SourceNumbering": ("deepcite.citations.numbering", "SourceNumbering"),
    "answer_body": ("deepcite.citations.render", "answer_body"),
    "render_sources": ("deepcite.citations.render", "render_sources"),
    "Verification": ("deepcite.citations.verify", "Verification"),
    "verify": ("deepcite.citations.verify", "verify"),
    "CitationCheck": ("deepcite.types", "CitationCheck"),
}


def __getattr__(name: str) -> object:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'deepcite.citations' has no attribute {name!r}")
    value = getattr(import_module(where[0]), where[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


class _Citations(ModuleType):
    """The package, keeping ``verify`` the function when its submodule is imported.

    Importing ``deepcite.citations.verify`` binds the submodule to the package's
    ``verify`` attribute, which would shadow the lazily imported function of that name
    (``from deepcite.citations import verify`` would then give a module). The eager
    package bound the function over it; this keeps that meaning.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if name in _LAZY and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Citations


__all__ = [
    "CITATION_LINK_MODES",
    "CitationCheck",
    "SourceNumbering",
    "Verification",
    "answer_body",
    "cited_numbers",
    "clean_markers",
    "hyperlink",
    "render_sources",
    "verify",
]
