"""Exports and downloads hardened against what a title, a source or the model can hold.

* non-Latin-1 titles download over HTTP with an RFC 6266 ``Content-Disposition``;
* images and raw resources in the model's text reach no export (Markdown, Quarto,
  LaTeX, DOCX, ODT, HTML), however they are spelt;
* BibTeX values cannot end their field, and only allow-listed links (http, https,
  mailto, host-less file) reach any export, the RIS/CSL-JSON records, or the report
  page's evidence popovers.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from xml.etree import ElementTree

import pytest
from fastapi.testclient import TestClient
from markdown_it import MarkdownIt

from deepcite.citations.hyperlinks import safe_link_url
from deepcite.config import Settings
from deepcite.export import ExportOptions, export_report, safe_filename
from deepcite.export.bibtex import bibtex_escape, bibtex_key
from deepcite.export.inert import inert_markdown
from deepcite.runs import EventBatch, RunInfo, RunRequest
from deepcite.store import HistoryStore
from deepcite.types import ResearchResult, Source
from deepcite.web.app import create_app
from deepcite.web.contracts import WebState
from deepcite.web.downloads import content_disposition

# ------------------------------------------------------------------ shared payloads

#: Link targets no export may make clickable, in the spellings readers still follow.
BAD_TARGETS = [
    "javascript:alert(1)", "JaVaScRiPt:alert(2)", " javascript:alert(3)",
    "java\tscript:alert(4)", "&#106;avascript:alert(5)", "javascript&colon;alert(6)",
    "&#x6A;avascript:alert(7)", "vbscript:msgbox(8)", "VBScript:msgbox(9)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxMCk8L3NjcmlwdD4=", "DATA:text/html,11",
    "file://attacker.example/share/12", "file:////attacker.example/share/13",
    "ｊａｖａｓｃｒｉｐｔ:alert(14)", "java\u200bscript:alert(15)",
]
GOOD_TARGETS = ["https://example.org/a?b=1&c=2", "http://example.org/", "mailto:a@example.org",
                "#section"]


def _source(number: int, url: str, title: str | None = None) -> Source:
    return Source(number=number, title=title or f"Source {number}", url=url,
                  canonical_url=url, snippet="text", engine="web")


def _report(answer: str = "Text [1].", *, title: str = "Report", urls: list[str] | None = None,
            titles: list[str] | None = None) -> ResearchResult:
    urls = urls or ["https://example.org/one"]
    names = titles or [f"Source {n}" for n in range(1, len(urls) + 1)]
    sources = [_source(n, url, name) for n, (url, name) in enumerate(zip(urls, names,
                                                                        strict=True), 1)]
    return ResearchResult(question="Q?", title=title, answer=answer, strategy="standard",
                          handler="standard", sources=sources)


# ------------------------------------------------------------ the shared allow-list


@pytest.mark.parametrize("url", BAD_TARGETS + ["foo.html", "//evil.example/x", "",
                                               "file:\\\\evil\\share", "file:///%5C%5Cevil/x"])
def test_the_link_allow_list_refuses_every_dangerous_spelling(url: str) -> None:
    assert safe_link_url(url) is None
    assert safe_link_url(url, allow_file=True) is None


@pytest.mark.parametrize("url", GOOD_TARGETS)
def test_the_link_allow_list_keeps_web_and_mail_links(url: str) -> None:
    assert safe_link_url(url) == url


def test_file_links_only_for_local_sources_without_a_host() -> None:
    assert safe_link_url("file:///data/a.pdf") is None  # model text: no file links
    assert safe_link_url("file:///data/a.pdf", allow_file=True) == "file:///data/a.pdf"
    assert safe_link_url("file://localhost/a.pdf", allow_file=True) is not None
    assert safe_link_url("file://nas.example/a.pdf", allow_file=True) is None


# ------------------------------------------------------ 7: downloads over HTTP


class _StoredRuns:
    """A RunExecutor whose runs are finished results written to the history store."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.infos: dict[str, RunInfo] = {}
        self.store = HistoryStore.open(settings)

    def add(self, result: ResearchResult) -> str:
        with HistoryStore.open(self.settings) as store:
            run_id = store.begin(result.question, mode="quick", settings=self.settings)
            store.finish(run_id, result)
        self.infos[run_id] = RunInfo(id=run_id, question=result.question, mode="quick",
                                     state="completed", created_at=datetime.now(UTC))
        return run_id

    def submit(self, request: RunRequest) -> str:
        raise NotImplementedError

    def cancel(self, run_id: str) -> bool:
        return False

    def status(self, run_id: str) -> RunInfo:
        return self.infos[run_id]

    def events(self, run_id: str, after: int = 0, timeout: float = 0.0) -> EventBatch:
        return EventBatch([], finished=True)

    def drain(self) -> None:
        pass

    def shutdown(self) -> None:
        pass


@pytest.fixture
def web(make_settings: Any) -> tuple[TestClient, _StoredRuns]:
    settings: Settings = make_settings()
    runs = _StoredRuns(settings)
    state = WebState(settings=settings, executor=runs, token=None)
    return TestClient(create_app(state), follow_redirects=False), runs


_DISPOSITION = re.compile(
    r'attachment; filename="(?P<fallback>[\x20-\x21\x23-\x5b\x5d-\x7e]*)"; '
    r"filename\*=UTF-8''(?P<encoded>[A-Za-z0-9!#$&+.^_`|~%-]+)")


def _header_filenames(header: str) -> tuple[str, str]:
    """(the ASCII ``filename``, the decoded ``filename*``), read by RFC 6266's grammar
    (a quoted-string without quotes or backslashes; RFC 5987 attr-chars only)."""
    match = _DISPOSITION.fullmatch(header)
    assert match is not None, header
    return match.group("fallback"), unquote(match.group("encoded"), errors="strict")


TITLES = ["量子计算的现状与展望", "Caches — why and when", "“Curly” ‘quotes’ and ‚low‘",
          "Rockets 🚀 and stars ✨", 'He said "hi"\r\nX-Injected: 1 \\ back']


@pytest.mark.parametrize("title", TITLES)
@pytest.mark.parametrize("fmt", ["markdown", "bibtex", "json"])
def test_exports_of_any_title_download_with_an_rfc6266_file_name(
        web: tuple[TestClient, _StoredRuns], title: str, fmt: str) -> None:
    client, runs = web
    run_id = runs.add(_report(title=title))
    reply = client.get(f"/api/v1/research/{run_id}/export/{fmt}")
    assert reply.status_code == 200, reply.text
    header = reply.headers["content-disposition"]
    assert header.isascii() and "\r" not in header and "\n" not in header
    assert "x-injected" not in {name.lower() for name in reply.headers}
    fallback, decoded = _header_filenames(header)
    expected = export_report(_report(title=title), fmt).filename
    assert decoded == expected  # the browser saves the real (UTF-8) name
    assert fallback and not re.search(r'["\\\x00-\x1f\x7f]', fallback)
    assert fallback.endswith(expected[expected.index("."):])


def test_the_header_helper_never_lets_a_name_break_the_header() -> None:
    header = content_disposition('a"b\\c\r\nd;e=f 名.md')
    assert header.isascii()
    fallback, decoded = _header_filenames(header)
    assert decoded == 'a"b\\c\r\nd;e=f 名.md'
    assert not re.search(r'["\\\s;=]', fallback) and fallback.endswith(".md")
    assert _header_filenames(content_disposition("量子.md"))[0] == "report.md"
    assert safe_filename("量子", ".md") == "量子.md"


# ------------------------------------------- 12: images and resources in model text

#: Every way Markdown, raw HTML or raw TeX might pull a file or a server into a document.
RESOURCE_ANSWER = "\n\n".join([
    "Inline ![pixel](https://tracker.example/p.png) and ![secret](file:///etc/passwd) [1].",
    "Reference ![ref image][img] and collapsed ![img][] and shortcut ![img].",
    "[img]: https://tracker.example/ref.png",
    "Angle ![x](<file:///etc/hosts>) and titled ![y](https://tracker.example/t.png \"t\").",
    "Use ``` to fence. ![after](https://tracker.example/fence.png) <img src=x onerror=alert(1)>",
    "Raw <img src=\"https://tracker.example/i.png\"> <iframe src=\"https://x.example\"></iframe>"
    " <object data=\"file:///etc/passwd\"></object> <embed src=\"x.swf\">",
    "TeX \\input{/etc/passwd} \\include{/etc/group} \\includegraphics{/etc/shadow} "
    "\\immediate\\write18{id}",
    "Nested [![inner](https://tracker.example/n.png)](https://example.org/ok).",
    "| a | b |\n|---|---|\n| `x | ![cell](https://tracker.example/cell.png) ` | y |",
])
_MD = MarkdownIt("commonmark", {"html": True}).enable(["table"])


def _rendered_tokens(markdown: str) -> list[Any]:
    tokens = []
    for token in _MD.parse(markdown):
        tokens.append(token)
        tokens.extend(token.children or [])
    return tokens


def _assert_no_resource(markdown: str) -> None:
    """A CommonMark renderer (raw HTML on) finds no image and no resource tag."""
    tokens = _rendered_tokens(markdown)
    assert not [t for t in tokens if t.type == "image"]
    raw = " ".join(t.content for t in tokens if t.type in ("html_inline", "html_block"))
    assert not re.search(r"<\s*(img|iframe|object|embed|script|svg)", raw, re.I), raw
    hrefs = [str(t.attrs.get("href", "")) for t in tokens if t.type == "link_open"]
    assert all(safe_link_url(href) for href in hrefs), hrefs  # no file: link either


@pytest.mark.parametrize("fmt", ["markdown", "quarto"])
def test_markdown_and_quarto_exports_hold_no_image_or_resource(fmt: str) -> None:
    text = export_report(_report(RESOURCE_ANSWER), fmt).data.decode()
    _assert_no_resource(text.split("\n---\n", 1)[-1] if fmt == "quarto" else text)
    assert "![pixel]" in text.replace("\\", "")  # shown to the reader as text


def test_inert_markdown_keeps_code_and_safe_links() -> None:
    text = "See [docs](https://example.org/d) and `![x](y)` in code.\n\n```\n![a](b) <img>\n```\n"
    assert inert_markdown(text) == text
    assert inert_markdown(inert_markdown(RESOURCE_ANSWER)) == inert_markdown(RESOURCE_ANSWER)


def test_latex_export_includes_no_file_and_runs_no_command() -> None:
    pytest.importorskip("pypandoc")
    text = export_report(_report(RESOURCE_ANSWER), "latex").data.decode()
    for command in ("\\includegraphics", "\\input{", "\\include{", "\\write18", "\\immediate"):
        assert command not in text, command
    targets = re.findall(r"\\(?:href|url)\{([^}]*)\}", text)
    assert targets and all(safe_link_url(t) for t in targets), targets  # no file: link
    assert "/etc/passwd" in text  # as visible text, not a command


def _docx_rels(data: bytes) -> list[ElementTree.Element]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        assert not [n for n in names if n.startswith("word/media/")], names
        root = ElementTree.fromstring(archive.read("word/_rels/document.xml.rels"))
    return list(root)


LINK_ANSWER = " ".join(f"[link {n}]({target})" for n, target in enumerate(BAD_TARGETS)) + \
    " bare javascript:alert(99) and data:text/html,x and <vbscript:y> and " + \
    " ".join(f"[ok {n}]({target})" for n, target in enumerate(GOOD_TARGETS[:3])) + " [1] [2]"
LINK_URLS = ["vbscript:msgbox(1)", "https://example.org/two"]


def test_docx_has_no_images_and_only_allow_listed_hyperlinks() -> None:
    pytest.importorskip("pypandoc")
    for answer in (RESOURCE_ANSWER, LINK_ANSWER):
        rels = _docx_rels(export_report(_report(answer, urls=LINK_URLS), "docx").data)
        assert not [r for r in rels if r.get("Type", "").endswith("/image")]
        targets = [r.get("Target", "") for r in rels if r.get("TargetMode") == "External"]
        assert all(safe_link_url(t, allow_file=True) for t in targets), targets
    assert "https://example.org/a?b=1&c=2" in targets  # safe links stay links
    assert "https://example.org/two" in targets


def test_odt_has_only_allow_listed_hyperlinks() -> None:
    pytest.importorskip("pypandoc")
    data = export_report(_report(LINK_ANSWER + "\n\n" + RESOURCE_ANSWER, urls=LINK_URLS),
                         "odt").data
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert not [n for n in archive.namelist() if n.startswith("Pictures/")]
        root = ElementTree.fromstring(archive.read("content.xml"))
    xlink = "{http://www.w3.org/1999/xlink}href"
    hrefs = [el.get(xlink, "") for el in root.iter() if el.get(xlink) is not None]
    assert hrefs and all(safe_link_url(h, allow_file=True) for h in hrefs), hrefs


def test_html_export_links_only_allow_listed_targets() -> None:
    page = export_report(_report(LINK_ANSWER + "\n\n" + RESOURCE_ANSWER, urls=[
        "vbscript:msgbox(1)", "file://nas.example/share/x.pdf"]), "html").data.decode()
    hrefs = re.findall(r'href="([^"]*)"', page)
    assert hrefs and all(safe_link_url(h.replace("&amp;", "&"), allow_file=True)
                         for h in hrefs), hrefs
    assert "<img" not in page and "<iframe" not in page


def test_markdown_links_only_allow_listed_targets() -> None:
    text = export_report(_report(LINK_ANSWER, urls=LINK_URLS), "markdown",
                         ).data.decode()
    hrefs = [str(t.attrs["href"]) for t in _rendered_tokens(text) if t.type == "link_open"]
    assert all(safe_link_url(h) for h in hrefs), hrefs
    assert "https://example.org/a?b=1&c=2" in hrefs


# --------------------------------------------------------------- 16: BibTeX values


def _bibtex_entries(text: str) -> list[tuple[str, str, dict[str, str]]]:
    """Entries read the way BibTeX reads them: braces counted, backslashes ignored."""
    entries = []
    index = 0
    while (at := text.find("@", index)) >= 0:
        head = re.compile(r"@(\w+)\{([^,\s]*),").match(text, at)
        assert head is not None, text[at:at + 80]
        index = head.end()
        fields: dict[str, str] = {}
        while True:
            field = re.compile(r"\s*(\w+)\s*=\s*\{").match(text, index)
            if field is None:
                break
            depth, index = 1, field.end()
            while depth:
                depth += {"{": 1, "}": -1}.get(text[index], 0)
                index += 1
            assert field.group(1) not in fields, f"field {field.group(1)} given twice"
            fields[field.group(1)] = text[field.end():index - 1]
            index = re.compile(r"\s*,?").match(text, index).end()  # type: ignore[union-attr]
        closing = re.compile(r"\s*\}").match(text, index)
        assert closing is not None, f"entry {head.group(2)} does not end: {text[index:][:80]}"
        index = closing.end()
        entries.append((head.group(1), head.group(2), fields))
    return entries


HOSTILE_BIB_TITLES = [
    "Harmless}, year = 1066, x = {1", "Harmless}, year = 1066, x = 1", "Close \\} brace",
    "}{ reversed", "Open { never closed", "@misc{evil, title={pwned}}", "100% sure % comment",
    "Line\nbreak = {x}", "\\input{/etc/passwd} \\def\\x{y}", "Nested {ok {fine}} braces",
]


def test_bibtex_values_cannot_end_their_field_or_add_entries() -> None:
    urls = [f"https://example.org/{n}" for n in range(1, len(HOSTILE_BIB_TITLES) + 1)]
    report = _report("Text [1].", urls=urls, titles=HOSTILE_BIB_TITLES)
    text = export_report(report, "bibtex").data.decode()
    entries = _bibtex_entries(text)
    assert len(entries) == len(HOSTILE_BIB_TITLES)
    for _, key, fields in entries:
        assert re.fullmatch(r"[A-Za-z0-9_:.\-]+", key), key
        assert set(fields) <= {"title", "howpublished", "url", "note", "year", "month"}, fields
        assert "x" not in fields and fields.get("year") != "1066"
        assert "@" not in fields["title"] and "\\input" not in fields["title"]
        assert not re.search(r"(?<!\\)%", fields["title"]), fields["title"]
    assert "Nested \\{ok \\{fine\\}\\} braces" in {f["title"] for _, _, f in entries}


@pytest.mark.parametrize("value", HOSTILE_BIB_TITLES)
def test_every_escaped_value_is_brace_balanced(value: str) -> None:
    escaped = bibtex_escape(value)
    depth = 0
    for char in escaped:
        depth += {"{": 1, "}": -1}.get(char, 0)
        assert depth >= 0, escaped
    assert depth == 0 and "\n" not in escaped and "@" not in escaped


def test_bibtex_keys_hold_only_safe_characters() -> None:
    assert bibtex_key("smith2023, title = {x}}") == "smith2023titlex"
    assert bibtex_key("}{%@ \n") == "source"


@pytest.mark.parametrize("bad", ["javascript:alert(1)", "data:text/html,x", "vbscript:x",
                                 "file://attacker.example/share/x"])
def test_reference_managers_get_no_dangerous_url(bad: str) -> None:
    report = _report("Text [1] [2].", urls=[bad, "file:///data/notes.pdf"])
    rispy = pytest.importorskip("rispy")
    records = rispy.loads(export_report(report, "ris").data.decode())
    assert "urls" not in records[0] and records[1]["urls"] == ["file:///data/notes.pdf"]
    items = json.loads(export_report(report, "csl-json").data)
    assert "URL" not in items[0] and items[1]["URL"] == "file:///data/notes.pdf"
    entries = _bibtex_entries(export_report(report, "bibtex").data.decode())
    assert "url" not in entries[0][2] and entries[1][2]["url"] == "file:///data/notes.pdf"
    markdown = export_report(report, "markdown").data.decode()
    hrefs = [str(t.attrs["href"]) for t in _rendered_tokens(markdown) if t.type == "link_open"]
    assert bad not in hrefs and not any(h.lower().startswith(bad[:4]) for h in hrefs)


# --------------------------------------------------- 16: the report page's evidence


def test_evidence_popovers_link_only_allow_listed_sources(
        web: tuple[TestClient, _StoredRuns]) -> None:
    client, runs = web
    urls = ["javascript:alert(document.cookie)", " JaVaScRiPt:alert(2)", "data:text/html,x",
            "https://example.org/ok"]
    run_id = runs.add(_report("A [1]. B [2]. C [3]. D [4].", urls=urls))
    page = client.get(f"/reports/{run_id}")
    assert page.status_code == 200
    hrefs = re.findall(r'href="([^"]*)"', page.text)
    assert all(safe_link_url(h.replace("&amp;", "&"), allow_file=True) or h.startswith("/")
               for h in hrefs), hrefs
    for number in (1, 2, 3):
        box = page.text.split(f'id="evidence-{number}"', 1)[1].split("</div>", 1)[0]
        assert "Open source" not in box
    box = page.text.split('id="evidence-4"', 1)[1].split("</div>", 1)[0]
    assert 'href="https://example.org/ok"' in box


def test_report_script_never_writes_html_and_checks_link_schemes() -> None:
    script = (Path(__file__).parents[2] / "src/deepcite/web/static/report.js").read_text()
    assert "innerHTML" not in script and "outerHTML" not in script
    assert "insertAdjacentHTML" not in script and "document.write" not in script
    assert 'removeAttribute("href")' in script


def test_docx_links_local_sources_but_no_file_the_model_names() -> None:
    pytest.importorskip("pypandoc")
    answer = ("Notes [1]. See [passwd](file:///etc/passwd), bare file:///etc/shadow and "
              "[share](file://nas.example/s) [2].")
    report = _report(answer, urls=["file:///data/my notes.pdf", "file://nas.example/x.pdf"])
    rels = _docx_rels(export_report(report, "docx", ExportOptions(links="number")).data)
    targets = [r.get("Target", "") for r in rels if r.get("TargetMode") == "External"]
    assert [unquote(t) for t in targets if t.startswith("file:")] == ["file:///data/my notes.pdf"]


# ------------------------------------------ the .md read by pandoc's default reader

#: What pandoc's own Markdown reader (not the one deepcite's pandoc exporter uses) or
#: Quarto would turn into raw HTML/TeX, metadata, code cells or includes.
PANDOC_HOSTILE = {
    "raw fence": "```{=html}\n<script>alert(1)</script>\n```\n\n~~~ {=latex}\n"
                 "\\input{/etc/passwd}\n~~~",
    "fence without blank": "Text\n```{=html}\n<script>alert(2)</script>\n```",
    "fence in quote and list": "> ```{=html}\n> <script>alert(3)</script>\n> ```\n\n"
                               "- item\n\n  ```{=latex}\n  \\write18{id}\n  ```",
    "raw span": "x `<script>alert(4)</script>`{=html} y `\\input{/etc/passwd}`{ =latex}",
    "tex": "\\input{/etc/passwd} \\write18{id} \\immediate\\write18{id} \\begin{verbatim}",
    "math": "$\\input{/etc/hostname}$ and $$\\write18{x}$$",
    "yaml": "Intro.\n\n---\ntitle: injected\n---\n\nMore.",
    "yaml in quote and list": "> a\n>\n> ---\n> title: injected\n> ---\n\n- ---\n"
                              "  title: injected\n  ...",
    "cell and shortcode": "```{python}\nimport os\n```\n\n{{< include /etc/passwd >}} "
                          "{{% env SECRET %}}",
}
_ONE_LINE_HOSTILE = ("`<script>alert(5)</script>`{=html} $\\input{/etc/hostname}$ "
                     "\\write18{id} {{< include /etc/passwd >}}")


def _pandoc_default(markdown: str, to: str) -> str:
    pypandoc = pytest.importorskip("pypandoc")
    import subprocess
    return subprocess.run([pypandoc.get_pandoc_path(), "-f", "markdown", "-t", to, "-s"],
                          input=markdown, capture_output=True, text=True, check=True,
                          timeout=60).stdout


def _assert_pandoc_inert(markdown: str) -> None:
    html_out = _pandoc_default(markdown, "html")
    assert "<script" not in html_out.lower()
    assert "<title>injected" not in html_out and 'class="title">injected' not in html_out
    latex = _pandoc_default(markdown, "latex")
    for command in ("\\input{", "\\write18", "\\immediate", "\\title{injected",
                    "\\begin{verbatim}"):
        assert command not in latex, (command, latex[-400:])


@pytest.mark.parametrize("case", sorted(PANDOC_HOSTILE))
def test_markdown_export_is_inert_under_pandocs_default_reader(case: str) -> None:
    report = _report(PANDOC_HOSTILE[case], title=_ONE_LINE_HOSTILE)
    report = report.model_copy(update={"question": _ONE_LINE_HOSTILE})
    text = export_report(report, "markdown").data.decode()
    _assert_pandoc_inert(text)
    assert inert_markdown(text) == text  # nothing left for a second pass to change
    untitled = report.model_copy(update={"title": ""})
    _assert_pandoc_inert(export_report(untitled, "markdown").data.decode())


def test_pandoc_inert_text_still_shows_what_the_model_wrote() -> None:
    text = export_report(_report("Run \\input{/etc/passwd} for $5 `code`{=html}."),
                         "markdown").data.decode()
    latex = _pandoc_default(text, "latex")
    assert "\\textbackslash input\\{/etc/passwd\\}" in latex and "\\$5" in latex
    html_out = _pandoc_default(text, "html")
    assert "\\input{/etc/passwd} for $5 <code>code</code>{=html}" in html_out


def test_inert_markdown_changes_only_the_info_string_of_code_blocks() -> None:
    text = "```{=html}\n$x$ \\input{a} {{< b >}}\n---\n```\n\nHeading\n---\n"
    assert inert_markdown(text) == "```html\n$x$ \\input{a} {{< b >}}\n---\n```\n\nHeading\n---\n"
    assert inert_markdown("% title\n") == "\\% title\n"


@pytest.mark.parametrize("fmt", ["quarto", "html"])
def test_other_text_exports_get_the_same_inert_step(fmt: str) -> None:
    text = export_report(_report(PANDOC_HOSTILE["raw fence"] + "\n\n"
                                 + PANDOC_HOSTILE["cell and shortcode"]), fmt).data.decode()
    assert "{=html}" not in text and "{=latex}" not in text and "{python}" not in text
    if fmt == "html":
        assert "<script" not in text.lower()
    else:
        assert "{{{< include /etc/passwd >}}}" in text and "{{{{" not in text
