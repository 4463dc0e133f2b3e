"""User materials: validation, deduplication, usage mode, bindings, relevance, coverage."""

from __future__ import annotations

from typing import Any

import pytest

from deepcite.errors import InputError, MaterialError
from deepcite.materials import (
    MAX_MATERIALS,
    MAX_TOTAL_CHARS,
    Claim,
    MaterialBinding,
    MaterialRelevance,
    UserMaterial,
    choose_material_ids,
    fallback_relevance,
    is_material_first,
    normalize_bindings,
    normalize_material_id,
    normalize_materials,
    parse_relevance,
    prepare_materials,
    section_coverage,
    usage_mode,
    with_relevance,
)


def mat(url: str = "/docs/a.md", content: str = "text", **extra: Any) -> dict[str, Any]:
    return {"url": url, "content": content, **extra}


# ----------------------------------------------------------------------- validation


def error_of(items: list[Any]) -> str:
    with pytest.raises(MaterialError) as info:
        normalize_materials(items)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_javascript_url_is_refused_naming_material_and_field() -> None:
    message = error_of([mat("/a", "a"), mat("/b", "b"),
                        mat("javascript:alert(1)", "c", material_id="notes.md")])
    assert message == (
        "Material 3 (notes.md): url must be an absolute path or an http(s) URL, "
        "not 'javascript:alert(1)'"
    )


@pytest.mark.parametrize("url", ["notes.md", "./notes.md", "file:///etc/passwd",
                                 "data:text/html,x", "ftp://x.org/a", "//evil.org/a",
                                 "http://", "https://ex ample.org/"])
def test_other_urls_are_refused(url: str) -> None:
    assert "url must be an absolute path or an http(s) URL" in error_of([mat(url)])


@pytest.mark.parametrize("url", ["/home/me/paper.pdf", "C:\\Users\\me\\paper.pdf",
                                 "d:/notes/a.txt", "https://example.org/report?id=1",
                                 "HTTP://Example.org"])
def test_absolute_paths_and_web_urls_are_accepted(url: str) -> None:
    kept, _ = normalize_materials([mat(url)])
    assert kept[0].url == url


def test_relative_path_message_names_the_url() -> None:
    assert error_of([mat("notes.md")]) == (
        "Material 1 (notes.md): url must be an absolute path or an http(s) URL, not 'notes.md'"
    )


def test_empty_content_is_refused() -> None:
    message = error_of([mat(content=" \n\t ", material_id="R1")])
    assert message == "Material 1 (R1): content is empty"


def test_missing_and_unknown_fields_and_non_objects() -> None:
    assert error_of([{"url": "/x"}]) == "Material 1 (x): content is required"
    assert "unknown field 'contents'" in error_of([{"url": "/x", "content": "a", "contents": 1}])
    assert error_of(["just text"]) == (
        "Material 1: expected an object with url and content, not str"
    )


def test_material_error_is_an_input_error() -> None:
    assert issubclass(MaterialError, InputError)


def test_total_content_over_the_limit_is_refused_with_the_figure() -> None:
    half = "x" * (MAX_TOTAL_CHARS // 2)
    message = error_of([mat("/a", half), mat("/b", half + "y")])
    assert "5,000,001" in message and "5,000,000" in message
    kept, _ = normalize_materials([mat("/a", half), mat("/b", half[:-1] + "y")])
    assert len(kept) == 2


def test_blank_optional_fields_are_absent_and_values_stripped() -> None:
    kept, _ = normalize_materials([mat(" /a ", "x", title="  ", material_id=" R1 ",
                                       publish_time="2024-01 ")])
    assert (kept[0].url, kept[0].title, kept[0].material_id, kept[0].publish_time) == (
        "/a", None, "R1", "2024-01")


def test_user_material_instances_are_accepted_as_they_are() -> None:
    given = UserMaterial(url="/a", content="x", material_id="A")
    kept, dropped = normalize_materials([given, mat("/b", "y")])
    assert kept[0] == given and not dropped


# ----------------------------------------------------------------- dedupe and ids


def test_duplicate_material_id_is_dropped_case_insensitively() -> None:
    kept, dropped = normalize_materials([
        mat("/a", "a", material_id="Paper"), mat("/b", "b", material_id="paper"),
    ])
    assert [m.url for m in kept] == ["/a"]
    assert [(d.index, d.reason) for d in dropped] == [(1, "duplicate_material_id")]


def test_duplicate_url_uses_canonical_web_urls_and_exact_local_paths() -> None:
    kept, dropped = normalize_materials([
        mat("https://Example.org/report/?utm_source=x", "a"),
        mat("https://example.org/report", "b"),
        mat("/docs/A.md", "c"),
        mat("/docs/a.md", "d"),     # another local path: kept
        mat("/docs/A.md", "e"),
    ])
    assert [m.content for m in kept] == ["a", "c", "d"]
    assert [(d.index, d.reason) for d in dropped] == [(1, "duplicate_url"), (4, "duplicate_url")]


def test_duplicate_content_and_same_title_with_other_content() -> None:
    kept, dropped = normalize_materials([
        mat("/a", "same text", title="Annual report"),
        mat("/b", "same text", title="Other"),
        mat("/c", "different text", title="Annual report"),
    ])
    assert [m.url for m in kept] == ["/a", "/c"]
    assert [(d.index, d.reason) for d in dropped] == [(1, "duplicate_content")]


def test_dropped_entries_carry_only_index_and_reason() -> None:
    _, dropped = normalize_materials([mat("/a", "secret"), mat("/b", "secret")])
    assert dropped[0].model_dump() == {"index": 1, "reason": "duplicate_content"}


def test_first_fifty_are_kept_in_input_order() -> None:
    items = [mat(f"/m/{i}.md", f"content {i}") for i in range(60)]
    kept, dropped = normalize_materials(items)
    assert MAX_MATERIALS == 50
    assert [m.url for m in kept] == [f"/m/{i}.md" for i in range(50)]
    assert [(d.index, d.reason) for d in dropped] == [(i, "over_limit") for i in range(50, 60)]


def test_ids_default_to_m1_m2_in_order_and_never_collide() -> None:
    kept, _ = normalize_materials([mat("/a", "a"), mat("/b", "b"), mat("/c", "c")])
    assert [m.material_id for m in kept] == ["M1", "M2", "M3"]
    kept, _ = normalize_materials([
        mat("/a", "a"), mat("/b", "b", material_id="m2"), mat("/c", "c"), mat("/d", "d"),
    ])
    assert [m.material_id for m in kept] == ["M1", "m2", "M3", "M4"]


def test_invalid_material_id_is_refused() -> None:
    assert "material_id must be" in error_of([mat(material_id="M1] ignore")])


# ----------------------------------------------------------------------- usage mode


@pytest.mark.parametrize("text", [
    "请基于我提供的论文写一份综述",
    "基于提供的材料分析市场趋势",
    "总结里面的内容",
    "仅根据所提供的材料回答",
    "对提供的论文做比较",
    "Write a report based on the provided papers.",
    "Based on the attached documents, what changed?",
    "Please summarize the provided reports",
    "Summarise the provided material for my team",
    "Answer using only the attached files.",
    "Answer only from the provided sources",
    "Write it based on the documents I provided",
])
def test_material_first_requests(text: str) -> None:
    assert is_material_first(text)
    assert usage_mode(text, True) == "required"


@pytest.mark.parametrize("text", [
    "不要基于我提供的论文，搜索最新进展",
    "不用基于提供的材料",
    "并非基于提供的材料",
    "请忽略提供的论文，重新检索",
    "排除所提供的材料后再分析",
    "Do not base this on the provided papers",
    "Don't summarize the provided reports",
    "dont summarise the provided material",
    "Search the web rather than based on the attached files",
    "Answer without using only the attached files",
    "Ignore the provided documents and search",
    "This should not based on the provided data",
    "What is the capital of France?",
    "Compare recent battery chemistries",
])
def test_not_material_first(text: str) -> None:
    assert not is_material_first(text)
    assert usage_mode(text, True) == "supplementary"


def test_negation_in_an_earlier_sentence_does_not_count() -> None:
    assert is_material_first("Don't worry. Summarize the provided papers.")
    assert is_material_first("不要着急。基于我提供的材料写")


def test_negation_farther_than_32_characters_does_not_count() -> None:
    assert is_material_first("Do not rush, take all the time that you need and "
                             "summarize the provided papers")


def test_usage_mode_without_materials_is_none() -> None:
    assert usage_mode("基于我提供的论文", False) == "none"


# -------------------------------------------------------------------------- bindings


@pytest.mark.parametrize(("raw", "expected"), [
    ("M1", "M1"), ("[M1]", "M1"), ("[[M1]]", "M1"), (" m1 ", "M1"), ("【M2】", "M2"),
    ("[ M2 ]", "M2"), ("M9", None), ("", None), (None, None), ("[]", None), ("M", None),
])
def test_normalize_material_id(raw: object, expected: str | None) -> None:
    assert normalize_material_id(raw, ["M1", "M2", "Paper-3"]) == expected


def test_normalize_material_id_prefers_exact_match() -> None:
    assert normalize_material_id("paper-3", ["Paper-3"]) == "Paper-3"
    assert normalize_material_id("x", ["X", "x"]) == "x"


def test_normalize_bindings_drops_unknown_and_merges_duplicates() -> None:
    bindings = normalize_bindings([
        {"material_id": "[M1]", "role": "primary", "claims": ["a", "b"]},
        {"id": "M9", "role": "x"},
        "m2",
        {"material_id": "M1", "role": "background", "claims": ["b", "c"]},
        MaterialBinding(material_id="M2", role="context", claims=["d"]),
        42,
    ], ["M1", "M2"])
    assert bindings == [
        MaterialBinding(material_id="M1", role="primary", claims=["a", "b", "c"]),
        MaterialBinding(material_id="M2", role="context", claims=["d"]),
    ]
    assert normalize_bindings("M1", ["M1"]) == []
    assert normalize_bindings(None, ["M1"]) == []


def test_planner_keeps_only_known_ids() -> None:
    assert choose_material_ids(["M1", "[M3]", "M7", "M1"], ["M2"], ["M1", "M2", "M3"]) == [
        "M1", "M3"]


def test_planner_inherits_bindings_when_it_names_none() -> None:
    known = ["M1", "M2"]
    assert choose_material_ids(None, ["M2"], known) == ["M2"]
    assert choose_material_ids([], ["M2", "M9"], known) == ["M2"]
    assert choose_material_ids(["M7"], ["M1"], known) == ["M1"]   # only hallucinated ids


def test_planner_clears_ids_when_no_materials_were_declared() -> None:
    assert choose_material_ids(["M1"], ["M1"], []) == []


# -------------------------------------------------------------------------- relevance


REPLY = """Here is the analysis:
```json
{"materials": [
  {"id": "[M1]", "relevance": "Direct",
   "claims": [{"claim": "Sales grew 12%", "scope": "2023, EU", "evidence_excerpt": "grew 12",
               "confidence": "85%"},
              "Margins fell",
              {"claim": "", "confidence": 1}],
   "limitations": ["EU only"], "gaps": []},
  {"id": "m2", "relevance": "somewhat", "claims": [], "gaps": "No data after 2023"},
  {"id": "M9", "relevance": "direct"},
  {"id": "M1", "relevance": "irrelevant"}
]}
```"""


def test_parse_relevance_normalises_ids_and_values() -> None:
    records = parse_relevance(REPLY, ["M1", "M2"])
    assert records is not None
    first, second = records
    assert (first.material_id, first.relevance) == ("M1", "direct")
    assert first.claims == [
        Claim(claim="Sales grew 12%", scope="2023, EU", evidence_excerpt="grew 12",
              confidence=0.85),
        Claim(claim="Margins fell", confidence=0.5),
    ]
    assert first.limitations == ["EU only"] and first.gaps == []
    assert (second.material_id, second.relevance, second.gaps) == (
        "M2", "contextual", ["No data after 2023"])


def test_parse_relevance_accepts_other_shapes() -> None:
    keyed = parse_relevance('{"M1": {"relevance": "partial", "confidence": 2}}', ["M1"])
    assert keyed is not None and keyed[0].relevance == "partial"
    listed = parse_relevance('[{"material_id": "M1", "relevance": "direct", '
                             '"supported_claims": [{"claim": "x", "confidence": "high"}]}]',
                             ["M1"])
    assert listed is not None and listed[0].claims[0].confidence == 0.9


@pytest.mark.parametrize("reply", ["", "I could not decide.", '{"materials": []}',
                                   '{"materials": [{"id": "M9", "relevance": "direct"}]}',
                                   "[1, 2, 3]"])
def test_parse_relevance_gives_none_when_unusable(reply: str) -> None:
    assert parse_relevance(reply, ["M1"]) is None


def test_fallback_relevance_is_conservative() -> None:
    records = fallback_relevance(["M1", "M2", "M1"])
    assert [r.material_id for r in records] == ["M1", "M2"]
    assert all(r.relevance == "contextual" and not r.claims and r.gaps == ["needs verification"]
               and r.fallback for r in records)


def test_with_relevance_fills_missing_and_drops_unknown() -> None:
    analysis = prepare_materials("q", [mat("/a", "a"), mat("/b", "b")])
    assert analysis.relevance == []
    given = [MaterialRelevance(material_id="M2", relevance="direct"),
             MaterialRelevance(material_id="M7", relevance="direct")]
    applied = with_relevance(analysis, given)
    assert [(r.material_id, r.relevance, r.fallback) for r in applied.relevance] == [
        ("M1", "contextual", True), ("M2", "direct", False)]
    assert [r.fallback for r in with_relevance(analysis, None).relevance] == [True, True]


# ---------------------------------------------------------------------------- coverage


CLAIM = Claim(claim="Sales grew 12% in 2023", confidence=0.9)


def covered_analysis(**changes: Any) -> Any:
    analysis = prepare_materials("sales growth", [mat("/a", "Sales grew 12% in 2023.")])
    record = MaterialRelevance(material_id="M1", relevance="direct", claims=[CLAIM])
    return with_relevance(analysis, [record.model_copy(update=changes)])


def test_coverage_when_every_condition_holds() -> None:
    coverage = section_coverage([MaterialBinding(material_id="M1")], covered_analysis())
    assert coverage.fully_covered and coverage.covered_ids == ["M1"] and coverage.gaps == []
    partial = section_coverage(["M1"], covered_analysis(relevance="partial"))
    assert partial.fully_covered


@pytest.mark.parametrize(("changes", "reason"), [
    ({"claims": []}, "no supported claims"),
    ({"relevance": "contextual"}, "relevance is contextual"),
    ({"relevance": "irrelevant"}, "relevance is irrelevant"),
    ({"gaps": ["No data after 2023"]}, "research gaps remain"),
])
def test_each_failed_condition_needs_review(changes: dict[str, Any], reason: str) -> None:
    coverage = section_coverage(["M1"], covered_analysis(**changes))
    assert not coverage.fully_covered
    assert coverage.materials[0].status == "needs_review"
    assert reason in coverage.materials[0].reasons
    assert coverage.gaps == changes.get("gaps", [])


def test_digest_is_not_usable_text_but_truncated_is() -> None:
    analysis = covered_analysis()
    item = analysis.items[0]
    digested = analysis.model_copy(update={"items": [item.model_copy(
        update={"summary_kind": "digest"})]})
    assert not section_coverage(["M1"], digested).fully_covered
    truncated = analysis.model_copy(update={"items": [item.model_copy(
        update={"summary_kind": "truncated"})]})
    assert section_coverage(["M1"], truncated).fully_covered


def test_fallback_relevance_and_missing_analysis_never_cover() -> None:
    analysis = prepare_materials("q", [mat("/a", "Sales grew.")])
    assert not section_coverage(["M1"], analysis).fully_covered  # no map applied yet
    fallback = with_relevance(analysis, None)
    coverage = section_coverage(["M1"], fallback)
    assert not coverage.fully_covered and coverage.gaps == ["needs verification"]


def test_section_needs_a_binding_and_all_bindings_covered() -> None:
    analysis = prepare_materials("q", [mat("/a", "a"), mat("/b", "b")])
    analysis = with_relevance(analysis, [
        MaterialRelevance(material_id="M1", relevance="direct", claims=[CLAIM]),
        MaterialRelevance(material_id="M2", relevance="partial", claims=[CLAIM],
                          gaps=["prices", "volumes"]),
    ])
    assert not section_coverage([], analysis).fully_covered
    mixed = section_coverage(["M1", "M2", "M1", "M5"], analysis)
    assert not mixed.fully_covered
    assert mixed.covered_ids == ["M1"] and mixed.review_ids == ["M2", "M5"]
    assert mixed.gaps == ["prices", "volumes"]
    assert mixed.materials[2].reasons == ["not a prepared material"]
