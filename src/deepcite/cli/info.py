"""``deepcite models``, ``engines``, ``strategies`` (and handlers) and ``config show``.

Every table cell is a :class:`rich.text.Text`, never a markup string: names and details
come from plugins, settings files and servers (an Ollama model list), and a ``[...]`` in
them must print as written instead of styling or vanishing.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from deepcite.cli.common import out, user_errors, warn
from deepcite.config import config_warnings, explain_settings, load_settings

# The providers, engines, strategies and handlers are imported by the command that lists
# them: `deepcite config show` must not load the research stack.

config_app = typer.Typer(no_args_is_help=True)


def models(
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List the LLM providers, whether each is usable here, and what auto picks."""
    from deepcite.llm import describe_providers, resolve_provider

    with user_errors():
        settings = load_settings()
        statuses = describe_providers(settings)
        chosen = resolve_provider(settings)
    if as_json:
        out.print_json(json.dumps({
            "auto_picks": chosen,
            "providers": [{"name": s.name, "usable": s.usable, "detail": s.detail}
                          for s in statuses],
        }))
        return
    table = Table("provider", "usable", "detail")
    for status in statuses:
        table.add_row(Text(status.name), _yes_no(status.usable), Text(status.detail))
    out.print(table)
    out.print(Text(f"auto picks: {chosen}"))


@config_app.command("show")
def show(
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Effective settings and where each value came from."""
    with user_errors():
        rows = explain_settings()
    for message in config_warnings():
        warn(message)
    if as_json:
        out.print_json(json.dumps(
            [{"key": r.key, "value": _plain(r.value), "origin": r.origin} for r in rows]))
        return
    table = Table("setting", "value", "from")
    for row in rows:
        table.add_row(Text(row.key), Text(str(_plain(row.value))), Text(row.origin))
    out.print(table)


def _yes_no(usable: bool) -> Text:
    return Text("yes" if usable else "no")


def _plain(value: object) -> object:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, dict):  # engines.rate_per_second, llm.prices (each as written)
        return {str(key): _plain(item) for key, item in value.items()}
    if value is None or isinstance(value, bool | int | float | str | list):
        return value
    return str(value)


def engines(
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List search engines, whether each is usable now, and why not."""
    from deepcite.search import describe_engines

    with user_errors():
        rows = describe_engines(load_settings())
    if as_json:
        out.print_json(json.dumps([
            {"name": r.name, "usable": r.usable, "detail": r.detail, "needs": r.needs,
             "description": r.description} for r in rows]))
        return
    table = Table("engine", "usable", "needs", "detail")
    for r in rows:
        table.add_row(Text(r.name), _yes_no(r.usable), Text(r.needs), Text(r.detail))
    out.print(table)


def strategies(
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List the research strategies and citation handlers, one line each.

    Plugins are listed after the built-ins; one that cannot be loaded is a row saying
    why (``unavailable: ...``) rather than an error, so it cannot hide the others.
    """
    from deepcite.citations.handlers import DEFAULT_HANDLER, handler_statuses
    from deepcite.research.strategies import DEFAULT_STRATEGY, strategy_statuses

    strategy_rows = strategy_statuses()
    handler_rows = handler_statuses()
    if as_json:
        out.print_json(json.dumps({
            "default_strategy": DEFAULT_STRATEGY,
            "default_handler": DEFAULT_HANDLER,
            "strategies": [{"name": r.name, "usable": r.usable, "builtin": r.builtin,
                            "description": r.description} for r in strategy_rows],
            "citation_handlers": [{"name": r.name, "usable": r.usable, "builtin": r.builtin,
                                   "description": r.description,
                                   "aliases": list(r.aliases)} for r in handler_rows],
        }))
        return
    table = Table("strategy", "what it does")
    for row in strategy_rows:
        table.add_row(_kind_label(row.name, DEFAULT_STRATEGY, row.builtin),
                      _kind_detail(row.usable, row.description))
    out.print(table)
    table = Table("citation handler", "what it does")
    for handler in handler_rows:
        table.add_row(_kind_label(handler.name, DEFAULT_HANDLER, handler.builtin),
                      _kind_detail(handler.usable, handler.description))
    out.print(table)


def _kind_label(name: str, default: str, builtin: bool) -> Text:
    suffix = " (default)" if name == default else "" if builtin else " (plugin)"
    return Text(name + suffix)


def _kind_detail(usable: bool, description: str) -> Text:
    return Text(description if usable else f"(unavailable: {description})")
