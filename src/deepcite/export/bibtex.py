"""The BibTeX export, written here rather than by a library.

BibTeX has no escaping rule of its own: a field is whatever LaTeX makes of it, so
every special character of a title or a name must be written as the LaTeX command
that prints it (``{braces}`` -> ``\\{braces\\}``, ``100%`` -> ``100\\%``), or the entry
breaks the reader's document - or, with an unbalanced brace, every entry after it.
URLs are the exception: ``url`` and ``doi`` are verbatim fields (the url package and
biblatex print them as given), so only what would unbalance the braces or end the
field is percent-encoded there.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from deepcite.export.base import ExportOptions, ExportResult, result_for
from deepcite.export.bibliography import Name, Work, WorkKind, works
from deepcite.security.terminal import one_line
from deepcite.types import ResearchResult

_SPECIAL = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "%": r"\%", "&": r"\&", "$": r"\$",
    "#": r"\#", "_": r"\_", "^": r"\^{}", "~": r"\~{}",
}
_VERBATIM_UNSAFE = re.compile(r"[{}\\\s]")
_AND = re.compile(r"\band\b", re.IGNORECASE)
_TYPES: dict[WorkKind, str] = {"article": "article", "preprint": "misc", "webpage": "misc",
                               "document": "misc"}


def bibtex_escape(text: str) -> str:
    """``text`` on one line with every character LaTeX treats specially escaped."""
    return "".join(_SPECIAL.get(char, char) for char in one_line(text))


def _verbatim(text: str) -> str:
    """A URL or DOI for a verbatim field: braces, backslashes and blanks percent-encoded."""
    return _VERBATIM_UNSAFE.sub(lambda m: quote(m.group(0)), one_line(text))


def _name_part(part: str) -> str:
    """A name part, braced where BibTeX would split it (an "and" inside, a comma)."""
    escaped = bibtex_escape(part)
    return f"{{{escaped}}}" if _AND.search(part) or "," in part else escaped


def bibtex_name(name: Name) -> str:
    """``Family, Given``; a one-part or group name in braces so it is never split."""
    if name.literal:
        return f"{{{bibtex_escape(name.literal)}}}"
    if not name.given:
        return f"{{{bibtex_escape(name.family)}}}"
    return f"{_name_part(name.family)}, {_name_part(name.given)}"


def bibtex_entry(work: Work) -> str:
    """One ``@type{key, ...}`` entry; fields in the order people expect to read them."""
    fields: list[tuple[str, str]] = []
    if work.authors:
        fields.append(("author", " and ".join(bibtex_name(n) for n in work.authors)))
    fields.append(("title", bibtex_escape(work.title)))
    if work.venue and work.kind == "article":
        fields.append(("journal", bibtex_escape(work.venue)))
    elif work.venue:
        fields.append(("howpublished", bibtex_escape(work.venue)))
    if work.year is not None:
        fields.append(("year", str(work.year)))
    if len(work.date) > 1:
        fields.append(("month", str(work.date[1])))
    if work.doi:
        fields.append(("doi", _verbatim(work.doi)))
    if work.arxiv_id:
        fields.extend([("eprint", _verbatim(work.arxiv_id)), ("archiveprefix", "arXiv")])
    if work.pmid:
        fields.append(("pmid", bibtex_escape(work.pmid)))
    fields.append(("url", _verbatim(work.url)))
    if work.accessed:
        fields.append(("urldate", "-".join(f"{p:02d}" for p in work.accessed)))
    fields.append(("note", bibtex_escape(work.note)))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{_TYPES[work.kind]}{{{work.key},\n{body}\n}}\n"


class BibtexExporter:
    """BibTeX entries for LaTeX (BibTeX or biblatex) and reference managers."""

    name = "bibtex"
    extension = ".bib"
    media_type = "application/x-bibtex; charset=utf-8"
    description = "BibTeX bibliography (keys like smith2023attention)"

    def export(self, report: ResearchResult, options: ExportOptions) -> ExportResult:
        """One entry per document of the Sources block, UTF-8."""
        text = "\n".join(bibtex_entry(work) for work in works(report))
        return result_for(report, self, text.encode("utf-8"))
