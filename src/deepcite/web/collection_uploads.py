"""Keeping uploaded files as a collection and indexing them: the one code path of the
collections page's upload (``POST /collections/upload``) and the API's
(``POST /api/v1/collections/{name}/files``).

Both read the body with :func:`deepcite.web.upload_form.read_upload_form` (the caps kept
as it streams) and hand its files to :func:`keep_uploads`, so the two cannot drift apart
in what they accept or whose collection the files reach: each file is checked in a
private staging folder first (:func:`deepcite.web.page_forms.save_upload`: the accepted
kinds, safe names, the caps); the name is claimed only then
(:func:`~deepcite.web.collection_jobs.claim_collection`, atomic, so a refused upload
claims nothing and of two users only the winner's files are kept); the files then move
to ``<data_dir>/uploads/<name>`` and the collection is indexed in the background
(:class:`~deepcite.web.collection_jobs.IndexJobs`, refusing hard links as for any
server folder).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.datastructures import FormData, UploadFile

from deepcite.config import Settings
from deepcite.errors import DeepciteError
from deepcite.store import HistoryStore
from deepcite.web.collection_jobs import IndexJobs, claim_collection, upload_folder
from deepcite.web.page_forms import MAX_UPLOAD_FILES
from deepcite.web.upload_form import UploadRefused

if TYPE_CHECKING:
    from deepcite.runs.caller import Caller


def uploaded_files(form: FormData) -> list[UploadFile]:
    """The form's ``files`` parts that are files with a name (an empty file input
    sends one without)."""
    return [u for u in form.getlist("files") if isinstance(u, UploadFile) and u.filename]


def keep_uploads(name: str, uploads: list[UploadFile], *, settings: Settings,
                 store: HistoryStore, jobs: IndexJobs, caller: Caller) -> Path:
    """Add ``uploads`` to collection ``name`` (made, and claimed for ``caller``, when
    new) and start indexing it; the folder its files are kept in.

    Blocking (file copies): call it from a worker thread. :class:`~deepcite.web.
    upload_form.UploadRefused` when nothing was kept: 400 for a bad name, no files, too
    many or a file refused (each file's ``problems``), 409 for the bundled demo's name,
    one being indexed now, a name that is another's (``name_taken``) or a collection
    not made of uploads. Files kept while an indexing of the name had just begun are
    kept (409: re-index it when it is done).
    """
    from deepcite.collections.collection import collection_path, validate_name
    from deepcite.runs.checks import reserved_collection
    from deepcite.web.page_forms import COLLECTION_UPLOAD_SUFFIXES, UploadBudget, save_upload

    try:
        validate_name(name)
    except DeepciteError as exc:
        raise UploadRefused(400, str(exc).splitlines()[0], "bad_name") from None
    reserved = reserved_collection(name)  # the bundled demo is rebuilt, never replaced
    if reserved is not None:
        raise UploadRefused(409, str(reserved), "reserved_name")
    if jobs.running(name):
        raise UploadRefused(409, f"{name} is being indexed now - wait until it is done",
                            "indexing")
    if not uploads:
        raise UploadRefused(400, "Choose one or more files to upload", "no_files")
    if len(uploads) > MAX_UPLOAD_FILES:
        raise UploadRefused(400, f"{len(uploads)} files uploaded; at most "
                                 f"{MAX_UPLOAD_FILES} are accepted at once - upload them "
                                 "in several goes", "too_many_files")
    target = upload_folder(settings, name)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".incoming-", dir=target.parent))
    try:
        budget, saved, problems = UploadBudget(), [], []
        for upload in uploads:
            try:
                saved.append(save_upload(upload, staging, budget,
                                         COLLECTION_UPLOAD_SUFFIXES))
            except ValueError as exc:
                problems.append(str(exc))
        if problems:
            raise UploadRefused(400, "Nothing was uploaded - every file must be accepted",
                                "files_refused", tuple(problems))
        taken = claim_collection(name, settings, store, caller)
        if taken is not None:
            raise UploadRefused(409, taken, "name_taken")
        known = jobs.get(name, store)
        if collection_path(name, settings).exists() and (
                known is None or Path(known.folder) != target.resolve()):
            raise UploadRefused(409, f"A collection {name} exists already, not made of "
                                     "uploads - choose another name", "not_uploads")
        target.mkdir(exist_ok=True)
        for file in saved:  # a name already there is replaced: a newer version
            os.replace(file, target / file.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if not jobs.start(name, target.resolve(), settings, store):
        raise UploadRefused(409, f"{name} is being indexed already; the files were kept - "
                                 "re-index it when it is done", "indexing")
    return target
