"""Whether an optional dependency (an extra's package) is installed, without importing it.

Extras such as ``meaning``, ``embeddings``, ``local`` and the provider SDKs load slowly
(torch, langchain) or not at all; the code that offers them asks first, and must not pay
the import to ask. One home for that question, at the bottom of the layers so that every
layer (``citations``, ``llm``) can use it.
"""

from __future__ import annotations

import importlib.util
import sys


def installed(module: str) -> bool:
    """Whether ``module`` can be imported, found with ``find_spec`` without importing it.

    A ``None`` entry in ``sys.modules`` marks a module as unimportable (tests use this to
    act out a missing extra); a module already imported is installed.
    """
    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a bad name
        return False


__all__ = ["installed"]
