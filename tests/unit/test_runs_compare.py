"""Comparing two runs: sources matched by canonical URL, claims by sentence, figures and
settings side by side, rendered as inert Markdown."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from deepcite.runs.compare import (
    HIDDEN,
    RunComparison,
    SettingDifference,
    compare_runs,
)
from deepcite.runs.compare_markdown import comparison_markdown
from deepcite.store import StoredRun
from deepcite.types import (
    CitationCheck,
    ResearchResult,
    RunMetrics,
    Source,
    VerificationCounts,
)


def source(number: int, url: str, snippet: str = "", title: str = "") -> Source:
    return Source(number=number, title=title or f"Doc {number}", url=url, canonical_url=url,
                  snippet=snippet or f"Passage of {url}.", engine="memory")


def check(number: int, sentence: str, outcome: Any = "supported") -> CitationCheck:
    return CitationCheck(number=number, sentence=sentence, outcome=outcome, method="overlap")


def result(sources: list[Source], checks: list[CitationCheck], **changes: Any
           ) -> ResearchResult:
    data: dict[str, Any] = {
        "question": "Why is the sky blue?", "answer": "An answer [1].",
        "strategy": "source-based", "handler": "standard", "sources": sources,
        "citation_checks": checks,
        "verification": VerificationCounts(
            markers_checked=len(checks),
            supported=sum(c.outcome == "supported" for c in checks),
            partial=sum(c.outcome == "partial" for c in checks),
            unsupported=sum(c.outcome == "unsupported" for c in checks)),
        "metrics": RunMetrics(model_calls=2, prompt_tokens=100, completion_tokens=20,
                              wall_seconds=1.5),
    }
    data.update(changes)
    return ResearchResult(**data)


def stored(run_id: str, run: ResearchResult, settings: dict[str, Any]) -> StoredRun:
    return StoredRun(id=run_id, created_at=datetime(2025, 1, 2, tzinfo=UTC),
                     finished_at=None, status="completed", mode="quick", parent_id=None,
                     settings=settings, result=run, events=[])


A = result(
    [source(1, "https://old.example/only-a"),
     source(2, "https://Docs.Example/rayleigh/?utm_source=x"),
     source(3, "https://docs.example/sky")],
    [check(2, "Rayleigh scattering makes the sky blue."),
     check(3, "Shorter wavelengths scatter more.", "unsupported"),
     check(1, "Only the first run says this.")])
B = result(
    [source(1, "https://new.example/only-b"),
     source(2, "https://docs.example/sky"),
     source(3, "https://docs.example/rayleigh")],
    [check(3, "**Rayleigh scattering** makes the sky blue", "unsupported"),
     check(1, "Rayleigh scattering makes the sky blue.", "partial"),
     check(2, "Shorter wavelengths scatter more."),
     check(1, "Only the second run says this.", "partial")],
    strategy="focused-iteration",
    metrics=RunMetrics(model_calls=5, prompt_tokens=300, completion_tokens=50,
                       wall_seconds=4.25))


def test_sources_are_matched_by_canonical_url_with_their_numbers() -> None:
    cmp = compare_runs(A, B)
    assert [(k.a_number, k.b_number) for k in cmp.sources_kept] == [(2, 3), (3, 2)]
    assert [s.url for s in cmp.sources_gained] == ["https://new.example/only-b"]
    assert [s.url for s in cmp.sources_lost] == ["https://old.example/only-a"]
    assert cmp.b_number(2) == 3 and cmp.b_number(1) is None
    assert all(k.renumbered for k in cmp.sources_kept)


def test_passages_of_one_document_pair_by_snippet_first() -> None:
    url = "https://docs.example/argparse"
    a = result([source(1, url, "Intro."), source(2, url, "Options.")], [])
    b = result([source(4, url, "Options."), source(5, url, "Other."),
                source(6, url, "Intro.")], [])
    cmp = compare_runs(a, b)
    assert [(k.a_number, k.b_number) for k in cmp.sources_kept] == [(1, 6), (2, 4)]
    assert [s.number for s in cmp.sources_gained] == [5] and cmp.sources_lost == []


def test_claims_whose_support_changed_lost_and_gained() -> None:
    cmp = compare_runs(A, B)
    changed = {c.sentence: (c.a_support, c.b_support, c.a_numbers, c.b_numbers)
               for c in cmp.claims_changed}
    assert changed == {
        # the same sentence however it is marked up: best verdict supported -> partial
        "Rayleigh scattering makes the sky blue.": ("supported", "partial", [2], [1, 3]),
        "Shorter wavelengths scatter more.": ("unsupported", "supported", [3], [2]),
    }
    # A's [2] is B's [3]: that very citation went from supported to unsupported
    assert [(c.a_number, c.b_number, c.a_outcome, c.b_outcome)
            for c in cmp.citations_changed] == [(2, 3, "supported", "unsupported"),
                                                (3, 2, "unsupported", "supported")]
    assert [c.sentence for c in cmp.claims_lost] == ["Only the first run says this."]
    assert [(c.sentence, c.support, c.numbers) for c in cmp.claims_gained] == [
        ("Only the second run says this.", "partial", [1])]
    assert cmp.claims_unchanged == 0


def test_headline_figures_side_by_side() -> None:
    cmp = compare_runs(A, B)
    assert (cmp.a.model_calls, cmp.b.model_calls) == (2, 5)
    assert (cmp.a.tokens, cmp.b.tokens) == (120, 350)
    assert (cmp.a.wall_seconds, cmp.b.wall_seconds) == (1.5, 4.25)
    assert (cmp.a.strategy, cmp.b.strategy) == ("source-based", "focused-iteration")
    assert cmp.a.verification is not None and cmp.a.verification.supported == 2
    assert cmp.same_question and cmp.a.id is None
    assert not cmp.settings_compared and cmp.settings_differences == []


def test_settings_differences_are_dotted_keys_and_never_show_secrets() -> None:
    a = stored("a" * 32, A, {
        "research": {"iterations": 2, "strategy": "source-based"},
        "llm": {"provider": "ollama", "model": "llama3.2", "api_key": None},
        "engines": {"plugins": {"corp": {"api_key": "sk-live-123", "depth": 1}}},
        "store": {"url": "postgresql://me:hunter2@db/deepcite"},
        "old_only": True})
    b = stored("b" * 32, B, {
        "research": {"iterations": 3, "strategy": "source-based"},
        "llm": {"provider": "ollama", "model": "llama3.2", "api_key": None},
        "engines": {"plugins": {"corp": {"api_key": "sk-live-456", "depth": 1}}},
        "store": {"url": "postgresql://me:swordfish@db/other"},
        "new_only": [1, 2]})
    cmp = compare_runs(a, b)
    assert cmp.settings_compared
    assert cmp.settings_differences == [
        SettingDifference(key="engines.plugins.corp.api_key", a=HIDDEN, b=HIDDEN),
        SettingDifference(key="new_only", b=[1, 2], only_in="b"),
        SettingDifference(key="old_only", a=True, only_in="a"),
        SettingDifference(key="research.iterations", a=2, b=3),
        SettingDifference(key="store.url", a="postgresql://me@db/deepcite",
                          b="postgresql://me@db/other"),
    ]
    assert (cmp.a.id, cmp.a.provider, cmp.a.model) == ("a" * 32, "ollama", "llama3.2")
    dumped = cmp.model_dump_json()
    assert "sk-live" not in dumped and "hunter2" not in dumped and "swordfish" not in dumped
    markdown = comparison_markdown(cmp)
    assert "sk-live" not in markdown and "hunter2" not in markdown
    assert "- research.iterations: 2 → 3" in markdown


def test_the_model_is_named_by_the_gguf_file_when_no_model_is_set() -> None:
    a = stored("c" * 32, A, {"llm": {"provider": "local", "model": None,
                                     "gguf_path": "/models/tiny-q4.gguf"}})
    assert compare_runs(a, a).a.model == "tiny-q4.gguf"


def test_the_comparison_round_trips_as_json() -> None:
    cmp = compare_runs(stored("a" * 32, A, {"x": 1}), stored("b" * 32, B, {"x": 2}))
    assert RunComparison.model_validate_json(cmp.model_dump_json()) == cmp


def test_markdown_shows_the_changes() -> None:
    text = comparison_markdown(compare_runs(A, B))
    assert text.startswith("# A compared with B\n")
    assert "| model calls | 2 | 5 |" in text and "| tokens | 120 | 350 |" in text
    assert "## Sources: 2 kept, 1 gained, 1 lost" in text
    assert "- Doc 3 (https://docs.example/rayleigh): [2] → [3]" in text
    assert "## Claims: 0 unchanged, 2 changed, 1 gained, 1 lost" in text
    assert ("- “Shorter wavelengths scatter more.”: unsupported [3] → supported [2]"
            in text)
    assert "- “Only the first run says this.”: supported [1]" in text
    assert "## Settings" not in text  # bare results have none


def test_untrusted_text_is_inert_in_the_markdown() -> None:
    hostile = "Evil <script>alert(1)</script> [99] ![x](http://t.example/p.png) | cell\n# H"
    a = result([source(1, "https://e.example/a", title=hostile)],
               [check(1, hostile)], question=hostile)
    b = result([source(1, "https://e.example/b", title=hostile)], [])
    text = comparison_markdown(compare_runs(a, b))
    assert "<script" not in text and "</script" not in text and "&lt;script>" in text
    assert "[99]" not in text and "\\[99\\]" in text
    assert "![x](" not in text and "!\\[x\\](" in text
    assert "\n# H" not in text  # one line: no heading of its own
    assert "\\| cell" in text  # no extra table cell
