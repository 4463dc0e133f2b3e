"""A comparison of two runs (:mod:`deepcite.runs.compare`) as Markdown, for a terminal
(``deepcite compare``, ``deepcite rerun``) or a file.

Kept apart from the comparison itself: the web page and REST read the same
:class:`~deepcite.runs.compare.RunComparison` and show it their own way. Titles, URLs,
sentences and values are untrusted text here, made one line and escaped.
"""

from __future__ import annotations

import json

from pydantic import JsonValue

from deepcite.citations.text import escape_quoted
from deepcite.runs.compare import KeptSource, RunComparison, RunSide, document_key
from deepcite.security.terminal import one_line

__all__ = ["comparison_markdown"]


def _safe(text: str) -> str:
    """Untrusted text for one Markdown line: one line, brackets, backticks and HTML
    escaped (:func:`~deepcite.citations.text.escape_quoted`), and table pipes."""
    return escape_quoted(one_line(text)).replace("|", "\\|")


def _value(value: JsonValue) -> str:
    if isinstance(value, str):
        return _safe(value)
    return _safe(json.dumps(value, ensure_ascii=False))


def _name(side: RunSide, label: str) -> str:
    return f"{label} ({side.id[:8]})" if side.id else label


def _seconds(value: float) -> str:
    return f"{value:.1f}"


def _headline(cmp: RunComparison) -> list[str]:
    a, b = cmp.a, cmp.b
    rows: list[tuple[str, str, str]] = [
        ("question", _safe(a.question), _safe(b.question)),
        ("mode", a.mode, b.mode),
        ("strategy", _safe(a.strategy), _safe(b.strategy)),
        ("handler", _safe(a.handler), _safe(b.handler)),
        ("model", _safe(_model(a)), _safe(_model(b))),
    ]
    if a.status or b.status:
        rows.append(("status", a.status or "", b.status or ""))
    rows.append(("sources", str(a.sources), str(b.sources)))
    for field in ("supported", "partial", "unsupported", "markers_removed"):
        rows.append((field.replace("_", " "), _count(a, field), _count(b, field)))
    rows += [
        ("unsupported sentences", str(a.unsupported_sentences), str(b.unsupported_sentences)),
        ("model calls", str(a.model_calls), str(b.model_calls)),
        ("tokens", f"{a.tokens:,}", f"{b.tokens:,}"),
        ("wall seconds", _seconds(a.wall_seconds), _seconds(b.wall_seconds)),
    ]
    lines = [f"| | {_name(a, 'A')} | {_name(b, 'B')} |", "|---|---|---|"]
    lines += [f"| {label} | {left} | {right} |" for label, left, right in rows]
    return lines


def _model(side: RunSide) -> str:
    if side.provider and side.model:
        return f"{side.provider}: {side.model}"
    return side.model or side.provider or "-"


def _count(side: RunSide, field: str) -> str:
    if side.verification is None:
        return "-"
    value: int = getattr(side.verification, field)
    return str(value)


def _numbers(numbers: list[int]) -> str:
    return "".join(f"[{n}]" for n in numbers) or "-"


def _verdict_lines(cmp: RunComparison) -> list[str]:
    """The verdicts section of two checks: each claim that changed, A → B."""
    changed = [c for c in cmp.verdicts_changed if c.a_verdict and c.b_verdict]
    added = [c for c in cmp.verdicts_changed if c.a_verdict is None]
    removed = [c for c in cmp.verdicts_changed if c.b_verdict is None]
    lines = [f"## Verdicts: {cmp.verdicts_unchanged} unchanged, {len(changed)} changed, "
             f"{len(added)} new claims, {len(removed)} removed", ""]
    if changed:
        lines += ["Verdict changed (A → B):", ""]
        lines += [f"- \u201c{_safe(c.text)}\u201d: {c.a_verdict} → {c.b_verdict}"
                  + (f" ({_safe(c.b_note)})" if c.b_note else "") for c in changed]
        lines.append("")
    for heading, claims, side in (("Only in B:", added, "b"), ("Only in A:", removed, "a")):
        if claims:
            lines += [heading, ""]
            lines += [f"- \u201c{_safe(c.text)}\u201d: "
                      f"{c.b_verdict if side == 'b' else c.a_verdict}" for c in claims]
            lines.append("")
    return lines


def comparison_markdown(cmp: RunComparison) -> str:
    """``cmp`` as Markdown: the headline table, then sources, claims and settings.

    Every text that came from documents or models (titles, URLs, sentences, the
    question) and every settings value is one line and escaped, so none can add
    headings, links, images, HTML or citations of its own.
    """
    lines = [f"# {_name(cmp.a, 'A')} compared with {_name(cmp.b, 'B')}", ""]
    if not cmp.same_question:
        lines += ["_The runs answer different questions._", ""]
    lines += [*_headline(cmp), ""]

    lines += [f"## Sources: {len(cmp.sources_kept)} kept, {len(cmp.sources_gained)} "
              f"gained, {len(cmp.sources_lost)} lost", ""]
    renumbered = [k for k in cmp.sources_kept if k.renumbered]
    if renumbered:  # one line per document, with each of its passages' A → B numbers
        lines += ["Kept, renumbered (A → B):", ""]
        moves: dict[str, list[KeptSource]] = {}
        for k in renumbered:
            moves.setdefault(document_key(k.title, k.url), []).append(k)
        lines += [f"- {_safe(group[0].title)} ({_safe(group[0].url)}): "
                  + ", ".join(f"[{k.a_number}] → [{k.b_number}]" for k in group)
                  for group in moves.values()]
        lines.append("")
    for heading, documents in (("Gained (only in B):", cmp.gained_documents()),
                               ("Lost (only in A):", cmp.lost_documents())):
        if documents:
            lines += [heading, ""]
            lines += [f"- {_numbers(d.a_numbers or d.b_numbers)} {_safe(d.title)} "
                      f"({_safe(d.url)})" + (" - other passages kept" if d.also_kept else "")
                      for d in documents]
            lines.append("")

    lines += [f"## Claims: {cmp.claims_unchanged} unchanged, {len(cmp.claims_changed)} "
              f"changed, {len(cmp.claims_gained)} gained, {len(cmp.claims_lost)} lost", ""]
    if cmp.claims_changed:
        lines += ["Support changed (A → B):", ""]
        lines += [f"- \u201c{_safe(c.sentence)}\u201d: {c.a_support} {_numbers(c.a_numbers)}"
                  f" → {c.b_support} {_numbers(c.b_numbers)}" for c in cmp.claims_changed]
        lines.append("")
    if cmp.citations_changed:
        lines += ["Citations judged differently (A → B):", ""]
        lines += [f"- \u201c{_safe(c.sentence)}\u201d: [{c.a_number}] {c.a_outcome} → "
                  f"[{c.b_number}] {c.b_outcome}" for c in cmp.citations_changed]
        lines.append("")
    for heading, claims in (("Gained (only in B):", cmp.claims_gained),
                            ("Lost (only in A):", cmp.claims_lost)):
        if claims:
            lines += [heading, ""]
            lines += [f"- \u201c{_safe(c.sentence)}\u201d: {c.support} {_numbers(c.numbers)}"
                      for c in claims]
            lines.append("")

    if cmp.a.mode == cmp.b.mode == "check":
        lines += _verdict_lines(cmp)
    if cmp.settings_compared:
        lines += [f"## Settings: {len(cmp.settings_differences)} differ", ""]
        for d in cmp.settings_differences:
            if d.only_in == "a":
                lines.append(f"- {_safe(d.key)}: {_value(d.a)} (only in A)")
            elif d.only_in == "b":
                lines.append(f"- {_safe(d.key)}: {_value(d.b)} (only in B)")
            else:
                lines.append(f"- {_safe(d.key)}: {_value(d.a)} → {_value(d.b)}")
        if cmp.settings_differences:
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"
