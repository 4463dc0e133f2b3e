"""The options every research command shares, declared once.

``deepcite ask``, ``report`` and ``check`` each start a run from the user's sources
and the model's settings: the same flags must mean the same thing, with the same help,
in each (a new provider or source option is added here, and every command has it).
:func:`given_materials` reads the ``--material`` files and a ``--materials`` list the
same way for each of them and for ``deepcite verify --attribute``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from deepcite.materials import UserMaterial, material_from_file, materials_from_json
from deepcite.materials.normalize import validate_materials

Collections = Annotated[list[str] | None, typer.Option(
    "--collection", "-c", help="Collection to search (repeatable); 'demo' is bundled.")]
Engines = Annotated[list[str] | None, typer.Option(
    "--engine", "-e", help="Search engine (repeatable); see `deepcite engines`.")]
Materials = Annotated[list[Path] | None, typer.Option(
    "--material", "-m", help="A document of yours to build on (repeatable): PDF, DOCX, "
    "EPUB, HTML, Markdown or text; cited like any source, never uploaded.")]
Offline = Annotated[bool | None, typer.Option(
    "--offline", help="No internet: only local collections and local services.")]
Provider = Annotated[str | None, typer.Option(
    help="LLM provider: auto, local, ollama, openai, anthropic.")]
Model = Annotated[str | None, typer.Option(help="Model name for the provider.")]
Gguf = Annotated[Path | None, typer.Option(help="GGUF file for the local provider.")]
NoSave = Annotated[bool, typer.Option(
    "--no-save", help="Do not keep this run in the history.")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")]


def source_and_model_settings(*, collection: list[str] | None, engine: list[str] | None,
                              offline: bool | None, provider: str | None,
                              model: str | None, gguf: Path | None) -> dict[str, object]:
    """The settings the shared options set (``None``: the configured value stands)."""
    return {"search.collections": collection, "search.engines": engine,
            "security.offline": offline, "llm.provider": provider, "llm.model": model,
            "llm.gguf_path": gguf}


def given_materials(files: list[Path] | None, listing: Path | None = None
                    ) -> list[UserMaterial]:
    """The materials handed in: files read through the collection loaders (their
    absolute path is the url), then the objects of a JSON list; checked before the run
    (a bad one stops here, named, before any model call)."""
    given: list[UserMaterial] = [material_from_file(path) for path in files or []]
    if listing is not None:
        given.extend(validate_materials(materials_from_json(listing)))
    return given


__all__ = ["Collections", "Engines", "Gguf", "Materials", "Model", "NoSave", "Offline",
           "Provider", "Quiet", "given_materials", "source_and_model_settings"]
