"""ResearchResult.warnings: one list of RunNotice (code, message), and the old shape read back.

Results saved or exported before had ``warnings`` as strings and their codes in a parallel
``warning_codes`` list; those still validate, into the one list.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from deepcite.export.markdown import to_json_dict
from deepcite.types import ResearchResult, RunNotice

BASE: dict[str, Any] = {"question": "Why?", "answer": "Because [1].",
                        "strategy": "source-based", "handler": "standard"}


def test_warnings_are_one_list_of_code_and_message() -> None:
    notice = RunNotice(code="budget", message="Stopped early")
    result = ResearchResult(**BASE, warnings=[notice])
    assert result.warnings == [notice]
    assert "warning_codes" not in ResearchResult.model_fields
    assert result.model_dump()["warnings"] == [{"code": "budget", "message": "Stopped early"}]


def test_the_old_shape_reads_back_with_codes_matching() -> None:
    old = {**BASE, "warnings": ["wikipedia failed: 503", "Stopped early", "a page failed"],
           "warning_codes": ["engine_failed", "budget", "fetch_failed"]}
    result = ResearchResult.model_validate(old)
    assert result.warnings == [RunNotice(code="engine_failed", message="wikipedia failed: 503"),
                               RunNotice(code="budget", message="Stopped early"),
                               RunNotice(code="fetch_failed", message="a page failed")]


def test_old_json_reads_back() -> None:
    """A result as ``model_dump_json`` wrote it before (history exports, saved files)."""
    text = json.dumps({**BASE, "warnings": ["Unknown strategy 'x'"],
                       "warning_codes": ["strategy"], "cancelled": False, "error": None})
    result = ResearchResult.model_validate_json(text)
    assert result.warnings == [RunNotice(code="strategy", message="Unknown strategy 'x'")]
    assert ResearchResult.model_validate_json(result.model_dump_json()) == result


@pytest.mark.parametrize("codes", [[], ["budget"], ["budget", "no-such-code"], None])
def test_a_message_without_a_known_code_is_other(codes: list[str] | None) -> None:
    result = ResearchResult.model_validate({**BASE, "warnings": ["first", "second"],
                                            "warning_codes": codes})
    assert [(w.code, w.message) for w in result.warnings] == [
        ("budget" if codes else "other", "first"), ("other", "second")]


def test_a_plain_warning_codes_key_is_accepted_and_dropped() -> None:
    assert ResearchResult.model_validate({**BASE, "warning_codes": []}).warnings == []
    assert ResearchResult.model_validate({**BASE, "warning_codes": ["budget"]}).warnings == []
    new = {**BASE, "warnings": [{"code": "budget", "message": "Stopped"}],
           "warning_codes": ["budget"]}
    assert ResearchResult.model_validate(new).warnings == [
        RunNotice(code="budget", message="Stopped")]


def test_new_shape_codes_are_still_checked() -> None:
    with pytest.raises(ValidationError):
        ResearchResult.model_validate({**BASE, "warnings": [{"code": "nope", "message": "x"}]})
    with pytest.raises(ValidationError):
        RunNotice(code="budget", message="x", extra="no")  # type: ignore[call-arg]


def test_with_warnings_puts_the_notices_first() -> None:
    result = ResearchResult(**BASE, warnings=[RunNotice(code="budget", message="Stopped")])
    assert result.with_warnings([]) is result
    added = result.with_warnings([("materials_ignored", "1 material(s) ignored"),
                                  ("materials", "Material 2 was left out")])
    assert added.warnings == [
        RunNotice(code="materials_ignored", message="1 material(s) ignored"),
        RunNotice(code="materials", message="Material 2 was left out"),
        RunNotice(code="budget", message="Stopped")]
    assert result.warnings == [RunNotice(code="budget", message="Stopped")]  # unchanged


def test_json_export_gives_code_and_message_objects() -> None:
    result = ResearchResult(**BASE, warnings=[RunNotice(code="engine_failed", message="503"),
                                              RunNotice(code="budget", message="Stopped")])
    data = to_json_dict(result)
    assert data["warnings"] == [{"code": "engine_failed", "message": "503"},
                                {"code": "budget", "message": "Stopped"}]
    assert "warning_codes" not in data
    json.dumps(data)
