"""Names written as code ("os.path.splitroot", "QUOTE_STRINGS", "median_weighted",
"uuid7"): a question asking about one is answered only by sources that write it.

"How does os.path.splitroot split a Windows path?" shares "split", "path" and
"Windows" with os.path's "Split a pathname into drive and path"; "How do I make
csv.writer quote only strings with QUOTE_STRINGS?" shares "quote" and "strings" with
the sentence on QUOTE_NONNUMERIC. Words and meaning both rate those sentences close,
yet the name asked about is what the question is about, and a name in code is exact:
no source writes ``splitroot`` in other words. When the sources never write it, they
do not document it (a later version's function, an invented option), and the honest
reply is "not found" (:func:`deepcite.citations.sentence_ranking.rank_sentences`).

What counts as written:

- a name with an underscore (``allow_comments``, ``QUOTE_STRINGS``) or letters joined
  to a number (``uuid7``, ``BLAKE3``): the same word anywhere, in any case ("uuid7" is
  also "uuid 7", as :mod:`deepcite.citations.numbered_names` reads names with numbers);
- a plain word the question calls, gives a value or quotes as code (``walk()``,
  ``ttl=60``, ```strict```): that word as code (below) in any source;
- a dotted name (``pathlib.Path.walk``): the whole of it, or of it after its first
  part ("Path.walk"), anywhere; or its last part written as code - ``walk(``,
  ``.walk``, ```walk```, ``walk =`` - in a source whose title names its first part
  ("pathlib"), or, when no title does, in one that writes that part. A plain word such
  as ``walk`` or ``override`` is prose too ("(or override) the hook"), so only its code
  forms count; os's ``walk()`` does not document ``pathlib.Path.walk``, and sources
  that never write "pathlib" do not document any of it.

File names ("test.db", "settings.toml"), web addresses ("example.com") and
abbreviations ("e.g.") are not names the sources must write.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from deepcite.text.stem import term
from deepcite.text.stopwords import STOPWORDS

__all__ = ["CodeName", "code_names", "unwritten"]

_DOTTED = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_SNAKE = re.compile(r"(?<![\w.])[A-Za-z][A-Za-z0-9]*_\w*[A-Za-z0-9](?![\w.])")
_JOINED = re.compile(r"(?<![\w.\-/])([A-Za-z]{2,})(\d+)(?![\w.\-/])")
#: A name called, given a value or quoted as code: "walk()", "ttl=60", "`strict`".
_CODED = re.compile(r"(?<![\w.`])([A-Za-z_]\w*)(?=\s*\(|\s*=(?!=))|`([A-Za-z_]\w*)`")
#: Last parts that make a dotted word a file name or a web address, not code.
_NOT_CODE = frozenset((
    "txt", "md", "rst", "csv", "tsv", "json", "jsonl", "db", "sqlite", "py", "pyc",
    "toml", "yaml", "yml", "ini", "cfg", "conf", "html", "htm", "xml", "log", "gz", "zip",
    "tar", "bz2", "xz", "pdf", "docx", "doc", "xlsx", "png", "jpg", "jpeg", "gif", "svg",
    "sh", "js", "ts", "exe", "dll", "so", "whl", "lock", "env", "com", "org", "net", "io",
    "gov", "edu", "dev", "ai", "uk", "de", "fr", "cn", "jp", "eu", "info", "app"))


@dataclass(frozen=True)
class CodeName:
    """One name of the question written as code: ``parts`` are its dotted parts
    (one for a name that is not dotted)."""

    parts: tuple[str, ...]

    @property
    def written(self) -> str:
        return ".".join(self.parts)


def code_names(question: str) -> list[CodeName]:
    """The names ``question`` writes as code, each once, in the order written."""
    found: dict[tuple[str, ...], CodeName] = {}
    dotted_spans: list[tuple[int, int]] = []
    for match in _DOTTED.finditer(question):
        parts = tuple(match.group().split("."))
        if parts[-1].lower() in _NOT_CODE or all(len(p) == 1 for p in parts) \
                or any(p.lower() in STOPWORDS for p in parts):
            continue  # a file, an address, "e.g.", or two sentences run together
        found.setdefault(parts, CodeName(parts))
        dotted_spans.append(match.span())
    for pattern in (_SNAKE, _JOINED, _CODED):
        for match in pattern.finditer(question):
            if any(a <= match.start() < b for a, b in dotted_spans):
                continue  # a part of a dotted name, judged with it
            name = match.group(match.lastindex or 0) if pattern is _CODED else match.group()
            found.setdefault((name,), CodeName((name,)))
    return list(found.values())


def _plain(word: str) -> bool:
    """Whether ``word`` could be prose: letters only, lower case or capitalised."""
    return word.isalpha() and (word.islower() or word[1:].islower())


def _as_code(word: str) -> re.Pattern[str]:
    name = re.escape(word)
    return re.compile(rf"(?<![\w])(?:{name}\s*[(=]|\.{name}(?!\w)|`{name}`)")


def _anywhere(word: str) -> re.Pattern[str]:
    joined = _JOINED.fullmatch(word)
    if joined is not None:  # "uuid7" is "uuid 7", "UUID-7" as well
        letters, number = joined.groups()
        return re.compile(rf"(?<![\w]){re.escape(letters)}[\s\-/]?{number}(?![\w])",
                          re.IGNORECASE)
    return re.compile(rf"(?<![\w]){re.escape(word)}(?![\w])", re.IGNORECASE)


def _held(name: CodeName, titles: Sequence[Collection[str]], texts: Sequence[str]) -> bool:
    last = name.parts[-1]
    if len(name.parts) == 1:
        pattern = _as_code(last) if _plain(last) else _anywhere(last)
        return any(pattern.search(text) for text in texts)
    for start in range(len(name.parts) - 1):  # "np.linspace", "Path.walk" as written
        dotted = re.compile(rf"(?<![\w]){re.escape('.'.join(name.parts[start:]))}(?![\w])")
        if any(dotted.search(text) for text in texts):
            return True
    first = name.parts[0]
    said = re.compile(rf"(?<![\w]){re.escape(first)}(?![\w])", re.IGNORECASE)
    scoped = [text for title, text in zip(titles, texts, strict=True)
              if term(first.lower()) in title]
    scoped = scoped or [text for text in texts if said.search(text)]
    pattern = _as_code(last) if _plain(last) else _anywhere(last)
    return any(pattern.search(text) for text in scoped)


def unwritten(question: str, titles: Sequence[Collection[str]],
              texts: Sequence[str]) -> list[str]:
    """The code names of ``question`` that no source writes (as :func:`code_names`
    reads them), ``titles`` (each title's terms, as
    :func:`deepcite.citations.question_match.terms_of` gives them) and ``texts`` given
    source by source."""
    return [name.written for name in code_names(question)
            if not _held(name, titles, texts)]
