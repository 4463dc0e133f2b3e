"""The BibTeX export, written here rather than by a library.

BibTeX has no escaping rule of its own: a field is whatever LaTeX makes of it, so
every special character of a title or a name must be written as the LaTeX command
that prints it (``100%`` -> ``100\\%``), or the entry breaks the reader's document.

Braces need more than that. BibTeX finds the end of a ``{...}`` value by counting
braces and ignores backslashes while it counts, so ``\\}`` still closes a brace: a
title ``Harmless}, year = 1066, x = {1`` would end the title and add fields of its own.
Every value is therefore brace-balanced by construction: braces that nest properly
stay ``\\{``/``\\}`` (balanced, readable); otherwise every brace of the value is
written ``\\textbraceleft{}``/``\\textbraceright{}``, which holds only balanced pairs.
A backslash is ``\\textbackslash{}`` (no command of the text survives), ``@`` is
``{\\char64}`` (tools that resynchronise on ``@`` cannot be led into a new entry),
and every value is one line. Citation keys hold only ``[A-Za-z0-9_:.-]``.

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
    "\\": r"\textbackslash{}", "%": r"\%", "&": r"\&", "$": r"\$", "#": r"\#", "_": r"\_",
    "^": r"\^{}", "~": r"\~{}", "@": r"{\char64}",
}
_NESTED_BRACES = {"{": r"\{", "}": r"\}"}
_LOOSE_BRACES = {"{": r"\textbraceleft{}", "}": r"\textbraceright{}"}
_VERBATIM_UNSAFE = re.compile(r"[{}\\\s]")
_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9_:.\-]")
_AND = re.compile(r"\band\b", re.IGNORECASE)
_TYPES: dict[WorkKind, str] = {"article": "article", "preprint": "misc", "webpage": "misc",
                               "document": "misc"}


def _nests(text: str) -> bool:
    """Whether the braces of ``text`` pair up in order (never more ``}`` than ``{``)."""
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def bibtex_escape(text: str) -> str:
    """``text`` on one line, every LaTeX special escaped and its braces balanced."""
    line = one_line(text)
    braces = _NESTED_BRACES if _nests(line) else _LOOSE_BRACES
    return "".join(braces.get(char) or _SPECIAL.get(char, char) for char in line)


def bibtex_key(key: str) -> str:
    """A citation key BibTeX and LaTeX read as one token: ``[A-Za-z0-9_:.-]`` only.

    Keys are built from titles and URLs, so a plugin's or a future builder's key must
    not carry a ``,``, ``}``, blank or ``%`` into the entry head.
    """
    return _KEY_UNSAFE.sub("", key) or "source"


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
    if work.url:
        fields.append(("url", _verbatim(work.url)))
    if work.accessed:
        fields.append(("urldate", "-".join(f"{p:02d}" for p in work.accessed)))
    fields.append(("note", bibtex_escape(work.note)))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{_TYPES[work.kind]}{{{bibtex_key(work.key)},\n{body}\n}}\n"


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
