"""A watch's emailed report is sent to someone else, like a web download: a local
document in it is named by its collection and file name, never by the server's path
(issue 47, item 13's rule for exports, held for watch attachments too)."""

from __future__ import annotations

from typing import Any

import pytest

from deepcite.collections import Collection
from deepcite.runs import RunRequest
from deepcite.watches.channels import Attachment, DeliveryTarget
from deepcite.watches.delivery.email import EmailTarget
from deepcite.watches.notice import Notice
from deepcite.watches.scheduler import deliver_due
from deepcite.watches.service import WatchService
from tests.unit.test_web_watches_page import Site, site  # noqa: F401


class Mailbox:
    """A sender that keeps what it was given to send."""

    def __init__(self) -> None:
        self.attachments: list[Attachment | None] = []

    def send(self, target: DeliveryTarget, notice: Notice, *,
             attachment: Attachment | None) -> None:
        self.attachments.append(attachment)


@pytest.mark.parametrize("fmt", ["markdown", "bibtex", "html"])
def test_the_attached_report_names_no_server_path(site: Site, fmt: str) -> None:  # noqa: F811
    service = WatchService(site.store, site.settings)
    request = RunRequest(question="Where is the cache kept?", collections=["notes"],
                         origin="cli")
    watch, _ = service.add(request, "on demand",
                           targets=[EmailTarget(to=["ana@example.org"], attach=fmt)])
    done = service.run_here(watch.id)
    assert done.status == "done", done
    stored = site.store.get(done.run_id)
    assert any(source.url.startswith("file:") for source in stored.result.sources)
    mailbox = Mailbox()
    sent = deliver_due(site.store, site.settings, {"email": mailbox}, watch_id=watch.id)
    assert [status for _, status in sent] == ["sent"]
    [attachment] = mailbox.attachments
    assert attachment is not None
    text = attachment[1].decode("utf-8")
    assert "cache.md" in text and "notes" in text  # named by collection and file
    assert "file:" not in text and str(site.notes) not in text
    assert str(site.settings.data_dir) not in text


def test_the_command_lines_own_export_keeps_the_path(site: Site) -> None:  # noqa: F811
    """The same run exported for the local user (the CLI's default) still has it: the
    attachment's rule is the web's, not a change to every export."""
    from deepcite.export import ExportOptions, export_report

    service = WatchService(site.store, site.settings)
    request = RunRequest(question="Where is the cache kept?", collections=["notes"],
                         origin="cli")
    watch, _ = service.add(request, "on demand", targets=[])
    done = service.run_here(watch.id)
    stored = site.store.get(done.run_id)
    exported: Any = export_report(stored.result, "markdown", ExportOptions())
    assert "file:" in exported.data.decode("utf-8")


def test_a_changes_new_and_gone_sources_name_no_server_path(site: Site) -> None:  # noqa: F811
    """The change a notice carries (its email body, webhook, feed) and the watch's page
    show names a source the way the attachment does."""
    service = WatchService(site.store, site.settings)
    request = RunRequest(question="Where is the cache kept?", collections=["notes"],
                         origin="cli")
    watch, _ = service.add(request, "on demand",
                           targets=[EmailTarget(to=["ana@example.org"], attach=None)])
    assert service.run_here(watch.id).status == "done"
    (site.notes / "cache.md").unlink()
    (site.notes / "expiry.md").write_text("The cache is kept in Redis; entries expire "
                                          "after one hour.", encoding="utf-8")
    Collection.open("notes", settings=site.settings).add(site.notes)
    done = service.run_here(watch.id)
    assert done.status == "done", done
    markdown = done.changes_markdown or ""
    assert "## New sources" in markdown and "## Sources gone" in markdown
    assert "(collection:notes/expiry.md)" in markdown
    assert "(collection:notes/cache.md)" in markdown
    assert "file:" not in markdown and str(site.notes) not in markdown
    stored = site.store.get(done.run_id)
    assert any(source.url.startswith("file:") for source in stored.result.sources)
    page = site.logged_in("root").get(f"/watches/{watch.id}").text
    assert "collection:notes/expiry.md" in page and str(site.notes) not in page
