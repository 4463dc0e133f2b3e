"""Removing a user for good: the store's rows, then the files of their collections.

:meth:`~deepcite.store.HistoryStore.remove_user` decides, in one transaction, the fate of
everything a user owns (:mod:`deepcite.store.removal_ops`). The files of the collections
it deleted - the index, its side files, the uploads kept for it, an Elasticsearch index -
live outside the database; this deletes them afterwards, so ``deepcite users rm`` and
the admin page leave nothing of a deleted private collection that a later collection or
user could read. Until then (or if a file cannot be removed) a collection without a
record belongs to no one: only admins may search it, and no user may index into its name.
"""

from __future__ import annotations

import logging

from deepcite.config import Settings
from deepcite.errors import CollectionError
from deepcite.store.history import HistoryStore
from deepcite.store.read_models import UserRemoval

__all__ = ["remove_user"]

logger = logging.getLogger(__name__)


def remove_user(store: HistoryStore, settings: Settings, name: str, *,
                delete_data: bool = False, transfer_to: str | None = None
                ) -> tuple[UserRemoval, list[str]]:
    """Remove the user ``name`` (see :meth:`HistoryStore.remove_user` for the errors),
    then delete the files of the collections deleted with them; the removal and a
    warning line for each thing left behind."""
    removal = store.remove_user(name, delete_data=delete_data, transfer_to=transfer_to)
    warnings = [warning for collection in removal.delete_collections
                if (warning := delete_collection_files(collection, settings)) is not None]
    return removal, warnings


def delete_collection_files(name: str, settings: Settings) -> str | None:
    """Delete the index and uploads of collection ``name`` (a missing one is no error);
    a warning line when something was left."""
    from deepcite.collections.collection import remove_collection, remove_uploads

    warning: str | None = None
    try:
        warning = remove_collection(name, settings)
    except CollectionError as exc:  # no index of it: missing, or left on a cluster
        if not _never_indexed(name, settings):
            warning = f"collection {name} was left: {exc}"
    warning = remove_uploads(settings, name) or warning
    if warning:
        logger.warning("removing a user's collection: %s", warning)
    return warning


def _never_indexed(name: str, settings: Settings) -> bool:
    """Whether collection ``name`` has no file here and there is no cluster that could
    hold it (its record was made, its indexing never happened)."""
    from deepcite.collections.collection import collection_path
    from deepcite.collections.index.elastic import Cluster

    try:
        there = collection_path(name, settings).exists()
    except CollectionError:  # not a valid name: there is no file of it
        there = False
    return not there and not Cluster(settings).configured
