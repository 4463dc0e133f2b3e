"""Citation verification: markers resolve, and cited sources support their claims."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from deepcite.citations.verify import FLAG, verify
from deepcite.cli.verify import verify_command
from deepcite.llm import ChatClient
from deepcite.types import Source
from tests.fakes import ScriptedChatModel

EIFFEL = ("The Eiffel Tower was completed in 1889 for the World Fair in Paris. "
          "It is built of wrought iron and was the tallest structure of its time.")
BERLIN = "Berlin is the capital of Germany.  It has about 3.7 million inhabitants."


def source(number: int, text: str) -> Source:
    return Source(number=number, title=f"Source {number}", url=f"https://s.example/{number}",
                  canonical_url=f"https://s.example/{number}", snippet=text, engine="memory")


SOURCES = [source(1, EIFFEL), source(2, BERLIN)]


def client(*replies: str) -> tuple[ChatClient, ScriptedChatModel]:
    model = ScriptedChatModel(script={"verify": list(replies)})
    return ChatClient(model, context_size=4096, max_tokens=256), model


def test_fabricated_marker_is_removed() -> None:
    result = verify("The Eiffel Tower was completed in 1889 [1][9].", SOURCES)
    assert result.text == "The Eiffel Tower was completed in 1889 [1]."
    assert result.markers_removed == 1
    assert result.markers_checked == 2
    assert result.supported == 1


def test_all_marker_shapes_and_code_are_handled() -> None:
    text = "The Eiffel Tower was completed in 1889 【1】. Code `xs[7]` stays [1-2, 9]."
    result = verify(text, SOURCES)
    assert "`xs[7]`" in result.text
    assert "[9]" not in result.text and "【" not in result.text
    assert result.markers_removed == 1


def test_contradicted_claim_removed_without_model() -> None:
    result = verify("Paris is the capital of Germany [2].", SOURCES)
    assert result.text == "Paris is the capital of Germany."
    assert result.unsupported == 1
    assert result.citations[0].outcome == "unsupported"
    assert result.citations[0].quote is None


def test_contradicted_claim_removed_with_model() -> None:
    chat, model = client("VERDICT: UNSUPPORTED\nQUOTE: none")
    result = verify("Paris is the capital of Germany [2].", SOURCES, model=chat)
    assert result.text == "Paris is the capital of Germany."
    assert result.model_calls == 1 and model.purposes() == ["verify"]
    assert result.citations[0].method == "model"
    assert "<source" in model.calls[0][1]


def test_paraphrase_supported_by_overlap() -> None:
    result = verify("Built from wrought iron, the Eiffel Tower was the tallest structure "
                    "of its time [1].", SOURCES)
    assert result.supported == 1 and result.model_calls == 0
    assert result.text.endswith("[1].")


def test_paraphrase_supported_by_model_quote() -> None:
    chat, _ = client('VERDICT: SUPPORTED\nQUOTE: "it has about 3.7 million inhabitants."')
    result = verify("Roughly 3.7 million people reside in the German capital [2].", SOURCES,
                    model=chat)
    check = result.citations[0]
    assert (check.outcome, check.method) == ("supported", "model")
    assert check.start is not None and check.end is not None
    assert BERLIN[check.start:check.end] == check.quote == "It has about 3.7 million inhabitants."
    assert result.text.endswith("[2].")


def test_model_quote_not_in_source_does_not_count() -> None:
    chat, _ = client("VERDICT: SUPPORTED\nQUOTE: Paris is the capital of Germany.")
    result = verify("Paris is the capital of Germany [2].", SOURCES, model=chat)
    assert result.citations[0].outcome == "unsupported"
    assert result.text == "Paris is the capital of Germany."


def test_exact_span_offsets() -> None:
    result = verify("Intro. It is built of wrought iron [1].", SOURCES)
    check = result.citations[0]
    assert check.method == "exact" and check.source_number == 1
    assert check.start is not None
    assert EIFFEL[check.start:check.end] == check.quote == "It is built of wrought iron"


def test_flag_mode_keeps_visible_flag() -> None:
    result = verify("Paris is the capital of Germany [2].", SOURCES, unsupported="flag")
    assert result.text == f"Paris is the capital of Germany [2]{FLAG}."


def test_mappings_accepted() -> None:
    entries = [{"number": 2, "title": "b", "url": "u", "full_text": BERLIN}]
    result = verify("Berlin is the capital of Germany [2].", entries)
    assert result.supported == 1


def test_cli_verifies_report(tmp_path: Path) -> None:
    report = tmp_path / "report.md"
    report.write_text("# Answer\n\nParis is the capital of Germany [2]. Berlin is the capital "
                      "of Germany [2][7].\n\n## Sources\n\n[1] Source 1\n[2] Source 2\n",
                      encoding="utf-8")
    sources = tmp_path / "sources.json"
    sources.write_text(json.dumps({"sources": [s.model_dump() for s in SOURCES]}),
                       encoding="utf-8")
    app = typer.Typer()
    app.command()(verify_command)
    runner = CliRunner()
    result = runner.invoke(app, [str(report), "--sources", str(sources)])
    assert result.exit_code == 0, result.output
    assert "Paris is the capital of Germany. Berlin is the capital of Germany [2]." in result.output
    assert "## Sources" in result.output and "1 supported" in result.output
    as_json = runner.invoke(app, [str(report), "--sources", str(sources), "--json"])
    data = json.loads(as_json.stdout)
    assert data["unsupported"] == 1 and data["markers_removed"] == 1
    sources.write_text("not json", encoding="utf-8")
    bad = runner.invoke(app, [str(report), "--sources", str(sources)])
    assert bad.exit_code == 1 and "not valid JSON" in bad.output


@pytest.mark.parametrize("entries", [[{"title": "no number"}]])
def test_entry_without_number_rejected(entries: list[dict[str, str]]) -> None:
    from deepcite.errors import InputError
    with pytest.raises(InputError):
        verify("x [1].", entries)
