"""How a run uses the materials: ``required``, ``supplementary`` or ``none``.

``required`` (material first) is only for users who *explicitly* ask to build on what
they provided - "summarise the provided papers", "基于我提供的材料" - because it lets
covered sections skip web search. Everything else with materials is ``supplementary``:
the materials are evidence, and the web fills what they do not cover.

An explicit request can be negated ("don't base it on the provided files", "不要基于提供
的材料"): a negation in the 32 characters before the phrase (within the same clause -
a sentence end or a semicolon in between separates them) defeats it.
"""

from __future__ import annotations

import re
from typing import Literal

UsageMode = Literal["required", "supplementary", "none"]

NEGATION_WINDOW = 32

_GIVEN = r"(?:provided|attached|supplied|uploaded|given|enclosed|shared)"
_THING = r"(?:materials?|documents?|docs|papers?|files?|sources?|reports?|articles?|texts?|notes)"
_OWNER = r"(?:the |my |our |these |those |this )?"
_ENGLISH = [
    rf"\bbased (?:only |solely |entirely |purely |mainly )?on {_OWNER}{_GIVEN}\b",
    rf"\bbased (?:only |solely |entirely |purely )?on {_OWNER}{_THING} (?:i|we) (?:have )?"
    rf"(?:provided|attached|supplied|uploaded|gave|shared)\b",
    rf"\bsummari[sz]e {_OWNER}{_GIVEN}\b",
    rf"\bsummari[sz]e {_OWNER}{_THING} (?:i|we) (?:have )?"
    rf"(?:provided|attached|uploaded|gave|shared)\b",
    rf"\busing only {_OWNER}{_GIVEN}\b",
    rf"\bonly (?:from|using|with|on|use) {_OWNER}{_GIVEN}\b",
    rf"\b(?:use|using|from|rely on|relying on|draw on|drawing on) (?:only )?{_OWNER}{_GIVEN} "
    rf"{_THING}\b",
    rf"\b(?:according|limited|restricted|stick) (?:only )?to {_OWNER}{_GIVEN} {_THING}\b",
]
_CHINESE = [
    "基于我提供", "基于提供", "基于所提供", "基于我上传", "基于上传", "基于附件", "基于以上材料",
    "根据我提供", "根据提供的", "根据所提供", "根据我上传", "根据附件", "依据提供的", "依据我提供",
    "提供的论文", "提供的材料", "提供的文档", "提供的资料", "提供的文件", "提供的报告",
    "所提供的材料", "总结里面的内容", "总结这些材料", "总结上述材料",
    "仅根据", "只根据", "仅基于", "只基于", "仅使用提供", "只使用提供", "只用提供",
]
_MARKERS = re.compile(
    "|".join(_ENGLISH + [re.escape(marker) for marker in _CHINESE]), re.IGNORECASE
)
_NEGATIONS = re.compile(
    r"不要|不用|不基于|不根据|并非|而不是|拒绝|排除|忽略|别用|无需"
    r"|\bdo not\b|\bdon['’]?t\b|\bdo n['’]t\b|\bnot based\b|\brather than\b|\bwithout using\b"
    r"|\bignor(?:e|ing)\b|\binstead of\b|\bnever\b",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[.!?;。！？；\n]")


def _negated(text: str, start: int, end: int) -> bool:
    before = text[max(0, start - NEGATION_WINDOW) : start]
    ends = [match.end() for match in _CLAUSE_END.finditer(before)]
    if ends:
        before = before[ends[-1] :]
    # The marker is included: "not based on the provided" negates "based on ...".
    return _NEGATIONS.search(before + text[start:end]) is not None


def is_material_first(text: str) -> bool:
    """Whether ``text`` explicitly asks to build on the provided materials.

    True when a marker phrase (English or Chinese) occurs without a negation in the
    32 characters of its clause before it.
    """
    if not text:
        return False
    return any(
        not _negated(text, match.start(), match.end()) for match in _MARKERS.finditer(text)
    )


def usage_mode(question: str, has_materials: bool) -> UsageMode:
    """``none`` without materials, ``required`` when the question asks for material
    first (:func:`is_material_first`), else ``supplementary``."""
    if not has_materials:
        return "none"
    return "required" if is_material_first(question) else "supplementary"
