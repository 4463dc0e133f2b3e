"""Hardening of ``deepcite verify`` and of settings files.

Bad input - a sources file of the wrong shape, a settings file that is not UTF-8 TOML -
is one line saying what is wrong and what is expected, never a traceback; and a long
report is verified exactly as its paragraphs would be one by one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from deepcite.citations.verify import FLAG, verify
from deepcite.cli import app
from deepcite.errors import InputError

runner = CliRunner()

EIFFEL = ("The Eiffel Tower was completed in 1889 for the World Fair in Paris. "
          "It is built of wrought iron and was the tallest structure of its time.")
BERLIN = "Berlin is the capital of Germany. It has about 3.7 million inhabitants."
SOURCES = [
    {"number": 1, "title": "Eiffel", "url": "https://s.example/1", "snippet": EIFFEL},
    {"number": 2, "title": "Berlin", "url": "https://s.example/2", "snippet": BERLIN},
]
SUPPORTED = "The Eiffel Tower was completed in 1889 for the World Fair in Paris [1]."
CONTRADICTED = "Berlin is the capital of France and has 9 million inhabitants [2]."


def invoke(*args: str) -> Result:
    """Run ``deepcite ARGS`` with a wide terminal, so one line is never wrapped."""
    return runner.invoke(app, list(args), env={"COLUMNS": "2000"})


def one_line_error(result: Result, code: int) -> str:
    """The single error line of a failed command (after checking there is only one)."""
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    return lines[0]


@pytest.fixture
def report(tmp_path: Path) -> Path:
    path = tmp_path / "report.md"
    path.write_text(f"# Answer\n\n{SUPPORTED}\n", encoding="utf-8")
    return path


def write_sources(tmp_path: Path, content: str) -> Path:
    path = tmp_path / "sources.json"
    path.write_text(content, encoding="utf-8")
    return path


# ------------------------------------------------------------- sources file shapes


def test_deeply_nested_sources_file_is_one_line_error(report: Path, tmp_path: Path) -> None:
    sources = write_sources(tmp_path, "[" * 100_000 + "]" * 100_000)
    line = one_line_error(invoke("verify", str(report), "--sources", str(sources)), 2)
    assert str(sources) in line and "nested too deeply" in line
    assert "deepcite ask" in line and "{number, title, url, snippet}" in line


@pytest.mark.parametrize(("content", "says"), [
    ('{"a": ' * 50_000 + "1" + "}" * 50_000, "nested too deeply"),
    ('{"sources": {"number": 1}}', 'without a "sources" list'),
    ("{}", 'without a "sources" list'),
    ('"a report"', "holds a JSON string"),
    ("null", "holds a JSON null"),
    ("[1, 2]", "source entry 1 is a JSON number, not an object"),
    ('[{"number": 1, "snippet": "x"}, ["y"]]', "source entry 2 is a JSON array"),
    ("[" + "7" * 5000 + "]", "too large"),
])
def test_sources_file_of_wrong_shape_says_what_is_expected(
        report: Path, tmp_path: Path, content: str, says: str) -> None:
    sources = write_sources(tmp_path, content)
    line = one_line_error(invoke("verify", str(report), "--sources", str(sources)), 2)
    assert says in line
    assert "deepcite ask" in line and "{number, title, url, snippet}" in line


@pytest.mark.parametrize(("entry", "says"), [
    ({"title": "no number", "snippet": EIFFEL}, "source entry 1 has no 'number'"),
    ({"number": 1.5, "snippet": EIFFEL}, "needs an integer 'number', not 1.5"),
    ({"number": True, "snippet": EIFFEL}, "needs an integer 'number', not True"),
    ({"number": "one", "snippet": EIFFEL}, "needs an integer 'number', not 'one'"),
    ({"number": "9" * 5000, "snippet": EIFFEL}, "needs an integer 'number'"),
    ({"number": 1, "snippet": {"text": EIFFEL}}, "has an object as 'snippet', not text"),
    ({"number": 1, "snippet": EIFFEL, "title": [[["deep"]]]}, "has a list as 'title'"),
])
def test_bad_source_entry_is_one_line_error(report: Path, tmp_path: Path,
                                            entry: dict[str, object], says: str) -> None:
    sources = write_sources(tmp_path, json.dumps([entry]))
    line = one_line_error(invoke("verify", str(report), "--sources", str(sources)), 2)
    assert says in line and "number, title, url and snippet" in line


def test_huge_number_in_entry_is_one_line_error(report: Path, tmp_path: Path) -> None:
    sources = write_sources(tmp_path, '[{"number": 1e400, "snippet": "x"}]')  # inf
    line = one_line_error(invoke("verify", str(report), "--sources", str(sources)), 2)
    assert "needs an integer 'number', not inf" in line


def test_sources_that_are_not_json_or_not_a_file(report: Path, tmp_path: Path) -> None:
    sources = write_sources(tmp_path, "number,title\n1,Eiffel\n")
    line = one_line_error(invoke("verify", str(report), "--sources", str(sources)), 1)
    assert "is not valid JSON (line 1)" in line and "deepcite ask" in line
    folder = tmp_path / "folder.json"
    folder.mkdir()
    line = one_line_error(invoke("verify", str(report), "--sources", str(folder)), 1)
    assert f"Cannot read sources file {folder}" in line


def test_sources_with_byte_order_mark_and_numbers_as_text_are_read(
        report: Path, tmp_path: Path) -> None:
    entries = [{**SOURCES[0], "number": "1"}]
    sources = write_sources(tmp_path, "\ufeff" + json.dumps(entries))
    result = invoke("verify", str(report), "--sources", str(sources))
    assert result.exit_code == 0, result.output
    assert SUPPORTED in result.output and "1 supported" in result.output


def test_library_rejects_bad_entries_with_input_error() -> None:
    with pytest.raises(InputError, match="source entry 2 needs an integer 'number'"):
        verify(SUPPORTED, [SOURCES[0], {"number": float("nan"), "snippet": BERLIN}])
    assert verify(SUPPORTED, [{**SOURCES[0], "number": 1.0}]).supported == 1


# ------------------------------------------------------------------ long reports


def long_report(paragraphs: int) -> str:
    return "\n\n".join(SUPPORTED if i % 3 else f"{SUPPORTED} {CONTRADICTED}"
                       for i in range(paragraphs))


def test_long_report_is_verified_paragraph_by_paragraph(tmp_path: Path) -> None:
    """Every one of thousands of marker groups gets its own verdict and its own edit."""
    count = 3000
    report = tmp_path / "long.md"
    report.write_text(long_report(count) + "\n\n## Sources\n\n[1] Eiffel\n[2] Berlin\n",
                      encoding="utf-8")
    sources = write_sources(tmp_path, json.dumps({"sources": SOURCES}))
    result = invoke("verify", str(report), "--sources", str(sources))
    assert result.exit_code == 0, result.output
    contradicted = CONTRADICTED.replace(" [2].", ".")
    expected = "\n\n".join(SUPPORTED if i % 3 else f"{SUPPORTED} {contradicted}"
                           for i in range(count))
    assert result.stdout == expected + "\n\n## Sources\n\n[1] Eiffel\n[2] Berlin\n"
    unsupported = len(range(0, count, 3))
    assert (f"Checked {count + unsupported} citation(s): {count} supported, 0 partial, "
            f"{unsupported} unsupported (removed)") in result.stderr

    flagged = invoke("verify", str(report), "--sources", str(sources), "--flag", "--json")
    data = json.loads(flagged.stdout)
    assert data["text"].count(f"[2]{FLAG}") == unsupported
    assert data["text"].count("[1]") == count
    assert len(data["citations"]) == count + unsupported


def test_long_report_matches_its_paragraphs_verified_alone() -> None:
    paragraphs = long_report(600).split("\n\n")
    whole = verify("\n\n".join(paragraphs), SOURCES)
    alone = [verify(p, SOURCES) for p in paragraphs]
    assert whole.text == "\n\n".join(r.text for r in alone)
    assert whole.citations == [c for r in alone for c in r.citations]


# ---------------------------------------------------------------- settings files


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder as the working directory: its deepcite.toml is read."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_settings_file_not_utf8_is_one_line_error(project: Path) -> None:
    (project / "deepcite.toml").write_bytes(b"\xff\xfe[llm]\n")
    line = one_line_error(invoke("config", "show"), 2)
    assert str(project / "deepcite.toml") in line
    assert "not valid UTF-8" in line and "must be a UTF-8 TOML file" in line


def test_settings_file_with_toml_syntax_error_is_one_line_error(project: Path) -> None:
    (project / "deepcite.toml").write_text("[llm\nprovider = 'local'\n", encoding="utf-8")
    line = one_line_error(invoke("config", "show"), 2)
    assert str(project / "deepcite.toml") in line and "not valid TOML" in line
    assert "line 1" in line


def test_settings_folder_named_like_the_file_is_one_line_error(project: Path) -> None:
    (project / "deepcite.toml").mkdir()
    line = one_line_error(invoke("config", "show"), 2)
    assert f"{project / 'deepcite.toml'} is a folder, not a settings file" in line


@pytest.mark.parametrize(("content", "says"), [
    ("a = " + "[" * 100_000 + "]" * 100_000, "nests arrays or tables too deeply"),
    ("llm = 'local'\n", "'llm' in"),
    ("[research]\niterations = '" + "9x" * 5000 + "'\n", "Bad value '9x9x"),
])
def test_other_unusable_settings_files_are_one_line_errors(
        project: Path, content: str, says: str) -> None:
    (project / "deepcite.toml").write_text(content, encoding="utf-8")
    line = one_line_error(invoke("config", "show"), 2)
    # The bad value is cut short; the file's path (as long as the tmp dir's) is not.
    assert says in line and len(line.replace(str(project), "<project>")) < 400


def test_valid_settings_file_still_applies(project: Path) -> None:
    (project / "deepcite.toml").write_text("[research]\niterations = 4\n", encoding="utf-8")
    result = invoke("config", "show", "--json")
    assert result.exit_code == 0, result.output
    rows = {row["key"]: row for row in json.loads(result.stdout)}
    assert rows["research.iterations"]["value"] == 4
    assert rows["research.iterations"]["origin"] == str(project / "deepcite.toml")
