"""With accounts, the server's settings are its admins' to change: a user sees the
page without the form, and a post of it is refused without touching the config file."""

from __future__ import annotations

from typing import Any

import httpx
import respx

from deepcite.store import HistoryStore
from deepcite.web.pages.settings import user_config_file
from tests.unit.test_web_account_pages import PASSWORD, App, csrf, log_in


@respx.mock
def test_only_admins_change_the_servers_settings(store: HistoryStore,
                                                 make_settings: Any) -> None:
    respx.get("http://localhost:11434/api/tags").mock(  # the model is checked on save
        return_value=httpx.Response(200, json={"models": [{"name": "qwen3:8b"}]}))
    store.add_user("alice", PASSWORD)
    store.add_user("root", PASSWORD, admin=True)
    app = App(store, make_settings())
    alice, root = app.browser(), app.browser()
    log_in(alice, "alice", PASSWORD)
    log_in(root, "root", PASSWORD)
    page = alice.get("/settings")
    assert page.status_code == 200 and "Save settings" not in page.text
    assert "admins' to change" in page.text and "Effective settings" not in page.text
    assert 'name="engines.brave_api_key"' not in page.text  # no key fields
    assert 'name="engines.brave_api_key"' in root.get("/settings").text
    token = csrf(alice, "/settings")
    refused = alice.post("/settings", data={"csrf_token": token, "llm.provider": "ollama",
                                            "llm.model": "qwen3:8b"})
    assert refused.status_code == 403 and "Only an admin" in refused.text
    key = alice.post("/settings", data={"csrf_token": token, "engines.brave_api_key": "k"})
    assert key.status_code == 403
    assert not user_config_file().exists()
    saved = root.post("/settings", data={"csrf_token": csrf(root, "/settings"),
                                         "llm.provider": "ollama", "llm.model": "qwen3:8b"})
    assert saved.status_code == 303
    assert "qwen3:8b" in user_config_file().read_text(encoding="utf-8")
    assert [entry.action for entry in store.audit_log(1)] == ["admin.settings"]
