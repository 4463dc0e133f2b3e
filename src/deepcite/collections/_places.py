"""Which names a collection may have, and where its files live.

A name becomes a file name under the data folder (``<data_dir>/collections/<name>.sqlite``)
and the name of the folder its web uploads are kept in, so every front end checks it
here before the file system is looked at.
"""

from __future__ import annotations

from pathlib import Path

from deepcite.config import Settings
from deepcite.config_sections import COLLECTION_NAME, collection_name_problem
from deepcite.errors import CollectionError

NAME_PATTERN = COLLECTION_NAME
SUFFIX = ".sqlite"


def validate_name(name: str) -> str:
    """Return ``name`` if it is a valid collection name, else raise ``CollectionError``.

    Every front end that takes a name from a request calls this (and
    :meth:`~deepcite.collections.Collection.named` does again), because a name becomes
    a file name under the data folder: a path given as a name must never reach the file
    system. The rule itself is :func:`deepcite.config_sections.collection_name_problem`,
    which the settings (``search.collections``) use too, so a config file and a request
    refuse the same names with the same words.
    """
    problem = collection_name_problem(name)
    if problem is not None:
        raise CollectionError(problem)
    return name


def collections_dir(settings: Settings) -> Path:
    """Where named collections live: ``<data_dir>/collections``."""
    return settings.data_dir / "collections"


def collection_path(name: str, settings: Settings) -> Path:
    """The default file of the collection called ``name``."""
    return collections_dir(settings) / f"{validate_name(name)}{SUFFIX}"


def upload_folder(settings: Settings, name: str) -> Path:
    """Where the files uploaded into collection ``name`` on the web pages are kept
    (``name`` is valid); deleting the collection deletes the folder too."""
    return Path(settings.data_dir).expanduser() / "uploads" / name


def missing_collection(name: str) -> CollectionError:
    """The error for a collection name that names none (also what a name the asker
    may not search is answered, so that names reveal nothing)."""
    return CollectionError(
        f"No collection named {name!r} - create it with "
        f"`deepcite collection add FOLDER --name {name}`"
    )
