"""The checks of what a script passes to :class:`~deepcite.collections.Collection`.

The collection classes are public API (``Collection.create("notes")`` in a script), so
a wrong argument must be a one-line :class:`~deepcite.errors.CollectionError` naming
what was wrong, never a ``TypeError`` from deep inside; these are those checks, kept
apart from what a collection does with the arguments once they are right.
"""

from __future__ import annotations

import os
from pathlib import Path

from deepcite.collections.index.elastic import BACKENDS
from deepcite.config import Settings, load_settings
from deepcite.errors import CollectionError

PathArg = str | os.PathLike[str]
"""A file or folder as the Python API accepts it."""


def kind_of(value: object) -> str:
    """The type of ``value`` as a message names it (``None`` for ``None``)."""
    return "None" if value is None else type(value).__name__


def settings_or_default(settings: Settings | None) -> Settings:
    """``settings``, or the layered defaults (config files, ``DEEPCITE_*``) when ``None``."""
    if settings is None:
        return load_settings()
    if not isinstance(settings, Settings):
        raise CollectionError(f"settings must be a deepcite Settings object (from "
                              f"load_settings()), not {kind_of(settings)}")
    return settings


def as_path(value: object, what: str) -> Path:
    """``value`` as a ``Path``; ``what`` names it in the error when it is none."""
    if isinstance(value, str | os.PathLike):
        if str(value).strip():
            return Path(value)
        raise CollectionError(f"{what} is empty - give a file or folder path")
    raise CollectionError(f"{what} must be a path (str or Path), not {kind_of(value)}")


def as_inputs(value: object) -> list[Path]:
    """What ``add`` accepts: one path, or a non-empty list or tuple of paths."""
    if isinstance(value, str | os.PathLike):
        return [as_path(value, "The folder or file to add")]
    if isinstance(value, list | tuple) and value:
        return [as_path(item, "Each folder or file to add") for item in value]
    shown = "an empty list" if isinstance(value, list | tuple) else kind_of(value)
    raise CollectionError(f"add() takes a folder or file path (str or Path) or a list of "
                          f"them, not {shown}")


def backend_named(value: object) -> str:
    """``value`` if it names a collection backend (``sqlite``, ``elasticsearch``)."""
    if isinstance(value, str) and value in BACKENDS:
        return value
    raise CollectionError(f"Unknown collection backend {value!r} - use one of "
                          f"{', '.join(BACKENDS)}")
