"""The bundled ``demo`` collection holds Python's documentation, never the builder's machine.

pydoc renders module data with ``repr()``: the ``os`` page held ``environ({...})`` with
every environment variable of the user who built it, ``sys`` held the interpreter's and
virtual environment's paths, every page its file's absolute path (under the home folder
for pyenv or uv Pythons), signatures held memory addresses, and the reference link came
from ``$PYTHONDOCS``. An index built that way must be rebuilt after an upgrade.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import sqlite3
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path

import pytest

from deepcite.collections import Collection, ensure_demo_collection
from deepcite.collections import demo as demo_module
from deepcite.config import Settings


def _real_home() -> str:
    """The account's home folder, whatever ``$HOME`` says (conftest moves that)."""
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError):
        return os.path.expanduser("~")


def _indexed_text(index: Path) -> str:
    """Everything a search can return from the index: every chunk and every title."""
    with sqlite3.connect(index) as conn:
        rows = conn.execute("SELECT text, title FROM chunks").fetchall()
        titles = conn.execute("SELECT title FROM documents").fetchall()
    assert len(rows) > 1000  # the whole demo, not an empty index that trivially passes
    return "\n".join([*(f"{text}\n{title}" for text, title in rows),
                      *(title for (title,) in titles)])


def test_the_built_demo_index_holds_no_environment_paths_or_host(tmp_path: Path) -> None:
    token = secrets.token_hex(8)
    secret = secrets.token_hex(6)  # short enough to show within pydoc's 70 characters
    home = tmp_path / f"home-of-{token}"
    work = tmp_path / f"work-{token}"
    home.mkdir()
    work.mkdir()
    # A fresh process, the sentinel first in its environment: pydoc cut os.environ's repr
    # at 70 characters, so only the first variables ever showed.
    env = {"DEEPCITE_SECRET_SENTINEL": secret, "HOME": str(home),
           "PYTHONDOCS": f"https://docs-{token}.example/library",
           "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONHASHSEED": "0"}
    script = ("from deepcite.collections import ensure_demo_collection\n"
              "from deepcite.config import load_settings\n"
              "print(ensure_demo_collection(load_settings({})).path)\n")
    built = subprocess.run([sys.executable, "-c", script], cwd=work, env=env,
                           capture_output=True, text=True, timeout=300, check=False)
    assert built.returncode == 0, built.stderr
    index = Path(built.stdout.strip().splitlines()[-1])
    assert index.is_relative_to(home)  # built where a user's is: under their home

    texts = [_indexed_text(index),
             *(p.read_text(encoding="utf-8") for p in index.parent.parent.rglob("*.txt"))]
    os_page = (index.parent.parent / "demo-src" / "module-os.txt").read_text(encoding="utf-8")
    assert "\n    environ\n" in os_page  # still documented, by name
    leaks = ("DEEPCITE_SECRET_SENTINEL", secret, token, str(home), str(work),
             _real_home() + "/", sys.prefix, sys.base_prefix, sys.executable, " at 0x")
    for text in texts:
        for leak in leaks:
            assert leak not in text, leak
    host = socket.gethostname()
    if len(host) >= 8:  # a short name ("vm", "box") is also a word in Python's docs
        assert all(host not in text for text in texts)


def test_module_data_is_named_and_defaults_are_literals_or_names(
        monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("leaky", "A module whose data describes this process.")
    monkeypatch.setitem(sys.modules, "leaky", module)  # pydoc lists the module's own
    module.API_TOKEN = "sentinel-value-1234"  # type: ignore[attr-defined]
    module.handlers = [object(), object()]  # type: ignore[attr-defined]
    sentinel = object()

    def connect(host: str, port: int = 8080, timeout: object = sentinel,
                hooks: object = module.handlers,  # type: ignore[attr-defined]
                modes: tuple[str, ...] = ("r", "w")) -> None:
        """Connect somewhere."""

    connect.__module__ = "leaky"
    module.connect = connect  # type: ignore[attr-defined]
    text = demo_module._module_text(module)

    assert "API_TOKEN" in text and "handlers" in text and "sentinel-value" not in text
    signature = next(line for line in text.splitlines() if "connect(" in line)
    assert "= 8080" in signature and "= ('r', 'w')" in signature  # small literals stay
    assert "= <object object>" in signature and "= <list object>" in signature
    assert " at 0x" not in text
    assert "https://docs.python.org/" in text  # the reference link, never $PYTHONDOCS


def test_stdlib_pages_name_files_within_python_not_the_install_path() -> None:
    text = demo_module._module_text(__import__("json"))
    assert "json/__init__.py (in the Python standard library)" in text
    assert sys.base_prefix not in text


def test_demo_sources_drop_documents_an_older_version_wrote(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(demo_module, "DEMO_MODULES", ("json",))
    stale = tmp_path / "module-os.txt"
    stale.write_text("os\n==\n\nenviron = environ({'API_KEY': 'sk-old'})\n", encoding="utf-8")
    mine = tmp_path / "notes.txt"
    mine.write_text("not deepcite's\n", encoding="utf-8")
    demo_module.write_demo_sources(tmp_path)
    assert not stale.exists() and mine.exists() and (tmp_path / "module-json.txt").is_file()


@pytest.fixture
def settings(make_settings: Callable[..., Settings]) -> Settings:
    return make_settings()


def _old_demo(settings: Settings, tmp_path: Path) -> Collection:
    """A demo index as deepcite before format stamps built it, with a leaked secret."""
    old = tmp_path / "old-demo-src"
    old.mkdir()
    (old / "module-os.txt").write_text(
        "os\n==\n\nDATA\n    environ = environ({'OPENAI_API_KEY': 'sk-leaked-1234'})\n",
        encoding="utf-8")
    collection = Collection.create("demo", settings=settings)
    collection.add(old)
    assert collection.search("environ")
    return collection


def _fake_sources(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    rendered: list[Path] = []

    def write(folder: Path, progress: object = None) -> int:
        rendered.append(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "module-os.txt").write_text("os\n==\n\nDATA\n    environ\n", encoding="utf-8")
        return 1

    monkeypatch.setattr(demo_module, "write_demo_sources", write)
    return rendered


def _chunks(collection: Collection) -> str:
    with sqlite3.connect(collection.path) as conn:
        return "\n".join(text for (text,) in conn.execute("SELECT text FROM chunks"))


def test_an_index_built_by_an_older_version_is_rebuilt_once(
        settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _old_demo(settings, tmp_path)
    rendered = _fake_sources(monkeypatch)
    demo = ensure_demo_collection(settings)
    assert len(rendered) == 1
    assert "sk-leaked" not in _chunks(demo) and "environ" in _chunks(demo)
    assert demo.info().documents == 1  # the old documents went with the old index
    again = ensure_demo_collection(settings)  # current now: the fast path, no rendering
    assert len(rendered) == 1 and again.info().documents == 1


def test_an_old_index_in_a_read_only_folder_is_used_as_it_is(
        settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    _old_demo(settings, tmp_path)
    rendered = _fake_sources(monkeypatch)
    monkeypatch.setattr(demo_module, "can_write", lambda path: False)
    # the CLI's tests may have left the root logger at ERROR: ask for warnings here
    caplog.set_level(logging.WARNING, logger=demo_module.__name__)
    demo = ensure_demo_collection(settings)
    assert rendered == [] and demo.info().documents == 1
    assert "older deepcite" in caplog.text and "read-only" in caplog.text
