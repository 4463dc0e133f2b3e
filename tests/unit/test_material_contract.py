"""The writing contract: each part's writer sees its bound materials' work, and only theirs."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import PrivateAttr

from deepcite.materials.contract import (
    BACKGROUND,
    COUNTER,
    PRIMARY,
    ContractMaterial,
    build_contract,
    role_of,
)
from deepcite.materials.passage_rank import rank_passages
from deepcite.materials.prompt_fit import share_out
from deepcite.materials.relevance_map import Claim
from deepcite.materials.tokens import estimate_tokens
from deepcite.research import Researcher
from deepcite.research.material_runs import analyse_materials
from deepcite.research.report.builder import DetailedReport
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

QUESTION = "How did battery storage costs change?"


class PromptRecorder(ScriptedChatModel):
    """The scripted model, also keeping each call's system prompt (where the contract is)."""

    _systems: list[tuple[str, str]] = PrivateAttr(default_factory=list)

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        result = super()._generate(messages, stop, run_manager, **kwargs)
        system = str(messages[0].content) if len(messages) > 1 else ""
        self._systems.append((self.calls[-1][0], system))
        return result

    def prompts(self, purpose: str) -> list[str]:
        """System and user prompt of every call with ``purpose``, joined."""
        return [f"{system}\n\n{user}" for (p, system), (_, user)
                in zip(self._systems, self.calls, strict=True) if p == purpose]


def _cite_all(prompt: str) -> str:
    return " ".join(f"Said here [{n}]." for n in re.findall(r'<source id="(\d+)"', prompt))


NOTES = {"url": "/home/me/notes/storage.md", "title": "Storage notes",
         "content": "Our pilot plant stores four hours of solar output. The battery pack "
                    "cost fell each quarter of the pilot."}
PAPER = {"url": "https://papers.example/prices.pdf", "title": "Price survey",
         "content": "Survey of grid battery prices. " * 800}  # summarised: one call
OTHER = {"url": "https://papers.example/wind.pdf", "title": "Wind note",
         "content": "Offshore wind farms need deep water ports."}
ANALYSIS = json.dumps({"materials": [
    {"id": "M1", "relevance": "direct",
     "claims": [{"claim": "Pilot pack cost fell every quarter", "scope": "our pilot plant",
                 "evidence_excerpt": "battery pack cost fell each quarter"}],
     "limitations": ["one site only"], "gaps": ["costs after the pilot"]},
    {"id": "M2", "relevance": "partial",
     "claims": [{"claim": "Grid battery prices vary widely", "scope": "survey regions",
                 "evidence_excerpt": "grid battery prices"}], "gaps": []},
    {"id": "M3", "relevance": "contextual",
     "claims": [{"claim": "Ports limit offshore wind", "scope": "offshore"}], "gaps": []},
]})
SUMMARY_OF_PAPER = "SURVEY-SUMMARY: prices of grid batteries across regions."


def _model(outline: str, section: Any = _cite_all) -> PromptRecorder:
    return PromptRecorder(script={
        "questions": [""], "synthesis": [_cite_all], "section": [section],
        "material_analysis": [ANALYSIS], "material_summary": [SUMMARY_OF_PAPER],
        "material_reduce": [SUMMARY_OF_PAPER],
        "outline": [outline]})


def _report(make_settings: Any, model: PromptRecorder, materials: list[dict[str, Any]],
            **overrides: Any) -> Any:
    settings = make_settings(**{"iterations": 1, "questions_per_iteration": 0,
                                "citations.verify": False, "max_sources": 4, **overrides})
    with Researcher(settings, model, [MemoryEngine([passage("web", "Battery costs.")])]
                    ) as researcher:
        analysed = analyse_materials(researcher, QUESTION, materials)
        return DetailedReport(researcher).run(QUESTION, materials=analysed)


def test_each_part_writer_gets_its_bound_materials_contract_and_no_other(
        make_settings: Any) -> None:
    outline = ("1. Our pilot - what our plant showed [M1]\n"
               "2. The market - survey prices [M2:counter-evidence]\n"
               "3. Outlook - what comes next\n")
    model = _model(outline)
    _report(make_settings, model, [NOTES, PAPER, OTHER])
    pilot, market, outlook = model.prompts("section")
    # the pilot part: M1's claim with its scope, its role, limitation and gap
    assert "Pilot pack cost fell every quarter (scope: our pilot plant)" in pilot
    assert "role: primary evidence" in pilot
    assert "one site only" in pilot and "costs after the pilot" in pilot
    assert "Grid battery prices vary widely" not in pilot and SUMMARY_OF_PAPER not in pilot
    assert "Ports limit offshore wind" not in pilot
    # the market part: M2's summary (a model call's work) and its outline role
    assert SUMMARY_OF_PAPER in market and "role: counter-evidence" in market
    assert "Grid battery prices vary widely (scope: survey regions)" in market
    assert "Pilot pack cost fell" not in market and "Ports limit" not in market
    # an unbound part gets no contract at all
    assert "MATERIALS CONTRACT" not in outlook
    # the report's summary is written with every usable material's contract
    summary = model.prompts("synthesis")[0]
    assert all(c in summary for c in ("Pilot pack cost", "Grid battery prices", "Ports limit"))


def test_a_short_material_is_given_whole_as_sources_not_repeated(make_settings: Any) -> None:
    model = _model("1. Our pilot - plant [M1]\n2. Market - prices [M2]\n")
    _report(make_settings, model, [NOTES, PAPER])
    pilot = model.prompts("section")[0]
    assert "Its full text is given as its numbered sources." in pilot
    sources = pilot.split("Sources:", 1)[1]
    assert "The battery pack cost fell each quarter" in sources  # cited text is there
    assert pilot.count("four hours of solar output") == 1  # once, as a numbered source


def test_outline_bindings_are_normalised_in_the_report_path(
        make_settings: Any, caplog: pytest.LogCaptureFixture) -> None:
    # [[m2]:Background] -> M2 as background; [M9] is invented and dropped
    outline = ("1. Pilot and market - both [[M1]][m2:Background, M9]\n"
               "2. Outlook - next [M1]\n")
    model = _model(outline)
    caplog.set_level(logging.INFO)
    result = _report(make_settings, model, [NOTES, PAPER])
    # "Outlook" quotes only what part 1 quoted: it is left out of the report, but it
    # was written from its own binding (M1 alone)
    assert [e.materials for e in result.outline] == [["M1", "M2"]]
    second = model.prompts("section")[1]
    assert '[M1] "Storage notes"' in second and '[M2] "Price survey"' not in second
    first = model.prompts("section")[0]
    assert '[M1] "Storage notes" - role: primary evidence' in first
    assert '[M2] "Price survey" - role: background' in first
    assert "M9" not in first
    assert any("[MATERIAL_CONTRACT]" in r.message and "M2:background" in r.message
               for r in caplog.records)


def test_material_citations_are_verified_like_any_other(make_settings: Any) -> None:
    def writer(prompt: str) -> str:
        number = re.search(r'<source id="(\d+)" title="Storage notes"', prompt)
        assert number is not None
        n = number.group(1)
        return (f"The battery pack cost fell each quarter of the pilot [{n}]. "
                f"Unicorns run the plant on moonlight [{n}].")

    model = _model("1. Our pilot - plant [M1]\n2. Market - prices [M2]\n", section=writer)
    result = _report(make_settings, model, [NOTES, PAPER], **{"citations.verify": True})
    body = result.answer.split("## 1. Our pilot", 1)[1].split("## 2.", 1)[0]
    assert re.search(r"fell each quarter of the pilot \[\d+\]", body)
    assert not re.search(r"moonlight \[\d+\]", body)  # its citation did not survive


CHINESE_PASSAGES = [
    "本报告介绍了项目背景和研究方法。" * 95,
    "第二部分讨论了数据收集的过程。" * 95,
    "第三部分描述了实验设备和场地。" * 95,
    "第四部分列出了参与机构的名单。" * 95,
    "第五部分回顾了相关政策的历史。" * 95,
    "研究发现，2023年储能电池成本下降了百分之四十。" * 60,
    "最后一部分给出了致谢和附录。" * 95,
]


def test_a_chinese_material_gives_an_english_question_its_relevant_passage(
        make_settings: Any) -> None:
    material = {"url": "/data/储能报告.txt", "title": "储能报告",
                "content": "\n\n".join(CHINESE_PASSAGES)}
    analysis = json.dumps({"materials": [{"id": "M1", "relevance": "direct", "claims": [
        {"claim": "Storage battery costs fell 40% in 2023", "scope": "China, 2023",
         "evidence_excerpt": "2023年储能电池成本下降了百分之四十"}]}]})
    model = PromptRecorder(script={"material_analysis": [analysis],
                                   "material_summary": ["储能电池成本下降。"]})
    settings = make_settings(**{"citations.verify": False})
    with Researcher(settings, model, []) as researcher:
        analysed = analyse_materials(researcher, QUESTION, [material])
        plan = analysed.plan(QUESTION, ["M1"], limit=4)
    assert len(analysed.passages["M1"]) > 4
    assert "下降了百分之四十" in plan.evidence[0].snippet  # the relevant one, first
    assert all("下降了百分之四十" not in p.snippet
               for p in analysed.passages["M1"][:4])  # word overlap would have missed it


def test_passages_without_claims_follow_the_summary_not_their_order() -> None:
    passages = ["Intro and thanks.", "Acknowledgements.", "电池成本下降了百分之四十。"]
    order = rank_passages(passages, excerpts=["电池成本下降"], query="battery cost")
    assert order[0] == 2


class _BrokenEncoder:
    model_id = fingerprint = "broken"
    dim = 3

    def encode(self, texts: Any, batch_size: int = 32) -> Any:
        raise RuntimeError("no weights")


def test_a_failing_encoder_falls_back_to_the_lexical_ranking() -> None:
    passages = ["nothing here", "battery cost fell"]
    assert rank_passages(passages, claims=["battery cost"], encoder=_BrokenEncoder()) == [1, 0]


def test_roles_come_from_the_binding_else_from_relevance() -> None:
    assert role_of("counter-evidence", "direct") == COUNTER
    assert role_of("Background", "direct") == BACKGROUND
    assert role_of("", "partial") == PRIMARY
    assert role_of("", "contextual") == BACKGROUND


def test_share_out_keeps_short_texts_whole_and_splits_the_rest() -> None:
    assert share_out([100, 5000, 5000], 3000) == [100, 1450, 1450]
    assert share_out([10, 20], 1000) == [10, 20]


def test_the_contract_fits_its_budget_and_names_what_was_cut() -> None:
    def material(mid: str, text: str, claims: int) -> ContractMaterial:
        return ContractMaterial(
            material_id=mid, title=f"Title {mid}", role=PRIMARY, relevance="direct",
            text=text, kind="summary",
            claims=tuple(Claim(claim=f"claim {i} of {mid}") for i in range(claims)))

    short = "A short summary that must survive whole."
    contract = build_contract([material("M1", short, 2), material("M2", "long " * 2000, 9)],
                              ["gap one"], budget_chars=3000)
    assert len(contract.text) <= 3000
    assert short in contract.text
    assert "Cut to fit the model's context:" in contract.text
    assert "3 less relevant claim(s) of M2" in contract.text
    assert "the summary of M2 (kept" in contract.text
    assert "claim 6 of M2" not in contract.text and "gap one" in contract.text


def test_a_chinese_summary_is_cut_by_its_tokens_not_its_characters() -> None:
    zh = ContractMaterial(material_id="M1", title="报告", role=PRIMARY, relevance="direct",
                          text="储能电池成本下降。" * 400, kind="summary")
    contract = build_contract([zh], [], budget_chars=3000)
    assert estimate_tokens(contract.text) * 3 <= 3000
    assert "the summary of M1 (kept" in contract.text
