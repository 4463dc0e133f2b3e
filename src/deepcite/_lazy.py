"""Package names imported on first use (PEP 562), one mechanism for every package.

``deepcite``, ``deepcite.search`` and ``deepcite.security`` name public objects whose
modules pull in heavy dependencies (the research stack, httpx, tldextract); importing
them when the package is imported made ``deepcite --version`` and ``deepcite history``
load what they never use. Each package maps its names to their modules and gets its
``__getattr__`` and ``__dir__`` from :func:`lazy_names`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module


def lazy_names(package: str, table: Mapping[str, str]
               ) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of ``package``: a name of
    ``table`` is imported from the module it maps to on first use, then kept in the
    package so the next use costs nothing."""

    def __getattr__(name: str) -> object:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(table))

    return __getattr__, __dir__
