"""What a user of the web pages waits for: submit to first progress, submit to report.

Starts `deepcite serve` (bundled model, a fresh data folder, offline so the form
preselects the demo collection) and drives Debian's Chromium with Playwright: for a
quick answer (cold: the demo index is built and the model loaded on first use; then
warm), a detailed report and a quick answer with an uploaded file, it prints the
seconds from the click on "Start research" to the first progress event shown on the
run page (the first line of its event log) and to the report page; then the weight of
every page (bytes of HTML, CSS and JS).

    .venv/bin/python bench/bench_web_pages.py [--runs 1]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.servers import Proc, free_port, start_process, wait_healthy

QUESTION = "How do I parse command line arguments?"
DEEPCITE = str(Path(sys.executable).parent / "deepcite")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update"]
OBSERVER = """
window.addEventListener("DOMContentLoaded", () => {
  const live = document.getElementById("live");
  if (!live) { return; }
  const seen = () => document.querySelectorAll("#log-items li").length;
  const tell = () => { if (seen() > 0) { window.progressShown(location.pathname); } };
  tell();
  new MutationObserver(tell).observe(live, {subtree: true, childList: true});
});
"""


def serve(data_dir: str) -> tuple[Proc, str]:
    """``deepcite serve`` on a free loopback port, once its health check answers (its
    output in ``DATA_DIR/serve.log``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPCITE_")}
    env.update(DEEPCITE_DATA_DIR=data_dir, DEEPCITE_LLM_PROVIDER="local",
               DEEPCITE_SECURITY_OFFLINE="1", OLLAMA_HOST="127.0.0.1:1", NO_COLOR="1")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = start_process("serve", [DEEPCITE, "serve", "--host", "127.0.0.1", "--port",
                                      str(port)], env=env, logs=Path(data_dir))
    try:
        wait_healthy(base, process)
    except BaseException:
        process.stop()
        raise
    return process, base


def one_run(page: Any, base: str, mode: str, first: list[float],
            upload: Path | None = None) -> tuple[float, float]:
    first.clear()
    page.goto(base + "/")
    page.fill("textarea[name=question]", QUESTION)
    page.check(f"input[name=mode][value={mode}]")
    page.check("input[name=collections][value=demo]")
    if upload is not None:  # "Your materials": a file of the user's, read by the loaders
        page.set_input_files("input[type=file][name=files]", str(upload))
    started = time.perf_counter()
    page.click("form button[type=submit]")
    page.wait_for_url(re.compile(r".*/reports/[0-9a-f]{32}"), timeout=900_000)
    page.wait_for_load_state("load")
    report = time.perf_counter() - started
    shown = (first[0] - started) if first else float("nan")  # nan: report came first
    return shown, report


#: Bytes the browser received for a page: the document and every resource it loaded.
WEIGHT = ("() => performance.getEntriesByType('navigation').concat("
          "performance.getEntriesByType('resource'))"
          ".reduce((total, entry) => total + entry.decodedBodySize, 0)")


def print_weights(browser: Any, base: str, report: str) -> None:
    """The page weight (HTML + CSS + JS, decoded) of every page, in a fresh context so
    nothing comes from the cache."""
    run_id = report.rsplit("/", 1)[-1]
    pages = {"new research": "/", "report": f"/reports/{run_id}",
             "source viewer": f"/runs/{run_id}/sources/1",
             "compare": f"/compare?a={run_id}&b={run_id}", "history": "/history",
             "collections": "/collections", "collection": "/collections/demo",
             "settings": "/settings", "error": "/reports/" + "0" * 32}
    print(f"\n{'page':<14} {'bytes':>8}")
    for name, path in pages.items():
        context = browser.new_context()
        page = context.new_page()
        page.goto(base + path)
        page.wait_for_load_state("load")
        print(f"{name:<14} {page.evaluate(WEIGHT):>8,}")
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="warm runs of each mode")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as data_dir:
        process, base = serve(data_dir)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page()
                first: list[float] = []

                def shown(path: str) -> None:
                    if not first and path.startswith("/runs/"):
                        first.append(time.perf_counter())

                page.expose_function("progressShown", shown)
                page.add_init_script(OBSERVER)
                notes = Path(data_dir) / "cli-notes.md"
                notes.write_text("# Our CLI notes\n\n" + " ".join(
                    f"Note {i}: our tools parse arguments with argparse subcommands."
                    for i in range(400)) + "\n", encoding="utf-8")
                plan = [("quick", "cold", None)] + [("quick", "warm", None)] * args.runs \
                    + [("detailed", "warm", None)] * args.runs \
                    + [("quick", "upload", notes)] * args.runs
                print(f"{'mode':<9} {'server':<6} {'first progress s':>17} {'report s':>9}")
                for mode, state, upload in plan:
                    progress, report = one_run(page, base, mode, first, upload)
                    print(f"{mode:<9} {state:<6} {progress:>17.2f} {report:>9.2f}")
                print_weights(browser, base, page.url)
                browser.close()
        finally:
            process.stop()


if __name__ == "__main__":
    main()
