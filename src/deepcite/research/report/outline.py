"""The outline of a detailed report: asked of the model, parsed leniently, checked.

Small local models rarely follow a format exactly: they number with ``1.``, ``I.``,
``Section 1:`` or Markdown headings, put the purpose after a dash, a colon, in
brackets or on the next line, wrap titles in bold, and open with "Here is an
outline". The parser accepts all of that and keeps only what is usable; an outline
with fewer than two sections is unusable and the builder builds one from the question
and the evidence instead (:mod:`deepcite.research.report.facets`, with a warning).
Sections about sources, references or methodology are dropped: the report has one
Sources block, assembled from the registry, and no model-written list of references
can be trusted to match it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepcite.materials import MaterialBinding, normalize_bindings, normalize_material_id
from deepcite.security.fencing import UNTRUSTED_NOTICE, fence
from deepcite.security.terminal import one_line
from deepcite.text.stem import term
from deepcite.text.stopwords import STOPWORDS
from deepcite.text.words import ANY_WORD
from deepcite.types import OutlineEntry, Source

OUTLINE_SYSTEM = (
    "You plan research reports. Propose the sections of a report that answers the "
    "question from the sources listed. Reply with the outline only, one heading per "
    "line, numbered like '1. Title - what this section covers' and subsections like "
    "'1.1 Title - what it covers'. Use 3 to 5 sections. Do not include sections for "
    "sources, references or methodology. " + UNTRUSTED_NOTICE
)
#: Added to the outline prompt when the user handed in materials.
OUTLINE_MATERIALS_NOTE = (
    "The user's materials are listed below with their ids. End each heading line with "
    "the ids of the materials that part should be written from, like [M1][M2]; use only "
    "the listed ids, and none where no material fits. When a material is not the main "
    "evidence of that part, add its role after a colon: [M2:background] for context "
    "only, [M3:counter-evidence] for a view the part should weigh against the others."
)
#: Fewer usable sections than this and the outline is replaced by the default one.
MIN_SECTIONS = 2
MAX_TITLE_CHARS = 90
MAX_TITLE_WORDS = 14
#: Titles of parts the report never researches (its Sources block is built, not written).
_EXCLUDED = re.compile(
    r"\b(sources?|references?|bibliograph\w*|citations?|works cited|further reading|"
    r"methodolog\w*|methods?)\b", re.IGNORECASE)
_PREAMBLE = re.compile(r"\b(outline|here is|here's|sure|certainly|report structure)\b",
                       re.IGNORECASE)
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_SUB_NUMBER = re.compile(r"^(\d+)[.)]\d+[.)]?\s+(.*)$")
_NUMBER = re.compile(r"^(?:\d+|[IVXivx]+|[A-Z])[.)]\s+(.*)$")
_LETTER = re.compile(r"^[a-z][.)]\s+(.*)$")
_BULLET = re.compile(r"^[-*+•]\s+(.*)$")
_LABEL = re.compile(r"^(sub)?section\s+[\w.]+\s*[:.-]\s*(.*)$", re.IGNORECASE)
_PURPOSE = re.compile(r"^(?:purpose|covers|description|focus)\s*:\s*(.*)$", re.IGNORECASE)
_SEPARATOR = re.compile(r"\s+[-–—]\s+|:\s+|\s+\((?=.*\)$)")


def outline_prompt(question: str, sources: Sequence[Source], *, max_sources: int = 12,
                   snippet_chars: int = 200, manifest: str = "") -> str:
    """The user prompt: the question and the titles and openings of what was found, and
    the manifest of the user's materials (ids, titles, urls, dates) when there are any."""
    blocks = [fence(" ".join(s.snippet.split())[:snippet_chars], number=s.number,
                    title=s.title) for s in list(sources)[:max_sources]]
    parts = ["Sources found so far:", *blocks] if blocks else []
    if manifest.strip():
        parts += [OUTLINE_MATERIALS_NOTE, "Materials:", fence(manifest.strip())]
    parts += [f"Question: {question}", "Outline:"]
    return "\n\n".join(parts)


def parse_outline(reply: str, *, max_sections: int = 5, max_subsections: int = 3,
                  material_ids: Sequence[str] = ()) -> list[OutlineEntry]:
    """The outline in ``reply``, cleaned; empty when fewer than two sections are usable.

    Levels come from the numbering (``1.`` vs ``1.1``), Markdown heading depth, or
    indentation of bullets; a subsection before any section becomes a section. Titles
    that are prose, duplicates, or about sources/references/methodology are dropped,
    with their subsections. At most ``max_sections`` sections with
    ``max_subsections`` subsections each are kept. Bracketed ids at the end of a line
    (``[M1][M2]``, ``[M1, M3]``) bind materials to the part; only ``material_ids`` are
    kept (``[m1]`` and ``[[M1]]`` normalised, invented ids dropped).
    """
    lines = [line for line in reply.replace("\r", "").split("\n")
             if line.strip() and not line.strip().startswith("```")]
    heading_levels = sorted({len(m.group(1)) for line in lines
                             if (m := _HEADING.match(line.strip()))})
    raw: list[tuple[int, str, str, list[str]]] = []  # level, title, purpose, materials
    for line in lines:
        parsed = _parse_line(line, heading_levels)
        if parsed is None:
            continue
        level, text = parsed
        text, bound = _bindings(text, material_ids)
        if level == 0:  # plain text: the purpose of the heading before it, if it has none
            if raw:
                last_level, title, purpose, materials = raw[-1]
                raw[-1] = (last_level, title, purpose or _clean(text),
                           list(dict.fromkeys([*materials, *bound])))
            continue
        title, purpose = _split(text)
        raw.append((level, title, purpose, bound))
    return _select(raw, max_sections=max_sections, max_subsections=max_subsections)


_TRAILING_GROUP = re.compile(r"\s*[\[(]+([^\[\]()]{1,80})[\])]+\s*\.?\s*$")


def _bindings(text: str, known: Sequence[str]) -> tuple[str, list[str]]:
    """``text`` without its trailing bracketed material ids, and the known ids among
    them (see :func:`_role_bindings`)."""
    text, bindings = _role_bindings(text, known)
    return text, [b.material_id for b in bindings]


def _role_bindings(text: str, known: Sequence[str]) -> tuple[str, list[MaterialBinding]]:
    """``text`` without its trailing bracketed material ids, and the bindings they make
    (``[M2:background]`` binds M2 with that role). Groups are taken off from the end
    while they name a known id, so a purpose in brackets stays; without materials
    nothing is taken off. Ids go through :func:`normalize_bindings`."""
    groups: list[list[MaterialBinding]] = []
    while known and (match := _TRAILING_GROUP.search(text)) is not None:
        raw = [_raw_binding(part, known) for part in re.split(r"[,;]", match.group(1))
               if part.strip()]
        bound = normalize_bindings(raw, known)
        if not bound:
            break
        groups.insert(0, bound)
        text = text[:match.start()].rstrip(" -:")
    return text, normalize_bindings([b for group in groups for b in group], known)


def _raw_binding(part: str, known: Sequence[str]) -> dict[str, str]:
    """``M1`` or ``M1:role`` as a raw binding (an id may itself hold a colon)."""
    part = part.strip()
    if normalize_material_id(part, known) is None and ":" in part:
        material_id, role = part.rsplit(":", 1)
        return {"id": material_id, "role": role.strip()}
    return {"id": part}


def outline_bindings(reply: str, material_ids: Sequence[str]
                     ) -> dict[str, list[MaterialBinding]]:
    """The material bindings (with roles) of each heading of ``reply``, by the
    case-folded title :func:`parse_outline` gives it; headings without any are absent.

    An outline entry keeps only the ids; the roles live here, so a part whose title
    the user kept through review keeps its roles too."""
    found: dict[str, list[MaterialBinding]] = {}
    if not material_ids:
        return found
    lines = [line for line in reply.replace("\r", "").split("\n")
             if line.strip() and not line.strip().startswith("```")]
    heading_levels = sorted({len(m.group(1)) for line in lines
                             if (m := _HEADING.match(line.strip()))})
    for line in lines:
        parsed = _parse_line(line, heading_levels)
        if parsed is None or parsed[0] == 0:
            continue
        text, bound = _role_bindings(parsed[1], material_ids)
        if bound:
            found.setdefault(_split(text)[0].casefold(), bound)
    return found


def _parse_line(line: str, heading_levels: list[int]) -> tuple[int, str] | None:
    """(level, text) of one line: 1 section, 2 subsection, 0 plain text; None to skip."""
    indent = len(line) - len(line.lstrip())
    text = line.strip().replace("**", "").replace("__", "").strip()
    if (m := _PURPOSE.match(text)) is not None:
        return 0, m.group(1)
    if (m := _HEADING.match(text)) is not None:
        depth = heading_levels.index(len(m.group(1))) + 1
        inner = _parse_line(m.group(2), [])
        body = inner[1] if inner is not None and inner[0] > 0 else m.group(2)
        sub = inner is not None and inner[0] == 2
        return (2 if depth > 1 or sub else 1), body
    if (m := _LABEL.match(text)) is not None:
        return (2 if m.group(1) else 1), m.group(2)
    if (m := _SUB_NUMBER.match(text)) is not None:
        return 2, m.group(2)
    if (m := _LETTER.match(text)) is not None:
        return 2, m.group(1)
    if (m := _NUMBER.match(text)) is not None:
        return (2 if indent >= 2 else 1), m.group(1)
    if (m := _BULLET.match(text)) is not None:
        return (2 if indent >= 2 else 1), m.group(1)
    if _PREAMBLE.search(text) and text.rstrip().endswith(":"):
        return None
    return 0, text


def _split(text: str) -> tuple[str, str]:
    """Title and purpose of a heading line: split at a dash, a colon or brackets."""
    parts = _SEPARATOR.split(text, maxsplit=1)
    title = _clean(parts[0])
    purpose = _clean(parts[1]).rstrip(")") if len(parts) > 1 else ""
    return title, purpose


def _clean(text: str) -> str:
    text = one_line(text).strip().strip("*_#\"'` ").strip()
    return text.rstrip(":").strip()


def _usable_title(title: str) -> bool:
    words = title.split()
    return (0 < len(title) <= MAX_TITLE_CHARS and 0 < len(words) <= MAX_TITLE_WORDS
            and any(ch.isalpha() for ch in title) and not _EXCLUDED.search(title))


def _select(raw: list[tuple[int, str, str, list[str]]], *, max_sections: int,
            max_subsections: int) -> list[OutlineEntry]:
    entries: list[OutlineEntry] = []
    seen: set[str] = set()
    sections = subsections = 0
    dropping = False  # inside a dropped section: its subsections go with it
    for level, title, purpose, materials in raw:
        if level == 2 and sections == 0:
            level = 1
        if level == 1:
            dropping = not _usable_title(title) or title.casefold() in seen \
                or sections >= max_sections
            if dropping:
                continue
            sections += 1
            subsections = 0
        else:
            if dropping or not _usable_title(title) or title.casefold() in seen \
                    or subsections >= max_subsections:
                continue
            subsections += 1
        seen.add(title.casefold())
        entries.append(OutlineEntry(title=title, purpose=purpose[:300], level=level,
                                    materials=materials))
    if sections < MIN_SECTIONS:
        return []
    return entries


def outline_text(entries: Sequence[OutlineEntry]) -> str:
    """The outline in the format the parser reads back (for review and editing)."""
    lines = []
    section = sub = 0
    for entry in entries:
        if entry.level == 1:
            section, sub = section + 1, 0
            number = f"{section}."
        else:
            sub += 1
            number = f"   {section}.{sub}"
        purpose = f" - {entry.purpose}" if entry.purpose else ""
        bound = "".join(f"[{m}]" for m in entry.materials)
        lines.append(f"{number} {entry.title}{purpose}{' ' + bound if bound else ''}")
    return "\n".join(lines)


def research_parts(entries: Sequence[OutlineEntry]) -> list[tuple[int, str, str]]:
    """The parts researched as (index into ``entries``, number, heading): every
    subsection, and every section without subsections (a section with subsections is
    only their heading). A subsection's heading names its section too, so its research
    and its writer know what it is part of."""
    parts: list[tuple[int, str, str]] = []
    section = sub = 0
    parent = ""
    for index, entry in enumerate(entries):
        if entry.level == 1:
            section, sub, parent = section + 1, 0, entry.title
            has_children = index + 1 < len(entries) and entries[index + 1].level == 2
            if not has_children:
                parts.append((index, f"{section}.", entry.title))
        else:
            sub += 1
            heading = f"{parent}: {entry.title}" if parent else entry.title
            parts.append((index, f"{section}.{sub}", heading))
    return parts


# ------------------------------------------------------- the headings of a passage

_NUMBERING = re.compile(r"^(?:(?:chapter|part|section|§)\s*)?(?:\d+(?:\.\d+)*|[IVX]+)[.):]?\s+",
                        re.IGNORECASE)
_MARKUP = re.compile(r"[`*_#=~^<>\[\]{}¶]+")
_PAREN_TAIL = re.compile(r"\s*\(([^()]{3,})\)\s*$")
_TITLE_SEPARATOR = re.compile(r"(\s+[|—–-]\s+|:\s+)")


def source_headings(source: Source) -> list[str]:
    """Where ``source`` sits, outermost first: its document's title, then the headings
    a collection kept for the passage (``heading_path``, else ``heading``). A web page
    has only its title. Raw: :func:`heading_keys` cleans them."""
    meta = source.metadata
    raw = meta.get("heading_path")
    path = [str(h) for h in raw if isinstance(h, str) and h.strip()] \
        if isinstance(raw, list) else []
    heading = meta.get("heading")
    if not path and isinstance(heading, str) and heading.strip():
        path = [heading]
    title = str(meta.get("document_title") or source.title or "")
    if title.strip() and (not path or _key(path[0]) != _key(title)):
        path.insert(0, title)
    return path


def heading_keys(source: Source, sources: Sequence[Source] = ()) -> set[str]:
    """The case-folded headings ``source`` sits under, raw and cleaned as among
    ``sources``: a part titled with one of them is about this passage."""
    raw = source_headings(source)
    cleaned = _clean_path(raw, sources or [source])
    return {key for key in map(_key, [*raw, *cleaned]) if key}


def word_share(query: str, text: str) -> float:
    """The share of the content words of ``query`` found in ``text`` (0 to 1)."""
    return _share(_words(query), _words(text))


def title_key(title: str) -> str:
    """``title`` as :func:`heading_keys` gives headings, to compare the two."""
    return _key(title)


def _clean_path(path: list[str], sources: Sequence[Source]) -> list[str]:
    """``path`` with each heading cleaned and unusable ones (prose, "References")
    dropped; a suffix shared by the titles of ``sources`` (a site name, "(module
    documentation)") is taken off, since it tells no part from another."""
    shared = _shared_suffixes(sources)
    cleaned: list[str] = []
    for heading in path:
        title = _clean_heading(heading, shared)
        if _usable_title(title) and all(_key(title) != _key(c) for c in cleaned):
            cleaned.append(title)
    return cleaned


def _clean_heading(heading: str, shared: set[str]) -> str:
    text = _MARKUP.sub(" ", one_line(heading))
    text = _NUMBERING.sub("", " ".join(text.split()).strip(" |")).strip(" .:-–—|")
    while (m := _PAREN_TAIL.search(text)) is not None and _key(m.group(1)) in shared:
        text = text[:m.start()].rstrip()
    pieces = _TITLE_SEPARATOR.split(text)  # kept as [piece, separator, piece, ...]
    while len(pieces) > 2 and _key(pieces[-1]) in shared:
        del pieces[-2:]
    text = "".join(pieces)
    if len(text) > MAX_TITLE_CHARS or len(text.split()) > MAX_TITLE_WORDS:
        text = pieces[0]  # "Title — a long subtitle": the title is the heading
    return _clean(text)


def _shared_suffixes(sources: Sequence[Source]) -> set[str]:
    """Trailing pieces ("(Python documentation)", "| Example Site") that at least two
    different document titles end with."""
    titles = {one_line(str(s.metadata.get("document_title") or s.title)) for s in sources}
    counts: dict[str, int] = {}
    for title in titles:
        tails: set[str] = set()
        if (m := _PAREN_TAIL.search(title)) is not None:
            tails.add(_key(m.group(1)))
        pieces = _TITLE_SEPARATOR.split(title)
        if len(pieces) > 1:
            tails.add(_key(pieces[-1]))
        for tail in tails:
            counts[tail] = counts.get(tail, 0) + 1
    return {tail for tail, count in counts.items() if count >= 2 and tail}


def _key(text: str) -> str:
    return " ".join(ANY_WORD.findall(text.casefold()))


def _words(text: str) -> set[str]:
    """Content words of ``text`` as :func:`~deepcite.text.stem.term` gives them, so that
    "parsing" and "parse" meet."""
    return {term(w) for w in ANY_WORD.findall(text.casefold())
            if len(w) >= 3 and w not in STOPWORDS}


def _share(asked: set[str], found: set[str]) -> float:
    return len(asked & found) / len(asked) if asked else 0.0

