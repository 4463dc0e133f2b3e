"""Materials: the evidence-quality note, the [MATERIAL_FIRST] line, log redaction."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest

from deepcite.errors import ModelError
from deepcite.materials import (
    Claim,
    MaterialRelevance,
    analysis_prompt,
    prepare_materials,
    section_coverage,
    with_relevance,
)
from deepcite.materials.redaction import redacting, texts_of
from deepcite.materials.routing import log_material_first
from deepcite.security.log_redaction import REDACTED

SENTENCE = "Solar module prices in Europe fell by 42 percent between 2022 and 2024."
CN_SENTENCE = "光伏组件价格在二零二三年下降了百分之四十二，主要原因是多晶硅产能过剩。"


def long_text(words: int, seed: str = "alpha") -> str:
    """A long material: numbered sentences, ``words`` words or so."""
    sentences = [f"Sentence {i} about {seed} reports figure {i * 7} for region {i % 13}."
                 for i in range(words // 9)]
    return " ".join(sentences)


class Summariser:
    """A scripted model for summary calls: a fixed reply, or an error naming the text."""

    def __init__(self, reply: str = "Prices fell sharply; the report covers 2022-2024.",
                 *, fail_with: str | None = None) -> None:
        self.reply, self.fail_with, self.calls = reply, fail_with, 0

    @property
    def prompt_budget_chars(self) -> int:
        return 10**9

    def complete(self, purpose: str, system: str, user: str, *,
                 max_tokens: int | None = None, enough: object = None) -> str:
        self.calls += 1
        if self.fail_with is not None:
            raise ModelError(f"provider rejected the prompt: {self.fail_with}")
        return self.reply


def mat(url: str, content: str, title: str = "") -> dict[str, Any]:
    return {"url": url, "content": content, "title": title}


# ------------------------------------------------------------------ evidence quality


def test_short_material_is_full_text_and_needs_no_notice() -> None:
    analysis = prepare_materials("q", [mat("/short.md", SENTENCE, "Short")])
    quality = analysis.items[0].evidence_quality
    assert (quality.kind, quality.truncated, quality.seen_share) == ("fulltext", False, 1.0)
    assert quality.content_chars == quality.basis_chars == len(SENTENCE)
    assert analysis.manifest.endswith(f"| evidence: full text ({len(SENTENCE)} characters)")
    assert analysis.evidence_notes() == []


def test_long_summarised_material_is_noted_as_a_summary_of_the_whole_text() -> None:
    content = long_text(6_000)
    model = Summariser()
    analysis = prepare_materials("q", [mat("/long.pdf", content, "Market report")],
                                 client=model)
    quality = analysis.items[0].evidence_quality
    assert model.calls == 1 and quality.kind == "summary"
    assert quality.basis_chars == quality.content_chars == len(content)
    assert not quality.truncated and quality.text_chars == len(model.reply)
    note = f"summary of the whole text ({len(content):,} characters)"
    _system, user = analysis_prompt("q", analysis)
    assert f"evidence: {note}" in user
    assert analysis.evidence_notes() == [
        f"Material M1 ('Market report') reached the model as {note}"]


def test_truncated_material_says_how_much_the_model_saw() -> None:
    content = long_text(6_000)
    analysis = prepare_materials("q", [mat("/long.pdf", content, "Market report")],
                                 client=Summariser(fail_with="boom"))
    quality = analysis.items[0].evidence_quality
    assert quality.kind == "truncated" and quality.truncated
    assert 0 < quality.basis_chars < len(content) and quality.seen_share < 0.5
    assert quality.basis_chars == len(analysis.items[0].summary)
    expected = f"head only: the first {quality.basis_chars:,} of {len(content):,} characters"
    _system, user = analysis_prompt("q", analysis)
    assert expected in user
    assert expected in analysis.evidence_notes()[0]


def test_digest_says_what_it_was_cut_from() -> None:
    summarised = long_text(6_000, "beta")
    analysis = prepare_materials(
        "solar prices",
        [mat("/a.md", "solar prices " + long_text(100)), mat("/b.pdf", summarised, "B")],
        client=Summariser(long_text(400, "gamma")), budget_tokens=400)
    by_id = {item.material_id: item.evidence_quality for item in analysis.items}
    assert analysis.downgraded_ids == ["M2"]
    assert by_id["M1"].kind == "fulltext"
    digest = by_id["M2"]
    assert (digest.kind, digest.digest_of, digest.truncated) == ("digest", "summary", True)
    assert digest.basis_chars == len(summarised)     # cut from a summary of everything
    assert "one-line digest of its summary" in analysis.manifest.splitlines()[1]


# ------------------------------------------------------------------ [MATERIAL_FIRST]


def covered_analysis() -> Any:
    analysis = prepare_materials(
        "Summarise the provided papers on solar prices",
        [mat("/a.md", SENTENCE, "Prices"), mat("/b.md", CN_SENTENCE, "价格")])
    claims = [Claim(claim="Module prices fell 42% in 2022-2024", evidence_excerpt=SENTENCE)]
    return with_relevance(analysis, [
        MaterialRelevance(material_id="M1", relevance="direct", claims=claims),
        MaterialRelevance(material_id="M2", relevance="partial", claims=claims * 2),
    ])


def test_material_first_line_names_ids_and_counts_only(
        caplog: pytest.LogCaptureFixture) -> None:
    analysis = covered_analysis()
    assert analysis.usage_mode == "required"
    coverage = section_coverage(["M1", "M2"], analysis)
    assert coverage.fully_covered
    with caplog.at_level(logging.INFO, logger="deepcite.materials"):
        log_material_first(coverage, analysis, section="Price\ntrends")
    [record] = [r for r in caplog.records if "[MATERIAL_FIRST]" in r.getMessage()]
    assert record.levelno == logging.INFO and record.name == "deepcite.materials"
    assert record.getMessage() == (
        "[MATERIAL_FIRST] section='Price trends' materials=2 claims=3 gaps=0 ids=M1,M2: "
        "web search skipped; written from the user's materials")
    assert record.material_first["ids"] == ["M1", "M2"]  # type: ignore[attr-defined]
    assert "42" not in record.getMessage()


# ------------------------------------------------------------------ redaction


def test_redaction_hides_material_text_logged_by_any_module(
        caplog: pytest.LogCaptureFixture, make_settings: Any) -> None:
    on = make_settings(security={"redact_material_text": True})
    materials = [mat("/a.md", f"Intro line.\n{SENTENCE}\n{CN_SENTENCE}", "Prices")]
    other = logging.getLogger("deepcite.research.x")
    with caplog.at_level(logging.INFO):
        with redacting(materials, on):
            other.info("writing from %s", SENTENCE)
            other.info("cut quote: %s...", SENTENCE[6:50].upper())
            logging.getLogger("some.library").warning("cn: %s", CN_SENTENCE[:20])
            other.info("route", extra={"snippet": SENTENCE})
            try:
                raise ValueError(SENTENCE)
            except ValueError:
                other.exception("failed")
        logged = caplog.text
        assert "42 percent" not in logged and "module prices" not in logged.lower()
        assert CN_SENTENCE[:20] not in logged
        assert logged.count(REDACTED) >= 4 and "writing from" in logged
        assert all("42 percent" not in str(vars(r)) for r in caplog.records)
        caplog.clear()
        other.info("after the run: %s", SENTENCE)   # the scope removed itself
        assert SENTENCE in caplog.text
        assert logging.getLogRecordFactory() is logging.LogRecord


def test_redaction_off_leaves_log_lines_alone(caplog: pytest.LogCaptureFixture,
                                              make_settings: Any) -> None:
    off = make_settings()
    assert off.security.redact_material_text is False
    with caplog.at_level(logging.INFO), redacting([mat("/a.md", SENTENCE)], off) as scope:
        scope.add([CN_SENTENCE])
        logging.getLogger("deepcite.research.x").info("%s %s", SENTENCE, CN_SENTENCE)
    assert SENTENCE in caplog.text and CN_SENTENCE in caplog.text
    assert logging.getLogRecordFactory() is logging.LogRecord


def test_summaries_and_claims_added_during_the_run_are_redacted(
        caplog: pytest.LogCaptureFixture) -> None:
    analysis = covered_analysis()
    summary = "The model wrote this summary of the uploaded market paper."
    claim = "Module prices fell 42% in 2022-2024"
    with caplog.at_level(logging.INFO), redacting([], True) as scope:
        scope.add(texts_of(analysis) + [summary])
        logging.getLogger("deepcite.report").info("claim=%s summary=%s", claim, summary)
    assert claim not in caplog.text and "uploaded market paper" not in caplog.text


def test_concurrent_runs_redact_each_others_text_until_the_last_exits(
        caplog: pytest.LogCaptureFixture) -> None:
    started, release = threading.Barrier(2), threading.Event()

    def run(text: str) -> None:
        with redacting([text], True):
            started.wait()
            release.wait()

    worker = threading.Thread(target=run, args=(CN_SENTENCE,))
    worker.start()
    with caplog.at_level(logging.INFO):
        with redacting([SENTENCE], True):
            started.wait()
            logging.getLogger("deepcite.x").info("%s | %s", SENTENCE, CN_SENTENCE)
            release.set()
            worker.join()
            logging.getLogger("deepcite.x").info("still inside: %s", SENTENCE)
        logging.getLogger("deepcite.x").info("outside: %s", CN_SENTENCE)
    both, inside, outside = caplog.messages
    assert SENTENCE[:30] not in both and CN_SENTENCE[:10] not in both and REDACTED in both
    assert inside == f"still inside: {REDACTED}."        # the final full stop is no text
    assert outside == f"outside: {CN_SENTENCE}"


def test_failed_summary_log_keeps_the_error_text_out_when_redacting(
        caplog: pytest.LogCaptureFixture, make_settings: Any) -> None:
    content = long_text(6_000)
    echoed = content[:80]
    with caplog.at_level(logging.WARNING, logger="deepcite.materials"):
        prepare_materials("q", [mat("/a.pdf", content)],
                          make_settings(security={"redact_material_text": True}),
                          client=Summariser(fail_with=echoed))
    assert "summary failed (ModelError)" in caplog.text and echoed not in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="deepcite.materials"):
        prepare_materials("q", [mat("/a.pdf", content)], make_settings(),
                          client=Summariser(fail_with=echoed))
    assert echoed in caplog.text
