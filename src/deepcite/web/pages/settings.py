"""The settings page: a form for the common settings and the API keys (which keys are
set, never their values), every setting with its origin, and which engines and providers
are usable.

Saving writes the user's config file (the first of
:func:`deepcite.config.default_config_files`). deepcite has no TOML writer of its own
(``deepcite config`` only shows), so this page has a small one: it reads the file with
:mod:`tomllib`, changes only the keys of the form, writes the whole file back (comments
are not kept) and reads the text it wrote again, refusing to save unless it parses to
exactly the intended data. A file that does not parse is never overwritten.

Every value is validated through the settings models first (:func:`load_settings` with
that one key as an override), one line per bad field; the form keeps what was typed,
except the keys, which are never shown back (only "set"/"not set"). A model name is
checked against what its provider has (:func:`deepcite.llm.providers.model_problem`:
Ollama's list, the local model's file) before anything is written.

A saved change applies at once: the server swaps its settings
(:meth:`deepcite.web.contracts.WebState.use_settings`) for the saved keys as the files
give them now (:func:`deepcite.config.with_current`), so new runs - and watch runs -
are admitted with them, while runs already going keep the snapshot they started with.
None of the form's fields is one a server reads only at start; the one exception is
where runs go to ``deepcite worker`` processes (``queue.url``): they read keys from
their own settings, which the page says beside the keys.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import math
import os
import re
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.datastructures import FormData

from deepcite.config import (
    Settings,
    default_config_files,
    explain_settings,
    load_settings,
    with_current,
)
from deepcite.errors import ConfigError, DeepciteError, error_line
from deepcite.web.pages._views import key_status, settings_rows
from deepcite.web.pages.kit import Kit, PageKit
from deepcite.web.sessions import Session
from deepcite.web.who_is_asking import client_address

ANSWER_MODES = ("auto", "abstractive", "grounded")
API_KEY = "llm.api_key"
#: The form's text fields: (setting, label, input type, hint).
TEXT_FIELDS: tuple[tuple[str, str, str, str], ...] = (
    ("llm.model", "Model", "text", "e.g. llama3.2 or gpt-4o-mini; blank: the provider's default"),
    ("llm.base_url", "Base URL", "url", "an OpenAI-compatible server; blank: none"),
    ("llm.ollama_url", "Ollama URL", "url", "where Ollama listens (provider ollama or auto)"),
    ("engines.searxng_url", "SearXNG URL", "url", "your SearXNG instance; blank: none"),
    ("research.max_model_calls", "Most model calls per run", "number", "blank: no limit"),
    ("research.max_tokens", "Most tokens per run", "number", "blank: no limit"),
    ("research.max_seconds", "Most seconds per run", "number", "blank: no limit"),
    ("research.max_searches", "Most searches per run", "number", "blank: no limit"),
)
LIST_FIELDS = ("search.engines", "search.collections")
FORM_KEYS: tuple[str, ...] = ("llm.provider", *(f[0] for f in TEXT_FIELDS), *LIST_FIELDS,
                              "citations.answer_mode")
#: The settings whose change means the model must be checked again.
MODEL_KEYS = frozenset({"llm.provider", "llm.model", "llm.ollama_url"})
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def user_config_file() -> Path:
    """The user's config file, the one the form writes."""
    return default_config_files()[0]


@dataclass
class Choices:
    """What the form's lists offer, and the availability tables."""

    providers: list[Any]
    engines: list[Any]
    collections: list[str]


def choices(settings: Settings) -> Choices:
    """Providers, engines and collections of this server (each empty when it fails)."""
    from deepcite.collections.collection import list_collections
    from deepcite.llm import describe_providers
    from deepcite.search import describe_engines

    providers: list[Any] = []
    engines: list[Any] = []
    collections: list[str] = []
    with contextlib.suppress(DeepciteError):
        providers = list(describe_providers(settings))
    with contextlib.suppress(DeepciteError):
        engines = list(describe_engines(settings))
    with contextlib.suppress(DeepciteError, OSError):
        collections = [info.name for info in list_collections(settings)]
    return Choices(providers, engines, collections)


@dataclass(frozen=True)
class KeyField:
    """One API key of the form: the setting, its label, the variables also read."""

    setting: str
    label: str
    env: tuple[str, ...] = ()
    hint: str = ""


def key_fields() -> list[KeyField]:
    """The model's key, then each engine's that takes one (from the engines' own
    declarations, :func:`deepcite.search.registry.engine_key_fields`)."""
    from deepcite.search.registry import engine_key_fields

    fields = [KeyField(API_KEY, "Model provider (OpenAI, Anthropic or a compatible server)",
                       ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"))]
    with contextlib.suppress(DeepciteError):
        fields += [KeyField(f.setting, f.engine, f.env,
                            "" if f.required else "optional")
                   for f in engine_key_fields()]
    return fields


def key_states(fields: list[KeyField], explained: Mapping[str, Any],
               origins: Mapping[str, str], environ: Mapping[str, str]) -> dict[str, str]:
    """Whether each key is set and where from ("set (from FILE)", "set (from
    BRAVE_API_KEY)", "not set"): never its value."""
    states: dict[str, str] = {}
    for field in fields:
        if _is_set(explained.get(field.setting)):
            states[field.setting] = f"set (from {origins.get(field.setting, 'default')})"
        elif var := next((v for v in field.env if environ.get(v)), None):
            states[field.setting] = f"set (from {var})"
        else:
            states[field.setting] = "not set"
    return states


def form_values(explained: Mapping[str, Any]) -> dict[str, Any]:
    """What the form shows from the effective values: text as text, lists as lists."""
    values: dict[str, Any] = {}
    for key in FORM_KEYS:
        value = explained.get(key)
        if key in LIST_FIELDS:
            values[key] = [str(v) for v in value or ()]
        else:
            values[key] = "" if value is None else str(value)
    return values


def parse_form(form: FormData, secrets: tuple[str, ...] = (API_KEY,)
               ) -> tuple[dict[str, Any], dict[str, Any], dict[str, str]]:
    """The typed values (for showing again), the changes (``None``: remove the key from
    the file) and one-line problems by setting. ``secrets`` are the key settings: a
    key typed is a change, a blank one keeps the saved key, ticking ``clear`` for it
    removes it."""
    typed: dict[str, Any] = {}
    changes: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for key in FORM_KEYS:
        if key in LIST_FIELDS:
            names = [str(v).strip() for v in form.getlist(key) if str(v).strip()]
            typed[key] = names
            changes[key] = names or None
            continue
        raw = str(form.get(key) or "").strip()
        typed[key] = raw
        changes[key] = raw or None
    cleared = {str(v) for v in form.getlist("clear")}
    for secret in secrets:
        key = str(form.get(secret) or "")
        if secret in cleared:
            changes[secret] = None
        elif key.strip():
            changes[secret] = key.strip()
    for name, value in changes.items():
        if value is None:
            continue
        if name == "research.max_seconds":
            value = _number(value, float)
        elif name.startswith("research.max_"):
            value = _number(value, int)
        if value is _BAD:
            problems[name] = f"{name}: enter a whole number (or leave it blank)" \
                if name != "research.max_seconds" else f"{name}: enter a number of seconds"
            continue
        changes[name] = value
        try:
            load_settings({name: value}, config_files=[], environ={})
        except ConfigError as exc:
            problems[name] = (f"{name}: not a valid key" if name in secrets
                              else error_line(exc))
    return typed, changes, problems


_BAD = object()


def _number(text: str, kind: type[int] | type[float]) -> Any:
    try:
        value = kind(text)
    except ValueError:
        return _BAD
    return _BAD if isinstance(value, float) and not math.isfinite(value) else value


# --------------------------------------------------------------------- the file
def read_config(path: Path) -> dict[str, Any]:
    """The file's data; ``{}`` when absent; a ConfigError when it cannot be read."""
    if not path.exists():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML ({error_line(exc)}); fix it first: "
                          "the settings page does not overwrite a file it cannot read"
                          ) from None
    except OSError as exc:
        raise ConfigError(f"Cannot read {path} ({exc.strerror})") from None


def apply_changes(data: dict[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` with each dotted key set, or removed where the change is ``None``."""
    result: dict[str, Any] = _copy(dict(data))
    for key, value in changes.items():
        section, _, name = key.partition(".")
        table = result.get(section)
        if value is None:
            if isinstance(table, dict):
                table.pop(name, None)
                if not table:
                    result.pop(section)
            continue
        if not isinstance(table, dict):
            table = result[section] = {}
        table[name] = list(value) if isinstance(value, list | tuple) else value
    return result


def _copy(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _copy(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_copy(v) for v in data]
    return data


def dump_toml(data: Mapping[str, Any]) -> str:
    """``data`` (as :mod:`tomllib` reads it) as TOML text."""
    lines: list[str] = []
    _dump_table(data, [], lines)
    return "\n".join(lines).strip("\n") + "\n"


def _dump_table(data: Mapping[str, Any], path: list[str], lines: list[str]) -> None:
    scalars = [(k, v) for k, v in data.items() if not isinstance(v, dict)]
    tables = [(k, v) for k, v in data.items() if isinstance(v, dict)]
    if path and (scalars or not tables):
        lines.append("")
        lines.append("[" + ".".join(_key(p) for p in path) + "]")
    for key, value in scalars:
        lines.append(f"{_key(key)} = {_value(value)}")
    for key, value in tables:
        _dump_table(value, [*path, key], lines)


def _key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _string(key)


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    raise ConfigError(f"cannot write a {type(value).__name__} to a settings file")


def write_config(path: Path, data: Mapping[str, Any]) -> None:
    """Write ``data`` to ``path`` (owner-only: it may hold a key), atomically; refuses
    unless the text reads back as exactly ``data``."""
    text = dump_toml(data)
    try:
        same = tomllib.loads(text) == data
    except tomllib.TOMLDecodeError:
        same = False
    if not same:
        raise ConfigError(f"Could not write {path} faithfully; edit it by hand")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".deepcite-", suffix=".toml")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.chmod(temp, 0o600)
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise ConfigError(f"Cannot write {path} ({exc.strerror})") from None


@dataclass(frozen=True)
class Prepared:
    """A save ready to write: the file, its new data, and the settings the server runs
    with once it is written."""

    path: Path
    data: dict[str, Any]
    settings: Settings


def prepare(changes: Mapping[str, Any], running: Settings) -> Prepared:
    """The user's file with ``changes``, checked as a whole (ConfigError when the files
    would not validate), and ``running`` with the changed keys as the files and
    environment would give them then (:func:`with_current`): a ``DEEPCITE_*`` variable
    or a project file still wins, as the page says."""
    path = user_config_file()
    data = apply_changes(read_config(path), changes)
    with tempfile.TemporaryDirectory() as folder:  # the whole would-be file, validated
        trial = Path(folder) / "deepcite.toml"
        trial.write_text(dump_toml(data), encoding="utf-8")
        files = [trial if f == path else f for f in default_config_files()]
        load_settings(config_files=files)
        live = with_current(running, changes, config_files=files)
    return Prepared(path, data, live)


# --------------------------------------------------------------------- routes


router = APIRouter(include_in_schema=False)


def settings_page(kit: PageKit, request: Request, session: Session, status: int = 200, *,
                  typed: dict[str, Any] | None = None,
                  problems: dict[str, str] | None = None, problem: str | None = None,
                  saved: bool = False) -> HTMLResponse:
    settings = kit.state.settings
    try:
        explained = explain_settings()
    except ConfigError as exc:
        explained, problem = [], problem or str(exc)
    current = {row.key: row.value for row in explained}
    origins = {row.key: row.origin for row in explained}
    running = dict(settings_rows(settings))
    shown = [(key, value, origins.get(key, "default"),
              _differs(value, current.get(key)) if current else False)
             for key, value in running.items()]
    found = choices(settings)
    fields = key_fields()
    may_change = _may_change(session)
    return kit.render(request, session, "settings.html", status, title="Settings",
                      providers=found.providers, engines=found.engines,
                      collections=found.collections,
                      keys=key_status(settings, dict(os.environ)),
                      rows=shown, values=typed or form_values(current),
                      origins=origins, problems=problems or {}, problem=problem,
                      saved=saved, config_path=str(user_config_file()),
                      text_fields=TEXT_FIELDS, answer_modes=ANSWER_MODES,
                      key_fields=fields,
                      key_states=key_states(fields, current, origins, os.environ),
                      workers_keep_keys=bool(settings.queue.url), may_change=may_change)


@router.get("/settings", response_class=HTMLResponse)
def settings_get(kit: Kit, request: Request, saved: str = "") -> Response:
    return settings_page(kit, request, kit.session_for(request), saved=saved == "1")


@router.post("/settings")
async def settings_post(kit: Kit, request: Request) -> Response:
    form, session = await kit.posted(request)
    return await anyio.to_thread.run_sync(save_form, kit, request, session, form)


def save_form(kit: PageKit, request: Request, session: Session, form: FormData) -> Response:
    if not _may_change(session):
        return kit.render(request, session, "error.html", 403, title="Not allowed",
                          message="Only an admin can change the server's settings")
    secrets = tuple(field.setting for field in key_fields())
    typed, changes, problems = parse_form(form, secrets)
    changes = touched(changes, typed, secrets)
    if problems:
        return settings_page(kit, request, session, 400, typed=typed, problems=problems)
    try:
        prepared = prepare(changes, kit.state.settings)
    except ConfigError as exc:
        return settings_page(kit, request, session, 400, typed=typed, problem=error_line(exc))
    if MODEL_KEYS & changes.keys():
        from deepcite.llm.providers import model_problem

        wrong = model_problem(prepared.settings)
        if wrong is not None:
            return settings_page(kit, request, session, 400, typed=typed,
                                 problems={"llm.model": f"llm.model: {wrong}"})
    try:
        write_config(prepared.path, prepared.data)
    except ConfigError as exc:
        return settings_page(kit, request, session, 400, typed=typed, problem=error_line(exc))
    kit.state.use_settings(prepared.settings)
    if session.user is not None:
        kit.history.audit("admin.settings", actor=session.user.name,
                          detail={"keys": sorted(changes)},
                          address=client_address(request))
    return RedirectResponse("/settings?saved=1", status_code=303)


def touched(changes: Mapping[str, Any], typed: Mapping[str, Any],
            secrets: tuple[str, ...] = (API_KEY,)) -> dict[str, Any]:
    """Only the changes the person made: a field still showing the value the form was
    filled with (a default, a value from the environment or another file) is not written
    into the user's file, where it would pin that value for good. The key fields are
    never pre-filled, so what is typed there, or a removal, always counts."""
    try:
        shown = form_values({row.key: row.value for row in explain_settings()})
    except ConfigError:
        return dict(changes)
    return {key: value for key, value in changes.items()
            if key in secrets or typed.get(key) != shown.get(key)}


def _may_change(session: Session) -> bool:
    """Whether ``session`` may change the server's settings (the user config file every
    run on this server reads): anyone without accounts, only admins with them."""
    return session.user is None or session.user.is_admin


def _is_set(value: Any) -> bool:
    return value is not None and value != ""


def _differs(running: str, saved: Any) -> bool:
    """Whether the value in the files now differs from the one the server runs with."""
    if running in ("set", "not set") and saved in (None, "********"):
        return False  # a secret: neither side shows it
    if isinstance(saved, tuple | list):
        saved = list(saved)
    elif saved is not None and not isinstance(saved, str | int | float | bool):
        saved = str(saved)
    shown = saved if isinstance(saved, str) else json.dumps(saved)
    return shown != running
