"""What every built-in provider module shares: the status and spec records, and the
checks of an optional SDK and an API key, so each provider words them alike."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from deepcite.config import Settings
from deepcite.errors import ModelError
from deepcite.llm.client import ChatModel


@dataclass(frozen=True)
class ProviderStatus:
    """Whether a provider can be used here; ``detail`` says why not and how to fix it."""

    name: str
    usable: bool
    detail: str


@dataclass(frozen=True)
class ProviderSpec:
    """One provider: a builder for its chat model and a cheap usability check."""

    name: str
    description: str
    build: Callable[[Settings], ChatModel]
    check: Callable[[Settings], ProviderStatus]


def extra_missing(package: str, extra: str) -> str:
    """The one line saying which extra installs a missing SDK."""
    return f"{package} is not installed - run `pip install deepcite[{extra}]`"


def import_class(module: str, name: str, package: str, extra: str) -> Any:
    """The SDK class ``module.name``, imported only now (SDKs are optional extras)."""
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError as exc:
        raise ModelError(extra_missing(package, extra)) from exc


def configured_key(settings: Settings, env_var: str) -> str | None:
    """``llm.api_key`` when set, else the provider's own variable ``env_var``."""
    if settings.llm.api_key is not None and settings.llm.api_key.get_secret_value():
        return settings.llm.api_key.get_secret_value()
    return os.environ.get(env_var) or None


def no_key_message(env_var: str) -> str:
    """What a provider without its API key says."""
    return f"no API key - set {env_var} or llm.api_key"
