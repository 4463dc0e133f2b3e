"""Collections against hostile file systems: bad file names, read-only folders, links, FIFOs.

Everything runs the real ``deepcite collection`` command (or the Collection API) on
files the tests create. Tests run as root, which permission bits do not stop, so
``read_only`` makes the data folder read-only twice over: ``chmod -R a-w`` (what a
normal user meets) and ``os.access`` answering "no" for it (what root meets on a
read-only mount); SQLite then really opens the files read-only and really refuses
writes.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import unquote_to_bytes, urlparse

import pytest
from typer.testing import CliRunner, Result

from deepcite.cli import app
from deepcite.collections import Collection, ensure_demo_collection, file_access
from deepcite.collections import demo as demo_module
from deepcite.collections.file_access import DamagedCollectionError, ReadOnlyCollectionError
from deepcite.config import Settings
from deepcite.errors import CollectionError

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file system behaviour")

runner = CliRunner()


def cli(*args: str | Path) -> Result:
    return runner.invoke(app, [str(a) for a in args])


def said(text: str) -> str:
    """Output with the console's line wrapping undone."""
    return " ".join(text.split())


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def settings(make_settings: Callable[..., Settings], data_dir: Path) -> Settings:
    return make_settings(data_dir=str(data_dir))


def _make(folder: Path, name: bytes, text: str) -> Path:
    """Create ``folder/name`` from raw bytes, as ``os.open(b"...caf\\xe9.txt")`` would."""
    raw = os.fsencode(folder) + b"/" + name
    fd = os.open(raw, os.O_WRONLY | os.O_CREAT, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    return Path(os.fsdecode(raw))


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "cache.md").write_text("# Cache\n\nThe cache lives in Redis for an hour.\n")
    (folder / "team.txt").write_text("The team meets on Tuesdays.\n")
    return folder


# ------------------------------------------------------- item 10: non-UTF-8 file names


def test_non_utf8_file_name_is_indexed_and_readds_are_incremental(
    notes: Path, data_dir: Path
) -> None:
    bad = _make(notes, b"caf\xe9.txt", "Espresso is brewed under pressure.\n")
    # sorts after the bad name: it must be indexed too
    (notes / "zebra.md").write_text("# Zebra\n\nStripes confuse flies.\n")
    first = cli("collection", "add", notes, "--name", "notes")
    assert first.exit_code == 0, first.output
    assert "4 added" in first.output and "0 failed" in first.output

    again = cli("collection", "add", notes, "--name", "notes")
    assert again.exit_code == 0, again.output
    assert "0 added, 0 updated, 0 removed, 4 unchanged" in again.output

    found = cli("collection", "search", "notes", "espresso", "--json")
    assert found.exit_code == 0, found.output
    [hit] = json.loads(found.stdout)
    assert hit["title"] == "caf\\xe9"
    assert hit["url"].isascii()
    # the file:// URL names the real bytes, so a browser opens the real file
    assert unquote_to_bytes(urlparse(hit["url"]).path) == os.fsencode(bad)
    assert "zebra" in cli("collection", "search", "notes", "stripes").stdout.lower()

    bad.unlink()
    removed = cli("collection", "add", notes, "--name", "notes")
    assert "1 removed" in removed.output, removed.output
    assert cli("collection", "search", "notes", "espresso").stdout.startswith("No passages")


def test_bad_names_in_folder_names_and_of_different_bytes_stay_apart(
    tmp_path: Path, settings: Settings
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    inner = Path(os.fsdecode(os.fsencode(folder) + b"/r\xe9sum\xe9s"))
    inner.mkdir()
    _make(inner, b"caf\xe9.txt", "Latin one espresso.\n")
    _make(inner, b"caf\xe8.txt", "Latin one ristretto.\n")
    collection = Collection.create("docs", settings=settings)
    report = collection.add(folder)
    assert len(report.added) == 2 and not report.failed
    ristretto = collection.search("ristretto")[0].metadata["path"]
    assert ristretto.endswith("r\\xe9sum\\xe9s/caf\\xe8.txt")
    assert collection.search("espresso")[0].metadata["path"].endswith("/caf\\xe9.txt")
    assert collection.add(folder).changed is False


def test_valid_name_that_spells_an_escaped_bad_name_is_reported_not_merged(
    tmp_path: Path, settings: Settings
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    _make(folder, b"caf\xe9.txt", "Bytes espresso.\n")
    (folder / "caf\\xe9.txt").write_text("Literal backslash cortado.\n")
    collection = Collection.create("docs", settings=settings)
    report = collection.add(folder)
    assert len(report.added) == 1
    [(_, reason)] = report.ignored
    assert "rename one of them" in reason
    assert collection.add(folder).changed is False


# ------------------------------------------------------- item 12: read-only data folder


@pytest.fixture
def read_only(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], None]]:
    """Call it to make the data folder read-only (restored afterwards for cleanup)."""
    changed: list[tuple[Path, int]] = []
    real_writable = file_access.writable

    def writable(path: Path) -> bool:
        return not Path(os.path.abspath(path)).is_relative_to(data_dir) and real_writable(path)

    def apply() -> None:
        for path in [data_dir, *sorted(data_dir.rglob("*"))]:
            mode = stat.S_IMODE(path.lstat().st_mode)
            changed.append((path, mode))
            path.chmod(mode & ~0o222)
        monkeypatch.setattr(file_access, "writable", writable)

    yield apply
    for path, mode in reversed(changed):
        path.chmod(mode)


def _one_error(result: Result) -> str:
    """The error a command failed with; exactly one, and no traceback."""
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    message = said(result.stderr)
    assert message.startswith("Error:") and message.count("Error:") == 1, result.stderr
    return message


def test_read_only_folder_still_lists_and_searches(
    notes: Path, data_dir: Path, read_only: Callable[[], None]
) -> None:
    assert cli("collection", "add", notes, "--name", "notes").exit_code == 0
    read_only()
    before = sorted(p.name for p in (data_dir / "collections").iterdir())

    listed = cli("collection", "list")
    assert listed.exit_code == 0, listed.output
    assert "notes" in listed.stdout and "No collections yet" not in listed.output
    assert "is read-only: collections can be searched" in said(listed.stderr)
    [entry] = json.loads(cli("collection", "list", "--json").stdout)
    assert entry["name"] == "notes" and entry["read_only"] is True

    found = cli("collection", "search", "notes", "redis")
    assert found.exit_code == 0, found.output
    assert "cache.md" in found.stdout
    # reading wrote nothing next to the file (no -wal/-shm left behind)
    assert sorted(p.name for p in (data_dir / "collections").iterdir()) == before


def test_a_read_only_collection_of_the_previous_format_is_still_searched(
    notes: Path, data_dir: Path, read_only: Callable[[], None]
) -> None:
    """Format 3 changed only how writes reach FTS5: a format-2 file nobody may write
    is searched as it is instead of failing an upgrade it cannot make."""
    import sqlite3

    assert cli("collection", "add", notes, "--name", "notes").exit_code == 0
    file = data_dir / "collections" / "notes.sqlite"
    with sqlite3.connect(file) as conn:
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    conn.close()
    read_only()
    found = cli("collection", "search", "notes", "redis")
    assert found.exit_code == 0, found.output
    assert "cache.md" in found.stdout


def test_writes_to_a_read_only_folder_fail_in_one_line_and_change_nothing(
    notes: Path, data_dir: Path, settings: Settings, read_only: Callable[[], None]
) -> None:
    assert cli("collection", "add", notes, "--name", "notes").exit_code == 0
    (notes / "new.md").write_text("# New\n\nQuokkas smile.\n")
    read_only()
    file = data_dir / "collections" / "notes.sqlite"
    original = file.read_bytes()

    message = _one_error(cli("collection", "add", notes, "--name", "notes"))
    assert "Cannot add to collection 'notes'" in message
    assert "is read-only - make it writable" in message and "DEEPCITE_DATA_DIR" in message
    message = _one_error(cli("collection", "add", notes, "--name", "other"))
    assert "Cannot create collection 'other'" in message and "read-only" in message
    assert not (data_dir / "collections" / "other.sqlite").exists()
    message = _one_error(cli("collection", "rm", "notes"))
    assert "Cannot remove collection 'notes'" in message

    with pytest.raises(ReadOnlyCollectionError) as raised:
        Collection.open("notes", settings=settings).add(notes)
    assert "\n" not in str(raised.value)

    assert file.read_bytes() == original
    assert "cache.md" in cli("collection", "search", "notes", "redis").stdout
    assert "quokkas" not in cli("collection", "search", "notes", "quokkas").stdout.lower()


def test_a_write_sqlite_refuses_is_reported_as_read_only(
    notes: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When permissions look fine but SQLite still refuses (ACLs, a read-only lock)."""
    assert cli("collection", "add", notes, "--name", "notes").exit_code == 0
    (notes / "new.md").write_text("# New\n\nQuokkas smile.\n")
    real_uri = file_access.sqlite_uri

    def read_only_uri(file: Path, *, create: bool = False) -> str:
        return real_uri(file, create=create).replace("mode=rw", "mode=ro")

    monkeypatch.setattr(file_access, "sqlite_uri", read_only_uri)
    message = _one_error(cli("collection", "add", notes, "--name", "notes"))
    assert "read-only" in message and "DEEPCITE_DATA_DIR" in message


def _small_demo(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The demo with two documents instead of Python's whole documentation."""
    rendered: list[Path] = []

    def write(folder: Path, progress: object = None) -> int:
        rendered.append(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "argparse.txt").write_text("argparse\n========\n\nParse command lines.\n")
        (folder / "json.txt").write_text("json\n====\n\nEncode and decode JSON.\n")
        return 2

    monkeypatch.setattr(demo_module, "write_demo_sources", write)
    return rendered


def test_ask_never_deletes_the_demo_when_it_cannot_be_opened(
    data_dir: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    _small_demo(monkeypatch)
    ensure_demo_collection(settings)
    file = data_dir / "collections" / "demo.sqlite"
    original = file.read_bytes()
    # SQLite cannot open a WAL file whose log is not a file: "unable to open database file"
    Path(f"{file}-wal").mkdir()

    message = _one_error(cli("ask", "How do I parse arguments?", "-c", "demo", "-q"))
    assert "cannot open collection" in message
    assert file.read_bytes() == original


def test_demo_in_a_read_only_folder_is_used_and_never_rebuilt(
    data_dir: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch,
    read_only: Callable[[], None],
) -> None:
    rendered = _small_demo(monkeypatch)
    ensure_demo_collection(settings)
    read_only()
    demo = ensure_demo_collection(settings)
    assert demo.search("parse command lines")[0].title == "argparse"
    assert len(rendered) == 1

    file = data_dir / "collections" / "demo.sqlite"
    file.chmod(0o644)
    file.write_bytes(b"not a database " * 512)
    with pytest.raises(ReadOnlyCollectionError, match="read-only"):
        ensure_demo_collection(settings)
    assert file.read_bytes() == b"not a database " * 512


def test_damaged_demo_is_rebuilt_when_the_folder_is_writable(
    data_dir: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    rendered = _small_demo(monkeypatch)
    collections = data_dir / "collections"
    collections.mkdir(parents=True)
    (collections / "demo.sqlite").write_bytes(b"not a database " * 512)
    with pytest.raises(DamagedCollectionError):
        Collection.open("demo", settings=settings)
    demo = ensure_demo_collection(settings)
    assert demo.info().documents == 2 and len(rendered) == 1


def test_something_else_in_place_of_a_collection_is_named(
    data_dir: Path, settings: Settings
) -> None:
    (data_dir / "collections" / "notes.sqlite").mkdir(parents=True)
    with pytest.raises(CollectionError, match="is not a file"):
        Collection.open("notes", settings=settings)
    listed = cli("collection", "list")
    assert "No collections yet" not in listed.output
    assert "is not a file" in said(listed.stderr)


# ------------------------------------------------------------ item 13: links and FIFOs


def test_fifo_named_or_found_is_skipped_without_reading_it(
    notes: Path, tmp_path: Path
) -> None:
    os.mkfifo(notes / "pipe.md")
    named = tmp_path / "named.txt"
    os.mkfifo(named)
    result = cli("collection", "add", notes, named, "--name", "notes")
    assert result.exit_code == 0, result.output
    assert "2 added" in result.output and "2 ignored" in result.output
    assert said(result.stderr).count("a FIFO (named pipe), not a regular file") == 2


def test_symlinks_inside_a_folder_are_not_followed_and_are_reported(
    notes: Path, tmp_path: Path, settings: Settings
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nThe vault code is aardvark.\n")
    (notes / "secret.md").symlink_to(outside / "secret.md")
    (notes / "linked").symlink_to(outside, target_is_directory=True)
    (notes / "dangling.txt").symlink_to(tmp_path / "missing.txt")

    result = cli("collection", "add", notes, "--name", "notes")
    assert result.exit_code == 0, result.output
    assert "2 added" in result.output and "3 ignored" in result.output
    assert said(result.stderr).count("symbolic link, not followed") == 2  # file, dangling
    assert said(result.stderr).count("symbolic link to a folder, not followed") == 1
    collection = Collection.open("notes", settings=settings)
    assert collection.search("aardvark vault") == []
    report = collection.add(notes)
    assert sorted(p.name for p, _ in report.ignored) == ["dangling.txt", "linked", "secret.md"]


def test_symlink_named_on_the_command_line_is_followed(
    tmp_path: Path, settings: Settings
) -> None:
    target = tmp_path / "real.md"
    target.write_text("# Real\n\nPangolins roll into balls.\n")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    result = cli("collection", "add", link, "--name", "notes")
    assert result.exit_code == 0 and "1 added" in result.output, result.output
    [hit] = Collection.open("notes", settings=settings).search("pangolins")
    assert hit.metadata["path"] == str(target.resolve())


def test_file_replaced_by_a_symlink_loses_its_old_content(
    notes: Path, tmp_path: Path, settings: Settings
) -> None:
    collection = Collection.create("notes", settings=settings)
    collection.add(notes)
    assert collection.search("tuesdays")
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("Wombats dig burrows.\n")
    (notes / "team.txt").unlink()
    (notes / "team.txt").symlink_to(elsewhere)
    report = collection.add(notes)
    assert [p.name for p in report.removed] == ["team.txt"]
    assert collection.search("tuesdays") == [] and collection.search("wombats") == []
