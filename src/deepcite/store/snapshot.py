"""The settings a run used, as stored with it: everything but secrets.

A stored run must say how it was made (model, engines, strategy, budgets) so it can be
understood and repeated, but the history is a file users copy, share and back up, so no
credential may reach it. Three kinds are removed:

* every :class:`~pydantic.SecretStr` / :class:`~pydantic.SecretBytes` field becomes
  ``None`` (its key stays, so the snapshot keeps the shape of the settings);
* in free-form tables (``engines.plugins``, where a plugin engine's options are plain
  values) every key named like a credential (``api_key``, ``token``, ``password`` ...);
* the password of any ``scheme://user:password@host`` URL, such as a ``store.url`` or
  a SearXNG address with basic auth; the user name stays.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, SecretBytes, SecretStr

from deepcite.config import Settings

# Names of free-form keys that hold credentials; ``max_tokens`` and the like do not match.
_SECRET_KEY = re.compile(
    r"(?:^|[_-])(?:api[_-]?key|key|token|secret|password|passwd|pwd|credentials?|auth)$",
    re.IGNORECASE)
_URL_PASSWORD = re.compile(r"^([a-z][a-z0-9+.-]*://[^/@:\s]*):[^/\s]*@", re.IGNORECASE)


def settings_snapshot(settings: Settings) -> dict[str, Any]:
    """``settings`` as JSON-ready data, without any secret (see the module docstring)."""
    data = settings.model_dump(mode="json")
    _drop_secret_fields(settings, data)
    scrubbed: dict[str, Any] = _scrub(data, free_form=False)
    return scrubbed


def _drop_secret_fields(model: BaseModel, data: dict[str, Any]) -> None:
    """Set every secret field of ``model`` (nested models too) to ``None`` in ``data``."""
    for name in type(model).model_fields:
        value = getattr(model, name)
        if isinstance(value, SecretStr | SecretBytes):
            data[name] = None
        elif isinstance(value, BaseModel) and isinstance(data.get(name), dict):
            _drop_secret_fields(value, data[name])
        elif isinstance(value, dict) and isinstance(data.get(name), dict):
            # a dict-typed setting: its keys are not fields, so credentials go by name
            data[name] = _scrub(data[name], free_form=True)


def _scrub(value: Any, *, free_form: bool) -> Any:
    """``value`` with URL passwords removed, and in free-form tables credential keys."""
    if isinstance(value, dict):
        return {key: None if free_form and _SECRET_KEY.search(str(key))
                else _scrub(item, free_form=free_form)
                for key, item in value.items()}
    if isinstance(value, list):
        return [_scrub(item, free_form=free_form) for item in value]
    if isinstance(value, str):
        return _URL_PASSWORD.sub(r"\1@", value)
    return value
