"""Citations: numbering (SourceNumbering), markers, handlers, verification, rendering."""

from deepcite.citations.hyperlinks import MODES as CITATION_LINK_MODES
from deepcite.citations.hyperlinks import hyperlink
from deepcite.citations.markers import cited_numbers, clean_markers
from deepcite.citations.numbering import SourceNumbering
from deepcite.citations.render import answer_body, render_sources
from deepcite.citations.verify import Verification, verify
from deepcite.types import CitationCheck

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
