"""Material writing: what of three long materials reaches each report part's writer.

A detailed report over three long materials - an English survey, a Chinese field report
and English project notes - for an English question, twice:

1. **Scripted model** (tests/fakes.py): a fixed relevance map (claims with scopes; the
   Chinese material's excerpt in Chinese), an outline binding the materials with roles,
   and writers that cite every source. Per part it prints which materials' contract
   reached the writer (id:role, claims, whether the summary or full text was included),
   which passages of each material were given (by position in the material; "*" marks
   the passage holding the claim's excerpt), what the contract says was cut, and the
   estimated tokens of the whole prompt (system + user;
   :func:`deepcite.materials.tokens.estimate_tokens`).
2. **Bundled model** (offline, provider local, no web engine): the same materials; per
   part, the bound materials and whether every one of them is cited in that part.

    .venv/bin/python bench/bench_material_writing.py            # both, ~1-2 min
    .venv/bin/python bench/bench_material_writing.py --scripted # part 1 only, ~2 s
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import PrivateAttr
from tests.fakes import ScriptedChatModel

from deepcite.config import load_settings
from deepcite.materials.tokens import estimate_tokens
from deepcite.research import Researcher
from deepcite.research.material_runs import analyse_materials
from deepcite.research.report.builder import DetailedReport
from deepcite.types import ResearchResult

QUESTION = "How have grid battery storage costs and deployment changed since 2020?"
EXCERPT_ZH = "2023年储能系统平均中标价格同比下降约百分之三十五"


def _english(topic: str, key: str, paragraphs: int) -> str:
    body = [f"{topic} paragraph {i}: this section records routine details about "
            f"procurement, scheduling, staffing and site logistics of the programme. "
            * 6 for i in range(paragraphs)]
    body[paragraphs * 2 // 3] = (key + " ") * 8
    return "\n\n".join(body)


def _chinese(paragraphs: int) -> str:
    body = [f"第{i}部分介绍了项目的组织、人员安排和现场管理等日常情况。" * 25
            for i in range(paragraphs)]
    body[paragraphs * 3 // 4] = (EXCERPT_ZH + "，主要原因是电芯价格回落。") * 20
    return "\n\n".join(body)


SURVEY_KEY = "Average pack prices fell 40 percent between 2020 and 2023 across surveyed markets."
NOTES_KEY = "Our two pilot sites added 120 MWh of storage in 2022, mostly four-hour systems."
MATERIALS = [
    {"url": "https://papers.example/battery-survey.pdf", "title": "Battery price survey",
     "content": _english("Survey", SURVEY_KEY, 40)},
    {"url": "/data/reports/储能市场报告.txt", "title": "储能市场报告",
     "content": _chinese(24)},
    {"url": "/home/me/notes/pilots.md", "title": "Pilot project notes",
     "content": _english("Notes", NOTES_KEY, 30)},
]
ANALYSIS = json.dumps({"materials": [
    {"id": "M1", "relevance": "direct", "claims": [
        {"claim": "Pack prices fell about 40% from 2020 to 2023", "scope": "surveyed markets",
         "evidence_excerpt": "Average pack prices fell 40 percent"}],
     "limitations": ["prices only, not installed cost"], "gaps": ["prices after 2023"]},
    {"id": "M2", "relevance": "direct", "claims": [
        {"claim": "Average winning bid prices for storage fell about 35% in 2023",
         "scope": "China, 2023 tenders", "evidence_excerpt": EXCERPT_ZH}], "gaps": []},
    {"id": "M3", "relevance": "partial", "claims": [
        {"claim": "Our pilots added 120 MWh in 2022", "scope": "our two pilot sites",
         "evidence_excerpt": "added 120 MWh of storage in 2022"}],
     "gaps": ["deployment at other utilities"]},
]})
OUTLINE = ("1. Price trends - how prices moved [M1][M2]\n"
           "2. Deployment - what was built [M3][M1:background]\n"
           "3. A different view - where the data disagree [M2:counter-evidence]\n")
KEYS = {"M1": "Average pack prices fell 40 percent", "M2": EXCERPT_ZH,
        "M3": "added 120 MWh of storage"}


class PromptRecorder(ScriptedChatModel):
    """The scripted model, keeping each call's system prompt too."""

    _systems: list[str] = PrivateAttr(default_factory=list)

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        self._systems.append(str(messages[0].content) if len(messages) > 1 else "")
        return super()._generate(messages, stop, run_manager, **kwargs)

    def prompts(self, purpose: str) -> list[tuple[str, str]]:
        return [(system, user) for system, (p, user) in zip(self._systems, self.calls,
                                                            strict=True) if p == purpose]


def _cite_all(prompt: str) -> str:
    """A writer that states each source's first words and cites it."""
    found = re.findall(r'<source id="(\d+)"[^>]*>\n(.{1,90})', prompt)
    return " ".join(f"The material reports that {text.strip().rstrip('.')} [{n}]."
                    for n, text in found)


def _passages_given(user: str, analysed: Any) -> dict[str, list[str]]:
    """Per material, the positions of its passages among the prompt's sources."""
    user = user.split("What is already known", 1)[0]  # the sources, not the parts written
    given: dict[str, list[str]] = {}
    for material_id, passages in analysed.passages.items():
        for position, p in enumerate(passages):
            if p.snippet[:200] in " ".join(user.split()) or p.snippet[:200] in user:
                mark = "*" if KEYS[material_id] in p.snippet else ""
                given.setdefault(material_id, []).append(f"{position}{mark}")
    return given


def scripted() -> None:
    model = PromptRecorder(script={
        "questions": [""], "synthesis": [_cite_all], "section": [_cite_all],
        "material_analysis": [ANALYSIS], "outline": [OUTLINE],
        "material_summary": [lambda u: "SUMMARY: " + " ".join(u.split())[200:500]],
        "material_reduce": [lambda u: "SUMMARY: " + " ".join(u.split())[200:700]]})
    with tempfile.TemporaryDirectory() as data_dir:
        settings = load_settings({"data_dir": data_dir, "iterations": 1,
                                  "questions_per_iteration": 0, "citations.verify": False},
                                 config_files=[], environ={})
        with Researcher(settings, model, []) as researcher:
            analysed = analyse_materials(researcher, QUESTION, MATERIALS)
            budget = researcher.client.prompt_budget_chars
            result = DetailedReport(researcher).run(QUESTION, materials=analysed)
    print("== 1. scripted model ==")
    for item in analysed.analysis.items:
        print(f"  {item.material_id} {item.material.title}: {len(item.material.content):,} "
              f"chars, ~{item.tokens:,} tokens, {item.summary_kind}, "
              f"{len(analysed.passages[item.material_id])} passages")
    print(f"  prompt budget {budget:,} chars; contract share 40 %")
    titles = ["Summary", *[e.title for e in result.outline]]
    writers = [*model.prompts("synthesis")[:1], *model.prompts("section")]
    for title, (system, user) in zip(titles, writers, strict=False):
        contract = system.split("=== MATERIALS CONTRACT FOR THIS PART ===", 1)
        heads = re.findall(r'^\[(M\d)\] "[^"]*" - role: ([\w -]+?) \(', contract[-1],
                           re.MULTILINE) if len(contract) > 1 else []
        claims = len(re.findall(r"^  - ", contract[-1], re.MULTILINE)) if heads else 0
        texts = re.findall(r'<source title="\[(M\d)\] ([\w ]+)"', system)
        cut = re.search(r"Cut to fit the model's context: (.*)", system)
        tokens = estimate_tokens(system) + estimate_tokens(user)
        print(f"  part {title!r}: prompt ~{tokens:,} tokens "
              f"(contract ~{estimate_tokens(contract[-1]) if heads else 0:,})")
        print(f"    contract: {', '.join(f'{m}:{r}' for m, r in heads) or '-'}; "
              f"{claims} claim(s); texts: "
              f"{', '.join(f'{m} {k}' for m, k in texts) or 'none (full text in sources)'}")
        given = _passages_given(user, analysed)
        print("    passages given: " + ("; ".join(f"{m} #{','.join(p)}"
                                                 for m, p in sorted(given.items())) or "-"))
        print(f"    cut: {cut.group(1) if cut else 'nothing'}")


def _parts(result: ResearchResult) -> list[tuple[str, list[str], set[int]]]:
    """(heading, bound ids, cited numbers) of each written part."""
    bound: dict[str, list[str]] = {}
    section: list[str] = []
    for entry in result.outline:
        section = list(entry.materials) if entry.level == 1 else section
        bound[entry.title] = list(entry.materials) or section
    found = []
    chunks = re.split(r"^#{2,3} (.+)$", result.answer, flags=re.MULTILINE)
    for heading, body in zip(chunks[1::2], chunks[2::2], strict=True):
        title = re.sub(r"^[\d.]+\s+", "", heading).strip()
        if title in bound:
            cited = {int(n) for n in re.findall(r"\[(\d+)\]", body)}
            found.append((title, bound[title], cited))
    return found


def bundled() -> None:
    from deepcite.llm import get_chat_model

    with tempfile.TemporaryDirectory() as data_dir:
        settings = load_settings({"data_dir": data_dir, "provider": "local",
                                  "offline": True}, config_files=[], environ={})
        started = time.perf_counter()
        model = get_chat_model(settings)
        with Researcher(settings, model, []) as researcher:
            analysed = analyse_materials(researcher, QUESTION, MATERIALS)
            result = DetailedReport(researcher).run(QUESTION, materials=analysed)
        wall = time.perf_counter() - started
    print(f"== 2. bundled model (offline, local): {wall:.1f} s, "
          f"{result.metrics.model_calls} model calls ==")
    by_number = {s.number: s.metadata.get("material_id") for s in result.sources}
    parts = _parts(result)
    for title, ids, cited in parts:
        materials = {by_number.get(n) for n in cited}
        missing = [m for m in ids if m not in materials]
        print(f"  part {title!r}: bound {','.join(ids) or '-'}; cited "
              f"{','.join(sorted(m for m in materials if m)) or '-'}; every bound material "
              f"cited: {'yes' if not missing else 'NO, missing ' + ','.join(missing)}")
    print(f"  parts citing all their materials: "
          f"{sum(1 for _, ids, c in parts if all(m in {by_number.get(n) for n in c} for m in ids))}"
          f"/{len(parts)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scripted", action="store_true", help="the scripted run only")
    args = parser.parse_args()
    scripted()
    if not args.scripted:
        bundled()


if __name__ == "__main__":
    main()
