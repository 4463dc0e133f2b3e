"""deepcite: deep research with citations you can check.

The public API: :func:`quick_summary`, :func:`detailed_report` and
:func:`build_researcher` (research from settings), :func:`rerun` and
:func:`compare_runs` (a stored run made again, and what changed), :class:`Researcher`,
:class:`Settings` and :func:`load_settings`,
:class:`Collection` (local documents), the result types and :class:`DeepciteError`, the
base of every error they raise. Everything else lives in subpackages named for what
they do.
"""

from deepcite._version import __version__
from deepcite.api import build_researcher, detailed_report, quick_summary, rerun
from deepcite.collections import Collection
from deepcite.config import Settings, load_settings
from deepcite.errors import DeepciteError
from deepcite.research import Researcher
from deepcite.runs.compare import compare_runs
from deepcite.types import ResearchResult, RunNotice, SearchResult, Source

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
