"""A delivery channel is one class: a plugin's, registered in the
``deepcite.delivery_channels`` entry point group, is usable from ``deepcite watch add``
and ``watch show``, the web form, the REST API and the scheduler without a change to any
of them - typed, checked, shown and sent by the class alone, its own settings read from
a ``[delivery.pager]`` table.

The plugin below is a pager: a number to page, given as ``--deliver pager=NUMBER`` or a
line of the form's "Pager numbers" field; ``000`` is refused by its own check; what it
sends is recorded here.
"""

from __future__ import annotations

import importlib.metadata
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from importlib.metadata import EntryPoint
from typing import Annotated, Any, ClassVar, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field
from typer.testing import CliRunner

from deepcite import plugins
from deepcite.cli import app
from deepcite.config import Settings, load_settings
from deepcite.errors import ConfigError
from deepcite.plugins import DELIVERY_CHANNELS_GROUP
from deepcite.runs import RunRequest
from deepcite.watches.channels import (
    CHANNELS,
    Attachment,
    DeliveryTarget,
    FormInput,
    SendContext,
    TargetProblem,
    parse_target,
    senders_from_settings,
)
from deepcite.watches.notice import Notice
from deepcite.watches.scheduler import default_senders, deliver_due
from deepcite.watches.service import WatchService
from tests.unit.test_watches_api import Server, server  # noqa: F401
from tests.unit.test_web_watches_page import Site, _create, _watch_id, site  # noqa: F401

_REAL_ENTRY_POINTS = importlib.metadata.entry_points

#: What the pager "sent": (number, watch id, summary).
paged: list[tuple[str, str, str]] = []


class PagerSettings(BaseModel):
    """The pager's own settings: ``[delivery.pager]``."""

    model_config = ConfigDict(extra="forbid")

    prefix: str = "+1 "


class PagerTarget(DeliveryTarget):
    """A pager number: the whole plugin."""

    kind: Literal["pager"] = "pager"
    number: Annotated[str, Field(pattern=r"^\d{3,15}$")]

    description: ClassVar[str] = "a page to a number"
    form: ClassVar[FormInput | None] = FormInput(
        "pagers", "Pager numbers", "(one a line)", phrase="to a pager")
    input_field: ClassVar[str | None] = "number"
    settings_model: ClassVar[type[BaseModel] | None] = PagerSettings

    def checked(self, settings: Settings) -> DeliveryTarget:
        if set(self.number) == {"0"}:
            raise TargetProblem("number", "000 pages nobody - give a real number")
        return self

    def shown(self) -> str:
        return f"pager #{self.number}"

    def send(self, notice: Notice, *, attachment: Attachment | None,
             context: SendContext) -> None:
        options = self.options(context.settings)
        assert isinstance(options, PagerSettings)
        paged.append((options.prefix + self.number, notice.watch_id, notice.summary))


@pytest.fixture(autouse=True)
def pager(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The pager installed as a plugin: an entry point of the channels' group."""
    real = importlib.metadata.entry_points
    entry = EntryPoint("pager", f"{__name__}:PagerTarget", DELIVERY_CHANNELS_GROUP)

    def entry_points(**selection: Any) -> Any:
        if selection.get("group") == DELIVERY_CHANNELS_GROUP:
            return [entry]
        return real(**selection)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    plugins.refresh()
    paged.clear()
    yield
    plugins.refresh()  # the next scan, after the monkeypatch is undone, is the real one


def test_the_plugin_is_a_channel_beside_the_builtins() -> None:
    assert CHANNELS.names() == ["email", "webhook", "atom", "pager"]
    assert CHANNELS.origin("pager") == f"{__name__}:PagerTarget"
    target = parse_target({"kind": "pager", "number": "5551234"})
    assert isinstance(target, PagerTarget) and target.shown() == "pager #5551234"


def test_the_cli_adds_shows_and_refuses_plugin_targets(site: Site) -> None:  # noqa: F811
    done = CliRunner().invoke(app, ["watch", "add", "Where is the cache kept?", "--every",
                                    "6h", "-c", "notes", "--deliver", "pager=5551234",
                                    "--webhook", "https://hooks.example/a"])
    assert done.exit_code == 0, done.output
    watch = site.store.watches()[0]
    assert watch.targets == [{"kind": "webhook", "url": "https://hooks.example/a"},
                             {"kind": "pager", "number": "5551234"}]
    shown = CliRunner().invoke(app, ["watch", "show", watch.id[:8]])
    assert "Delivers to: pager 5551234" in shown.output, shown.output

    refused = CliRunner().invoke(app, ["watch", "add", "Q?", "--every", "6h", "-c", "notes",
                                       "--deliver", "pager=000"])
    assert refused.exit_code != 0
    assert "Delivery target 0.number: 000 pages nobody" in refused.output
    unknown = CliRunner().invoke(app, ["watch", "add", "Q?", "--every", "6h", "-c", "notes",
                                       "--deliver", "pagr=5551234"])
    assert unknown.exit_code != 0 and "did you mean 'pager'?" in unknown.output
    assert len(site.store.watches()) == 1


def test_the_web_form_offers_and_shows_the_plugin(site: Site) -> None:  # noqa: F811
    alice = site.logged_in("alice")
    form = alice.get("/watches").text
    assert 'name="pagers"' in form and "Pager numbers" in form and "to a pager" in form
    made = _create(alice, pagers="5551234\n5559876")
    watch_id = _watch_id(made)
    assert "pager #5551234" in made.text and "pager #5559876" in made.text
    assert site.store.watch(watch_id).targets == [
        {"kind": "pager", "number": "5551234"}, {"kind": "pager", "number": "5559876"}]
    refused = _create(alice, pagers="000")
    assert refused.status_code == 400
    assert re.search(r"Delivery target 0\.number: 000 pages nobody", refused.text)


def test_the_rest_api_takes_the_plugin_target(server: Server) -> None:  # noqa: F811
    reply = server.client.post("/api/v1/watches", headers=server.auth("alice"), json={
        "request": {"question": "Where is the cache kept?", "collections": ["notes"]},
        "schedule": "every 6h", "targets": [{"kind": "pager", "number": "5551234"}]})
    assert reply.status_code == 201, reply.text
    assert reply.json()["watch"]["targets"] == [{"kind": "pager", "number": "5551234"}]
    bad = server.client.post("/api/v1/watches", headers=server.auth("alice"), json={
        "request": {"question": "Where?"}, "schedule": "every 1h",
        "targets": [{"kind": "pager", "number": "call me"}]})
    assert bad.status_code == 422
    schema = server.client.get("/api/v1/openapi.json", headers=server.auth("alice")).json()
    assert "PagerTarget" in str(schema)


def test_the_scheduler_sends_on_the_plugin_channel(site: Site) -> None:  # noqa: F811
    service = WatchService(site.store, site.settings)
    request = RunRequest(question="Where is the cache kept?", collections=["notes"],
                         origin="cli")
    watch, _ = service.add(request, "on demand",
                           targets=[PagerTarget(number="5551234")])
    senders = default_senders(site.settings, site.store)
    assert "pager" in senders and "atom" not in senders
    done = service.run_here(watch.id)
    assert done.status == "done", done
    sent = deliver_due(site.store, site.settings, senders, watch_id=watch.id)
    assert [status for _, status in sent] == ["sent"]
    assert paged == [("+1 5551234", watch.id, done.summary)]
    assert [d.kind for d in site.store.deliveries(watch.id)] == ["pager"]


def test_the_plugin_reads_its_own_settings_table(tmp_path: Any) -> None:
    config = tmp_path / "deepcite.toml"
    config.write_text('[delivery.pager]\nprefix = "+44 "\n', encoding="utf-8")
    settings = load_settings(config_files=[config])
    assert settings.delivery.plugins == {"pager": {"prefix": "+44 "}}
    assert PagerTarget.options(settings) == PagerSettings(prefix="+44 ")
    notice = Notice(watch_id="w", watch_name="n", run_id="r", question="q",
                    created_at=datetime.now(UTC), summary="s")
    senders_from_settings(settings, secret_for=lambda _: None)["pager"].send(
        PagerTarget(number="5551234"), notice, attachment=None)
    assert paged == [("+44 5551234", "w", "s")]

    config.write_text('[delivery.pager]\nprefx = "+44"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^Unknown setting 'delivery.pager.prefx' for "
                       r"delivery channel 'pager' - did you mean 'prefix'\?"):
        senders_from_settings(load_settings(config_files=[config]), secret_for=lambda _: None)
    config.write_text('[delivery.pagr]\nprefix = "+44"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"no delivery channel is called 'pagr'.*'pager'"):
        senders_from_settings(load_settings(config_files=[config]), secret_for=lambda _: None)


def test_a_watch_whose_channel_is_uninstalled_still_reads(
        site: Site, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    service = WatchService(site.store, site.settings)
    request = RunRequest(question="Where is the cache kept?", collections=["notes"],
                         origin="cli")
    watch, _ = service.add(request, "on demand", targets=[PagerTarget(number="5551234")])
    real = _REAL_ENTRY_POINTS

    def uninstalled(**selection: Any) -> Any:
        return [] if selection.get("group") == DELIVERY_CHANNELS_GROUP else real(**selection)

    monkeypatch.setattr(importlib.metadata, "entry_points", uninstalled)
    plugins.refresh()
    stored = site.store.watch(watch.id)
    assert stored.targets == [{"kind": "pager", "number": "5551234"}]  # kept
    assert service.targets(stored) == []
    shown = CliRunner().invoke(app, ["watch", "show", watch.id[:8]])
    assert shown.exit_code == 0 and "pager" not in shown.output
