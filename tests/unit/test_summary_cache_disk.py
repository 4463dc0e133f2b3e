"""DiskSummaryCache: material summaries shared on disk by every process."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import pytest

from deepcite.config import load_settings
from deepcite.materials import (
    CachedSummary,
    DiskSummaryCache,
    SummaryCache,
    content_hash,
    prepare_materials,
    summary_cache_for,
)
from deepcite.materials.summary_store import CACHE_FOLDER, model_identity

KEY = content_hash("a long document")
OTHER = content_hash("another document")


def entry(text: str = "the summary") -> CachedSummary:
    return CachedSummary(text, "summary")


def files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.json"))


def test_a_summary_written_by_one_instance_is_read_by_another(tmp_path: Path) -> None:
    writer = DiskSummaryCache(tmp_path / "c", model="m")
    reader = DiskSummaryCache(tmp_path / "c", model="m")  # another process, same machine
    assert reader.get(KEY) is None and KEY not in reader
    writer[KEY] = CachedSummary("merged", "map_reduce")
    assert reader[KEY] == CachedSummary("merged", "map_reduce")
    assert KEY in reader and list(reader) == [KEY] and len(reader) == 1
    del reader[KEY]
    assert writer.get(KEY) is None
    with pytest.raises(KeyError):
        del reader[KEY]


def test_it_is_a_summary_cache_and_a_mutable_mapping(tmp_path: Path) -> None:
    cache = DiskSummaryCache(tmp_path)
    assert isinstance(cache, SummaryCache) and isinstance(cache, MutableMapping)


def test_another_model_does_not_reuse_a_summary(tmp_path: Path) -> None:
    DiskSummaryCache(tmp_path, model="small")[KEY] = entry("by the small one")
    other = DiskSummaryCache(tmp_path, model="large")
    assert other.get(KEY) is None and list(other) == [] and len(other) == 0
    other[KEY] = entry("by the large one")
    assert DiskSummaryCache(tmp_path, model="small")[KEY].summary == "by the small one"
    assert other[KEY].summary == "by the large one"
    assert len(files(tmp_path)) == 2


def test_summary_cache_for_lives_in_the_data_dir_and_is_scoped_by_model(
        tmp_path: Path) -> None:
    def make(**llm: Any) -> DiskSummaryCache:
        settings = load_settings({"data_dir": str(tmp_path), "llm": llm},
                                 config_files=[], environ={})
        return summary_cache_for(settings)

    one = make(provider="ollama", model="llama3.2")
    assert one.folder == tmp_path / CACHE_FOLDER == tmp_path / "cache" / "summaries"
    one[KEY] = entry()
    assert make(provider="ollama", model="llama3.2")[KEY] == entry()
    assert make(provider="ollama", model="qwen3").get(KEY) is None
    assert make(provider="openai", model="llama3.2").get(KEY) is None
    # the temperature is not the model; a password is not part of the identity either
    assert make(provider="ollama", model="llama3.2", temperature=0.9)[KEY] == entry()
    secret = load_settings({"data_dir": str(tmp_path), "llm": {
        "provider": "openai", "base_url": "https://u:pw-SECRET@h/v1"}},
        config_files=[], environ={})
    assert "SECRET" not in model_identity(secret)
    summary_cache_for(secret)[OTHER] = entry()
    assert all(b"SECRET" not in path.read_bytes() for path in files(one.folder))


def test_a_corrupt_file_is_a_miss_and_is_removed(tmp_path: Path) -> None:
    cache = DiskSummaryCache(tmp_path)
    cache[KEY] = entry()
    (path,) = files(tmp_path)
    for junk in (b"", b"{not json", b"\xff\xfe", b"[1, 2]", b'{"format": 1}',
                 b'{"format": 1, "key": "k", "scope": "s", "summary": "x", "kind": "bad"}'):
        path.write_bytes(junk)
        assert cache.get(KEY) is None
        assert not path.exists()
        cache[KEY] = entry()
    assert cache[KEY] == entry()


def test_a_file_holding_another_key_is_not_served(tmp_path: Path) -> None:
    cache = DiskSummaryCache(tmp_path)
    cache[OTHER] = entry("other's")
    (other_file,) = files(tmp_path)
    os.replace(other_file, cache.path_for(KEY))  # a file under the wrong name
    assert cache.get(KEY) is None
    assert files(tmp_path) == []


def test_an_unreadable_folder_or_entry_never_crashes(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = DiskSummaryCache(blocker / "summaries")
    cache[KEY] = entry()  # cannot be kept: logged, not raised
    assert cache.get(KEY) is None and list(cache) == []
    ok = DiskSummaryCache(tmp_path / "c")
    ok.path_for(KEY).parent.mkdir(parents=True)
    ok.path_for(KEY).mkdir()  # a folder where the file should be
    assert ok.get(KEY) is None


def test_the_oldest_entries_are_evicted(tmp_path: Path) -> None:
    cache = DiskSummaryCache(tmp_path, max_entries=3)
    keys = [content_hash(f"document {i}") for i in range(5)]
    for age, key in enumerate(keys[:3]):
        cache[key] = entry(key)
        stamp = time.time() - 100 + age
        os.utime(cache.path_for(key), (stamp, stamp))
    cache[keys[0]]  # a hit: now the most recently used
    cache[keys[3]] = entry()
    cache[keys[4]] = entry()
    assert len(files(tmp_path)) == 3
    assert set(cache) == {keys[0], keys[3], keys[4]}


def test_a_key_cannot_name_a_path(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    cache = DiskSummaryCache(folder)
    for key in ("../escape", "../../etc/passwd", "/absolute", "a/b", "..", "", "x\0y"):
        cache[key] = entry(key)
        path = cache.path_for(key)
        assert path.parent == folder and path.resolve().is_relative_to(folder.resolve())
        assert cache[key].summary == key
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache"]
    assert set(cache) == {"../escape", "../../etc/passwd", "/absolute", "a/b", "..", "",
                          "x\0y"}


def test_values_and_keys_are_checked(tmp_path: Path) -> None:
    cache = DiskSummaryCache(tmp_path)
    with pytest.raises(TypeError):
        cache[KEY] = "just text"  # type: ignore[assignment]
    with pytest.raises(TypeError):
        cache[1] = entry()  # type: ignore[index]
    assert 1 not in cache  # type: ignore[comparison-overlap]
    with pytest.raises(ValueError, match="max_entries"):
        DiskSummaryCache(tmp_path, max_entries=0)


def test_concurrent_writers_and_readers_from_threads(tmp_path: Path) -> None:
    caches = [DiskSummaryCache(tmp_path, max_entries=40) for _ in range(4)]
    keys = [content_hash(f"doc {i}") for i in range(10)]
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def write(cache: DiskSummaryCache, worker: int) -> None:
        try:
            start.wait()
            for round_ in range(25):
                for key in keys:
                    cache[key] = entry(f"{key} by {worker} in {round_}")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    def read(cache: DiskSummaryCache) -> None:
        try:
            start.wait()
            for _ in range(100):
                for key in keys:
                    hit = cache.get(key)
                    assert hit is None or hit.summary.startswith(key)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(caches[i % 4], i)) for i in range(4)]
    threads += [threading.Thread(target=read, args=(caches[i % 4],)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(caches[0]) == sorted(keys)
    assert all(caches[1][key].summary.startswith(key) for key in keys)
    assert list(tmp_path.glob(".*.part")) == []  # no temporary file left behind


def test_stale_temporary_files_are_cleaned_up(tmp_path: Path) -> None:
    cache = DiskSummaryCache(tmp_path)
    cache[KEY] = entry()
    stale, fresh = tmp_path / ".dead.part", tmp_path / ".writing.part"
    stale.write_text("x")
    fresh.write_text("x")
    os.utime(stale, (time.time() - 7200, time.time() - 7200))
    cache[OTHER] = entry()
    assert not stale.exists() and fresh.exists()
    assert set(cache) == {KEY, OTHER}


class Model:
    """A completer that counts its calls."""

    prompt_budget_chars = 100_000

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, purpose: str, system: str, user: str, *,
                 max_tokens: int | None = None, enough: object = None) -> str:
        self.calls += 1
        return "A faithful summary."


def test_prepare_materials_uses_the_disk_cache_across_instances(tmp_path: Path) -> None:
    text = "Green tea is steamed soon after picking. " * 400
    material = {"url": "https://example.org/tea", "title": "Tea", "content": text}
    first, second = Model(), Model()
    one = prepare_materials("How is tea made?", [material],
                            cache=DiskSummaryCache(tmp_path), client=first)
    two = prepare_materials("How is tea made?", [material],
                            cache=DiskSummaryCache(tmp_path), client=second)
    assert first.calls >= 1 and second.calls == 0
    assert one.items[0].summary == two.items[0].summary
    assert two.items[0].cached


class HeldModel(Model):
    """A completer whose first call waits until the test lets it answer."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = threading.Event()
        self.go = threading.Event()

    def complete(self, purpose: str, system: str, user: str, *,
                 max_tokens: int | None = None, enough: object = None) -> str:
        self.asked.set()
        assert self.go.wait(30), "the test never let the summary finish"
        return super().complete(purpose, system, user, max_tokens=max_tokens)


def test_two_runs_of_one_material_at_once_summarise_it_once(tmp_path: Path) -> None:
    """Two runs (two cache instances, as two processes have) given the same material at
    the same moment: the second waits for the first one's summary and uses it."""
    text = "Green tea is steamed soon after picking. " * 400
    material = {"url": "https://example.org/tea", "title": "Tea", "content": text}
    first, second = HeldModel(), Model()
    results: dict[str, Any] = {}

    def run(name: str, model: Model) -> None:
        results[name] = prepare_materials("How is tea made?", [material],
                                          cache=DiskSummaryCache(tmp_path), client=model)

    one = threading.Thread(target=run, args=("one", first))
    one.start()
    assert first.asked.wait(30)  # the first run is summarising it now
    two = threading.Thread(target=run, args=("two", second))
    two.start()
    two.join(0.5)
    assert two.is_alive(), "the second run did not wait for the summary being made"
    first.go.set()
    for thread in (one, two):
        thread.join(30)
        assert not thread.is_alive()
    assert first.calls >= 1 and second.calls == 0
    assert results["one"].items[0].summary == results["two"].items[0].summary
    assert results["two"].items[0].cached
