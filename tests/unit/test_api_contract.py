"""The Python API as the README shows it: defaults, str and Path, one-line errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import deepcite
from deepcite import Collection, DeepciteError, build_researcher, quick_summary
from deepcite.errors import CollectionError, ConfigError, InputError


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Default settings (no settings argument) find their data dir in the environment."""
    folder = tmp_path / "data"
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "cache.md").write_text("# Cache\n\nThe cache lives in Redis for one hour.\n",
                                     encoding="utf-8")
    (folder / "team.txt").write_text("The team meets on Tuesdays.\n", encoding="utf-8")
    return folder


def test_create_and_open_without_settings_use_the_loaded_defaults(
        data_dir: Path, docs: Path) -> None:
    created = Collection.create("notes")
    assert created.path == data_dir / "collections" / "notes.sqlite"
    created.add(str(docs))
    opened = Collection.open("notes")
    assert opened.path == created.path
    assert opened.search("redis cache", k=1)[0].title == "Cache"


@pytest.mark.parametrize("as_type", [str, Path])
def test_paths_may_be_str_or_path(data_dir: Path, docs: Path, tmp_path: Path,
                                  as_type: Callable[[Path], Any]) -> None:
    file = tmp_path / "elsewhere" / "mine.sqlite"
    created = Collection.create("mine", as_type(file))
    assert created.path == file
    report = created.add([as_type(docs / "cache.md"), as_type(docs / "team.txt")])
    assert len(report.added) == 2
    opened = Collection.open(as_type(file))
    assert opened.name == "mine"
    assert [r.title for r in opened.search("Tuesdays")] == ["team"]


def test_collection_is_exported_at_the_top() -> None:
    assert deepcite.Collection is Collection
    assert "Collection" in deepcite.__all__


def _one_line(error: pytest.ExceptionInfo[DeepciteError]) -> str:
    message = str(error.value)
    assert message and "\n" not in message
    return message


@pytest.mark.parametrize(("call", "error", "words"), [
    (lambda: Collection.open(None), CollectionError, "not None"),
    (lambda: Collection.open(42), CollectionError, "not int"),
    (lambda: Collection.create(None), CollectionError, "must be text"),
    (lambda: Collection.create("a b"), CollectionError, "Invalid collection name"),
    (lambda: Collection.create("notes", 3.5), CollectionError, "not float"),
    (lambda: Collection.create("notes", ""), CollectionError, "is empty"),
    (lambda: Collection.create("notes", settings={"data_dir": "x"}), CollectionError,
     "Settings object"),
    (lambda: Collection.open("nothere"), CollectionError, "No collection named 'nothere'"),
])
def test_bad_collection_arguments_are_one_line_errors(
        data_dir: Path, call: Callable[[], Any], error: type[DeepciteError],
        words: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert words in _one_line(info)


@pytest.mark.parametrize(("method", "args", "words"), [
    ("add", (42,), "not int"),
    ("add", ([],), "not an empty list"),
    ("add", ([Path("a"), None],), "not None"),
    ("search", ("q",), None),
    ("search", (5,), "as text (str), not int"),
])
def test_bad_method_arguments_are_one_line_errors(
        data_dir: Path, method: str, args: tuple[Any, ...], words: str | None) -> None:
    collection = Collection.create("notes")
    if words is None:
        assert collection.search(*args) == []  # an empty collection, a good call
        return
    with pytest.raises(CollectionError) as info:
        getattr(collection, method)(*args)
    assert words in _one_line(info)


@pytest.mark.parametrize("k", [0, -1, True, 2.5, "3"])
def test_search_needs_a_positive_whole_k(data_dir: Path, k: Any) -> None:
    with pytest.raises(CollectionError) as info:
        Collection.create("notes").search("q", k=k)
    assert "at least 1" in _one_line(info)


def test_quick_summary_checks_its_question_and_callback(data_dir: Path) -> None:
    with pytest.raises(InputError) as info:
        quick_summary(123)  # type: ignore[arg-type]
    assert _one_line(info) == "quick_summary() takes the question as text (str), not int"
    with pytest.raises(InputError) as info:
        quick_summary("q", on_event="print")  # type: ignore[arg-type]
    assert "on_event must be a function" in _one_line(info)


def test_quick_summary_refuses_unknown_settings_with_a_hint(data_dir: Path) -> None:
    with pytest.raises(ConfigError) as info:
        quick_summary("q", nosuchsetting=1)
    message = _one_line(info)
    assert "Unknown setting 'nosuchsetting'" in message and "deepcite config show" in message
    with pytest.raises(ConfigError) as info:
        quick_summary("q", iteratons=2)
    assert "did you mean 'iterations'" in _one_line(info)


def test_build_researcher_checks_its_arguments(make_settings: Any) -> None:
    with pytest.raises(InputError) as info:
        build_researcher({"iterations": 2})  # type: ignore[arg-type]
    assert "takes a Settings object" in _one_line(info)
    with pytest.raises(InputError) as info:
        build_researcher(make_settings(), on_event=42)  # type: ignore[arg-type]
    assert "not int" in _one_line(info)


def test_build_researcher_checks_engine_tables(make_settings: Any) -> None:
    settings = make_settings(**{"engines.plugins": {"nosuch": {"a": 1}}})
    with pytest.raises(ConfigError) as info:
        build_researcher(settings)
    assert "[engines.nosuch]" in _one_line(info)
