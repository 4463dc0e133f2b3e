"""deepcite: deep research with citations you can check.

The public API: :func:`quick_summary`, :class:`Researcher`, :class:`Settings` and the
result types. Everything else lives in subpackages named for what they do.
"""

from deepcite._version import __version__
from deepcite.api import build_researcher, quick_summary
from deepcite.config import Settings, load_settings
from deepcite.errors import DeepciteError
from deepcite.research import Researcher
from deepcite.types import ResearchResult, SearchResult, Source

__all__ = [
    "DeepciteError",
    "ResearchResult",
    "Researcher",
    "SearchResult",
    "Settings",
    "Source",
    "__version__",
    "build_researcher",
    "load_settings",
    "quick_summary",
]
