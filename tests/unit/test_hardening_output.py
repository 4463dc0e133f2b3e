"""Output hardening: terminal escapes, HTML in Markdown, quoted brackets, unbacked answers.

Text from outside - document titles, page snippets, model answers - reaches terminals,
Markdown files and JSON. These tests push hostile text through the real paths (the CLI,
the Researcher, the citation tools) with the model faked, and check what comes out.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
import typer
from langchain_core.messages import AIMessage
from rich.table import Table
from rich.text import Text
from typer.testing import CliRunner

import deepcite.cli.common as common
import deepcite.runs.build
from deepcite.citations import cited_numbers, clean_markers, hyperlink, render_sources, verify
from deepcite.citations.supported_first import BELOW_NOTE
from deepcite.citations.text import escape_html, escape_quoted, neutralise_html
from deepcite.cli import app
from deepcite.cli.common import SafeConsole
from deepcite.export.markdown import to_json_dict, to_markdown
from deepcite.research import Researcher
from deepcite.security.terminal import one_line, terminal_safe
from deepcite.types import ResearchResult
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

runner = CliRunner()
# Anything a terminal acts on: C0 but tab and newline, DEL, C1.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
EVIL_TITLE = "Cache \x1b]0;pwned\x07\x1b[2J<script>alert(1)</script> notes"
TTL_QUESTION = "What cache did the team decide and what is its TTL?"
WRONG_TTL = "The team decided to keep the cache in Redis with a TTL of 30 seconds [1]."
RIGHT_TTL = "The team decided to keep the cache in Redis with a TTL of 300 seconds [1]."
TTL_PASSAGE = passage("decisions", "We decided to keep the cache in Redis. "
                                   "The cache TTL is 300 seconds.")


def _terminal(buffer: io.StringIO) -> SafeConsole:
    """A console that believes it writes to a colour terminal, into ``buffer``."""
    return SafeConsole(file=buffer, force_terminal=True, color_system="standard", width=200,
                       highlight=False)


# -- 6. terminal escapes --------------------------------------------------------------


@pytest.mark.parametrize(("raw", "safe"), [
    ("a\x1b]0;pwned\x07b", "ab"),  # OSC window title, BEL-terminated: payload goes too
    ("a\x1b]8;;https://evil\x1b\\link\x1b]8;;\x1b\\b", "alinkb"),  # OSC 8 link, ST-ended
    ("a\x1b[2Jb\x1b[31mc", "abc"),  # CSI clear screen and colour
    ("a\x9b2Jb\x9d0;x\x9cc", "abc"),  # 8-bit CSI and OSC
    ("a\x1bPq#payload\x1b\\b", "ab"),  # DCS string
    ("bell\x07 del\x7f nel\x85 nul\x00.", "bell del nel nul."),
    ("keep\ttabs\nand lines", "keep\ttabs\nand lines"),
    ("over\rwrite\r\nline", "over\nwrite\nline"),
    ("lone escape\x1b", "lone escape"),
])
def test_terminal_safe_removes_whole_sequences_and_controls(raw: str, safe: str) -> None:
    assert terminal_safe(raw) == safe


def test_one_line_collapses_a_title_that_fakes_more_output() -> None:
    assert one_line("Fake\n2. other result\r\n\x1b[2J  end") == "Fake 2. other result end"


def test_console_strips_untrusted_sequences_but_keeps_its_own_styles() -> None:
    buffer = io.StringIO()
    console = _terminal(buffer)
    console.print(f"[bold]Title:[/] {EVIL_TITLE}")
    table = Table("title")
    table.add_row(EVIL_TITLE)  # nested renderables go through the same render
    console.print(table)
    console.print(Text("ready-made \x1b[2J\x1b]0;x\x1b\\Text", style="green"))
    written = buffer.getvalue()
    assert "pwned" not in written and "\x1b]" not in written and "\x07" not in written
    assert "\x1b[2J" not in written
    assert "\x1b[1m" in written  # rich's own bold still reaches the terminal
    assert written.count("<script>alert(1)</script> notes") == 2
    assert "ready-made Text" in written


def test_print_json_keeps_control_characters_escaped() -> None:
    buffer = io.StringIO()
    data = {"title": "a\x1b[2Jb\x9b31mc\x7fd", "snippet": "日本語のテキスト"}
    SafeConsole(file=buffer, width=200).print_json(json.dumps(data))
    written = buffer.getvalue()
    assert CONTROL.search(written) is None
    assert json.loads(written) == data  # escaped, not stripped: the data is intact
    assert "日本語のテキスト" in written  # and non-ASCII text stays readable


def test_errors_and_warnings_print_markup_as_plain_text(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    buffer = io.StringIO()
    monkeypatch.setattr(common, "err", _terminal(buffer))
    common.warn("skipped [link=https://evil.example]file[/link] \x1b[2J")
    with pytest.raises(typer.Exit):
        common.fail("bad name [bold]x[/bold]\x1b]0;pwned\x07")
    written = buffer.getvalue()
    assert "[link=https://evil.example]file[/link]" in written and "\x1b]8" not in written
    assert "[bold]x[/bold]" in written and "pwned" not in written and "\x1b[2J" not in written


@pytest.fixture
def evil_notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A collection whose document title carries escape sequences and a script tag."""
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "cache.md").write_text(
        f"# {EVIL_TITLE}\n\nThe team decided the cache TTL is 300 seconds "
        "\x1b[2J<script>steal()</script>.\n", encoding="utf-8")
    added = runner.invoke(app, ["collection", "add", str(folder), "--name", "notes"])
    assert added.exit_code == 0, added.output
    return folder


@pytest.fixture
def html_model(monkeypatch: pytest.MonkeyPatch) -> ScriptedChatModel:
    model = ScriptedChatModel(script={
        "questions": ["cache TTL decision"],
        "synthesis": ["The team decided the cache TTL is 300 seconds [1]. "
                      "<script>alert(1)</script> <img src=x onerror=alert(2)> and a < b; "
                      "code stays: `<b>`"],
    })
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    return model


def test_collection_search_prints_no_control_characters(evil_notes: Path) -> None:
    shown = runner.invoke(app, ["collection", "search", "notes", "cache TTL"])
    assert shown.exit_code == 0, shown.output
    assert "300 seconds" in shown.stdout and "notes (score" in shown.stdout
    assert "pwned" not in shown.stdout and CONTROL.search(shown.stdout) is None
    as_json = runner.invoke(app, ["collection", "search", "notes", "cache TTL", "--json"])
    assert as_json.exit_code == 0, as_json.output
    assert CONTROL.search(as_json.stdout) is None
    assert "300 seconds" in json.loads(as_json.stdout)[0]["snippet"]


def test_ask_output_has_no_control_characters_or_raw_html(
        evil_notes: Path, html_model: ScriptedChatModel, tmp_path: Path) -> None:
    target = tmp_path / "answer.md"
    shown = runner.invoke(app, ["ask", TTL_QUESTION, "-c", "notes", "--iterations", "1",
                                "-q", "-o", str(target)])
    assert shown.exit_code == 0, shown.output
    for text in (shown.stdout, target.read_text(encoding="utf-8")):
        assert CONTROL.search(text) is None and "pwned" not in text
        assert "<script" not in text and "<img" not in text
        assert "&lt;script>alert(1)&lt;/script>" in text  # the model's tag, now text
        assert "a < b" in text and "`<b>`" in text  # comparisons and code read as before
        _, _, sources = text.partition("## Sources")
        assert "Cache &lt;script&gt;alert(1)&lt;/script&gt; notes" in sources
    as_json = runner.invoke(app, ["ask", TTL_QUESTION, "-c", "notes", "--iterations", "1",
                                  "-q", "--json"])
    assert as_json.exit_code == 0, as_json.output
    assert CONTROL.search(as_json.stdout) is None
    data = json.loads(as_json.stdout)
    assert data["sources"][0]["title"] == "Cache <script>alert(1)</script> notes"
    assert "<script" not in data["answer"]


# -- 7. HTML in Markdown --------------------------------------------------------------


def test_neutralise_html_turns_tags_into_text_outside_code_only() -> None:
    text = ("Run <script>alert(1)</script> and <!-- hidden --> now; a < b, x<3 and "
            "<https://example.org> stay.\n`<b>` and\n```html\n<div>\n```\n")
    safe = neutralise_html(text)
    assert "<script" not in safe and "&lt;script>alert(1)&lt;/script>" in safe
    assert "&lt;!-- hidden -->" in safe
    assert "a < b, x<3" in safe and "<https://example.org>" in safe
    assert "`<b>`" in safe and "```html\n<div>\n```" in safe
    assert neutralise_html(safe) == safe


def test_escape_html_leaves_a_lone_ampersand_readable() -> None:
    assert escape_html("R&D <b> &lt; &#60;") == "R&D &lt;b&gt; &amp;lt; &amp;#60;"


def test_sources_block_escapes_titles_names_and_urls() -> None:
    block = render_sources([{
        "number": 1, "title": "A <script>x</script>\nline two", "url": "file:///d/a%20b.md",
        "collection": "n<i>", "path": "/d/<img src=x>.md"}, {
        "number": 2, "title": "Web", "url": "https://e.org/a b\"<x>"}])
    assert "<" not in block.replace("&lt;", "")
    assert "[1] A &lt;script&gt;x&lt;/script&gt; line two (source nr: 1)" in block
    assert "Collection: n&lt;i&gt; · &lt;img src=x&gt;.md" in block
    assert "URL: https://e.org/a%20b%22%3Cx%3E" in block


def test_quoted_passages_escape_html_from_sources(make_settings: Any) -> None:
    page = passage("Page <b>bold</b>", "Using <img src=x onerror=alert(1)> in tags "
                                       "is how pages run scripts in browsers.")
    # a reply citing nothing: the page's own sentence answers instead, escaped
    model = ScriptedChatModel(script={"questions": [""], "synthesis": [
        "Browsers load every page and then execute whatever its authors wrote."]})
    result = Researcher(make_settings(iterations=1), model, [MemoryEngine([page])]).run(
        "How do pages run scripts in browsers?")
    markdown = to_markdown(result)
    assert "<img" not in markdown and "<b>" not in markdown
    assert result.answer.startswith("Using &lt;img src=x onerror=alert(1)> in tags")
    assert cited_numbers(result.answer) == [1] and result.verification.unsupported == 0


# -- 8. brackets in quoted source text ------------------------------------------------


def test_escape_quoted_escapes_brackets_backticks_and_escaping_backslashes() -> None:
    quoted = escape_quoted("Smith [99] `x` C:\\path \\[1] <b>")
    assert quoted == "Smith \\[99\\] \\`x\\` C:\\path \\\\\\[1\\] &lt;b>"
    assert cited_numbers(quoted) == []


def test_escape_quoted_keeps_comparisons_and_prompts_readable() -> None:
    # Only what could open a tag or an entity is escaped: ">>> x < 3" reads as written.
    assert escape_quoted(">>> x < 3 and y > 2") == ">>> x < 3 and y > 2"
    assert escape_quoted("<script>alert(1)</script> &amp;") == (
        "&lt;script>alert(1)&lt;/script> &amp;amp;")


def test_escaped_brackets_are_no_markers_for_any_citation_tool() -> None:
    text = ("Quoted \\[99\\] \\[1-1000\\] \\[0\\], half \\[5] too. "
            "The argparse module parses command line arguments [1]. Made up [7].")
    assert cited_numbers(text) == [1, 7]
    cleaned, removed = clean_markers(text, {1})
    assert "Quoted \\[99\\] \\[1-1000\\] \\[0\\], half \\[5\\] too." in cleaned
    assert removed == 1 and cited_numbers(cleaned) == [1]
    source = {"number": 1, "title": "argparse", "url": "https://docs.example/argparse",
              "text": "The argparse module parses command line arguments."}
    checked = verify(text, [source])  # "\[5]" is not taken for a citation of source 5
    assert "\\[99\\] \\[1-1000\\] \\[0\\]" in checked.text and checked.supported == 1
    linked = hyperlink(cleaned, [source], "number")
    assert "\\[99\\] \\[1-1000\\] \\[0\\]" in linked and linked.count("](https://") == 1


def test_quoted_fallback_keeps_a_sources_brackets_verbatim(make_settings: Any) -> None:
    names = passage("attendees", "Alice Smith [99] [1-1000] [0].")
    model = ScriptedChatModel(script={"questions": [""], "synthesis": [""]})
    result = Researcher(make_settings(iterations=1), model, [MemoryEngine([names])]).run(
        "Who is Alice Smith?")
    assert "did not produce a usable answer" in result.answer
    assert "Alice Smith \\[99\\] \\[1-1000\\] \\[0\\] [1]." in result.answer
    assert cited_numbers(result.answer) == [1]
    assert result.verification.unsupported == 0 and result.verification.supported == 1
    linked = hyperlink(to_markdown(result), result.sources, "number")
    assert "Alice Smith \\[99\\] \\[1-1000\\] \\[0\\] [[1]](https://docs.example/attendees)." \
        in linked


# -- 9. answers left without supported citations --------------------------------------


def _flagged(result: ResearchResult) -> None:
    """The source's own sentence leads, cited; the model's unbacked text follows only
    below the flag, with no citation; the result says so too."""
    _grounded_first(result.answer)
    notice = next(w for w in result.warnings if w.code == "unsupported_answer")
    assert "No citation of the answer is supported" in notice.message


def _grounded_first(answer: str) -> None:
    lead, flag, below = answer.partition(BELOW_NOTE)
    assert lead.startswith("The cache TTL is 300 seconds"), answer
    assert "[1]" in lead and "30 seconds" not in lead.replace("300 seconds", "")
    assert flag and "30 seconds" in below  # kept, so the reader sees what was refused
    kept = [line for line in below.splitlines() if line.startswith(">")]
    assert kept and not cited_numbers("\n".join(kept))


def _ttl_run(make_settings: Any, model: Any, strategy: str, **overrides: Any
             ) -> ResearchResult:
    settings = make_settings(**{"research.strategy": strategy, "iterations": 1, **overrides})
    return Researcher(settings, model, [MemoryEngine([TTL_PASSAGE])]).run(TTL_QUESTION)


def _scripted(strategy: str, answer: str) -> ScriptedChatModel:
    return ScriptedChatModel(script={
        "questions": ["cache TTL"], "focused_queries": ["cache TTL"],
        "topics": ['{"topics": [{"title": "Cache", "sources": [1]}]}'],
        "synthesis": [answer], "focused_answer": [answer], "topic_section": [answer],
    })


@pytest.mark.parametrize("strategy", ["source-based", "focused-iteration",
                                      "topic-organization"])
def test_answer_whose_only_citation_is_unsupported_is_flagged(make_settings: Any,
                                                              strategy: str) -> None:
    result = _ttl_run(make_settings, _scripted(strategy, WRONG_TTL), strategy)
    _flagged(result)
    assert result.verification.unsupported == 1
    assert "Evidence:" not in result.answer  # the flag brings the passages, once


@pytest.mark.parametrize("strategy", ["source-based", "focused-iteration",
                                      "topic-organization"])
def test_supported_answer_is_not_flagged(make_settings: Any, strategy: str) -> None:
    result = _ttl_run(make_settings, _scripted(strategy, RIGHT_TTL), strategy)
    assert "300 seconds [1]" in result.answer
    assert "check it against these passages" not in result.answer
    assert "unsupported_answer" not in {w.code for w in result.warnings}


def test_focused_evidence_follows_a_verified_answer(make_settings: Any) -> None:
    result = _ttl_run(make_settings, _scripted("focused-iteration", RIGHT_TTL),
                      "focused-iteration")
    short, heading, evidence = result.answer.partition("\n\nEvidence:\n\n")
    assert heading and "300 seconds [1]" in short
    assert evidence.startswith("- \u201cThe cache TTL is 300 seconds.\u201d [1]")


def test_agent_answer_whose_only_citation_is_unsupported_is_flagged(make_settings: Any
                                                                    ) -> None:
    pytest.importorskip("langgraph")
    from tests.unit.test_strategy_agent import ToolScriptModel, call

    model = ToolScriptModel(replies=[call("search", engine="memory", query="cache TTL"),
                                     AIMessage(content=WRONG_TTL)])
    _flagged(_ttl_run(make_settings, model, "agent"))


def test_flag_mode_flags_an_answer_with_only_unverified_citations(make_settings: Any
                                                                  ) -> None:
    result = _ttl_run(make_settings, _scripted("source-based", WRONG_TTL), "source-based",
                      **{"citations.unsupported": "flag"})
    _flagged(result)


def test_json_result_names_the_warning_codes(make_settings: Any) -> None:
    result = _ttl_run(make_settings, _scripted("source-based", WRONG_TTL), "source-based")
    data = to_json_dict(result)
    assert data["warnings"] == [{"code": w.code, "message": w.message}
                                for w in result.warnings]
    assert "unsupported_answer" in [w["code"] for w in data["warnings"]]
    assert "warning_codes" not in data


@pytest.fixture
def ttl_notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "decisions.md").write_text(
        "# Cache decision\n\nWe decided to keep the cache in Redis. "
        "The cache TTL is 300 seconds.\n", encoding="utf-8")
    added = runner.invoke(app, ["collection", "add", str(folder), "--name", "notes"])
    assert added.exit_code == 0, added.output
    return folder


def test_unbacked_answer_is_flagged_in_every_output_form(
        ttl_notes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedChatModel(script={"questions": ["cache TTL decision"],
                                      "synthesis": [WRONG_TTL]})
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    ask = ["ask", TTL_QUESTION, "-c", "notes", "--iterations", "1"]
    target = tmp_path / "answer.md"
    quiet = runner.invoke(app, [*ask, "-q", "-o", str(target)])
    plain = runner.invoke(app, ask)
    as_json = runner.invoke(app, [*ask, "-q", "--json"])
    for run in (quiet, plain, as_json):
        assert run.exit_code == 0, run.output
    data = json.loads(as_json.stdout)
    forms = {"-q": quiet.stdout, "text": plain.stdout,
             "-o": target.read_text(encoding="utf-8"), "--json": data["answer"]}
    for form, text in forms.items():
        if form == "text":  # the terminal form adds the run's header and sources
            text = text[text.index("The cache TTL is 300"):]
        _grounded_first(text)
    notice = next(w for w in data["warnings"] if w["code"] == "unsupported_answer")
    assert "No citation of the answer is supported" in notice["message"]
