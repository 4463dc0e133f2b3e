"""Quotes read without markup, and spans still map back into the original text."""

from __future__ import annotations

import re

import pytest

from deepcite.citations.display import clean_quote, display_text
from deepcite.citations.support import SourceIndex

# As pydoc renders the standard library's docstrings (the demo collection's texts).
PYDOC_CLASS = """\
class JSONDecoder(builtins.object)
     |  JSONDecoder(*, object_hook=None, strict=True)
     |
     |  Simple JSON <https://json.org> decoder
     |
     |  Performs the following translations in decoding by default:
     |
     |  +---------------+-------------------+
     |  | JSON          | Python            |
     |  +===============+===================+
     |  | object        | dict              |
     |  +---------------+-------------------+
     |  | array         | list              |
     |  +---------------+-------------------+
     |
     |  It also understands ``NaN``, ``Infinity``, and ``-Infinity`` as
     |  their corresponding ``float`` values, which is outside the JSON spec.
     |
     |      If ``strict`` is false (true is the default), then control
     |      characters will be allowed inside strings.
"""

SPHINX_DOC = """\
Create a datagram connection.

If the :py:data:`~socket.SO_REUSEPORT` constant is not defined then this
capability is unsupported.  The current :class:`contextvars.Context` is
propagated, see :ref:`the context guide <asyncio-context>` for details.

.. versionchanged:: 3.8
   The *loop* parameter was removed.

.. note::

   Use :func:`asyncio.run` to run the top-level entry point.

:param float timeout: seconds to wait for the reply
:returns: the transport and protocol pair
"""

HTML_ESCAPED = "Example: &gt;&gt;&gt; json.dumps([1, 2]) prints &#x27;[1, 2]&#x27; &amp; more."


def _kept_words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z_][\w.]*", text)


@pytest.mark.parametrize("original", [PYDOC_CLASS, SPHINX_DOC, HTML_ESCAPED])
def test_every_clean_word_maps_back_to_the_same_word(original: str) -> None:
    shown = display_text(original)
    labels = {"Note", "Changed", "in", "version", "Returns"}
    for match in re.finditer(r"[A-Za-z_][\w.]*", shown.text):
        start, end = shown.to_original(*match.span())
        if match.group(0) in labels and original[start:end] != match.group(0):
            continue  # a directive's label stands for the directive
        assert original[start:end] == match.group(0)


@pytest.mark.parametrize("original", [PYDOC_CLASS, SPHINX_DOC, HTML_ESCAPED])
def test_a_sentence_span_round_trips_through_the_map(original: str) -> None:
    shown = display_text(original)
    sentences = list(re.finditer(r"[A-Z][^\n]{20,}?\.(?=\s|$)", shown.text))
    assert sentences
    for sentence in sentences:
        start, end = shown.to_original(*sentence.span())
        assert shown.to_display(start, end) == sentence.span()
        # the original span holds the sentence's words, markup around them
        assert _kept_words(sentence.group(0)) == [
            w for w in _kept_words(display_text(original[start:end]).text)]


def test_a_quote_cut_from_the_original_cleans_like_the_whole() -> None:
    original = SPHINX_DOC
    start = original.index("If the")
    end = original.index("unsupported.") + len("unsupported.")
    assert clean_quote(original[start:end]) == (
        "If the SO_REUSEPORT constant is not defined then this capability is unsupported.")
    shown = display_text(original)
    a, b = shown.to_display(start, end)
    assert shown.text[a:b] == clean_quote(original[start:end])


def test_pydoc_gutter_table_and_literals_are_gone() -> None:
    shown = display_text(PYDOC_CLASS).text
    assert "|" not in shown and "+---" not in shown and "``" not in shown
    assert "JSON, Python; object, dict; array, list;" in shown
    assert "It also understands NaN, Infinity, and -Infinity as their corresponding float" \
        " values, which is outside the JSON spec." in shown


def test_sphinx_roles_directives_and_fields_read_as_prose() -> None:
    shown = display_text(SPHINX_DOC).text
    assert "If the SO_REUSEPORT constant is not defined" in shown
    assert "The current contextvars.Context is propagated, see the context guide for" in shown
    assert "Changed in version 3.8: The loop parameter was removed." in shown
    assert "Note: Use asyncio.run to run the top-level entry point." in shown
    assert "timeout: seconds to wait for the reply Returns: the transport" in shown
    assert ":" + "py:" not in shown and "`" not in shown and ".." not in shown


def test_entities_are_decoded_and_map_to_the_whole_entity() -> None:
    shown = display_text(HTML_ESCAPED)
    assert shown.text == "Example: >>> json.dumps([1, 2]) prints '[1, 2]' & more."
    start = shown.text.index(">>>")
    assert shown.to_original(start, start + 3) == (9, 21)
    assert HTML_ESCAPED[9:21] == "&gt;&gt;&gt;"
    assert display_text("x &amp;gt; y").text == "x > y"  # escaped twice


def test_signatures_and_dunders_are_not_read_as_emphasis() -> None:
    text = "Call f(*args, **kwargs) from __init__; the *buf* argument is **required**."
    assert clean_quote(text) == (
        "Call f(*args, **kwargs) from __init__; the buf argument is required.")
    assert clean_quote("Returns a | b when 2 * 3 * 4 is large") == \
        "Returns a | b when 2 * 3 * 4 is large"


def test_markdown_links_and_emphasis() -> None:
    text = "See the [install guide](https://example.org/install) for **all** platforms."
    shown = display_text(text)
    assert shown.text == "See the install guide for all platforms."
    start = shown.text.index("install guide")
    assert text[slice(*shown.to_original(start, start + 13))] == "install guide"


def test_paragraphs_can_be_kept_and_whitespace_collapses() -> None:
    assert display_text("a  b\n\n\n  c\n d", keep_paragraphs=True).text == "a b\n\nc d"
    assert display_text("  a  b\n\n c ").text == "a b c"


def test_an_original_span_maps_onto_what_the_display_kept() -> None:
    original = "Use ``shutil.copy`` to copy a file."
    shown = display_text(original)
    start = original.index("shutil.copy")
    a, b = shown.to_display(start, start + len("shutil.copy"))
    assert shown.text[a:b] == "shutil.copy"
    whole = shown.to_display(0, len(original))
    assert shown.text[slice(*whole)] == "Use shutil.copy to copy a file."


def test_a_quote_shown_clean_is_found_verbatim_at_the_originals_offsets() -> None:
    original = ("Call ``os.getcwd()`` first, then :func:`os.chdir` to move; the "
                "prompt shows &gt;&gt;&gt; before each line you type.")
    shown = clean_quote(original)
    assert shown == ("Call os.getcwd() first, then os.chdir to move; the prompt shows >>> "
                     "before each line you type.")
    index = SourceIndex(original)
    evidence = index.check(shown)
    assert (evidence.outcome, evidence.method) == ("supported", "exact")
    span = index.find("then os.chdir to move")
    assert span is not None and original[span[0]:span[1]] == "then :func:`os.chdir` to move"
