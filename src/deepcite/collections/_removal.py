"""Deleting a whole collection: its files, its cluster index, its uploads.

A collection is never left half removed: a read-only folder is refused before anything
is deleted, and a cluster index that cannot be deleted is reported, not hidden.
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
from pathlib import Path

from deepcite.collections import file_access
from deepcite.collections._places import collection_path, missing_collection, upload_folder
from deepcite.collections.index import Index, elastic, inverted, readers
from deepcite.collections.index.elastic import Cluster, ElasticIndex
from deepcite.config import Settings
from deepcite.errors import CollectionError

logger = logging.getLogger(__name__)


def remove_uploads(settings: Settings, name: str) -> str | None:
    """Delete the files uploaded into collection ``name`` (none is no error): part of
    deleting a collection, from its page or with its owner's account. A warning line
    when they could not all be deleted."""
    uploads = upload_folder(settings, name)
    if not uploads.is_dir():
        return None
    try:
        shutil.rmtree(uploads)
    except OSError as exc:
        return f"the uploaded files in {uploads} were left: {exc}"
    return None


def _stored_elastic(file: Path, name: str, settings: Settings) -> ElasticIndex | None:
    """The cluster index the collection file names, if it is readable and has one."""
    try:
        index = Index(file)
        if index.get_meta("backend") != "elasticsearch":
            return None
        stored = index.get_meta("index")
    except sqlite3.Error:
        return None
    return ElasticIndex(Cluster(settings), stored or elastic.index_name(name), name)


def remove_collection(name: str, settings: Settings) -> str | None:
    """Delete the collection ``name`` (its SQLite file, WAL side files and index folder).

    A read-only folder is refused before anything is deleted, so a collection is never
    left half removed. For an ``elasticsearch`` collection the cluster index is deleted
    too; when that fails the local files are still removed and the returned warning
    says which index is left on the cluster (``None`` when all went well).
    """
    file = collection_path(name, settings)
    if not file.is_file():
        cluster = Cluster(settings)
        if cluster.configured:
            try:
                there = ElasticIndex(cluster, elastic.index_name(name), name).exists()
            except CollectionError:
                there = False
            if there:
                raise CollectionError(
                    f"{elastic.lives_elsewhere(name)}; remove it from there, or delete index "
                    f"{elastic.index_name(name)} on {cluster.display_url}")
        raise missing_collection(name)
    if not file_access.writable(file.parent):
        raise file_access.read_only_error(file, f"remove collection {name!r}")
    warning = None
    remote = _stored_elastic(file, name, settings)  # a damaged file is removed all the same
    if remote is not None:
        try:
            remote.delete()
        except CollectionError as exc:
            warning = (f"index {remote.name} was left on the cluster - delete it there by "
                       f"hand ({exc})")
    readers.forget(file)
    for path in (file, Path(f"{file}-wal"), Path(f"{file}-shm"), inverted.folder_of(file)):
        try:
            if path.is_dir():
                inverted.remove(file)
            else:
                path.unlink(missing_ok=True)
        except OSError as exc:
            raise CollectionError(
                f"Cannot remove {path} ({exc.strerror or exc}) - check its permissions and "
                f"remove it by hand") from exc
    logger.info("removed collection %s (%s)", name, file)
    return warning
