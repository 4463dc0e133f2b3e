"""Log lines that show whether materials really reached a section's writing.

One INFO line per section (``[MATERIAL_ROUTE] section=... declared=... resolved=...
material_docs=... web_docs=... ids=...``) on the ``deepcite.materials`` logger, with the
same fields as a ``material_route`` dict in the record's ``extra`` for structured log
handlers; and one ERROR line when an outline bound materials but none of their
evidence was selected - the failure mode where a report silently ignores what the user
provided. Section titles are made one line so a title cannot forge log lines.

When a material-first run skips web search for a part because its bound materials
cover it, :func:`log_material_first` says so in one INFO ``[MATERIAL_FIRST]`` line
(ids and counts, never material text): an answer written without any web search must
be explainable from the log.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from deepcite.materials.coverage import SectionCoverage
from deepcite.materials.prepared import MaterialAnalysis
from deepcite.security.terminal import one_line

logger = logging.getLogger("deepcite.materials")


def log_section_route(
    section: str, declared: int, resolved: int, material_docs: int, web_docs: int,
    ids: Sequence[str],
) -> None:
    """Log how a section's materials were routed: ``declared`` ids the planner named,
    ``resolved`` ids used, ``material_docs``/``web_docs`` evidence items, and the ids."""
    fields = {
        "section": one_line(section), "declared": declared, "resolved": resolved,
        "material_docs": material_docs, "web_docs": web_docs, "ids": list(ids),
    }
    logger.info(
        "[MATERIAL_ROUTE] section=%r declared=%d resolved=%d material_docs=%d web_docs=%d "
        "ids=%s",
        fields["section"], declared, resolved, material_docs, web_docs, ",".join(ids) or "-",
        extra={"material_route": fields},
    )


def log_missing_material_evidence(section: str | None = None, ids: Sequence[str] = ()) -> None:
    """Log (ERROR) that a material-bound outline produced no material evidence."""
    where = f" section={one_line(section)!r}" if section else ""
    logger.error(
        "[MATERIAL_ROUTE] material-bound outline produced no material evidence.%s ids=%s",
        where, ",".join(ids) or "-",
        extra={"material_route": {"section": section, "ids": list(ids), "missing": True}},
    )


def log_material_first(
    coverage: SectionCoverage, analysis: MaterialAnalysis, section: str | None = None
) -> None:
    """Log (INFO) that a part skips web search: the question is material-first and
    ``coverage`` (its bound materials, judged against ``analysis``) leaves no gap.

    ``[MATERIAL_FIRST] section='Costs' materials=2 claims=5 gaps=0 ids=M1,M2: web
    search skipped; written from the user's materials``. ``section`` is the part's
    title when it has one (a quick answer has none).
    """
    ids = coverage.covered_ids
    claims = 0
    for material_id in ids:
        record = analysis.relevance_of(material_id)
        claims += len(record.claims) if record is not None else 0
    fields = {
        "section": one_line(section) if section else None, "materials": len(ids),
        "claims": claims, "gaps": len(coverage.gaps), "ids": list(ids),
        "usage": analysis.usage_mode,
    }
    where = f"section={fields['section']!r} " if section else ""
    logger.info(
        "[MATERIAL_FIRST] %smaterials=%d claims=%d gaps=%d ids=%s: web search skipped; "
        "written from the user's materials",
        where, len(ids), claims, len(coverage.gaps), ",".join(ids) or "-",
        extra={"material_first": fields},
    )
