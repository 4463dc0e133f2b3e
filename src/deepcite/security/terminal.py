"""Making untrusted text safe to show on a terminal.

Titles, snippets and page text come from documents and web pages that anyone can
write. A terminal obeys control characters in what it prints: an OSC sequence
(``ESC ] 0 ; title BEL``) renames the window or plants a clickable link, ``ESC [ 2 J``
clears the screen, a carriage return overwrites the line already shown. Any of them in
a document title would let that document rewrite what the user sees, so every text a
front end prints goes through :func:`terminal_safe` first (the CLI consoles apply it to
all output), and titles are also made one line so they cannot fake extra output lines.
"""

from __future__ import annotations

import re

# Escape sequences are removed whole: dropping only the ESC byte would print the rest
# ("]0;pwned") as garbage, and an unterminated string sequence would still swallow text.
_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"  # CSI (7- and 8-bit): cursor, colours, erase
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])"  # OSC, DCS, SOS, PM, APC strings ...
    r"[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # ... up to BEL or ST (or the end)
    r"|\x1b[ -/]*[0-~]?",  # any other escape (charset switches, keypad modes, lone ESC)
)
# What is left: C0 controls except tab and newline, DEL, and the C1 range.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_LINE_END = re.compile(r"\r\n?")


def is_terminal_safe(text: str) -> bool:
    """Whether ``text`` holds nothing :func:`terminal_safe` would change (a fast check)."""
    return _CONTROL.search(text) is None


def terminal_safe(text: str) -> str:
    """``text`` without control characters or escape sequences; ``\\n`` and ``\\t`` kept.

    Carriage returns become newlines (``\\r\\n`` one newline) rather than vanishing, so
    text with old line endings keeps its lines instead of gluing them together.
    """
    if is_terminal_safe(text):
        return text
    text = _LINE_END.sub("\n", text)
    return _CONTROL.sub("", _SEQUENCE.sub("", text))


def one_line(text: str) -> str:
    """:func:`terminal_safe` ``text`` with every run of whitespace (newlines too) one space.

    For titles and names: a newline in a title would start what looks like another line
    of output (a fake result, a fake warning) on the terminal and in Markdown.
    """
    return " ".join(terminal_safe(text).split())
