"""``deepcite models`` and ``deepcite config show``."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from deepcite.cli.common import out, user_errors
from deepcite.config import explain_settings, load_settings
from deepcite.llm import describe_providers, resolve_provider
from deepcite.research.strategies import DEFAULT_STRATEGY, describe_strategies
from deepcite.search import describe_engines

config_app = typer.Typer(no_args_is_help=True)


def models(
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List the LLM providers, whether each is usable here, and what auto picks."""
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
        table.add_row(status.name, "yes" if status.usable else "no", escape(status.detail))
    out.print(table)
    out.print(f"auto picks: {chosen}")


@config_app.command("show")
def show(
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Effective settings and where each value came from."""
    with user_errors():
        rows = explain_settings()
    if as_json:
        out.print_json(json.dumps(
            [{"key": r.key, "value": _plain(r.value), "origin": r.origin} for r in rows]))
        return
    table = Table("setting", "value", "from")
    for row in rows:
        table.add_row(row.key, escape(str(_plain(row.value))), escape(row.origin))
    out.print(table)


def _plain(value: object) -> object:
    if isinstance(value, tuple):
        return list(value)
    if value is None or isinstance(value, bool | int | float | str | list):
        return value
    return str(value)


def engines(
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List search engines, whether each is usable now, and why not."""
    with user_errors():
        rows = describe_engines(load_settings())
    if as_json:
        out.print_json(json.dumps([
            {"name": r.name, "usable": r.usable, "detail": r.detail, "needs": r.needs,
             "description": r.description} for r in rows]))
        return
    table = Table("engine", "usable", "needs", "detail")
    for r in rows:
        table.add_row(r.name, "yes" if r.usable else "no", escape(r.needs), escape(r.detail))
    out.print(table)


def strategies() -> None:
    """List the research strategies, one line each."""
    table = Table("strategy", "what it does")
    for name, description in describe_strategies():
        label = f"{name} (default)" if name == DEFAULT_STRATEGY else name
        table.add_row(label, escape(description))
    out.print(table)
