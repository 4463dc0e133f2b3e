"""``deepcite collection ...``: index folders, list, search and remove collections."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from deepcite.cli.common import err, fail, out, settings_from, user_errors, warn
from deepcite.collections import (
    AddProgress,
    Collection,
    list_collections,
    remove_collection,
)

collection_app = typer.Typer(no_args_is_help=True)


@collection_app.command("add")
def add(
    folder: Annotated[list[Path], typer.Argument(help="Folders or files to index.")],
    name: Annotated[str, typer.Option("--name", "-n", help="Collection name.")],
    dense: Annotated[bool, typer.Option(
        "--dense", help="Also embed chunks for hybrid search (needs deepcite[embeddings]).")
    ] = False,
    reembed: Annotated[bool, typer.Option(
        "--reembed", help="Recompute all embeddings (after changing the model).")] = False,
) -> None:
    """Index folders (recursively) or files into a collection; re-runs are incremental."""
    with user_errors():
        settings = settings_from({"search.dense": dense or None})
        missing = [str(p) for p in folder if not p.exists()]
        if missing:
            fail(f"Folder not found: {', '.join(missing)} - check the path", 2)
        collection = Collection.create(name, settings=settings)
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=err, transient=True) as bar:
            task = bar.add_task("Indexing", total=None)

            def on_progress(p: AddProgress) -> None:
                bar.update(task, total=p.total, completed=p.done,
                           description=f"Indexing {p.path.name}")

            def on_embed(done: int, total: int) -> None:
                bar.update(task, total=total, completed=done, description="Embedding chunks")

            report = collection.add(folder if len(folder) > 1 else folder[0],
                                    progress=on_progress, reembed=reembed,
                                    embed_progress=on_embed)
    for path, reason in report.failed:
        warn(f"skipped {path}: {reason}")
    for message in report.warnings:
        warn(message)
    info = collection.info()
    out.print(
        f"Collection '{info.name}': {len(report.added)} added, {len(report.updated)} updated, "
        f"{len(report.removed)} removed, {len(report.skipped)} unchanged, "
        f"{len(report.failed)} failed - {info.documents} documents, {info.chunks} chunks"
        + (f", {report.embedded} embedded" if report.embedded else "")
    )


@collection_app.command("list")
def list_(
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List collections with their size and last update."""
    with user_errors():
        infos = list_collections(settings_from({}))
    if as_json:
        out.print_json(json.dumps([
            {"name": i.name, "path": str(i.path), "documents": i.documents, "chunks": i.chunks,
             "size_bytes": i.size_bytes, "updated": str(i.updated) if i.updated else None}
            for i in infos]))
        return
    if not infos:
        out.print("No collections yet - create one with `deepcite collection add FOLDER "
                  "--name NAME`", markup=False)
        return
    table = Table("name", "documents", "chunks", "size", "updated")
    for i in infos:
        table.add_row(i.name, str(i.documents), str(i.chunks), f"{i.size_bytes / 1e6:.1f} MB",
                      str(i.updated or ""))
    out.print(table)


@collection_app.command("search")
def search(
    name: Annotated[str, typer.Argument(help="Collection name.")],
    query: Annotated[str, typer.Argument(help="What to look for.")],
    k: Annotated[int, typer.Option("-k", help="How many passages.")] = 5,
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
        out.print(f"{rank}. {r.title}{where} (score {r.metadata.get('score', 0):.2f})",
                  markup=False)
        out.print(f"   {r.url}", markup=False)
        out.print(f"   {' '.join(r.snippet.split())[:240]}", markup=False)


@collection_app.command("rm")
def rm(name: Annotated[str, typer.Argument(help="Collection to remove.")]) -> None:
    """Delete a collection's index (the documents themselves are not touched)."""
    with user_errors():
        remove_collection(name, settings_from({}))
    out.print(f"Removed collection '{name}'.")
