"""Material-first detection (``deepcite.materials.usage``) in English and Chinese.

A question that explicitly asks to build on the user's materials runs ``required``
(covered sections may skip the web); anything else with materials runs
``supplementary``. Each English case has a Chinese counterpart where the language has
one, so the two tables cannot drift apart.
"""

from __future__ import annotations

import pytest

from deepcite.materials import is_material_first, usage_mode


def required(text: str) -> bool:
    mode = usage_mode(text, True)
    assert mode == ("required" if is_material_first(text) else "supplementary")
    return mode == "required"


# --------------------------------------------------------------------- positives


@pytest.mark.parametrize("text", [
    "Write a report on solid-state batteries with the provided materials",
    "Compare A and B using the attached papers",
    "What do the uploaded PDFs say about inflation?",
    "Use the given documents to answer",
    "Summarize these papers",
    "Write a literature review from my notes",
    "Compare my research notes with the attached report",
    "Draw on the supplied sources for the history section",
    "What do my files say about churn?",
    "Answer only from the documents",
    "Based solely on the papers, what changed?",
    "Based only on what I uploaded, compare A and B",
    "According to the attached, who won?",
    "Using only these reports, list the risks",
    "Write it from the provided",
    "Summarise the files I've uploaded",
    "Write it based on the documents we shared",
    "Explain this paper to a student",
    "Go through the attachments and list every claim",
    "Use the papers above to draft the intro",
])
def test_english_requests_are_material_first(text: str) -> None:
    assert required(text)


@pytest.mark.parametrize("text", [
    "用提供的材料写一份关于固态电池的报告",
    "请基于上传的文件写一份报告",
    "根据附上的论文比较A和B",
    "只从我上传的文档里回答",
    "总结这些论文",
    "根据我的笔记写一份综述",
    "根据附件回答问题",
    "以上材料说明了什么",
    "仅基于我给你的资料回答",
    "总结里面的内容",
    "对提供的这些报告做比较",
])
def test_chinese_requests_are_material_first(text: str) -> None:
    assert required(text)


# --------------------------------------------------------------------- negatives


@pytest.mark.parametrize("text", [
    "What is the capital of France?",
    "Write this report about batteries",
    "Summarize X provided that the sources are recent",
    "Given that the market changed, what should we do?",
    "Summarise the latest papers on CRISPR",
    "写一份关于电池的报告",
    "分别总结三种电池的优缺点",
    "请基于公开资料回答",
])
def test_questions_without_a_request_are_supplementary(text: str) -> None:
    assert not required(text)


def test_without_materials_the_mode_is_none_whatever_the_question() -> None:
    assert usage_mode("Summarize the provided papers", False) == "none"
    assert usage_mode("基于我提供的论文", False) == "none"


# --------------------------------------------------------- what a negation negates


@pytest.mark.parametrize("text", [
    "Don't search the web, just summarize the provided papers",
    "Don't search the web just summarize the provided papers",
    "Do not search online; use only my notes",
    "Don't search the web but summarise my notes",
    "Don't browse the internet and then write from the attached files",
    "Do not google anything and use my notes",
    "No web search. Only the attached files.",
    "Summarize the provided papers without searching the web",
    "Don't use other sources than my notes",
    "Don't use anything except my notes",
    "Use nothing other than my notes",
    "Use no sources other than my notes",
    "Besides my notes, do not use anything",
    "Don't ignore my notes",
    "Don't forget to cite the provided papers",
    "Don't worry. Summarize the provided papers.",
    "Do not rush, take all the time you need and summarize the provided papers",
])
def test_english_negation_of_something_else_keeps_material_first(text: str) -> None:
    assert required(text)


@pytest.mark.parametrize("text", [
    "不要联网，只总结提供的论文",
    "不用联网只总结提供的论文",
    "不要搜索网络；基于我提供的材料写",
    "不要搜索网络，但是要基于我提供的材料",
    "无需检索网页，直接总结上传的文件",
    "除了我提供的材料之外，不要使用其他资料",
    "不要忽略提供的材料",
    "别忘了引用我上传的论文",
    "不要着急。基于我提供的材料写",
])
def test_chinese_negation_of_something_else_keeps_material_first(text: str) -> None:
    assert required(text)


@pytest.mark.parametrize("text", [
    "Don't use the provided papers",
    "Ignore my notes and answer from general knowledge",
    "Answer without the attached files",
    "Do not under any circumstances base the answer on the provided papers",
    "Don't just summarize the provided papers",
    "Not only from the provided papers",
    "Don't rely only on my notes",
    "Don't search the web or use my notes",
    "Don't use the web or my notes",
    "Use the web instead of my notes",
    "Search broadly rather than based on the attached files",
    "Excluding the uploaded PDFs, what is known?",
])
def test_english_negation_of_the_materials_is_supplementary(text: str) -> None:
    assert not required(text)


@pytest.mark.parametrize("text", [
    "不要使用我上传的文件",
    "忽略附件",
    "不要基于我提供的论文",
    "不要只根据提供的材料",
    "不是只总结提供的论文",
    "不要用网络和我的笔记",
    "排除所提供的材料后再分析",
    "别用我的笔记",
])
def test_chinese_negation_of_the_materials_is_supplementary(text: str) -> None:
    assert not required(text)


def test_a_negation_never_reaches_across_punctuation_or_a_new_clause() -> None:
    for joint in [", ", "; ", ". ", " - ", " but ", " and then ", " just "]:
        assert required(f"Don't panic{joint}summarize the provided papers"), joint
    for joint in ["，", "；", "。", "但是", "然后", "只"]:
        assert required(f"不要着急{joint}总结提供的论文"), joint
    # ... while within the clause it does.
    assert not required("Don't summarize the provided papers")
    assert not required("不要总结提供的论文")


def test_a_request_is_kept_if_any_clause_makes_it_unnegated() -> None:
    assert required("Don't use my notes, use the attached files")
    assert required("不要用我的笔记，用上传的文件")


# ------------------------------------------------ demoted materials, web asked for


@pytest.mark.parametrize("text", [
    "Summarize the provided papers and search the web for newer work",
    "Based on my notes, search online for counter-evidence",
    "Use my notes as background",
    "Use the attached files for reference only",
    "In addition to the provided papers, don't forget to search the web",
    "Besides the provided papers, look at recent news",
    "基于提供的材料，并搜索最新进展",
    "提供的材料仅供参考",
    "以提供的材料为辅，补充检索最新研究",
    "除了提供的材料之外，还要联网搜索",
])
def test_materials_as_background_or_an_explicit_web_search_is_supplementary(
    text: str,
) -> None:
    assert not required(text)


def test_iot_is_not_a_web_search() -> None:
    assert required("请基于我提供的关于物联网的论文写综述")


# --------------------------------------------------------- mixed language and form


@pytest.mark.parametrize(("text", "expected"), [
    ("请基于the provided papers写综述", True),
    ("Summarize 我提供的论文", True),
    ("Don't search the web，只总结提供的论文", True),
    ("不要联网, summarise my notes", True),
    ("不要 use my notes", False),
    ("Don't 基于提供的材料写", False),
])
def test_mixed_language_questions(text: str, expected: bool) -> None:
    assert required(text) is expected


@pytest.mark.parametrize("text", [
    "SUMMARIZE THE PROVIDED PAPERS!!!",
    "summarise   the   provided\tpapers",
    "Summarize the Provided Papers?",
    "(see the attached files) what changed?",
])
def test_case_spacing_and_punctuation_do_not_matter(text: str) -> None:
    assert required(text)


@pytest.mark.parametrize("text", [
    "DON'T USE THE PROVIDED PAPERS",
    "Don’t use the provided papers",
    "dont use the provided papers",
    "Do NOT use the provided papers.",
])
def test_negation_spellings(text: str) -> None:
    assert not required(text)


def test_a_long_pasted_question_is_judged_quickly() -> None:
    # Many negations in one clause once made each phrase rescan the whole clause.
    import time

    text = "don't search the web " * 2000 + "summarise my notes"
    began = time.perf_counter()
    assert required(text)
    assert time.perf_counter() - began < 2.0


# ------------------------------------- "provided", "attached" as words of a question


@pytest.mark.parametrize("text", [
    "How are files provided to a container at build time?",
    "How are secrets provided to a pod in Kubernetes?",
    "Where do uploaded files go in a Django project?",
    "Can attached documents be encrypted by the mail server?",
    "Why are the files uploaded to S3 not visible in the console?",
    "What happens to data supplied by the client before validation?",
    "Is the source shared between the two processes?",
    "How is data provided through the context API read by child components?",
    "Which headers are sent with files uploaded via multipart forms?",
    "How do I limit the size of uploaded files in nginx?",
    "Are notes attached to a ticket searchable?",
    "What is the default timeout for requests sent over HTTP/2?",
    "How do browsers handle documents enclosed in an iframe?",
    "When were the papers provided to the committee published?",
    "How do I read attached files with Python's email package?",
    "Can I compare uploaded images pixel by pixel in OpenCV?",
    "How are build arguments provided to a Dockerfile?",
    "What is given to a function as its first argument?",
])
def test_participles_in_a_question_about_something_else_are_supplementary(
        text: str) -> None:
    assert not required(text)


@pytest.mark.parametrize("text", [
    "Summarise the files I provided",
    "Using the attached report, list the main risks",
    "Based on my documents, what changed in 2023?",
    "Summarize attached papers in three bullets",
    "What do the two PDFs attached say about pricing?",
    "Write the introduction from the documents provided above",
    "Compare the reports provided here with last year's figures",
    "Answer using provided data only",
    "Which of the uploaded files mentions the budget?",
    "Summarise the notes provided to you earlier",
    "Read the enclosed transcript and list the decisions",
    "Explain the attached paper to a first-year student",
    "Please summarise what I uploaded",
    "According to attached notes, when does the team meet?",
])
def test_requests_that_point_at_the_users_things_stay_material_first(text: str) -> None:
    assert required(text)
