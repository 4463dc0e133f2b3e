"""settings_snapshot -> restore_settings: the run's settings, the machine's secrets."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from deepcite.config import Settings, load_settings
from deepcite.errors import ConfigError
from deepcite.store.snapshot import REDACTED_KEY, restore_settings, settings_snapshot


def settings(tmp_path: Path, name: str, **overrides: Any) -> Settings:
    return load_settings({"data_dir": str(tmp_path / name), **overrides},
                         config_files=[], environ={})


def secret(value: Any) -> str | None:
    return None if value is None else str(value.get_secret_value())


def submitted(tmp_path: Path) -> Settings:
    """The settings of the machine that queued the run."""
    return settings(
        tmp_path, "submitter",
        llm={"provider": "openai", "model": "gpt-x", "api_key": "sk-submitter",
             "base_url": "https://alice:pw-submitter@llm.lan/v1"},
        engines={"searxng_url": "http://bob:sx-submitter@searx.lan:8080/search",
                 "brave_api_key": "br-submitter",
                 "plugins": {"corp": {"api_key": "corp-submitter", "region": "eu"}}},
        search={"engines": ("searxng", "wikipedia")},
        research={"iterations": 4},
        store={"url": "sqlite:////submitter/history.db"},
        queue={"url": "redis://:q-submitter@redis.lan:6379/0", "queue_name": "theirs"})


def worker(tmp_path: Path, **overrides: Any) -> Settings:
    """The settings of the machine that executes it."""
    layers: dict[str, Any] = {
        "llm": {"provider": "openai", "model": "gpt-worker", "api_key": "sk-worker",
                "base_url": "https://alice:pw-worker@llm.lan/v1"},
        "engines": {"searxng_url": "http://bob:sx-worker@searx.lan:8080/search",
                    "brave_api_key": "br-worker",
                    "plugins": {"corp": {"api_key": "corp-worker", "region": "us"}}},
        "search": {"engines": ("wikipedia",)},
        "research": {"iterations": 1},
        "store": {"url": "sqlite:////worker/history.db"},
        "queue": {"url": "redis://:q-worker@localhost:6379/1", "queue_name": "mine"},
    }
    for section, values in overrides.items():
        layers[section] = {**layers.get(section, {}), **values}
    return settings(tmp_path, "worker", **layers)


def test_snapshot_lists_what_it_removed(tmp_path: Path) -> None:
    snapshot = settings_snapshot(submitted(tmp_path))
    text = json.dumps(snapshot)
    for value in ("sk-", "pw-", "sx-", "br-", "corp-", "q-"):
        assert f"{value}submitter" not in text
    assert snapshot["llm"]["base_url"] == "https://alice@llm.lan/v1"
    assert snapshot[REDACTED_KEY] == sorted(snapshot[REDACTED_KEY])
    assert {"llm.api_key", "llm.base_url", "engines.searxng_url", "engines.brave_api_key",
            "engines.plugins.corp.api_key", "queue.url"} <= set(snapshot[REDACTED_KEY])
    # unset secrets and plain values are not listed
    assert "engines.tavily_api_key" not in snapshot[REDACTED_KEY]
    assert "engines.plugins.corp.region" not in snapshot[REDACTED_KEY]
    assert settings_snapshot(settings(tmp_path, "plain"))[REDACTED_KEY] == []


def test_credentialed_urls_get_the_local_password(tmp_path: Path) -> None:
    restored = restore_settings(settings_snapshot(submitted(tmp_path)), worker(tmp_path))
    assert restored.llm.base_url == "https://alice:pw-worker@llm.lan/v1"
    assert restored.engines.searxng_url == "http://bob:sx-worker@searx.lan:8080/search"


def test_the_runs_path_is_kept_with_the_local_password(tmp_path: Path) -> None:
    local = worker(tmp_path, llm={"base_url": "https://alice:pw-worker@LLM.lan/other"})
    restored = restore_settings(settings_snapshot(submitted(tmp_path)), local)
    assert restored.llm.base_url == "https://alice:pw-worker@llm.lan/v1"


def test_a_local_url_for_another_user_is_used_whole(tmp_path: Path) -> None:
    local = worker(tmp_path, llm={"base_url": "https://carol:pw-c@llm2.lan/v2"})
    restored = restore_settings(settings_snapshot(submitted(tmp_path)), local)
    assert restored.llm.base_url == "https://carol:pw-c@llm2.lan/v2"


def test_without_a_local_url_the_stripped_one_stays(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    local = settings(tmp_path, "bare")
    with caplog.at_level(logging.WARNING, logger="deepcite.store.snapshot"):
        restored = restore_settings(settings_snapshot(submitted(tmp_path)), local)
    assert restored.llm.base_url == "https://alice@llm.lan/v1"
    assert "llm.base_url" in caplog.text


def test_plain_values_come_from_the_snapshot(tmp_path: Path) -> None:
    restored = restore_settings(settings_snapshot(submitted(tmp_path)), worker(tmp_path))
    assert restored.research.iterations == 4
    assert restored.search.engines == ("searxng", "wikipedia")
    assert restored.llm.model == "gpt-x"
    assert restored.engines.plugins["corp"] == {"api_key": "corp-worker", "region": "eu"}


def test_secrets_come_from_the_local_settings(tmp_path: Path) -> None:
    snapshot = settings_snapshot(submitted(tmp_path))
    assert snapshot["llm"]["api_key"] is None
    restored = restore_settings(snapshot, worker(tmp_path))
    assert secret(restored.llm.api_key) == "sk-worker"
    assert secret(restored.engines.brave_api_key) == "br-worker"
    # a secret the local machine lacks stays unset, never "**********" or None-overridden
    restored = restore_settings(snapshot, settings(tmp_path, "bare"))
    assert restored.llm.api_key is None


def test_a_none_secret_never_overrides_a_local_one(tmp_path: Path) -> None:
    # the submitter had no key at all (so nothing is listed as removed)
    snapshot = settings_snapshot(settings(tmp_path, "keyless", research={"iterations": 3}))
    assert snapshot["llm"]["api_key"] is None and snapshot[REDACTED_KEY] == []
    restored = restore_settings(snapshot, worker(tmp_path))
    assert secret(restored.llm.api_key) == "sk-worker"
    assert restored.research.iterations == 3


def test_data_dir_store_and_queue_are_the_machines(tmp_path: Path) -> None:
    local = worker(tmp_path)
    restored = restore_settings(settings_snapshot(submitted(tmp_path)), local)
    assert restored.data_dir == local.data_dir == tmp_path / "worker"
    assert restored.store == local.store
    assert restored.queue == local.queue
    assert restored.queue.queue_name == "mine"


def test_the_snapshot_itself_is_not_changed(tmp_path: Path) -> None:
    snapshot = settings_snapshot(submitted(tmp_path))
    before = json.dumps(snapshot, sort_keys=True)
    restore_settings(snapshot, worker(tmp_path))
    assert json.dumps(snapshot, sort_keys=True) == before


def test_an_old_snapshot_without_the_list(tmp_path: Path) -> None:
    snapshot = settings_snapshot(submitted(tmp_path))
    del snapshot[REDACTED_KEY]
    restored = restore_settings(snapshot, worker(tmp_path))
    assert restored.llm.base_url == "https://alice:pw-worker@llm.lan/v1"
    assert restored.engines.searxng_url == "http://bob:sx-worker@searx.lan:8080/search"
    assert secret(restored.llm.api_key) == "sk-worker"
    assert restored.engines.plugins["corp"]["api_key"] == "corp-worker"
    assert restored.research.iterations == 4


def test_an_old_snapshot_keeps_urls_of_other_hosts_or_users(tmp_path: Path) -> None:
    snapshot = settings_snapshot(submitted(tmp_path))
    del snapshot[REDACTED_KEY]
    local = worker(tmp_path, llm={"base_url": "https://mallory:pw@llm.lan/v1"},
                   engines={"searxng_url": "http://bob:sx@elsewhere.lan/search"})
    restored = restore_settings(snapshot, local)
    assert restored.llm.base_url == "https://alice@llm.lan/v1"
    assert restored.engines.searxng_url == "http://bob@searx.lan:8080/search"


def test_a_url_the_submitter_gave_without_password_stays_so(tmp_path: Path) -> None:
    theirs = settings(tmp_path, "s", llm={"base_url": "https://alice@llm.lan/v1"})
    restored = restore_settings(settings_snapshot(theirs), worker(tmp_path))
    assert restored.llm.base_url == "https://alice@llm.lan/v1"


def test_unknown_keys_are_dropped_with_a_warning(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    snapshot = settings_snapshot(submitted(tmp_path))
    snapshot["llm"]["reasoning_effort"] = "high"  # a newer version's setting
    snapshot["telemetry"] = {"enabled": True}  # a newer version's section
    snapshot["research"] = {k: v for k, v in snapshot["research"].items()
                            if k != "max_sources"}  # an older version lacked one
    with caplog.at_level(logging.WARNING, logger="deepcite.store.snapshot"):
        restored = restore_settings(snapshot, worker(tmp_path))
    assert "llm.reasoning_effort" in caplog.text and "telemetry" in caplog.text
    assert restored.research.iterations == 4
    assert restored.research.max_sources == worker(tmp_path).research.max_sources


def test_a_value_this_version_rejects_is_a_config_error(tmp_path: Path) -> None:
    snapshot = settings_snapshot(submitted(tmp_path))
    snapshot["research"]["iterations"] = -5
    with pytest.raises(ConfigError, match=r"research\.iterations"):
        restore_settings(snapshot, worker(tmp_path))


def test_the_list_does_not_reach_the_settings_page(tmp_path: Path) -> None:
    from deepcite.web.pages._views import settings_rows

    keys = [key for key, _ in settings_rows(submitted(tmp_path))]
    assert REDACTED_KEY not in keys and not any(k.startswith("_") for k in keys)


def test_round_trip_of_default_settings_is_identity(tmp_path: Path) -> None:
    local = settings(tmp_path, "same")
    assert restore_settings(settings_snapshot(local), local) == local
