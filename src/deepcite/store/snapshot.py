"""The settings a run used, as stored with it: everything but secrets - and back.

A stored run must say how it was made (model, engines, strategy, budgets) so it can be
understood and repeated, but the history is a file users copy, share and back up, so no
credential may reach it. :func:`settings_snapshot` removes three kinds:

* every :class:`~pydantic.SecretStr` / :class:`~pydantic.SecretBytes` field becomes
  ``None`` (its key stays, so the snapshot keeps the shape of the settings);
* in free-form tables (``engines.plugins``, where a plugin engine's options are plain
  values) every key named like a credential (``api_key``, ``token``, ``password`` ...);
* the password of any ``scheme://user:password@host`` URL, such as a ``store.url`` or
  a SearXNG address with basic auth; the user name stays.

The dotted paths of what was removed are listed under the reserved top-level key
:data:`REDACTED_KEY` (``"_redacted"``), e.g. ``["engines.brave_api_key",
"llm.base_url"]``; readers that walk the settings sections skip it.

:func:`restore_settings` is the way back, on the machine that executes a run (a queue
worker): the snapshot over that machine's own settings, with every removed value taken
from the machine, since a snapshot's ``http://user@host`` must never replace the
machine's ``http://user:password@host``. ``data_dir``, ``store``, ``queue`` and
``delivery`` are always the machine's own.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any, get_args

from pydantic import BaseModel, SecretBytes, SecretStr, ValidationError

from deepcite.config import Settings
from deepcite.errors import ConfigError

logger = logging.getLogger(__name__)

#: Top-level key of a snapshot listing the dotted paths of the values removed from it.
REDACTED_KEY = "_redacted"
#: Settings that are the executing machine's business, never taken from a snapshot
#: (``delivery``: the server's SMTP account and webhook limits, not the run's).
LOCAL_SECTIONS = frozenset({"data_dir", "store", "queue", "delivery"})

# Names of free-form keys that hold credentials; ``max_tokens`` and the like do not match.
_SECRET_KEY = re.compile(
    r"(?:^|[_-])(?:api[_-]?key|key|token|secret|password|passwd|pwd|credentials?|auth)$",
    re.IGNORECASE)
_URL_PASSWORD = re.compile(r"^([a-z][a-z0-9+.-]*://[^/@:\s]*):[^/\s]*@", re.IGNORECASE)
# scheme, user, password, host (with port), rest - of a URL with a password
_URL_WITH_PASSWORD = re.compile(
    r"^([a-z][a-z0-9+.-]*)://([^/@:\s]*):([^/\s]*)@([^/?#\s]*)(.*)$", re.IGNORECASE | re.DOTALL)
# scheme, user, host (with port), rest - of a URL with a user and no password
_URL_WITH_USER = re.compile(
    r"^([a-z][a-z0-9+.-]*)://([^/@:\s]*)@([^/?#\s]*)(.*)$", re.IGNORECASE | re.DOTALL)

_Path = tuple[str, ...]


# ------------------------------------------------------------------------ snapshot


def settings_snapshot(settings: Settings) -> dict[str, Any]:
    """``settings`` as JSON-ready data, without any secret (see the module docstring).

    The paths of the removed values are listed, sorted, under :data:`REDACTED_KEY`
    (always present, empty when nothing was removed, so that a reader can tell a
    snapshot of this version from an older one).
    """
    data = settings.model_dump(mode="json")
    redacted: list[str] = []
    _drop_secret_fields(settings, data, (), redacted)
    scrubbed: dict[str, Any] = _scrub(data, free_form=False, path=(), redacted=redacted)
    scrubbed[REDACTED_KEY] = sorted(set(redacted))
    return scrubbed


def _drop_secret_fields(model: BaseModel, data: dict[str, Any], path: _Path,
                        redacted: list[str]) -> None:
    """Set every secret field of ``model`` (nested models too) to ``None`` in ``data``."""
    for name in type(model).model_fields:
        value = getattr(model, name)
        if isinstance(value, SecretStr | SecretBytes):
            data[name] = None
            redacted.append(_dotted((*path, name)))
        elif isinstance(value, BaseModel) and isinstance(data.get(name), dict):
            _drop_secret_fields(value, data[name], (*path, name), redacted)
        elif isinstance(value, dict) and isinstance(data.get(name), dict):
            # a dict-typed setting: its keys are not fields, so credentials go by name
            data[name] = _scrub(data[name], free_form=True, path=(*path, name),
                                redacted=redacted)


def _scrub(value: Any, *, free_form: bool, path: _Path, redacted: list[str]) -> Any:
    """``value`` with URL passwords removed, and in free-form tables credential keys;
    the path of each removed value is added to ``redacted``."""
    if isinstance(value, dict):
        scrubbed: dict[str, Any] = {}
        for key, item in value.items():
            if free_form and _SECRET_KEY.search(str(key)):
                scrubbed[key] = None
                if item is not None:
                    redacted.append(_dotted((*path, str(key))))
            else:
                scrubbed[key] = _scrub(item, free_form=free_form, path=(*path, str(key)),
                                       redacted=redacted)
        return scrubbed
    if isinstance(value, list):
        return [_scrub(item, free_form=free_form, path=(*path, str(index)),
                       redacted=redacted)
                for index, item in enumerate(value)]
    if isinstance(value, str):
        stripped = _URL_PASSWORD.sub(r"\1@", value)
        if stripped != value:
            redacted.append(_dotted(path))
        return stripped
    return value


def _dotted(path: _Path) -> str:
    return ".".join(path)


# ------------------------------------------------------------------------- restore


def restore_settings(snapshot: dict[str, Any], local: Settings) -> Settings:
    """The run's settings rebuilt from its ``snapshot`` over ``local``, the settings
    this machine loaded (its config files and environment).

    * ``data_dir``, ``store`` and ``queue`` are always ``local``'s;
    * secret fields are always ``local``'s (a snapshot never carries one: its ``None``
      never replaces a key of this machine);
    * a value the snapshot lists as removed (:data:`REDACTED_KEY`) comes from
      ``local``: a URL whose password was stripped gets ``local``'s password when
      ``local``'s URL names the same ``scheme://user@host`` (the run's path is kept),
      else ``local``'s URL whole; a credential key of a free-form table gets
      ``local``'s value. Where ``local`` has no value, the snapshot's stays (a URL
      without its password, logged);
    * a credential key of a free-form table that is ``None`` in the snapshot takes
      ``local``'s value, if any;
    * a snapshot of an older version, without :data:`REDACTED_KEY`: a URL with a user
      and no password (``scheme://user@host...``) takes the password of ``local``'s
      URL for the same setting when that names the same ``scheme://user@host``;
    * everything else comes from the snapshot; a setting missing from it (a snapshot
      of an older version) is ``local``'s.

    Settings this version does not know (a snapshot of another version) are dropped
    with a logged warning. A value this version rejects raises :class:`ConfigError`:
    the run cannot be executed as it was asked here.
    """
    data = dict(snapshot)
    listed = data.pop(REDACTED_KEY, None)
    redacted = ({str(path) for path in listed} if isinstance(listed, list | tuple)
                else None)
    dropped: list[str] = []
    merged = _merge_model(Settings, data, local, local.model_dump(mode="json"), (),
                          redacted, dropped)
    if dropped:
        logger.warning("The run's settings name %d setting(s) this version of deepcite "
                       "does not know, ignored: %s", len(dropped), ", ".join(dropped))
    try:
        return Settings.model_validate(merged)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(part) for part in err["loc"]) or "?"
        raise ConfigError(f"The run's stored settings do not fit this version of "
                          f"deepcite: {where}: {err['msg']}") from None


def _merge_model(model: type[BaseModel], snap: dict[str, Any], local: BaseModel,
                 local_json: dict[str, Any], path: _Path, redacted: set[str] | None,
                 dropped: list[str]) -> dict[str, Any]:
    """The fields of ``model``: ``snap``'s over ``local``'s, by the rules of
    :func:`restore_settings`; keys of ``snap`` that are not fields go to ``dropped``."""
    fields = model.model_fields
    dropped.extend(_dotted((*path, str(key))) for key in snap if key not in fields)
    merged: dict[str, Any] = {}
    for name, field in fields.items():
        mine = getattr(local, name)
        here = (*path, name)
        if (not path and name in LOCAL_SECTIONS) or name not in snap \
                or _is_secret(field.annotation):
            merged[name] = mine
        elif isinstance(mine, BaseModel):
            theirs = snap[name]
            if isinstance(theirs, dict):
                merged[name] = _merge_model(type(mine), theirs, mine,
                                            local_json.get(name) or {}, here, redacted,
                                            dropped)
            else:  # a section stored as a plain value: nothing of it can be used
                dropped.append(_dotted(here))
                merged[name] = mine
        else:
            merged[name] = _merge_value(snap[name], local_json.get(name), here, redacted,
                                        free_form=isinstance(mine, dict))
    return merged


def _merge_value(theirs: Any, mine: Any, path: _Path, redacted: set[str] | None, *,
                 free_form: bool) -> Any:
    """The snapshot's ``theirs`` with what was removed from it taken from ``mine``."""
    if redacted is not None and _dotted(path) in redacted:
        return _restored(theirs, mine, path)
    if isinstance(theirs, dict):
        mine_map = mine if isinstance(mine, dict) else {}
        out: dict[str, Any] = {}
        for key, item in theirs.items():
            local_item = mine_map.get(key)
            if free_form and item is None and local_item is not None \
                    and _SECRET_KEY.search(str(key)):
                out[key] = local_item  # a removed (or never given) credential
            else:
                out[key] = _merge_value(item, local_item, (*path, str(key)), redacted,
                                        free_form=free_form)
        return out
    if isinstance(theirs, list):
        mine_list = mine if isinstance(mine, list) else []
        return [_merge_value(item, mine_list[index] if index < len(mine_list) else None,
                             (*path, str(index)), redacted, free_form=free_form)
                for index, item in enumerate(theirs)]
    if redacted is None and isinstance(theirs, str) and isinstance(mine, str):
        return _with_password(theirs, mine) or theirs
    return theirs


def _restored(theirs: Any, mine: Any, path: _Path) -> Any:
    """A value removed from the snapshot (``theirs`` is what is left of it)."""
    if isinstance(theirs, str):
        grafted = _with_password(theirs, mine) if isinstance(mine, str) else None
        if grafted is not None:
            return grafted
        if isinstance(mine, str) and mine:
            logger.info("%s: the run's address has no password here; this machine's "
                        "own %s is used", _dotted(path), _dotted(path))
            return mine
        logger.warning("%s: the run's address lost its password when stored and this "
                       "machine sets none; it is used without one", _dotted(path))
        return theirs
    return theirs if mine is None else mine


def _with_password(stripped: str, local: str) -> str | None:
    """``stripped`` (``scheme://user@host/...``) with ``local``'s password, when
    ``local`` is ``scheme://user:password@host...`` for the same scheme, user and host;
    else ``None``."""
    theirs = _URL_WITH_USER.match(stripped)
    mine = _URL_WITH_PASSWORD.match(local)
    if theirs is None or mine is None:
        return None
    scheme, user, host, rest = theirs.groups()
    if (scheme.lower(), user, host.lower()) != (mine[1].lower(), mine[2], mine[4].lower()):
        return None
    return f"{scheme}://{user}:{mine[3]}@{host}{rest}"


def _is_secret(annotation: Any) -> bool:
    """Whether a field's type is (or holds, as in ``SecretStr | None``) a secret."""
    if annotation in (SecretStr, SecretBytes):
        return True
    args: Iterable[Any] = get_args(annotation)
    return any(_is_secret(arg) for arg in args)


__all__ = ["LOCAL_SECTIONS", "REDACTED_KEY", "restore_settings", "settings_snapshot",
           "snapshot_collections"]


def snapshot_collections(snapshot: object) -> list[str]:
    """The collections a stored snapshot says its run searched (``search.collections``),
    read leniently: a snapshot of another version, or a damaged one, gives none."""
    search = snapshot.get("search") if isinstance(snapshot, dict) else None
    names = search.get("collections") if isinstance(search, dict) else None
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else []
