"""deepcite.export: the API, file names, limits, plugins, and the text and bibliography formats.

The document formats (HTML, PDF, Word, ODT, LaTeX) are in test_export_documents.py;
both use :func:`big_report`, a detailed report with CJK text, a table, a code block and
60 sources: papers with authors, year, venue and DOI, local documents (two passages of
one file among them), web pages, and hostile titles and URLs.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from typer.testing import CliRunner

from deepcite import plugins as registry
from deepcite.cli import app
from deepcite.config import Settings
from deepcite.config_sections import CitationSettings
from deepcite.errors import ConfigError, ExportError
from deepcite.export import (
    EXPORTERS,
    ExporterStatus,
    ExportOptions,
    ExportResult,
    export_report,
    exporter_status,
    exporter_statuses,
    get_exporter,
    is_safe_filename,
    safe_filename,
)
from deepcite.export.bibliography import split_name, works
from deepcite.export.text import quarto_body, yaml_string
from deepcite.types import ResearchResult, RunNotice, Source

HERE = __name__
CJK_PASSAGE = "量子计算利用叠加和纠缠来处理信息，这是中文段落。"
CJK_TITLE = "量子计算研究报告：中文综述"
HOSTILE_TITLES = ["<script>alert(1)</script>", "Title with {braces} & 100%",
                  "Under_score ^caret ~tilde $dollar #hash \\backslash",
                  "Line\nbreak \x1b[31mred\x1b[0m"]
FORMATS = list(EXPORTERS)


# ----------------------------------------------------------------------- the report


def _paper(number: int) -> Source:
    meta: dict[str, Any] = {"authors": ["Ashish Vaswani", "Shazeer, Noam", "Ludwig van Beethoven"],
                            "year": 2017 + number % 5}
    if number % 2:
        meta.update(venue="Advances in Neural Information Processing Systems",
                    doi=f"10.5555/3295222.{number}")
    else:
        meta.update(arxiv_id=f"1706.0{number:04d}")
    title = "Attention Is All You Need" if number == 1 else f"Transformer study {number}"
    url = f"https://openalex.org/W{number}"
    return Source(number=number, title=title, url=url, canonical_url=url,
                  snippet="A paper.", engine="openalex" if number % 2 else "arxiv",
                  published=f"{meta['year']}-06-12", metadata=meta)


def _local(number: int) -> Source:
    document = 21 if number <= 22 else number  # 21 and 22: two pages of one file
    page = number - 19
    url = f"file:///data/papers/report-{document}.pdf#page={page}"
    return Source(number=number, title=f"本地文档 {document}", url=url, canonical_url=url,
                  snippet="本地段落。", engine="local",
                  metadata={"collection": "papers", "path": f"/data/papers/report-{document}.pdf",
                            "page": page, "kind": "pdf"})


def _hostile(number: int) -> Source:
    title = HOSTILE_TITLES[(number - 31) % len(HOSTILE_TITLES)]
    url = "javascript:alert(1)" if number == 35 else f"https://evil{number}.example/x?a=1&b=<2>"
    return Source(number=number, title=f"{title} {number}", url=url, canonical_url=url,
                  snippet="<img src=x onerror=alert(1)>", engine="duckduckgo")


def _web(number: int) -> Source:
    url = f"https://www.site{number}.co.uk/article/{number}"
    return Source(number=number, title=f"Web page {number} 中文资料", url=url,
                  canonical_url=url, snippet="A page.", engine="searxng",
                  published="2024-03-01")


def _sources() -> list[Source]:
    makers: list[Callable[[int], Source]] = [_paper] * 20 + [_local] * 10 + [_hostile] * 10 \
        + [_web] * 20
    return [make(number) for number, make in enumerate(makers, start=1)]


BODY = f"""## Contents

- Summary
- 1. 背景
    - 1.1 Details
- 2. Methods

## Summary

{CJK_PASSAGE} [1] Transformers replaced recurrence [1, 2] and [3-5].

## 1. 背景

{CJK_PASSAGE} 更多内容 [21] [22] <script>alert('body')</script> and escaped \\[99\\].

### 1.1 Details

| Model | Layers | Source |
|:------|-------:|--------|
| Base  | 6      | [6]    |
| Big   | 12     | [7]    |

```python
def attention(q, k, v):
    return softmax(q @ k.T)[1] @ v  # [8] is an index here
```

## 2. Methods

Hostile sources [31] [32] [33] [34] [35] and pages [41] [60]. Markers in `code [9]` stay.
A link [a page](https://example.org/page) and [javascript](javascript:alert(1)).
"""


def big_report(**changes: Any) -> ResearchResult:
    """The detailed report every export test uses (``changes`` override fields)."""
    fields: dict[str, Any] = {
        "question": "量子计算是什么?", "answer": BODY, "strategy": "source-based",
        "handler": "standard", "sources": _sources(), "mode": "detailed",
        "title": CJK_TITLE,
    }
    fields.update(changes)
    return ResearchResult(**fields)


@pytest.fixture(scope="module")
def report() -> ResearchResult:
    return big_report()


# ------------------------------------------------------------------ every format


MAGIC: dict[str, Callable[[bytes], bool]] = {
    # asked in Chinese: the Sources block is headed in Chinese (deepcite.text.frames)
    "markdown": lambda d: d.startswith(f"# {CJK_TITLE}".encode()) and "## 来源".encode() in d,
    "html": lambda d: d.startswith(b"<!DOCTYPE html>"),
    "pdf": lambda d: d.startswith(b"%PDF-") and d.rstrip().endswith(b"%%EOF"),
    "docx": lambda d: d.startswith(b"PK\x03\x04"),
    "odt": lambda d: d.startswith(b"PK\x03\x04") and b"application/vnd.oasis" in d[:200],
    "latex": lambda d: b"\\documentclass" in d and b"\\end{document}" in d,
    "quarto": lambda d: d.startswith(b"---\ntitle: "),
    "ris": lambda d: d.startswith(b"TY  - ") and d.rstrip().endswith(b"ER  -"),
    "bibtex": lambda d: d.startswith(b"@"),
    "csl-json": lambda d: isinstance(json.loads(d), list),
    "json": lambda d: json.loads(d)["question"] == "量子计算是什么?",
}


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_exports_bytes_of_its_kind(report: ResearchResult, fmt: str) -> None:
    exporter = get_exporter(fmt)
    result = export_report(report, fmt)
    assert isinstance(result, ExportResult)
    assert MAGIC[fmt](result.data), result.data[:200]
    assert result.filename.endswith(exporter.extension)
    assert result.filename.startswith("量子计算研究报告：中文综述")
    assert is_safe_filename(result.filename)
    assert result.media_type == exporter.media_type


def test_text_formats_are_utf8_with_the_cjk_passage(report: ResearchResult) -> None:
    for fmt in ("markdown", "html", "latex", "quarto", "json"):
        assert CJK_PASSAGE in export_report(report, fmt).data.decode("utf-8"), fmt


def test_markdown_is_to_markdown_with_links_applied(report: ResearchResult) -> None:
    plain = export_report(report, "md").data.decode()
    assert f"{CJK_PASSAGE} [1] Transformers" in plain
    linked = export_report(report, "markdown", ExportOptions(links="number")).data.decode()
    assert "[[1]](https://openalex.org/W1)" in linked
    assert "`code [9]`" in linked  # code is never linked
    sources = linked.partition("## 来源")[2]  # the question is Chinese
    assert "[1] Attention Is All You Need" in sources and "](" not in sources  # left as is


def test_show_findings_reaches_the_export() -> None:
    report = big_report(questions_by_iteration={1: ["what is quantum computing"]})
    text = export_report(report, "markdown", ExportOptions(show_findings=True)).data.decode()
    assert "what is quantum computing" in text


def test_json_is_the_structured_result(report: ResearchResult) -> None:
    data = json.loads(export_report(report, "json").data)
    assert len(data["sources"]) == 60
    assert [s["number"] for s in data["sources"]] == list(range(1, 61))
    assert data["sources"][0]["metadata"]["doi"] == "10.5555/3295222.1"
    assert "量子" in export_report(report, "json").data.decode("utf-8")  # not \\u escapes


def test_json_warnings_are_code_and_message(report: ResearchResult) -> None:
    warned = report.with_warnings([("materials_ignored", "1 material(s) ignored"),
                                   ("budget", "Stopped early: 量子")])
    data = json.loads(export_report(warned, "json").data)
    assert data["warnings"][:2] == [
        {"code": "materials_ignored", "message": "1 material(s) ignored"},
        {"code": "budget", "message": "Stopped early: 量子"}]
    assert data["warnings"][2:] == [w.model_dump() for w in report.warnings]
    assert "warning_codes" not in data
    assert [RunNotice(**w) for w in data["warnings"]] == warned.warnings


# -------------------------------------------------------------------------- options


def test_options_from_settings_take_links_and_overrides() -> None:
    settings = Settings(citations=CitationSettings(links="domain"))
    assert ExportOptions.from_settings(settings).links == "domain"
    options = ExportOptions.from_settings(settings, links="number", show_findings=True)
    assert options == ExportOptions(links="number", show_findings=True)
    assert ExportOptions.from_settings(settings, links=None).links == "domain"  # flag unset
    with pytest.raises(ConfigError, match="Unknown export option"):
        ExportOptions.from_settings(settings, colour=True)
    with pytest.raises(ConfigError, match="domain-id"):
        ExportOptions(links="domians")


# ---------------------------------------------------------------------- file names


@pytest.mark.parametrize(("title", "expected"), [
    ("../../etc/passwd", "etc-passwd.pdf"),
    ("CON", "_CON.pdf"),
    ("con.tar", "_con.tar.pdf"),
    ("  ", "report.pdf"),
    ("...", "report.pdf"),
    ("報告: 中文?", "報告-中文.pdf"),
    ('a<b>c:"d"|e*f?g\\h/i', "a-b-c-d-e-f-g-h-i.pdf"),
    ("evil\u202etxt.exe", "evil-txt.exe.pdf"),
    ("tab\tand\x00nul\x1b[0m", "tab-and-nul-[0m.pdf"),
    ("-rf --no-preserve-root", "rf-no-preserve-root.pdf"),
])
def test_filenames_from_hostile_titles_are_safe(title: str, expected: str) -> None:
    name = safe_filename(title, ".pdf")
    assert name == expected
    assert is_safe_filename(name)


@pytest.mark.parametrize("title", ["a" * 300, "報" * 300, "😀" * 300, "ab. " * 100])
def test_long_titles_are_cut_to_100_chars_and_240_bytes(title: str) -> None:
    name = safe_filename(title, ".docx")
    assert name.endswith(".docx") and len(name) <= 100
    assert len(name.encode("utf-8")) <= 240
    assert not name[:-5].endswith((".", " ", "-"))


def test_every_filename_is_non_empty_and_portable() -> None:
    for title in ["", "\x00", "/", "\\", ".", "..", "NUL", "lpt1", "COM¹", "aux.md"]:
        name = safe_filename(title, ".md")
        stem = name[:-3]
        assert stem and not re.search(r'[/\\:*?"<>|\x00-\x1f]', name), (title, name)
        assert stem.split(".")[0].upper() not in {"CON", "PRN", "AUX", "NUL", "LPT1",
                                                   "COM¹"}, name


def test_export_filename_follows_the_title_or_the_question() -> None:
    quick = big_report(title=None, mode="quick", question="What is 2+2?")
    assert export_report(quick, "bibtex").filename == "What-is-2+2.bib"
    hostile = big_report(title="../../etc/passwd")
    assert export_report(hostile, "csl-json").filename == "etc-passwd.csl.json"


# ------------------------------------------------------------------ limits, extras


def test_output_over_the_size_cap_is_one_line_error(report: ResearchResult,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("deepcite.export.MAX_EXPORT_BYTES", 1024)
    with pytest.raises(ExportError) as caught:
        export_report(report, "markdown")
    message = str(caught.value)
    assert "\n" not in message
    assert "over the 1.0 KB limit" in message and "fewer sources or sections" in message


def test_missing_weasyprint_names_the_extra(report: ResearchResult,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "weasyprint", None)  # import weasyprint -> ImportError
    with pytest.raises(ExportError) as caught:
        export_report(report, "pdf")
    assert str(caught.value) == ("PDF export needs WeasyPrint - pip install 'deepcite[pdf]' "
                                 "(and Pango: see docs/exports.md)")
    row = next(r for r in exporter_statuses() if r.name == "pdf")
    assert not row.usable and "deepcite[pdf]" in row.description


def test_missing_pandoc_names_the_extra(report: ResearchResult,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pypandoc", None)
    for fmt in ("docx", "odt", "latex"):
        with pytest.raises(ExportError, match=r"pip install 'deepcite\[pandoc\]'") as caught:
            export_report(report, fmt)
        assert "\n" not in str(caught.value)
    rows = {r.name: r for r in exporter_statuses()}
    assert not rows["docx"].usable and rows["markdown"].usable


def test_importing_the_package_needs_no_extra() -> None:
    # A fresh interpreter: re-importing deepcite.export here would leave two copies.
    code = ("import sys; sys.modules['weasyprint'] = sys.modules['pypandoc'] = None; "
            "import deepcite.export as e; assert 'pdf' in e.EXPORTER_REGISTRY.names(); "
            "loaded = {'weasyprint', 'pypandoc', 'markdown_it', 'rispy'} & {"
            "m.split('.')[0] for m, v in sys.modules.items() if v is not None}; "
            "assert not loaded, loaded")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr


# ---------------------------------------------------------------- names, plugins


def test_unknown_format_is_a_config_error_with_suggestions() -> None:
    with pytest.raises(ConfigError, match="did you mean 'bibtex'"):
        get_exporter("bibtx")


def test_aliases_and_spellings_reach_the_builtins() -> None:
    assert get_exporter("md").name == "markdown"
    assert get_exporter("TeX").name == "latex"
    assert get_exporter("csl_json").name == "csl-json"
    assert get_exporter("bib").name == "bibtex"


def test_one_status_names_the_canonical_format(monkeypatch: pytest.MonkeyPatch) -> None:
    assert exporter_status("TeX") == ExporterStatus(
        "latex", True, get_exporter("latex").description, ".tex", True)
    monkeypatch.setitem(sys.modules, "weasyprint", None)
    assert not exporter_status("pdf").usable
    with pytest.raises(ConfigError, match="did you mean 'html'"):
        exporter_status("htlm")


def test_statuses_list_every_builtin_with_extension() -> None:
    rows = exporter_statuses()
    assert [r.name for r in rows][:len(FORMATS)] == FORMATS
    assert all(isinstance(r, ExporterStatus) and r.builtin and r.usable for r in rows)
    assert {r.name: r.extension for r in rows}["csl-json"] == ".csl.json"


class ShoutExporter:
    """Exports the answer in capitals (a plugin)."""

    name = "shout"
    extension = ".txt"
    media_type = "text/plain"
    description = "the answer in capitals"

    def export(self, report: ResearchResult, options: ExportOptions) -> ExportResult:
        return ExportResult(report.answer.upper().encode(), "../../" + report.question,
                            self.media_type)


class NotAnExporter:
    """Has a name and nothing else."""

    name = "broken"


def failing_factory() -> ShoutExporter:
    """A factory whose package is broken."""
    raise RuntimeError("missing config file")


def test_plugins_cannot_shadow_builtins(plugins: Callable[..., None],
                                        report: ResearchResult) -> None:
    plugins(registry.EXPORTERS_GROUP, pdf=f"{HERE}:ShoutExporter", md=f"{HERE}:ShoutExporter",
            shout=f"{HERE}:ShoutExporter", broken=f"{HERE}:NotAnExporter",
            failing=f"{HERE}:failing_factory", missing="no_such_module:Exporter")
    assert get_exporter("pdf").name == "pdf"
    assert get_exporter("md").name == "markdown"
    result = export_report(report, "shout")
    assert result.data.startswith(b"## CONTENTS")
    assert result.filename == "量子计算研究报告：中文综述.txt"  # not the plugin's "../../"
    rows = {r.name: r for r in exporter_statuses()}
    assert rows["shout"].usable and not rows["shout"].builtin
    assert not rows["broken"].usable and "lacks extension" in rows["broken"].description
    assert "RuntimeError: missing config file" in rows["failing"].description
    assert not rows["missing"].usable and "reinstall" in rows["missing"].description
    with pytest.raises(ConfigError, match="not an exporter"):
        get_exporter("broken")


def test_cli_lists_exporters(plugins: Callable[..., None]) -> None:
    plugins(registry.EXPORTERS_GROUP, shout=f"{HERE}:ShoutExporter")
    runner = CliRunner()
    result = runner.invoke(app, ["exporters"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for word in ("markdown", "(default)", "shout", "(plugin)", ".csl.json", "csl-json"):
        assert word in result.output, word  # words: a narrow terminal wraps the cells
    result = runner.invoke(app, ["exporters", "--json"])
    data = json.loads(result.output)
    assert data["default"] == "markdown"
    assert {row["name"] for row in data["exporters"]} >= {*FORMATS, "shout"}


def test_cli_shows_why_a_format_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "weasyprint", None)
    runner = CliRunner()
    result = runner.invoke(app, ["exporters"])
    assert result.exit_code == 0 and "(unavailable:" in result.output
    rows = {row["name"]: row for row in json.loads(
        runner.invoke(app, ["exporters", "--json"]).output)["exporters"]}
    assert rows["pdf"]["usable"] is False
    assert rows["pdf"]["description"].startswith(
        "PDF export needs WeasyPrint - pip install 'deepcite[pdf]'")


# -------------------------------------------------------------------------- Quarto


def test_quarto_front_matter_quotes_titles_safely() -> None:
    yaml = pytest.importorskip("yaml")
    title = 'Key: "value" --- # not a comment\u2028[x] {y}'
    data = export_report(big_report(title=title), "quarto").data.decode()
    front = yaml.safe_load(data.split("---\n", 2)[1])
    assert front["title"] == " ".join(title.split())
    assert front["format"] == "html" and front["engine"] == "markdown"
    assert front["execute"] == {"enabled": False}
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", front["date"])
    tab = yaml_string("a\tb")
    assert yaml.safe_load(f"t: {tab}")["t"] == "a\tb"


def test_quarto_body_cannot_run_or_include_anything() -> None:
    body = quarto_body("Text {{< include /etc/passwd >}} and {{< env SECRET >}}\n\n"
                       "```{python}\nimport os\n```\n\n~~~{=latex}\n\\input{x}\n~~~\n\n"
                       "---\ntitle: injected\n---\n\nraw `\\input{y}`{=latex}\n")
    assert "{{{< include /etc/passwd >}}}" in body and "{{{< env SECRET >}}}" in body
    assert "```python\nimport os\n```" in body
    assert "~~~latex\n" in body
    assert "\n***\ntitle: injected" in body
    assert "`\\{=latex}" in body


def test_quarto_keeps_code_blocks_as_written() -> None:
    body = quarto_body("```python\nx = {{< 1 >}}\n---\n`{=a}`\n```\n")
    assert "\n---\n`{=a}`\n```" in body


# --------------------------------------------------------------------- bibliographies


def test_names_split_like_reference_managers() -> None:
    assert split_name("Ashish Vaswani") == split_name("Vaswani, Ashish")
    assert split_name("Ludwig van Beethoven").family == "van Beethoven"
    assert split_name("Martin Luther King Jr.").given == "Martin Luther Jr."
    assert split_name("张伟").literal == "张伟"
    assert split_name("Research and Development Team").literal


def test_ris_parses_back_with_authors_year_venue_doi(report: ResearchResult) -> None:
    rispy = pytest.importorskip("rispy")
    records = rispy.loads(export_report(report, "ris").data.decode())
    assert len(records) == 59  # 60 sources, two of them passages of one file
    first = records[0]
    assert first["type_of_reference"] == "JOUR"
    assert first["title"] == "Attention Is All You Need"
    assert first["authors"] == ["Vaswani, Ashish", "Shazeer, Noam", "van Beethoven, Ludwig"]
    assert first["year"] == "2018" and first["doi"] == "10.5555/3295222.1"
    assert first["journal_name"].startswith("Advances in Neural")
    assert first["id"] == "vaswani2018attention"
    preprint = records[1]
    assert preprint["type_of_reference"] == "UNPB"
    local = next(r for r in records if r["type_of_reference"] == "GEN")
    assert local["file_attachments1"] == "/data/papers/report-21.pdf"
    assert "deepcite source nr: 21, 22" in local["notes"][0]
    assert "pp. 2, 3" in local["notes"][0]
    web = records[-1]
    assert web["type_of_reference"] == "ELEC" and web["urls"] == [
        "https://www.site60.co.uk/article/60"]
    hostile = [r for r in records if "Line break" in r["title"]]
    assert hostile and all("\x1b" not in r["title"] for r in hostile)


_ENTRY = re.compile(r"@(\w+)\{([^,\s]+),\n(.*?)\n\}\n", re.DOTALL)
_UNESCAPE = {r"\textbackslash{}": "\\", r"\^{}": "^", r"\~{}": "~", r"\{": "{", r"\}": "}",
             r"\%": "%", r"\&": "&", r"\$": "$", r"\#": "#", r"\_": "_"}


def _bibtex_fields(body: str) -> dict[str, str]:
    """Fields of one entry: ``name = {value}``, value read to its balancing brace."""
    fields: dict[str, str] = {}
    position = 0
    while True:
        match = re.compile(r"\s*(\w+) = \{").match(body, position)
        if match is None:
            break
        depth, index = 1, match.end()
        while depth:
            char = body[index]
            if char == "\\":
                index += 2
                continue
            depth += {"{": 1, "}": -1}.get(char, 0)
            index += 1
        fields[match.group(1)] = body[match.end():index - 1]
        position = index + 1  # past the comma
    return fields


def _unescape(value: str) -> str:
    pattern = "|".join(re.escape(k) for k in _UNESCAPE)
    return re.sub(pattern, lambda m: _UNESCAPE[m.group(0)], value)


def test_bibtex_parses_back_with_escaped_fields_and_unique_keys(report: ResearchResult) -> None:
    text = export_report(report, "bibtex").data.decode()
    entries = _ENTRY.findall(text)
    assert len(entries) == 59
    keys = [key for _, key, _ in entries]
    assert len(set(keys)) == len(keys)
    assert all(re.fullmatch(r"[a-z][a-z0-9-]*", key) for key in keys), keys
    kind, key, body = entries[0]
    fields = _bibtex_fields(body)
    assert (kind, key) == ("article", "vaswani2018attention")
    assert fields["author"] == "Vaswani, Ashish and Shazeer, Noam and van Beethoven, Ludwig"
    assert fields["year"] == "2018" and fields["doi"] == "10.5555/3295222.1"
    assert fields["journal"].startswith("Advances in Neural")
    titles = {_unescape(_bibtex_fields(b)["title"]) for _, _, b in entries}
    assert "Title with {braces} & 100% 32" in titles
    assert "Under_score ^caret ~tilde $dollar #hash \\backslash 33" in titles
    for _, _, body in entries:  # every value balanced, no raw specials left
        for name, value in _bibtex_fields(body).items():
            if name not in ("url", "doi", "eprint"):
                assert not re.search(r"(?<!\\)[%&$#_]", value), (name, value)
    # Source 35's javascript: URL is no link for a reference manager: no url field.
    urls = [f["url"] for f in (_bibtex_fields(b) for _, _, b in entries) if "url" in f]
    assert len(urls) == 58 and all(not re.search(r"[\s{}\\]", url) for url in urls), urls


def test_csl_json_items_carry_the_metadata(report: ResearchResult) -> None:
    items = json.loads(export_report(report, "csl-json").data)
    assert len(items) == 59
    paper = items[0]
    assert paper["type"] == "article-journal" and paper["id"] == "vaswani2018attention"
    assert paper["author"][0] == {"family": "Vaswani", "given": "Ashish"}
    assert paper["issued"] == {"date-parts": [[2018, 6, 12]]}
    assert paper["DOI"] == "10.5555/3295222.1"
    assert paper["container-title"].startswith("Advances in Neural")
    assert paper["URL"] == "https://openalex.org/W1"
    assert items[1]["type"] == "article" and items[1]["number"].startswith("arXiv:")
    local = next(i for i in items if i["type"] == "document")
    assert "/data/papers/report-21.pdf" in local["note"]
    web = items[-1]
    assert web["type"] == "webpage" and web["issued"] == {"date-parts": [[2024, 3, 1]]}
    assert len({item["id"] for item in items}) == 59


def test_bibliographies_keep_the_reports_numbers(report: ResearchResult) -> None:
    records = works(report)
    numbers = [n for record in records for n in record.numbers]
    assert numbers == list(range(1, 61))  # never renumbered, every number once


def _on_disk(number: int, url: str, path: str, **meta: Any) -> Source:
    return Source(number=number, title=f"Doc {number}", url=url, canonical_url=url,
                  snippet="text", engine="collection", metadata={"path": path, **meta})


def test_exports_without_local_paths_name_documents_by_collection_and_file() -> None:
    """Pages of one file stay one document, two files of one name two, a material's
    absolute path and a Windows one go too, and a web source keeps its link."""
    sources = [
        _on_disk(1, "file:///srv/data/notes/a/cache.pdf#page=2", "/srv/data/notes/a/cache.pdf",
               collection="notes", page=2, kind="pdf"),
        _on_disk(2, "file:///srv/data/notes/a/cache.pdf#page=5", "/srv/data/notes/a/cache.pdf",
               collection="notes", page=5, kind="pdf"),
        _on_disk(3, "file:///srv/data/notes/b/cache.pdf", "/srv/data/notes/b/cache.pdf",
               collection="notes"),
        _on_disk(4, "/home/srv/upload/plan.txt", "/home/srv/upload/plan.txt"),
        _on_disk(5, "C:\\Users\\srv\\memo.docx", "C:\\Users\\srv\\memo.docx"),
        Source(number=6, title="Web", url="https://example.org/x",
               canonical_url="https://example.org/x", snippet="text", engine="web"),
    ]
    report = ResearchResult(question="Where is the cache?", strategy="s", handler="h",
                            answer="A [1]. B [2]. C [3]. D [4]. E [5]. F [6].",
                            sources=sources)
    shown = export_report(report, "markdown", ExportOptions(local_paths=False)).data.decode()
    for part in ("/srv/", "file:", "upload", "Users", "C:"):
        assert part not in shown, part
    assert "[1, 2] Doc 1" in shown and "cache.pdf, pp. 2, 5" in shown
    assert "[3] Doc 3" in shown  # another cache.pdf: its own entry
    assert "plan.txt" in shown and "memo.docx" in shown
    assert "https://example.org/x" in shown
    kept = export_report(report, "markdown").data.decode()
    assert "file:///srv/data/notes/a/cache.pdf" in kept  # the CLI's default keeps paths
    data = json.loads(export_report(report, "json", ExportOptions(local_paths=False)).data)
    assert "/srv/" not in json.dumps(data) and "Users" not in json.dumps(data)
