"""Citations: numbering (SourceRegistry), markers, handlers and the Sources block."""

from deepcite.citations.markers import cited_numbers, clean_markers
from deepcite.citations.registry import SourceRegistry
from deepcite.citations.render import render_sources

__all__ = ["SourceRegistry", "cited_numbers", "clean_markers", "render_sources"]
