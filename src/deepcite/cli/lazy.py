"""Commands registered by name and loaded on first use.

Why: every command module imports what it runs (the research stack, the history store,
exporters, the web framework), and ``deepcite --version`` or ``deepcite history`` should
not pay for all of them. The top-level group knows each command by its module, its
attribute and its one-line help; the module is imported only when the command runs or
its own ``--help`` is asked for. ``deepcite --help`` lists the commands from the help
texts kept here, so it loads none of them.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass
from typing import Any

import typer
import typer.main
from typer import _click as click  # typer 0.2x builds its commands on a vendored click
from typer._click.utils import make_default_short_help
from typer.core import TyperGroup


@dataclass(frozen=True)
class LazyCommand:
    """Where a command lives: ``module:attribute`` (a function, or a ``typer.Typer`` of
    sub-commands), with the help its listing shows."""

    name: str
    module: str
    attribute: str
    help: str

    def load(self) -> click.Command:
        """The click command, built exactly as ``app.command``/``app.add_typer`` would."""
        target = getattr(importlib.import_module(self.module), self.attribute)
        holder = typer.Typer(rich_markup_mode=None, add_completion=False)
        if isinstance(target, typer.Typer):
            holder.add_typer(target, name=self.name, help=self.help)
        else:
            holder.command(self.name, help=self.help)(target)
        group = typer.main.get_group(holder)
        command = group.commands[self.name]
        return command


class _LazyCommands(MutableMapping[str, click.Command]):
    """The group's command table: names known up front, commands built when looked up."""

    def __init__(self, lazy: tuple[LazyCommand, ...]) -> None:
        self._lazy = {entry.name: entry for entry in lazy}
        self._loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._loaded:
            if name not in self._lazy:
                raise KeyError(name)
            self._loaded[name] = self._lazy[name].load()
        return self._loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        self._lazy.pop(name, None)
        del self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        yield from self._lazy
        yield from (name for name in self._loaded if name not in self._lazy)

    def __len__(self) -> int:
        return len(set(self._lazy) | set(self._loaded))

    def short_help(self, name: str, limit: int) -> str:
        """The listing's help for ``name``, without loading it when it is still lazy."""
        if name in self._loaded or name not in self._lazy:
            return self[name].get_short_help_str(limit)
        return make_default_short_help(self._lazy[name].help, limit)


class LazyGroup(TyperGroup):
    """A ``TyperGroup`` whose sub-commands come from :attr:`lazy_commands`."""

    lazy_commands: tuple[LazyCommand, ...] = ()

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        table = _LazyCommands(self.lazy_commands)
        for name, command in self.commands.items():
            table[name] = command
        self.commands = table

    def list_commands(self, ctx: click.Context) -> list[str]:
        """The names in registration order, none of them loaded."""
        return list(self.commands)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Click's listing (same rows, same widths) from the help texts kept up front."""
        table = self.commands
        assert isinstance(table, _LazyCommands)
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [(name, table.short_help(name, limit)) for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)
