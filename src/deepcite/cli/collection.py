"""``deepcite collection ...``: index folders, list, search, share and remove collections.

``share`` changes who may search a collection on a server with accounts. The command
line is the machine's operator, so it acts as an admin; each change is audited
(``collection.share``, actor ``cli``).

Paths are printed through :func:`~deepcite.collections.display_path`, because a file
name that is not valid UTF-8 cannot be written to a console as it is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from deepcite.cli.common import err, fail, out, settings_from, user_errors, warn
from deepcite.cli.demo import demo_command
from deepcite.collections import (
    AddProgress,
    Collection,
    CollectionInfo,
    IndexReport,
    display_path,
    remove_collection,
    scan_collections,
)
from deepcite.collections.index.elastic import BACKENDS
from deepcite.config import Settings
from deepcite.errors import DeepciteError
from deepcite.security.terminal import one_line
from deepcite.store import CollectionEntry, CollectionSharing, HistoryStore
from deepcite.store.history import FILE_NAME

collection_app = typer.Typer(no_args_is_help=True)
collection_app.command("demo")(demo_command)

MAX_IGNORED_LINES = 20
"""Ignored paths listed one per line; the rest are counted (a tree of links is long)."""


@collection_app.command("add")
def add(
    folder: Annotated[list[Path], typer.Argument(help="Folders or files to index.")],
    name: Annotated[str, typer.Option("--name", "-n", help="Collection name.")],
    dense: Annotated[bool, typer.Option(
        "--dense", help="Also embed chunks for hybrid search (needs deepcite[embeddings]).")
    ] = False,
    reembed: Annotated[bool, typer.Option(
        "--reembed", help="Recompute all embeddings (after changing the model).")] = False,
    backend: Annotated[str | None, typer.Option(
        "--backend", help="Where chunks are searched: sqlite (the default, embedded) or "
        "elasticsearch (the cluster engines.elasticsearch_url; also OpenSearch). Fixed "
        "when the collection is created.")] = None,
) -> None:
    """Index folders (recursively) or files into a collection; re-runs are incremental.

    Symbolic links inside folders are not followed and special files (FIFOs, sockets)
    are skipped; both are listed. A symlink named here is followed (you chose it).
    """
    with user_errors():
        settings = settings_from({"search.dense": dense or None})
        if backend is not None and backend not in BACKENDS:
            fail(f"Unknown backend {backend!r} - use one of {', '.join(BACKENDS)}", 2)
        missing = [display_path(p) for p in folder if not p.exists()]
        if missing:
            fail(f"Folder not found: {', '.join(missing)} - check the path", 2)
        collection = Collection.create(name, settings=settings, backend=backend)
        if collection.backend == "elasticsearch" and (dense or reembed):
            fail(f"Collection '{name}' is searched in Elasticsearch, which has no dense "
                 f"(hybrid) search here - add without --dense/--reembed", 2)
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=err, transient=True) as bar:
            task = bar.add_task("Indexing", total=None)

            def on_progress(p: AddProgress) -> None:
                bar.update(task, total=p.total, completed=p.done,
                           description=f"Indexing {display_path(Path(p.path.name))}")

            def on_embed(done: int, total: int) -> None:
                bar.update(task, total=total, completed=done, description="Embedding chunks")

            def on_wait() -> None:
                bar.update(task, description=f"Waiting for another add to '{name}' to finish")

            report = collection.add(folder if len(folder) > 1 else folder[0],
                                    progress=on_progress, reembed=reembed,
                                    embed_progress=on_embed, on_wait=on_wait)
    _print_problems(report)
    with user_errors():
        info = collection.info()
    _register(settings, collection, info)
    out.print(
        f"Collection '{info.name}': {len(report.added)} added, {len(report.updated)} updated, "
        f"{len(report.removed)} removed, {len(report.skipped)} unchanged, "
        f"{len(report.failed)} failed"
        + (f", {len(report.ignored)} ignored" if report.ignored else "")
        + f" - {info.documents} documents, {info.chunks} chunks"
        + (f", {report.embedded} embedded" if report.embedded else ""),
        markup=False,
    )


def _register(settings: Settings, collection: Collection, info: CollectionInfo) -> None:
    """With a shared history store (``store.url``), record the collection there, so
    every machine of the service lists it; a failure is a warning, never lost work."""
    if not settings.store.url:
        return
    location = (collection.index.get_meta("index") or "" if info.backend == "elasticsearch"
                else str(info.path))
    try:
        with HistoryStore.open(settings) as store:
            store.register_collection(
                info.name, backend=info.backend, location=location,
                documents=info.documents, chunks=info.chunks,
                settings={"chunk_tokens": settings.search.chunk_tokens,
                          "chunk_overlap_tokens": settings.search.chunk_overlap_tokens})
    except DeepciteError as exc:
        warn(f"collection '{info.name}' is not registered in the shared history: {exc}")


def _registered(settings: Settings) -> list[CollectionEntry]:
    """The collections the shared history store knows (none without ``store.url``)."""
    if not settings.store.url:
        return []
    try:
        with HistoryStore.open(settings) as store:
            return store.collections()
    except DeepciteError as exc:
        warn(f"the shared collection registry cannot be read: {exc}")
        return []


def _print_problems(report: IndexReport) -> None:
    for path, reason in report.failed:
        warn(f"skipped {display_path(path)}: {reason}")
    for message in report.warnings:
        warn(message)
    for path, reason in report.ignored[:MAX_IGNORED_LINES]:
        warn(f"ignored {display_path(path)}: {reason}")
    if len(report.ignored) > MAX_IGNORED_LINES:
        warn(f"... and {len(report.ignored) - MAX_IGNORED_LINES} more ignored")


@collection_app.command("list")
def list_(
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List collections with their size and last update.

    Files that cannot be read are named on stderr, and a read-only folder is pointed
    out, so the listing never claims there are no collections when there are.
    """
    with user_errors():
        settings = settings_from({})
        listing = scan_collections(settings)
    infos = listing.infos
    local = {i.name for i in infos}
    remote = [entry for entry in _registered(settings) if entry.name not in local]
    for path, reason in listing.problems:
        warn(f"cannot read {display_path(path)}: {reason}")
    if listing.read_only:
        warn(f"{display_path(listing.folder)} is read-only: collections can be searched but "
             f"not added to or removed - make it writable or set DEEPCITE_DATA_DIR")
    if as_json:
        out.print_json(json.dumps([
            {"name": i.name, "path": display_path(i.path), "documents": i.documents,
             "chunks": i.chunks, "size_bytes": i.size_bytes,
             "updated": str(i.updated) if i.updated else None, "read_only": i.read_only,
             "backend": i.backend}
            for i in infos] + [
            {"name": e.name, "path": None, "documents": e.documents, "chunks": e.chunks,
             "size_bytes": None, "updated": str(e.updated_at), "read_only": True,
             "backend": e.backend, "registered_only": True}
            for e in remote]))
        return
    if not infos and not remote:
        if not listing.problems:
            out.print("No collections yet - create one with `deepcite collection add FOLDER "
                      "--name NAME`", markup=False)
        return
    table = Table("name", "backend", "documents", "chunks", "size", "updated")
    for i in infos:
        table.add_row(i.name, i.backend, str(i.documents), str(i.chunks),
                      f"{i.size_bytes / 1e6:.1f} MB", str(i.updated or ""))
    for e in remote:  # indexed on another machine of the service
        table.add_row(e.name, e.backend, str(e.documents), str(e.chunks), "elsewhere",
                      str(e.updated_at))
    out.print(table)


@collection_app.command("search")
def search(
    name: Annotated[str, typer.Argument(help="Collection name.")],
    query: Annotated[str, typer.Argument(help="What to look for.")],
    k: Annotated[int, typer.Option("-k", min=1, help="How many passages.")] = 5,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Ranked passages from one collection, with file, page and score."""
    with user_errors():
        results = Collection.open(name, settings=settings_from({})).search(query, k=k)
    if as_json:
        out.print_json(json.dumps([r.model_dump() for r in results]))
        return
    if not results:
        out.print("No passages found.")
    for rank, r in enumerate(results, 1):
        page = r.metadata.get("page")
        where = f", p. {page}" if page else ""
        title = one_line(r.title)  # a newline in a title would fake another result
        out.print(f"{rank}. {title}{where} (score {r.metadata.get('score', 0):.2f})",
                  markup=False)
        out.print(f"   {r.url}", markup=False)
        out.print(f"   {' '.join(r.snippet.split())[:240]}", markup=False)


@collection_app.command("rm")
def rm(name: Annotated[str, typer.Argument(help="Collection to remove.")]) -> None:
    """Delete a collection's index (the documents themselves are not touched).

    For an Elasticsearch collection the cluster index is deleted too.
    """
    with user_errors():
        settings = settings_from({})
        warning = remove_collection(name, settings)
    if warning:
        warn(warning)
    if settings.store.url or (settings.data_dir / FILE_NAME).exists():
        try:
            with HistoryStore.open(settings) as store:
                store.remove_collection(name)
                store.forget_collection(name)  # a new one of that name starts private
        except DeepciteError as exc:
            warn(f"collection '{name}' is still in the registry: {exc}")
    out.print(f"Removed collection '{name}'.")


#: The actor of the audit entries ``share`` writes.
ACTOR = "cli"


def sharing_line(sharing: CollectionSharing) -> str:
    """Who may search a collection, in one line."""
    if sharing.public:
        return f"Collection '{sharing.name}': everyone's (bundled)"
    whom = ["everyone"] if sharing.everyone else []
    whom += sharing.users
    return (f"Collection '{sharing.name}': owner {sharing.owner or 'none (admins only)'}, "
            f"shared with {', '.join(whom) if whom else 'no one'}")


@collection_app.command("share")
def share(
    name: Annotated[str, typer.Argument(help="Collection name.")],
    everyone: Annotated[bool | None, typer.Option(
        "--everyone/--no-everyone", help="Let every user search it, or stop that.")] = None,
    user: Annotated[list[str] | None, typer.Option(
        "--user", help="Share with this user (repeatable).")] = None,
    remove_user: Annotated[list[str] | None, typer.Option(
        "--remove-user", help="Stop sharing with this user (repeatable).")] = None,
    private: Annotated[bool, typer.Option(
        "--private", help="Share with no one (first, before the other changes).")] = False,
    owner: Annotated[str | None, typer.Option(
        "--owner", help="Give it to this user (its owner may re-index and delete it).")
    ] = None,
) -> None:
    """Change who may search a collection on a server with accounts; with no option,
    print who may now. A collection indexed here has no owner: only admins may search
    it until it is shared or given an owner."""
    from deepcite.collections.demo import DEMO_NAME

    with user_errors():
        settings = settings_from({})
        if name == DEMO_NAME:
            fail(f"The bundled {DEMO_NAME} collection is everyone's - share another one", 2)
        Collection.named(name, settings=settings)  # the unknown-collection message
        with HistoryStore.open(settings) as store:
            added, removed = user or [], remove_user or []
            changed = bool(everyone is not None or added or removed or private or owner)
            for named in [*added, *removed]:
                store.user(named)  # every name checked before anything changes
            new_owner = store.user(owner).id if owner is not None else None
            if new_owner is not None:
                store.set_collection_owner(name, new_owner)
            if everyone is not None or added or removed or private:
                store.share_collection(name, everyone=everyone, add_users=added,
                                       remove_users=removed, private=private)
            sharing = store.collection_sharing(name)
            if changed:
                store.audit("collection.share", actor=ACTOR, target=name, detail={
                    "everyone": everyone, "add_users": added, "remove_users": removed,
                    "private": private, "owner": owner, "now": {
                        "owner": sharing.owner, "everyone": sharing.everyone,
                        "users": sharing.users}})
    out.print(sharing_line(sharing), markup=False, highlight=False)
