"""Attribution: uncited factual sentences get the [n] of a source that strongly supports them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from deepcite.citations.attribution import (
    UNSUPPORTED_MARK,
    attribute,
    attribute_sentences,
)
from deepcite.citations.markers import cited_numbers
from deepcite.llm import ChatClient
from deepcite.types import Source
from tests.fakes import ScriptedChatModel


def source(number: int, title: str, text: str) -> Source:
    url = f"https://docs.example/{number}"
    return Source(number=number, title=title, url=url, canonical_url=url, snippet=text,
                  engine="memory")


SOURCES = [
    source(1, "argparse", "The argparse module makes it easy to write user-friendly command "
           "line interfaces. It generates help and usage messages automatically."),
    source(2, "json", "The json module encodes Python objects as JSON text and decodes JSON "
           "text back into Python objects. It was added to the standard library in 2008."),
    source(3, "sqlite3", "SQLite is a C library that provides a lightweight disk-based "
           "database that does not require a separate server process."),
]


def client(reply: str) -> tuple[ChatClient, ScriptedChatModel]:
    model = ScriptedChatModel(script={"verify": [reply]})
    return ChatClient(model, context_size=2048, max_tokens=400), model


def test_a_sentence_copied_exactly_gets_its_source() -> None:
    result = attribute("SQLite is a C library that provides a lightweight disk-based "
                       "database.", SOURCES)
    assert result.text == ("SQLite is a C library that provides a lightweight disk-based "
                           "database [3].")
    assert result.added == [("SQLite is a C library that provides a lightweight disk-based "
                             "database.", 3)]
    assert result.unsupported_sentences == []


def test_a_lightly_edited_sentence_is_matched_fuzzily() -> None:
    result = attribute("The json module encodes Python objects as JSON texts and decodes "
                       "JSON text back to Python objects.", SOURCES)
    assert cited_numbers(result.text) == [2]


def test_a_reordered_paraphrase_is_matched_by_word_overlap() -> None:
    result = attribute("Help and usage messages are generated automatically by it.", SOURCES)
    assert cited_numbers(result.text) == [1] and len(result.added) == 1


def test_a_wrong_number_or_name_is_never_attributed() -> None:
    result = attribute("The json module was added to the standard library in 1999.", SOURCES)
    assert cited_numbers(result.text) == []
    assert result.unsupported_sentences == [
        "The json module was added to the standard library in 1999."]


def test_unsupported_sentences_are_listed_and_marked_on_request() -> None:
    text = "Redis keeps its whole dataset in memory for speed. SQLite needs no server process."
    plain = attribute(text, SOURCES)
    assert plain.unsupported_sentences == ["Redis keeps its whole dataset in memory for speed."]
    assert UNSUPPORTED_MARK not in plain.text
    marked = attribute(text, SOURCES, mark_unsupported=True)
    assert marked.text.startswith(
        f"Redis keeps its whole dataset in memory for speed {UNSUPPORTED_MARK}.")
    assert cited_numbers(marked.text) == [3]


def test_existing_numbers_never_change() -> None:
    text = ("The argparse module writes command line interfaces [3]. SQLite needs no "
            "separate server process. Help messages come for free [1][2].\n\n"
            "The json module decodes JSON text [2]^(unverified).")
    result = attribute(text, SOURCES, mark_unsupported=True)
    # Every marker that was there is still there, in order; only two were added.
    assert re.findall(r"\[\d+\](?:\^\(unverified\))?", result.text) == [
        "[3]", "[3]", "[1]", "[2]", "[2]^(unverified)", "[2]"]
    assert "writes command line interfaces [3]." in result.text
    assert "Help messages come for free [1][2]." in result.text
    assert "SQLite needs no separate server process [3]." in result.text
    assert "JSON text [2]^(unverified) [2]." in result.text  # flagged: a valid one added
    assert [n for _, n in result.added] == [3, 2]


def test_only_factual_prose_is_considered() -> None:
    text = ("# The json module encodes Python objects as JSON text\n\n"
            "```python\nThe json module encodes Python objects as JSON text.\n```\n\n"
            "Does the json module encode Python objects as JSON text?\n\n"
            "_The model cited no source for this answer._\n\nIt is fine.")
    result = attribute(text, SOURCES)
    assert result.text == text and result.added == [] and result.unsupported_sentences == []


def test_a_marker_after_the_full_stop_belongs_to_the_sentence_before() -> None:
    text = "SQLite is a lightweight disk-based database. [3] It needs no separate server."
    result = attribute(text, SOURCES)
    assert result.text == text  # both sentences count as cited


def test_with_previous_only_new_sentences_are_attributed() -> None:
    old = "The argparse module generates help and usage messages automatically."
    new = old + " SQLite is a C library that provides a lightweight disk-based database."
    result = attribute(new, SOURCES, previous=old)
    assert result.text == (old + " SQLite is a C library that provides a lightweight "
                           "disk-based database [3].")


def test_the_model_decides_undecided_sentences_with_a_verbatim_quote() -> None:
    claim = "SQLite runs inside the application, without a database server."
    assert attribute(claim, SOURCES).unsupported_sentences == [claim]  # cheap: undecided
    good, model = client("VERDICT: SUPPORTED\nQUOTE: a lightweight disk-based database "
                         "that does not require a separate server process")
    result = attribute(claim, SOURCES, model=good)
    assert cited_numbers(result.text) == [3] and result.model_calls == 1
    assert model.purposes() == ["verify"]


def test_a_model_quote_not_found_in_the_source_counts_for_nothing() -> None:
    claim = "SQLite runs inside the application, without a database server."
    bad, _ = client("VERDICT: SUPPORTED\nQUOTE: SQLite runs inside the application "
                    "process and needs no server")
    result = attribute(claim, SOURCES, model=bad, mark_unsupported=True)
    assert cited_numbers(result.text) == [] and result.unsupported_sentences == [claim]
    assert UNSUPPORTED_MARK in result.text


def test_the_model_is_not_asked_when_cheap_checks_decide() -> None:
    model_client, model = client("VERDICT: SUPPORTED\nQUOTE: none")
    attribute("SQLite is a C library. Redis is fast and popular with many teams.", SOURCES,
              model=model_client)
    assert model.calls == []  # one exact match, one sentence no source is close to


def test_attribute_sentences_keeps_its_contract() -> None:
    text, count = attribute_sentences("SQLite needs no separate server process.", SOURCES)
    assert text == "SQLite needs no separate server process [3]." and count == 1


# ------------------------------------------------------------------ the CLI


def _invoke(args: list[str]) -> Any:
    from deepcite.cli import app  # the CLI package is imported by these tests only

    return CliRunner().invoke(app, args)


def _files(tmp_path: Path, report: str, previous: str | None = None) -> list[str]:
    (tmp_path / "report.md").write_text(report, encoding="utf-8")
    entries: list[dict[str, Any]] = [
        {"number": s.number, "title": s.title, "url": s.url, "snippet": s.snippet}
        for s in SOURCES]
    (tmp_path / "sources.json").write_text(json.dumps({"sources": entries}), encoding="utf-8")
    args = ["verify", "--attribute", str(tmp_path / "report.md"),
            "--sources", str(tmp_path / "sources.json")]
    if previous is not None:
        (tmp_path / "old.md").write_text(previous, encoding="utf-8")
        args += ["--previous", str(tmp_path / "old.md")]
    return args


def test_verify_attribute_cites_edited_sentences_and_keeps_numbers(tmp_path: Path) -> None:
    report = ("The argparse module generates help and usage messages automatically [1]. "
              "SQLite needs no separate server process. Redis is an in-memory store.\n\n"
              "## Sources\n\n[1] argparse\n")
    result = _invoke([*_files(tmp_path, report), "--mark-unsupported"])
    assert result.exit_code == 0, result.output
    assert "automatically [1]. SQLite needs no separate server process [3]. Redis is an " \
        f"in-memory store {UNSUPPORTED_MARK}." in result.stdout
    assert "## Sources\n\n[1] argparse" in result.stdout
    assert "Attributed 1 sentence(s)" in result.stderr
    assert "1 unsupported" in result.stderr


def test_verify_attribute_with_previous_touches_only_new_sentences(tmp_path: Path) -> None:
    old = "SQLite needs no separate server process."
    report = old + " The json module decodes JSON text back into Python objects."
    result = _invoke(_files(tmp_path, report, previous=old))
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == (
        "SQLite needs no separate server process. The json module decodes JSON text back "
        "into Python objects [2].")


def test_verify_attribute_json_lists_additions_and_unsupported(tmp_path: Path) -> None:
    report = "SQLite needs no separate server process. Redis is an in-memory store."
    result = _invoke([*_files(tmp_path, report), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["attribution"]["added"] == [
        {"sentence": "SQLite needs no separate server process.", "number": 3}]
    assert data["attribution"]["unsupported_sentences"] == ["Redis is an in-memory store."]
    assert data["text"].startswith("SQLite needs no separate server process [3].")
