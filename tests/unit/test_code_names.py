"""Honest "not found" for a name written as code that no source writes (issue 45).

A question about ``os.path.splitroot``, ``QUOTE_STRINGS``, ``uuid7`` or ``ttl=`` - a later
version's function, an invented option - shares its other words with the sentences on
the names that do exist ("Split a pathname", ``QUOTE_NONNUMERIC``, ``uuid4``); the
reply must be "not found", while questions about names the sources write, as prose
words or as code, are still answered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from deepcite.citations.code_names import code_names, unwritten
from deepcite.citations.grounded import grounded_answer
from deepcite.citations.question_match import terms_of
from deepcite.types import Source
from tests.unit.conftest import ModulePage

Encoder = Callable[[str, Sequence[str]], list[float]]


@pytest.fixture
def pages(module_page: ModulePage) -> list[Source]:
    """quillpath writes splitdrive, join and the word "walk"; ledgercsv two QUOTE_
    constants, a writer function and uuid4."""
    return [
        module_page(1, "quillpath", "Operations on quill path names",
                    "splitdrive(p) Split a pathname into drive and path. "
                    "join(a, *p) Join two or more pathname components. "
                    "The walk function yields the names in a directory tree."),
        module_page(2, "ledgercsv", "Read and write ledger files",
                    "QUOTE_MINIMAL means quotes are placed only when required. "
                    "QUOTE_NONNUMERIC means that quotes are placed around every field that "
                    "is not a number. "
                    "The writer function returns an object that converts rows to delimited "
                    "strings. "
                    "uuid4() makes a random identifier for each ledger."),
    ]


@pytest.mark.parametrize("question", [
    # a function the page never writes
    "How does quillpath.splitroot split a Windows path?",
    # a constant beside the ones it has
    "How do I make ledgercsv quote only strings with QUOTE_STRINGS?",
    # a name with its number joined, beside uuid4
    "What does ledgercsv.uuid7 return?",
    "Does ledgercsv make uuid7 identifiers?",
    # "walk" is a prose word on the page: only its code form documents quillpath.walk
    "How do I walk a tree with quillpath.walk_tree?",
    "What arguments does quillpath.walk take?",
    # a keyword argument join() does not take
    "How do I call quillpath.join(a, sep='/') with another separator?",
])
def test_a_code_name_no_source_writes_is_not_found(
        question: str, pages: list[Source], close_in_meaning: Encoder) -> None:
    assert grounded_answer(question, pages, similarity=close_in_meaning) is None


@pytest.mark.parametrize(("question", "expected"), [
    ("How does quillpath.splitdrive split a path?", "drive and path"),
    ("What does quillpath.join do?", "Join two or more"),
    ("What does QUOTE_NONNUMERIC do in ledgercsv?", "not a number"),
    ("What does ledgercsv.uuid4 make?", "random identifier"),
    ("What does join() do with pathname components in quillpath?", "Join two or more"),
    # a file name and a web address are not names the sources must write
    ("How do I write rows to ledger.csv with the ledgercsv writer function?",
     "converts rows"),
])
def test_code_names_the_sources_write_are_answered(
        question: str, expected: str, pages: list[Source], close_in_meaning: Encoder) -> None:
    answer = grounded_answer(question, pages, similarity=close_in_meaning)
    assert answer is not None
    assert expected in answer.text


@pytest.mark.parametrize(("question", "expected"), [
    ("How does os.path.splitroot work?", ["os.path.splitroot"]),
    ("Use QUOTE_STRINGS or max_queue?", ["QUOTE_STRINGS", "max_queue"]),
    ("Does hashlib have BLAKE3 or sha3_1024?", ["sha3_1024", "BLAKE3"]),
    # a word called, given a value or quoted as code
    ("Can lru_cache(ttl=60) expire?", ["lru_cache", "ttl"]),
    ("What does the `strict` flag of json.loads do?", ["json.loads", "strict"]),
    # file names, addresses, abbreviations and run-together sentences are not code
    ("How do I open test.db and settings.toml from example.com, e.g. today?", []),
    ("I use Python.What is it?", []),
    ("Is x == y true?", []),
    # numbers and plain words are not code names
    ("How do I run 8 workers with version 3.11?", []),
])
def test_names_written_as_code(question: str, expected: list[str]) -> None:
    assert [name.written for name in code_names(question)] == expected


def test_where_a_dotted_name_counts_as_written() -> None:
    # the whole name, or all of it after its module, anywhere
    assert unwritten("How do I use np.linspace?", [terms_of("A guide")],
                     ["x = np.linspace(0, 1)"]) == []
    assert unwritten("Use pathlib.Path.walk?", [terms_of("Notes")],
                     ["Call Path.walk() on it."]) == []
    # its last part as code, in the module's page: another module's walk() is not it
    titles = [terms_of("pathlib - paths"), terms_of("os - system calls")]
    texts = ["class Path(PurePath) glob(self, pattern)", "walk(top, topdown=True)"]
    assert unwritten("Use pathlib.Path.walk?", titles, texts) == ["pathlib.Path.walk"]
    assert unwritten("Use pathlib.Path.glob?", titles, texts) == []
    # sources that never write the module's name document none of it
    assert unwritten("Use pathlib.Path.walk?", [terms_of("os - system calls")],
                     ["walk(top, topdown=True)"]) == ["pathlib.Path.walk"]
    # "uuid7" is written "UUID 7" too
    assert unwritten("Is uuid7 there?", [terms_of("ids")], ["UUID 7 is sortable."]) == []


def _pydoc(number: int, module: str, summary: str, body: str) -> Source:
    """A page laid out as pydoc writes it (NAME, FUNCTIONS, indented signatures), which
    ``module_page``'s one-line text is not: the signature must stand on its own line."""
    url = f"file:///docs/module-{module}.txt"
    text = f"NAME\n    {module} - {summary}\n\nFUNCTIONS\n{body}"
    return Source(number=number, title=f"{module} — {summary} (module documentation)",
                  url=url, canonical_url=url, snippet=text, engine="memory")


def test_a_function_named_only_by_its_signature_is_answered_from_its_page(
        close_in_meaning: Encoder) -> None:
    """Most sources speak of quoting; the one page on shellkit names ``quote`` only in
    the signature above the sentence that answers, and is still the page about it."""
    sources = [
        _pydoc(1, "shellkit", "Lexing of shell command lines",
               "    quote(s)\n        Return a shell-escaped version of the string s.\n\n"
               "    split(s)\n        Split the string s using shell-like syntax.\n"),
        _pydoc(2, "ledgerfmt", "Write ledger files",
               "    A field is quoted when it holds the quote character. Quote characters "
               "inside a quoted field are doubled. The quote character is set per file.\n"),
        _pydoc(3, "stringlit", "String literals",
               "    Single quotes and double quotes both enclose a literal. A quote inside "
               "a literal is escaped with a backslash before the quote.\n"),
    ]
    answer = grounded_answer("What does shellkit.quote do?", sources,
                             similarity=close_in_meaning)
    assert answer is not None
    assert "shell-escaped version" in answer.text
