"""Third-party exceptions become deepcite's through one table (``errors.FOREIGN_ERRORS``)."""

from __future__ import annotations

import sqlite3
import sys
import zipfile
from functools import partial
from pathlib import Path

import pytest

from deepcite.collections.documents import LoadError
from deepcite.errors import (
    FOREIGN_ERRORS,
    CollectionError,
    InputError,
    ModelError,
    cause_of,
    foreign_error,
    mapped_errors,
)


def test_every_row_names_a_class_by_module_and_name() -> None:
    for row in FOREIGN_ERRORS:
        module, _, name = row.name.rpartition(".")
        assert module and (name[:1].isupper() or name == "error"), row


def test_a_subclass_row_comes_before_its_base_within_a_boundary() -> None:
    rows = [row.name for row in FOREIGN_ERRORS if row.boundary == "document"]
    assert rows[-1] == "builtins.Exception"
    assert rows.index("builtins.OSError") < rows.index("builtins.Exception")


def test_a_collection_file_error_is_a_collection_error_chained_to_its_cause() -> None:
    with pytest.raises(CollectionError, match=r"^x.db: cannot read collection \(disk I/O") \
            as info, mapped_errors("collection", "x.db: cannot read collection"):
        raise sqlite3.OperationalError("disk I/O error")
    assert isinstance(info.value.__cause__, sqlite3.OperationalError)


def test_deepcite_errors_and_unnamed_exceptions_pass_unchanged() -> None:
    with pytest.raises(InputError), mapped_errors("collection", "reading"):
        raise InputError("as it was")
    with pytest.raises(KeyError), mapped_errors("collection", "reading"):
        raise KeyError("not sqlite")


def test_any_model_sdk_error_is_a_model_error_naming_its_class() -> None:
    class RateLimitError(Exception):
        pass

    error = foreign_error("model", RateLimitError("slow\n  down " + "x" * 400),
                          lambda cause: f"call failed: {cause}")
    assert isinstance(error, ModelError)
    assert str(error).startswith("call failed: RateLimitError: slow down x")
    assert str(error).endswith("...") and "\n" not in str(error)
    assert str(foreign_error("model", RuntimeError(), "call")) == \
        "call (RuntimeError: no details)"


def test_a_document_that_cannot_be_read_says_so_whatever_parsed_it(tmp_path: Path) -> None:
    path = tmp_path / "gone.pdf"
    build = partial(LoadError, path)
    with pytest.raises(LoadError, match=r"gone.pdf: cannot read file \(No such file"), \
            mapped_errors("document", "not a valid PDF", build=build):
        path.read_bytes()
    with pytest.raises(LoadError, match=r"not a valid EPUB \(File is not a zip file\)$"), \
            mapped_errors("document", "not a valid EPUB", build=build):
        raise zipfile.BadZipFile("File is not a zip file")
    with pytest.raises(LoadError, match=r"not a valid DOCX file \(KeyError: 'word'\)$"), \
            mapped_errors("document", "not a valid DOCX file", build=build):
        raise KeyError("word")


def test_a_builder_must_make_the_rows_class() -> None:
    with pytest.raises(TypeError, match="ModelError is not a CollectionError"):
        foreign_error("collection", sqlite3.Error("x"), "reading", build=ModelError)


def test_the_table_imports_no_library(monkeypatch: pytest.MonkeyPatch) -> None:
    """A row whose module is not loaded matches nothing, and loads nothing."""
    monkeypatch.delitem(sys.modules, "pypdf.errors", raising=False)
    monkeypatch.delitem(sys.modules, "pypdf", raising=False)
    error = foreign_error("document", ValueError("bad"), "not a valid PDF")
    assert str(error) == "not a valid PDF (ValueError: bad)"
    assert "pypdf" not in sys.modules


def test_cause_of_prefers_the_system_reason() -> None:
    assert cause_of(FileNotFoundError(2, "No such file or directory", "x"),
                    "strerror") == "No such file or directory"
