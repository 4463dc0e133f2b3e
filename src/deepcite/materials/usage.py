"""How a run uses the materials: ``required``, ``supplementary`` or ``none``.

``required`` (material first) is only for users who *explicitly* ask to build on what
they provided - "summarise the provided papers", "write a report on X with my notes",
"基于我提供的材料" - because it lets covered sections skip web search. Everything else
with materials is ``supplementary``: the materials are evidence, and the web fills what
they do not cover.

The phrases live in the tables below, English and Chinese side by side, so that both
languages cover the same requests; a question may mix them.

A negation cancels a request only when it negates the materials, inside the same
clause: "don't use the provided papers", "ignore my notes", "不要基于提供的材料". It
never reaches across a comma, semicolon or sentence end, nor into a new clause ("but",
"and then", "just summarise ...", "但是", "只总结 ..."), and a negation whose object is
searching ("don't search the web, just summarise the provided papers", "不用联网，只
总结提供的论文") leaves the request standing. An explicit, un-negated request to also
search the web ("... and search the web for newer work") makes the run supplementary.

Words like "provided", "attached" or "uploaded" are also ordinary words of questions
about something else: "How are files provided to a container at build time?", "Where
do uploaded files go?", "Can attached documents be encrypted?". An English phrase built
on such a word is a request only when it points at the user's things
(:func:`_incidental`): it has a determiner or owner ("the attached report", "the files
I provided", "papers above"), or a request word leads to it ("summarise attached
papers", "using provided data"); and it is not the passive of a question ("are files
provided ...") nor given on to something else ("... provided to a container").
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from deepcite.materials.prepared import UsageMode

_EN_GIVEN = r"(?:provided|attached|supplied|uploaded|enclosed)"  # "the attached" says enough
_EN_GIVEN_WEAK = r"(?:given|shared|included|sent)"  # needs a noun: "given that" is not one
_EN_THING = (
    r"(?:materials?|papers?|documents?|docs?|files?|notes?|sources?|reports?|pdfs?"
    r"|articles?|texts?|attachments?|uploads?|excerpts?|transcripts?|slides|studies|study"
    r"|readings?|references?|manuscripts?|memos?|briefs?|contents?)"
)
_EN_WORD = r"(?:[\w-]+\s+)"
# A modifier between "provided" and its noun; "provided that the sources ..." is no request.
_EN_MOD = r"(?:(?!(?:that|by|to|the|a|an|in|for|with|on|if|as)\b)[\w-]+\s+)"
_ZH_GIVEN = r"(?:提供|上传|附上|附带|随附|给出|给定|发送|分享|发来|发给你|给你|所给)"
_ZH_THING = (
    r"(?:材料|论文|文档|资料|文件|报告|笔记|文章|内容|文献|附件|数据|素材|PDF|稿件|摘录|记录|文本)"
)
_ZH_OWN_THING = r"(?:材料|论文|文档|资料|文件|笔记|文章|文献|附件|素材|PDF|稿件|摘录|记录|数据)"
_ZH_STOP = r"[^，。；,.;\s]"

# Phrases that ask to build on the materials.
_MARKERS: dict[str, tuple[str, ...]] = {
    "en": (
        rf"\b(?:the|my|our|these|those|this|all(?:\s+the)?)\s+{_EN_GIVEN}"
        rf"(?:\s+{_EN_MOD}{{0,2}}?(?:{_EN_THING}|data(?:sets?)?))?\b",
        rf"\b{_EN_GIVEN}\s+{_EN_MOD}{{0,2}}?(?:{_EN_THING}|data(?:sets?)?)\b",
        rf"\b(?:the|these|those)\s+{_EN_GIVEN_WEAK}\s+{_EN_THING}\b",
        rf"\b(?:my|our|these|those)\s+{_EN_WORD}?{_EN_THING}\b",
        r"\bthis\s+(?:[\w-]+\s+)?(?:material|paper|document|doc|file|pdf|article|attachment"
        r"|transcript|text|excerpt|study|manuscript|memo)\b",
        rf"\b{_EN_THING}\s+(?:that\s+|which\s+)?(?:i|we)(?:['’]ve|\s+have|\s+just|\s+already)*"
        r"\s+(?:provided|attached|supplied|uploaded|gave|shared|sent|included|enclosed|added)\b",
        rf"\b{_EN_THING}\s+(?:above|below|provided|attached|enclosed|supplied|uploaded)\b",
        r"\bwhat\s+(?:i|we)(?:['’]ve|\s+have)?\s+(?:provided|attached|supplied|uploaded|gave"
        r"|shared|sent)\b",
        rf"\bthe\s+(?:above|aforementioned|following)\s+{_EN_WORD}?{_EN_THING}\b",
        r"\b(?:the|all\s+the)\s+(?:attachments?|uploads?)\b",
        rf"\b(?:only|solely|exclusively|strictly|purely|entirely|just)\s+(?:from|on|upon|using"
        rf"|with|use|in|within)\s+(?:the|these|those)\s+{_EN_WORD}?{_EN_THING}\b",
        rf"\b(?:using|use)\s+only\s+(?:the|these|those)\s+{_EN_WORD}?{_EN_THING}\b",
    ),
    "zh": (
        rf"{_ZH_GIVEN}(?:的|了的|过的){_ZH_STOP}{{0,4}}?{_ZH_THING}",
        rf"(?:基于|根据|依据|依照|按照|参考|使用|利用|用|从|凭|依靠)(?:我们?)?(?:所|刚刚?)?{_ZH_GIVEN}",
        r"(?:基于|根据|依据)(?:附件|以上|上述|上面|下面|这些|前面)",
        rf"(?:这些|那些|以上|上述|上面的|下面的|前面的|所附的?){_ZH_STOP}{{0,4}}?{_ZH_THING}",
        rf"我们?的{_ZH_STOP}{{0,2}}?{_ZH_OWN_THING}",
        rf"我们?(?:刚刚?|已经|之前)?所?{_ZH_GIVEN}(?:的|了)",
        rf"所{_ZH_GIVEN}的",
        r"附件",
        r"(?:仅|只|完全|严格|单纯|纯粹|单)(?:根据|基于|依据|依靠|凭)",
        r"总结(?:一下)?(?:里面|其中|文中|文件中|文档中)的?内容",
    ),
}

# Words that cancel what follows them in their clause.
_NEGATIONS: dict[str, tuple[str, ...]] = {
    "en": (
        r"\b(?:do|does|did|should|must|can|could|would|will)(?:\s+not|n['’]?t)\b",
        r"\b(?:dont|cannot|won['’]?t|never|not|no|none|nothing|without|avoid(?:ing)?)\b",
        r"\b(?:skip(?:ping)?|ignor(?:e|es|ed|ing)|disregard(?:s|ed|ing)?)\b",
        r"\b(?:exclud|omit)(?:e|es|ed|ing)?\b|\brather\s+than\b",
        r"\binstead\s+of\b",
        r"\bleave\s+out\b",
    ),
    "zh": (
        r"不要|不用|不必|不需要?|无需|无须|不基于|不根据|不依据|不使用|不参考|不考虑|不看|不靠",
        r"不仅|不只|不光|不单|不是|并非|而不是|而非|勿|拒绝|排除|忽略|忽视|无视|撇开|抛开|避免",
        r"不得|不能|不可|禁止|不准|不许|去掉|跳过|没有必要",
        r"(?<![分特区类识级告派性差鉴辨个])别",
        r"不(?=联网|上网|搜索|检索|查询|查找)",
    ),
}

# Like a negation, unless the sentence goes on to forbid everything else: "besides the
# provided papers, search the web" is supplementary, "除了提供的材料之外，不要用其他资料"
# is material first.
_BESIDES: dict[str, tuple[str, ...]] = {
    "en": (
        r"\b(?:except(?:\s+for)?|other\s+than|besides|beyond|alongside|apart\s+from|aside\s+from"
        r"|in\s+addition\s+to|as\s+well\s+as|along\s+with|together\s+with|on\s+top\s+of)\b",
    ),
    "zh": (r"除了|除去|除开",),
}

# Right after a phrase, these make the materials secondary: "my notes are just background".
_DEMOTERS_AFTER: dict[str, tuple[str, ...]] = {
    "en": (
        r"^\s*(?:(?:are|is)\s+)?(?:only\s+|just\s+)?(?:as|for)\s+(?:a\s+|some\s+)?(?:background"
        r"|reference|context|supplement(?:ary)?|secondary|starting\s+point|inspiration)\b",
        r"^\s*(?:are|is)\s+(?:just|only)\s+(?:background|context|a\s+reference)\b",
    ),
    "zh": (r"^\s*(?:仅供参考|作为参考|作参考|仅作参考|只是参考|为辅|作为补充|作为背景|之外|以外)",),
}

# What a negation may negate instead of the materials: "don't search the web ...".
_WEB_TARGETS: dict[str, tuple[str, ...]] = {
    "en": (
        r"\b(?:search\w*|web|internet|online|googl\w*|brows\w*)\b",
        r"\blook(?:ing)?\s+(?:it\s+|things\s+|anything\s+)?up\b",
        r"\b(?:external|outside|other|new|more|further|additional)\s+(?:sources|information)\b",
        r"\b(?:anything|nothing)\s+else\b",
    ),
    "zh": (
        r"搜索|检索|(?<!物)联网|上网|网络|网页|网上|互联网|谷歌|百度|查询|查找|去查|搜",
        r"外部|额外|其他(?:来源|资料|材料|信息)|别的(?:来源|资料|材料|信息)",
    ),
}

# Joining the materials to a negated web target keeps them negated: "不要用网络和我的笔记".
_COORDINATORS: dict[str, tuple[str, ...]] = {
    "en": (r"\b(?:or|nor|and|plus|as\s+well\s+as|along\s+with|together\s+with)\b|[/&]",),
    "zh": (r"或者?|还是|和|与|及|以及|跟|同|也|、",),
}

# An explicit request to search as well: the web is wanted, so the run is supplementary.
_WEB_REQUESTS: dict[str, tuple[str, ...]] = {
    "en": (
        r"\b(?:search|searching|browse|browsing|google|googling|check|checking)\b"
        r"(?:\s+[\w-]+){0,3}?\s+(?:the\s+)?(?:web|internet|online|net)\b",
        r"\b(?:web|internet|online)\s+search(?:es|ing)?\b",
        r"\blook\s+(?:it\s+|things\s+)?up\s+online\b",
    ),
    "zh": (
        r"(?<!物)联网|上网|网上(?:搜索|查|检索)|网络(?:搜索|检索)|在线(?:搜索|检索)|补充检索|搜索引擎",
        r"(?:搜索|检索|查找|查询)(?:一下)?(?:网络|网页|互联网|网上|最新)",
    ),
}

# Where a clause ends: punctuation, and words that start a new one.
_HARD_ENDS = r"[,;:.!?，。；：！？\n]|\s[-–—]+\s|——"
_SENTENCE_ENDS = r"[.!?。！？\n]"
_CLAUSE_STARTS: dict[str, tuple[str, ...]] = {
    "en": (
        r"\b(?:but|then|however|yet|instead(?!\s+of)|rather(?!\s+than)|so|though|although)\b",
        r"\band\s+(?=(?:just\s+|only\s+|then\s+)?(?:use|summari[sz]e|rely|draw|work|stick|read"
        r"|cite|answer|write|base|consult|refer|analy[sz]e|compare|review|focus|extract|list"
        r"|describe|explain|draft|build|go|check|tell|give|produce|make|prepare)\b)",
    ),
    "zh": (
        r"(?<!不)但是?|而是|然后|接着|于是|所以",
    ),
}
# "just"/"only" start a clause before a verb ("don't search the web just summarise ..."),
# but not right after a negation ("don't just summarise ...", "不要只根据 ...").
_RESTRICTORS: dict[str, tuple[str, ...]] = {
    "en": (
        r"\b(?:just|only|simply)\s+(?=(?:use|summari[sz]e|rely|draw|work|stick|read|cite"
        r"|answer|write|base|consult|refer|analy[sz]e|compare|review|focus|extract|list|go"
        r"|look\s+at)\b)",
    ),
    "zh": (
        r"(?:只|仅|就|直接)(?=用|使用|总结|根据|基于|依据|参考|看|写|分析|回答|读|概括|整理|归纳|从|对"
        r"|比较|梳理|提炼|引用)",
    ),
}
# Right after a negation these turn it around: "don't forget my notes", "不要忽略提供的材料".
_DOUBLE_NEGATIVES: dict[str, tuple[str, ...]] = {
    "en": (
        r"\s*(?:to\s+)?(?:forget|hesitate|worry|omit|miss|overlook|neglect|skip|leave\s+out"
        r"|fail|ignore|exclude|disregard)\b",
    ),
    "zh": (r"\s*(?:忘|遗漏|漏掉|漏|错过|忽略|忽视|跳过|省略|无视|排除)",),
}


def _compile(table: dict[str, tuple[str, ...]]) -> re.Pattern[str]:
    # ASCII: a Chinese character is no word character, so "papers" ends at "papers写".
    return re.compile("|".join(f"(?:{p})" for lang in ("en", "zh") for p in table[lang]),
                      re.IGNORECASE | re.ASCII)


_MARKER_RE = _compile(_MARKERS)
_NEGATION_RE = _compile(_NEGATIONS)
_BESIDES_RE = _compile(_BESIDES)
_DEMOTER_RE = _compile(_DEMOTERS_AFTER)
_WEB_TARGET_RE = _compile(_WEB_TARGETS)
_COORDINATOR_RE = _compile(_COORDINATORS)
_WEB_REQUEST_RE = _compile(_WEB_REQUESTS)
_CLAUSE_START_RE = _compile(_CLAUSE_STARTS)
_RESTRICTOR_RE = _compile(_RESTRICTORS)
_DOUBLE_RE = _compile(_DOUBLE_NEGATIVES)
_HARD_END_RE = re.compile(_HARD_ENDS)
_SENTENCE_END_RE = re.compile(_SENTENCE_ENDS)
_NEGATION_AT_END_RE = re.compile(f"(?:{_NEGATION_RE.pattern})\\s*$", _NEGATION_RE.flags)


_GIVEN_WORD = re.compile(
    r"\b(?:provided|attached|supplied|uploaded|enclosed|given|shared|included|sent)\b",
    re.IGNORECASE)
# An owner or a pointer before the phrase: "the", "my", "these", "all the" (up to two
# words between: "the two PDFs attached"; not "the size of uploaded files").
_DETERMINED = re.compile(r"^(?:the|my|our|these|those|this|all)\b", re.IGNORECASE)
_DETERMINER_BEFORE = re.compile(
    r"\b(?:the|my|our|these|those|this|all\s+the|your)\s+"
    r"(?:(?!(?:of|in|for|to|on|with|at|by|from|about)\b)[\w-]+\s+){0,2}$",
    re.IGNORECASE)
_OWNER_IN = re.compile(r"\b(?:i|we)\b|\b(?:above|below)\b", re.IGNORECASE)
# "are files provided", "is the data uploaded": the participle is the question's verb.
_PASSIVE_BEFORE = re.compile(
    r"\b(?:is|are|was|were|be|been|being|get|gets|got|getting)\s+"
    r"(?:the\s+|any\s+|all\s+|some\s+|these\s+|those\s+)?$", re.IGNORECASE)
# "... provided to a container", "... uploaded via the API": handed on to something
# else, unless that is the user or the assistant ("the notes sent to you").
_ELSEWHERE_AFTER = re.compile(
    r"^\s+(?:to|into|onto|by|via|through|at|inside|within|during|over|from|in|on)\s+"
    r"(?!(?:me|us|you|my|our|your|here|above|below|earlier|before|this|these)\b)",
    re.IGNORECASE)
_HERE_AFTER = re.compile(r"^\s+(?:here|above|below|earlier|before)\b", re.IGNORECASE)
# Words that make a bare "attached papers" the object of a request: a preposition of
# source ("using provided data", "according to attached notes") anywhere before it, or an
# imperative verb ("summarise attached papers") - a verb only outside a question, since
# "how do I read attached files" asks how to do it.
_SOURCE_CUE = re.compile(
    r"\b(?:using|from|based\s+on|according\s+to|per|only|solely|rely(?:ing)?\s+on"
    r"|draw(?:ing)?\s+on)\b", re.IGNORECASE)
_VERB_CUE = re.compile(
    r"\b(?:use|summari[sz]e|analy[sz]e|review|read|consult|cite|go\s+through|look\s+at"
    r"|compare|write|answer|explain|list)\b", re.IGNORECASE)
_QUESTION_OPENER = re.compile(
    r"^\s*(?:how|where|why|when|what|which|who|whom|whose|can|could|do|does|did|is|are"
    r"|was|were|should|would|will|may|might|must)\b", re.IGNORECASE)


def _incidental(question: _Question, match: re.Match[str]) -> bool:
    """Whether an English "provided/attached/uploaded ..." phrase is ordinary wording of
    a question about something else rather than a pointer to the user's materials; see
    the module docs. Phrases without such a word ("my notes", Chinese) are never."""
    phrase = match.group(0)
    given = _GIVEN_WORD.search(phrase)
    if given is None:
        return False
    text = question.text
    before = text[question.clause_start(match.start()) : match.start()]
    after = text[match.end():]
    determined = bool(_DETERMINED.match(phrase) or _DETERMINER_BEFORE.search(before)
                      or _OWNER_IN.search(phrase) or _HERE_AFTER.match(after))
    participle_last = given.end() == len(phrase)
    if participle_last and not _DETERMINED.match(phrase) and _PASSIVE_BEFORE.search(before):
        return True
    if participle_last and _ELSEWHERE_AFTER.match(after):
        return True
    if determined or _SOURCE_CUE.search(before):
        return False
    return not (_VERB_CUE.search(before) and not _QUESTION_OPENER.match(before))


class _Question:
    """One question cut into clauses, with the negations that still count in each."""

    def __init__(self, text: str) -> None:
        self.text = text
        starts = {0}
        starts.update(m.end() for m in _HARD_END_RE.finditer(text))
        starts.update(m.start() for m in _CLAUSE_START_RE.finditer(text))
        starts.update(
            m.start() for m in _RESTRICTOR_RE.finditer(text)
            if not _NEGATION_AT_END_RE.search(text[max(0, m.start() - 24) : m.start()])
        )
        self.starts = sorted(starts)
        self.sentence_starts = [0] + [m.end() for m in _SENTENCE_END_RE.finditer(text)]
        self.negations = self._live_negations()
        self.negation_starts = [start for start, _, _ in self.negations]
        self.web_targets = [(m.start(), m.end()) for m in _WEB_TARGET_RE.finditer(text)]
        self.coordinators = [m.start() for m in _COORDINATOR_RE.finditer(text)]

    def _live_negations(self) -> list[tuple[int, int, bool]]:
        """(start, end, besides) of each negation not turned around by the next word."""
        found = [(m.start(), m.end(), False) for m in _NEGATION_RE.finditer(self.text)]
        found += [(m.start(), m.end(), True) for m in _BESIDES_RE.finditer(self.text)]
        found.sort()
        cancelled: set[int] = set()
        for start, end, _ in found:
            double = _DOUBLE_RE.match(self.text, end)
            if double and start not in cancelled:
                cancelled.add(start)
                cancelled.update(s for s, _, _ in found if end <= s < double.end())
        return [item for item in found if item[0] not in cancelled]

    def clause_start(self, pos: int) -> int:
        return self.starts[bisect_right(self.starts, pos) - 1]

    def _sentence(self, pos: int) -> tuple[int, int]:
        index = bisect_right(self.sentence_starts, pos)
        begin = self.sentence_starts[index - 1]
        end = _SENTENCE_END_RE.search(self.text, pos)
        return begin, end.start() if end else len(self.text)

    def _negations_in(self, begin: int, end: int) -> list[tuple[int, int, bool]]:
        low = bisect_left(self.negation_starts, begin)
        return self.negations[low : bisect_left(self.negation_starts, end)]

    def negated(self, start: int, *, scoped: bool) -> bool:
        """Whether a live negation earlier in ``start``'s clause reaches ``start``.

        ``scoped``: a negation whose object is searching (a web target with no "or"/"和"
        joining it to what follows) does not reach past it. A negation does not reach
        past a "besides" phrase either: "don't use anything except my notes" means only
        them, and "besides X" with a negation anywhere in its sentence is exclusive too.
        """
        # Nearest first: the answer is the same, and the gaps to scan stay short.
        for _, neg_end, besides in reversed(self._negations_in(self.clause_start(start), start)):
            if besides:
                if self._has_plain_negation(*self._sentence(start)):
                    continue
            elif self._besides_between(neg_end, start) or (
                scoped and self._negates_search(neg_end, start)
            ):
                continue
            return True
        return False

    def _besides_between(self, begin: int, end: int) -> bool:
        return any(besides for _, _, besides in self._negations_in(begin, end))

    def _has_plain_negation(self, begin: int, end: int) -> bool:
        return any(not besides for _, _, besides in self._negations_in(begin, end))

    def _negates_search(self, neg_end: int, start: int) -> bool:
        # The last web target between the negation and ``start``, with no "or"/"和" after it.
        index = bisect_right(self.web_targets, (start, start)) - 1
        while index >= 0 and self.web_targets[index][1] > start:
            index -= 1
        if index < 0 or self.web_targets[index][0] < neg_end:
            return False
        after = bisect_left(self.coordinators, self.web_targets[index][1])
        return after == len(self.coordinators) or self.coordinators[after] >= start

    def demoted(self, end: int) -> bool:
        stop = _HARD_END_RE.search(self.text, end)
        after = self.text[end : stop.end() if stop else len(self.text)]
        if not _DEMOTER_RE.search(after):
            return False
        return not self._has_plain_negation(end, self._sentence(end)[1])


def is_material_first(text: str) -> bool:
    """Whether ``text`` explicitly asks to build on the provided materials.

    True when a phrase of the tables (English or Chinese) is not negated in its clause,
    not demoted ("as background", "仅供参考"), and the question does not also ask, un-
    negated, to search the web.
    """
    if not text:
        return False
    question = _Question(text)
    for request in _WEB_REQUEST_RE.finditer(text):
        if not question.negated(request.start(), scoped=False):
            return False
    return any(
        not question.negated(m.start(), scoped=True) and not question.demoted(m.end())
        and not _incidental(question, m)
        for m in _MARKER_RE.finditer(text)
    )


def usage_mode(question: str, has_materials: bool) -> UsageMode:
    """``none`` without materials, ``required`` when the question asks for material
    first (:func:`is_material_first`), else ``supplementary``."""
    if not has_materials:
        return "none"
    return "required" if is_material_first(question) else "supplementary"
