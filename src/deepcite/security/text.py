"""Text from outside that must be valid Unicode before anything encodes it.

Command-line arguments that are not valid UTF-8 reach Python as lone surrogates
(``surrogateescape``); so can strings handed to the Python API. Encoding one later -
into SQLite, JSON or the terminal - raises ``UnicodeEncodeError`` far from its cause.
"""

from __future__ import annotations


def valid_utf8(text: str) -> str:
    """``text`` with every byte or code point that is not valid UTF-8 replaced by U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        raw = text.encode("utf-8", "surrogateescape")  # undo the argv decoding
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "surrogatepass")
    return raw.decode("utf-8", "replace")
