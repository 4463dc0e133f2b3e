"""One registry helper for every pluggable kind: engines, providers, loaders, strategies,
citation handlers, exporters and watch delivery channels.

Each kind used to keep its own dict, its own spelling rule and its own idea of what an
unknown name means, so ``semantic_scholar`` worked where ``Semantic-Scholar`` did not
and a typo was an error in one place and silently ignored in another. A
:class:`Registry` states those rules once:

- **Spelling.** Names are compared after one rule, :func:`kebab_case` by default
  (``Semantic_Scholar``, ``semantic-scholar`` and ``semantic_scholar`` are the same
  name; the canonical spelling is ``semantic-scholar``). A kind with another natural
  key passes its own rule (loaders: :func:`file_suffix`). Aliases are spelled by the same
  rule, so old names keep working.
- **Unknown names.** A kind declares what an unknown name means: a
  :class:`~deepcite.errors.ConfigError` naming the closest known names (no
  ``fallback``), or a warning and the ``fallback`` entry (``fallback="standard"``).
- **Plugins.** Every kind has an entry point group (:data:`GROUPS`); a plugin's name is
  spelled like a built-in's and may never shadow a built-in or one of its aliases, so
  installing a package cannot silently change what an existing setting means.
- **Lazy loading.** A built-in may be given as an import path ``"module:attribute"``
  and is imported on first use, so a missing optional dependency breaks only its own
  entry. Plugins are loaded on first use too; the entry point scan runs once per group
  and process (call :func:`refresh` after installing a plugin at runtime, or in tests).

A kind registers like this (strategies, say)::

    STRATEGIES = Registry[type[Strategy]](
        "strategy", group=STRATEGIES_GROUP, check=_strategy_class,
        builtins={"source-based": "deepcite.research.strategies.source_based:SourceBased"},
        aliases={"source-based-search": "source-based"},
        replaced={"rapid": "source-based"}, fallback="source-based",
        hint="See `deepcite strategies`")
    cls = STRATEGIES.load(settings.research.strategy, warn=ctx.warn)

``check`` turns whatever an import path or entry point produced into the kind's type,
or raises :class:`~deepcite.errors.ConfigError` saying what is wrong with it; it is how
a registry stays typed although plugins are arbitrary objects.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import importlib.metadata
import logging
import re
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from deepcite.errors import ConfigError

__all__ = [
    "CITATION_HANDLERS_GROUP",
    "DELIVERY_CHANNELS_GROUP",
    "EXPORTERS_GROUP",
    "GROUPS",
    "LLM_PROVIDERS_GROUP",
    "LOADERS_GROUP",
    "SEARCH_ENGINES_GROUP",
    "STRATEGIES_GROUP",
    "Registry",
    "closest",
    "entry_point_names",
    "file_suffix",
    "import_object",
    "kebab_case",
    "refresh",
    "table_options",
]

logger = logging.getLogger(__name__)

SEARCH_ENGINES_GROUP = "deepcite.search_engines"
LLM_PROVIDERS_GROUP = "deepcite.llm_providers"
LOADERS_GROUP = "deepcite.loaders"
STRATEGIES_GROUP = "deepcite.strategies"
CITATION_HANDLERS_GROUP = "deepcite.citation_handlers"
EXPORTERS_GROUP = "deepcite.exporters"
DELIVERY_CHANNELS_GROUP = "deepcite.delivery_channels"
#: The entry point group of every pluggable kind.
GROUPS: Mapping[str, str] = {
    "search engines": SEARCH_ENGINES_GROUP,
    "LLM providers": LLM_PROVIDERS_GROUP,
    "collection loaders": LOADERS_GROUP,
    "strategies": STRATEGIES_GROUP,
    "citation handlers": CITATION_HANDLERS_GROUP,
    "exporters": EXPORTERS_GROUP,
    "watch delivery channels": DELIVERY_CHANNELS_GROUP,
}

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
Warn = Callable[[str], None]

_SEPARATORS = re.compile(r"[\s_\-]+")


def kebab_case(name: str) -> str:
    """The one spelling rule: ``" Semantic_Scholar "`` -> ``"semantic-scholar"``."""
    return _SEPARATORS.sub("-", name.strip().lower()).strip("-")


def file_suffix(name: str) -> str:
    """The spelling rule of loaders: ``"ODT"``, ``"odt"`` and ``".odt"`` -> ``".odt"``."""
    suffix = name.strip().lower()
    return suffix if suffix.startswith(".") else f".{suffix}"


def closest(name: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Up to ``n`` candidates that look like ``name``, best first (difflib)."""
    return difflib.get_close_matches(name, list(candidates), n=n, cutoff=0.6)


def import_object(path: str) -> object:
    """The object at ``"package.module:attribute.sub"``; ImportError/AttributeError as is."""
    module_name, _, attribute = path.partition(":")
    target: object = importlib.import_module(module_name)
    for part in filter(None, attribute.split(".")):
        target = getattr(target, part)
    return target


def table_options(table: Mapping[str, Any], where: str, owner: str, model: type[M]) -> M:
    """A plugin's settings table ``[<where>]`` validated as ``model``.

    ``owner`` names the plugin in messages ("search engine 'corp'"). Unknown keys are
    refused even when the model allows extras, because a typo in a config file must not
    pass silently; every error is one line naming the key.
    """
    fields = {field.alias or name for name, field in model.model_fields.items()}
    for option in table:
        if option not in fields:
            near = closest(option, fields)
            hint = (f"did you mean {near[0]!r}?" if near
                    else f"known: {', '.join(sorted(fields)) or 'none'}")
            raise ConfigError(f"Unknown setting '{where}.{option}' for {owner} - {hint}")
    try:
        return model.model_validate(table)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, where, table)) from None


def _describe(exc: ValidationError, where: str, table: Mapping[str, Any]) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(part) for part in err["loc"])
    key = f"{where}.{loc}" if loc else where
    if err["type"] == "missing":
        return (f"Setting '{key}' is required - add it to the [{where}] table of "
                "deepcite.toml")
    value = table.get(str(err["loc"][0]), err.get("input")) if err["loc"] else table
    return f"Bad value {value!r} for setting '{key}': {err['msg']}"


_scan_lock = threading.Lock()
_scans: dict[str, tuple[importlib.metadata.EntryPoint, ...]] = {}
_registries: weakref.WeakSet[Registry[Any]] = weakref.WeakSet()


def _entry_points(group: str) -> tuple[importlib.metadata.EntryPoint, ...]:
    """The entry points of ``group``, scanned once per process (scans are slow)."""
    with _scan_lock:
        if group not in _scans:
            # Looked up on the module at call time, so tests can monkeypatch it.
            _scans[group] = tuple(importlib.metadata.entry_points(group=group))
        return _scans[group]


def entry_point_names(group: str, spell: Callable[[str], str] = kebab_case) -> list[str]:
    """Names registered in entry point ``group``, spelled by ``spell`` (no loading).

    For code that must know plugin names without owning the registry, such as settings
    validation, which sits below the modules that hold the registries.
    """
    return [spell(entry.name) for entry in _entry_points(group)]


def refresh() -> None:
    """Forget entry point scans and loaded plugins (after installing one at runtime)."""
    with _scan_lock:
        _scans.clear()
    for registry in list(_registries):
        registry.forget()


@dataclass(frozen=True)
class _Plugin:
    value: str
    entry: importlib.metadata.EntryPoint


class Registry(Generic[T]):
    """Names to objects of one kind: built-ins, aliases and entry point plugins.

    ``kind`` is the singular noun used in messages ("search engine"); ``builtins`` maps
    canonical names to objects or import paths; ``check`` validates a loaded object
    (``check(name, obj) -> T``, ConfigError when it is not usable); ``reserved`` are
    names the kind's own code handles before the registry (``auto`` among providers):
    they count as known in messages and no plugin may take them. ``hint`` ends every
    unknown-name message (``"See `deepcite engines`"``).
    """

    def __init__(
        self,
        kind: str,
        *,
        group: str,
        builtins: Mapping[str, T | str],
        check: Callable[[str, object], T],
        aliases: Mapping[str, str] | None = None,
        replaced: Mapping[str, str] | None = None,
        fallback: str | None = None,
        reserved: Sequence[str] = (),
        hint: str = "",
        spell: Callable[[str], str] = kebab_case,
    ) -> None:
        self.kind = kind
        self.group = group
        self.hint = hint
        self._spell = spell
        self._check = check
        # Kept by reference: a kind may add built-ins at runtime (tests, embedding apps).
        self._builtins = builtins
        self._aliases = {spell(k): spell(v) for k, v in (aliases or {}).items()}
        self._replaced = {spell(k): spell(v) for k, v in (replaced or {}).items()}
        self._reserved = tuple(spell(name) for name in reserved)
        self.fallback = spell(fallback) if fallback is not None else None
        for target in (*self._aliases.values(), *self._replaced.values(),
                       *([self.fallback] if self.fallback else [])):
            if target not in self._builtins:
                raise ValueError(f"{kind} registry: {target!r} is not a built-in")
        for key in self._builtins:
            if spell(key) != key:
                raise ValueError(f"{kind} registry: built-in {key!r} is not spelled "
                                 f"canonically ({spell(key)!r})")
        self._lock = threading.Lock()
        self._loaded: dict[str, T] = {}
        self._plugins: dict[str, _Plugin] | None = None
        _registries.add(self)

    # ------------------------------------------------------------------ names

    def canonical(self, name: str) -> str:
        """``name`` in the canonical spelling, aliases resolved; existence not checked."""
        key = self._spell(name)
        return self._aliases.get(key, key)

    def names(self) -> list[str]:
        """Every known name: built-ins in registration order, then plugins sorted."""
        return [*self._builtins, *sorted(self.plugins())]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._known(self.canonical(name))

    def _known(self, key: str) -> bool:
        return key in self._builtins or key in self.plugins()

    def is_builtin(self, name: str) -> bool:
        """Whether ``name`` (any spelling) is a built-in entry."""
        return self.canonical(name) in self._builtins

    def origin(self, name: str) -> str:
        """Where the entry comes from: its import path, ``"built in"`` or ``"plugin"``."""
        key = self.canonical(name)
        builtin = self._builtins.get(key)
        if isinstance(builtin, str):
            return builtin
        if builtin is not None:
            return "built in"
        plugin = self.plugins().get(key)
        return plugin.value if plugin is not None else "unknown"

    def suggestions(self, name: str) -> list[str]:
        """Known names (and aliases) that look like ``name``, best first."""
        key = self._spell(name)
        pool = [*self._reserved, *self.names(), *self._aliases]
        found = []
        for match in closest(key, pool):
            target = self._aliases.get(match, match)
            if target not in found:
                found.append(target)
        return found

    def unknown_message(self, name: str) -> str:
        """``Unknown search engine 'duckgo' - did you mean 'duckduckgo'? See ...``."""
        near = self.suggestions(name)
        if near:
            text = f"Unknown {self.kind} {name!r} - did you mean {_quoted(near, 'or')}?"
        else:
            known = [*self._reserved, *self.names()]
            text = f"Unknown {self.kind} {name!r}; known: {', '.join(known)}."
        return f"{text} {self.hint}".strip()

    def resolve(self, name: str, warn: Warn | None = None) -> str:
        """The canonical known name ``name`` stands for, by the kind's unknown-name rule.

        Replaced names resolve to their successor with a warning. An unknown name is a
        :class:`ConfigError` naming the closest known names, or, where the kind has a
        ``fallback``, a warning (through ``warn``, else the log) and the fallback.
        """
        key = self.canonical(name)
        if self._known(key):
            return key
        say = warn if warn is not None else logger.warning
        successor = self._replaced.get(key)
        if successor is not None:
            say(f"The {self.kind} {name!r} is not available any more; using {successor!r}")
            return successor
        if self.fallback is None:
            raise ConfigError(self.unknown_message(name))
        near = self.suggestions(name)
        detail = (f"did you mean {_quoted(near, 'or')}?" if near
                  else f"known: {', '.join(self.names())}")
        say(f"Unknown {self.kind} {name!r}; using {self.fallback!r} ({detail})")
        return self.fallback

    # ---------------------------------------------------------------- loading

    def load(self, name: str, warn: Warn | None = None) -> T:
        """The object registered as ``name`` (see :meth:`resolve`), imported on first use.

        An entry that cannot be imported or fails ``check`` is a :class:`ConfigError`
        that names it and says what to reinstall.
        """
        key = self.resolve(name, warn)
        builtin = self._builtins.get(key)
        if builtin is not None and not isinstance(builtin, str):
            return self._check(key, builtin)  # no cache: the mapping may change
        with self._lock:
            cached = self._loaded.get(key)
        if cached is not None:
            return cached
        loaded = self._check(key, self._import(key))
        with self._lock:
            self._loaded.setdefault(key, loaded)
        return loaded

    def get(self, name: str) -> T | None:
        """The object for a known ``name``, or ``None`` (no unknown-name rule applied)."""
        return self.load(name) if name in self else None

    def _import(self, key: str) -> object:
        builtin = self._builtins.get(key)
        if isinstance(builtin, str):
            path, who = builtin, "deepcite"
            importer: Callable[[], object] = functools.partial(import_object, builtin)
        else:
            plugin = self.plugins()[key]
            path, who, importer = plugin.value, "the plugin that provides it", plugin.entry.load
        try:
            return importer()
        except Exception as exc:  # a broken plugin (or missing extra) costs only its entry
            raise ConfigError(f"The {self.kind} {key!r} ({path}) cannot be loaded "
                              f"({type(exc).__name__}: {exc}) - reinstall {who}") from exc

    # ---------------------------------------------------------------- plugins

    def plugins(self) -> dict[str, _Plugin]:
        """Plugins by canonical name; built-in names and aliases cannot be taken."""
        with self._lock:
            if self._plugins is not None:
                return self._plugins
        found: dict[str, _Plugin] = {}
        for entry in _entry_points(self.group):
            key = self.canonical(entry.name)
            if key in self._builtins or key in self._reserved or key in self._replaced:
                logger.warning("%s plugin %s ignored: %r is built in", self.kind,
                               entry.value, key)
            elif key in found:
                logger.warning("%s plugin %s ignored: %r is already registered by %s",
                               self.kind, entry.value, key, found[key].value)
            else:
                found[key] = _Plugin(entry.value, entry)
        with self._lock:
            if self._plugins is None:
                self._plugins = found
            return self._plugins

    def forget(self) -> None:
        """Drop the plugin scan and loaded objects (see :func:`refresh`)."""
        with self._lock:
            self._plugins = None
            self._loaded.clear()


def _quoted(names: Sequence[str], joiner: str) -> str:
    quoted = [repr(name) for name in names]
    if len(quoted) <= 1:
        return "".join(quoted)
    return f"{', '.join(quoted[:-1])} {joiner} {quoted[-1]}"
