"""Shared CLI plumbing: consoles, error reporting, settings from options.

Every command prints through :data:`out` and :data:`err`, both a :class:`SafeConsole`:
whatever they print - a document title, a web snippet, an error message quoting a file
name - reaches the terminal without control characters or escape sequences, so no
command needs its own cleaning and none can forget it.
"""

from __future__ import annotations

import json as jsonlib
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import typer
from rich.console import (
    Console,
    ConsoleOptions,
    HighlighterType,
    JustifyMethod,
    OverflowMethod,
    RenderableType,
)
from rich.highlighter import JSONHighlighter
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from deepcite.config import Settings, load_settings
from deepcite.errors import ConfigError, DeepciteError, InputError
from deepcite.security.terminal import is_terminal_safe, terminal_safe

# json.dumps escapes C0 controls in strings, but with ensure_ascii=False it writes DEL
# and the C1 range raw, and U+0085 or U+009B act on a terminal like their C0 cousins.
_RAW_IN_JSON = re.compile(r"[\x7f-\x9f]")


class SafeConsole(Console):
    """A rich Console that strips control characters from all the text it renders.

    Strings are cleaned in :meth:`render_str`, before markup and highlighting can cut
    an escape sequence into pieces, so a sequence goes whole, payload included. The
    guarantee sits in :meth:`render`, which every path goes through (``print``, tables,
    progress bars, status lines, ready-made ``Text``): no text segment leaves with a
    control character. Only text is touched: the control segments rich makes itself
    (cursor moves of a live display) and the colour codes of its styles pass unchanged.
    """

    def render_str(self, text: str, *, style: str | Style = "",
                   justify: JustifyMethod | None = None,
                   overflow: OverflowMethod | None = None, emoji: bool | None = None,
                   markup: bool | None = None, highlight: bool | None = None,
                   highlighter: HighlighterType | None = None) -> Text:
        """Turn a string into ``Text`` as rich does, after making it terminal-safe."""
        return super().render_str(terminal_safe(text), style=style, justify=justify,
                                  overflow=overflow, emoji=emoji, markup=markup,
                                  highlight=highlight, highlighter=highlighter)

    def render(self, renderable: RenderableType,
               options: ConsoleOptions | None = None) -> Iterable[Segment]:
        """Render as rich does, with every text segment made terminal-safe."""
        for segment in super().render(renderable, options):
            if segment.control or is_terminal_safe(segment.text):
                yield segment
            else:
                yield Segment(terminal_safe(segment.text), segment.style, segment.control)

    def print_json(self, json: str | None = None, *, data: Any = None,
                   indent: int | str | None = 2, highlight: bool = True,
                   skip_keys: bool = False, ensure_ascii: bool = False,
                   check_circular: bool = True, allow_nan: bool = True,
                   default: Callable[[Any], Any] | None = None,
                   sort_keys: bool = False) -> None:
        """Pretty-print JSON whose strings keep every control character escaped.

        rich's own version re-encodes with ``ensure_ascii=False``, which writes DEL and
        C1 characters raw: the terminal would act on them, or (once :meth:`render`
        strips them) the printed JSON would no longer hold the data. Here they stay
        ``\\u`` escapes, which any JSON reader decodes back to the same text.
        """
        value = jsonlib.loads(json) if json is not None else data
        text = jsonlib.dumps(value, indent=indent, skipkeys=skip_keys,
                             ensure_ascii=ensure_ascii, check_circular=check_circular,
                             allow_nan=allow_nan, default=default, sort_keys=sort_keys)
        text = _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
        rendered = JSONHighlighter()(text) if highlight else Text(text)
        rendered.no_wrap = True
        rendered.overflow = None
        self.print(rendered, soft_wrap=True)


# Both soft-wrap: a line is never broken by a hard newline at the console's width. The
# terminal folds a long line itself, so an error quoting a long path stays one line that
# copies and pastes whole, and output piped or captured does not depend on the width of
# the terminal it ran in. Live displays (progress bars, status spinners) are unaffected:
# rich crops their lines to the width itself, whatever ``print`` is told.
out = SafeConsole(highlight=False, soft_wrap=True)
err = SafeConsole(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print a one-line error and exit.

    ``message`` is plain text, never markup: it often quotes a path or a document's
    words, and markup in those (``[link=...]``) would otherwise style or link the line.
    """
    err.print(Text.assemble(("Error:", "bold red"), " ", message), highlight=False)
    raise typer.Exit(code)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn deepcite errors into one-line messages with the right exit code."""
    try:
        yield
    except (ConfigError, InputError) as exc:
        fail(str(exc), 2)
    except DeepciteError as exc:
        fail(str(exc), 1)


def settings_from(overrides: dict[str, Any]) -> Settings:
    """Settings with CLI options on top (unset options are ``None`` and ignored)."""
    return load_settings(overrides)


Warn = Callable[[str], None]


def warn(message: str) -> None:
    """A one-line warning on stderr (plain text, like :func:`fail`)."""
    err.print(Text.assemble(("Warning:", "yellow"), " ", message))


