"""Collections management in a real browser against `deepcite serve`: upload two files
into a new collection, wait for its indexing (the page reloads itself, no script), search
it, and delete it through the confirmation page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any


def test_upload_search_and_delete_a_collection(server: str, page: Any,
                                               tmp_path: Path) -> None:
    boil = tmp_path / "boiling.md"
    boil.write_text("# Boiling\n\nWater boils at 100 degrees Celsius at sea level.\n",
                    encoding="utf-8")
    ice = tmp_path / "ice.txt"
    ice.write_text("Ice melts at zero degrees Celsius.\n", encoding="utf-8")
    page.goto(server + "/collections")
    form = page.locator("#upload-form")
    form.locator("input[name=name]").fill("browser-notes")
    form.locator("input[name=files]").set_input_files([str(boil), str(ice)])
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r".*/collections/browser-notes$"), timeout=30_000)
    page.wait_for_selector("#index-state:has-text('done:')", timeout=120_000)
    assert "2 added" in page.inner_text("#index-state")
    assert page.inner_text("#documents") == "2"
    assert "boiling.md" in page.content() and "ice.txt" in page.content()

    page.fill("input[name=q]", "boiling water")
    page.click("form.search button[type=submit]")
    page.wait_for_selector("ol.passages li", timeout=30_000)
    first = page.inner_text("ol.passages li >> nth=0")
    assert "Boiling" in first and "boiling.md" in first and "score" in first

    page.click("a:has-text('Delete')")
    page.wait_for_url(re.compile(r".*/collections/browser-notes/delete$"))
    page.check("input[name=confirm]")
    page.click("button:has-text('Delete collection')")
    page.wait_for_url(re.compile(r".*/collections\?deleted=browser-notes$"))
    assert "Collection browser-notes was deleted" in page.inner_text("main")
    assert page.locator("a[href='/collections/browser-notes']").count() == 0
    assert page.dialogs == []
