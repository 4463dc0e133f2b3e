"""deepcite: deep research with citations you can check.

The public API: :func:`quick_summary`, :func:`detailed_report` and
:func:`build_researcher` (research from settings), :func:`rerun` and
:func:`compare_runs` (a stored run made again, and what changed), :class:`Researcher`,
:class:`Settings` and :func:`load_settings`,
:class:`Collection` (local documents), the result types and :class:`DeepciteError`, the
base of every error they raise. Everything else lives in subpackages named for what
they do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcite._lazy import lazy_names
from deepcite._version import __version__

if TYPE_CHECKING:
    from deepcite.api import build_researcher, detailed_report, quick_summary, rerun
    from deepcite.collections import Collection
    from deepcite.config import Settings, load_settings
    from deepcite.errors import DeepciteError
    from deepcite.research import Researcher
    from deepcite.runs.compare import compare_runs
    from deepcite.types import ResearchResult, RunNotice, SearchResult, Source

# The public names, imported on first use: `import deepcite.cli` (every command) or
# `import deepcite.errors` would otherwise load the whole research stack first.
_LAZY = {
    "build_researcher": "deepcite.api",
    "detailed_report": "deepcite.api",
    "quick_summary": "deepcite.api",
    "rerun": "deepcite.api",
    "Collection": "deepcite.collections",
    "Settings": "deepcite.config",
    "load_settings": "deepcite.config",
    "DeepciteError": "deepcite.errors",
    "Researcher": "deepcite.research",
    "compare_runs": "deepcite.runs.compare",
    "ResearchResult": "deepcite.types",
    "RunNotice": "deepcite.types",
    "SearchResult": "deepcite.types",
    "Source": "deepcite.types",
}


__getattr__, __dir__ = lazy_names(__name__, _LAZY)


__all__ = [
    "Collection",
    "DeepciteError",
    "ResearchResult",
    "Researcher",
    "RunNotice",
    "SearchResult",
    "Settings",
    "Source",
    "__version__",
    "build_researcher",
    "compare_runs",
    "detailed_report",
    "load_settings",
    "quick_summary",
    "rerun",
]
