"""Shared CLI plumbing: consoles, error reporting, settings from options."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import typer
from rich.console import Console

from deepcite.config import Settings, load_settings
from deepcite.errors import ConfigError, DeepciteError, InputError

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print a one-line error and exit."""
    err.print(f"[bold red]Error:[/] {message}", markup=True, highlight=False)
    raise typer.Exit(code)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn deepcite errors into one-line messages with the right exit code."""
    try:
        yield
    except (ConfigError, InputError) as exc:
        fail(_escape(str(exc)), 2)
    except DeepciteError as exc:
        fail(_escape(str(exc)), 1)


def settings_from(overrides: dict[str, Any]) -> Settings:
    """Settings with CLI options on top (unset options are ``None`` and ignored)."""
    return load_settings(overrides)


def _escape(text: str) -> str:
    return text.replace("[", "\\[")


Warn = Callable[[str], None]


def warn(message: str) -> None:
    """A one-line warning on stderr."""
    err.print(f"[yellow]Warning:[/] {_escape(message)}")
