"""Accounts in real Chromium against a real ``deepcite serve``: alice, bob and an admin
log in, each page says who is logged in, and each history holds only their own runs
(an admin's holds everyone's). Then the account page makes a token and changes the
password, and the admin page disables a user.

The users are made with the command line (``deepcite users add --password-stdin``) in
the server's data folder before it starts, and the runs recorded straight into its
store with their owners: no model is needed.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deepcite.config import load_settings
from deepcite.store import HistoryStore
from deepcite.types import ResearchResult
from tests.browser.support import DEEPCITE, server_env, serving

PASSWORDS = {"alice": "alice-password-1", "bob": "bob-password-1",
             "admin": "admin-password-1"}
QUESTIONS = {"alice": "What does alice ask about tides?",
             "bob": "What does bob ask about volcanoes?"}


def _add_user(data_dir: Path, name: str, admin: bool) -> None:
    added = subprocess.run([DEEPCITE, "users", "add", name, "--password-stdin",
                            *(["--admin"] if admin else [])],
                           input=PASSWORDS[name] + "\n", env=server_env(data_dir),
                           capture_output=True, text=True, timeout=120, check=False)
    assert added.returncode == 0, added.stderr


def _record_runs(data_dir: Path) -> None:
    settings = load_settings({"data_dir": str(data_dir)}, config_files=[], environ={})
    with HistoryStore.open(settings) as store:
        for name, question in QUESTIONS.items():
            owner = store.user(name)
            run_id = store.begin(question, mode="quick", settings=settings,
                                 owner_id=owner.id)
            store.finish(run_id, ResearchResult(question=question, answer="An answer.",
                                                strategy="standard", handler="standard"))


@pytest.fixture(scope="module")
def accounts_server(tmp_path_factory: pytest.TempPathFactory,
                    playwright_api: Any) -> Iterator[str]:
    data_dir = tmp_path_factory.mktemp("accounts-data")
    _add_user(data_dir, "admin", admin=True)
    _add_user(data_dir, "alice", admin=False)
    _add_user(data_dir, "bob", admin=False)
    _record_runs(data_dir)
    with serving(data_dir) as base:
        yield base


def _log_in(page: Any, base: str, name: str, password: str | None = None) -> None:
    page.goto(base + "/history")
    assert "/login" in page.url
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", password or PASSWORDS[name])
    page.click("form button[type=submit]")
    page.wait_for_url("**/history")


@pytest.mark.parametrize("name", ["alice", "bob"])
def test_each_user_sees_only_their_own_runs(accounts_server: str, page: Any,
                                            name: str) -> None:
    _log_in(page, accounts_server, name)
    assert page.locator("header .who").inner_text().strip() == name
    history = page.locator("main").inner_text()
    assert QUESTIONS[name] in history
    other = "bob" if name == "alice" else "alice"
    assert QUESTIONS[other] not in history
    page.goto(accounts_server + "/settings")
    assert f"Logged in as {name}" in page.locator("section.account").inner_text()
    # and the admin area is not there for them
    assert page.locator("header nav a[href='/admin']").count() == 0
    assert page.goto(accounts_server + "/admin").status == 404


def test_the_admin_sees_everyones_runs_and_the_users(accounts_server: str,
                                                     page: Any) -> None:
    _log_in(page, accounts_server, "admin")
    assert "admin" in page.locator("header .who").inner_text()
    history = page.locator("main").inner_text()
    assert QUESTIONS["alice"] in history and QUESTIONS["bob"] in history
    page.click("header nav a[href='/admin']")
    page.wait_for_url("**/admin")
    users = page.locator("table.users").inner_text()
    assert "alice" in users and "bob" in users and "admin (you)" in users


def test_a_token_is_shown_once_and_a_password_change_logs_out_elsewhere(
        accounts_server: str, browser: Any, page: Any) -> None:
    _log_in(page, accounts_server, "alice")
    page.goto(accounts_server + "/account")
    assert "alice" in page.locator(".account-name").inner_text()
    page.fill("input[name=label]", "laptop")
    page.click("button:has-text('Create a token')")
    token = page.locator("#new-token").input_value()
    assert token.startswith("dc_")
    page.goto(accounts_server + "/account")
    assert token not in page.content() and "laptop" in page.locator("table.tokens").inner_text()

    other = browser.new_context()
    elsewhere = other.new_page()
    try:
        _log_in(elsewhere, accounts_server, "alice")
        page.fill("input[name=current]", PASSWORDS["alice"])
        page.fill("input[name=password]", "alice-password-2")
        page.fill("input[name=again]", "alice-password-2")
        page.click("button:has-text('Change password')")
        page.wait_for_url("**/account?done=password*")
        assert "Password changed" in page.content()
        assert "Your 1 API token was revoked" in page.content()
        elsewhere.goto(accounts_server + "/history")
        assert "/login" in elsewhere.url  # logged out at once
        page.goto(accounts_server + "/history")
        assert page.url.endswith("/history")  # this browser stays logged in
    finally:
        other.close()


def test_disabling_a_user_logs_them_out(accounts_server: str, browser: Any,
                                        page: Any) -> None:
    bob_context = browser.new_context()
    bob = bob_context.new_page()
    try:
        _log_in(bob, accounts_server, "bob")
        _log_in(page, accounts_server, "admin")
        page.goto(accounts_server + "/admin")
        page.click("button[aria-label='Disable bob']")
        page.wait_for_url("**/admin?done=disabled*")
        assert "bob is disabled" in page.content()
        bob.goto(accounts_server + "/history")
        assert "/login" in bob.url
        page.click("button[aria-label='Approve bob']")
        page.wait_for_url("**/admin?done=enabled*")
        _log_in(bob, accounts_server, "bob")
    finally:
        bob_context.close()
