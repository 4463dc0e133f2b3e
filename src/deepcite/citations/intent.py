"""What a non-factual question asks for, and whether a sentence gives it.

Shared words alone rank a topic's introduction first: for "How do I read a CSV file?"
the module's opening sentence ("This module provides classes that assist in the
reading and writing of CSV files") holds every word of the question and says nothing
about how. A person looks for something else in each kind of question:

- **how-to** ("How do I ...", "How can I ...", "How to ...", 如何/怎么, どうやって):
  an instruction - an imperative ("Use ...", "Call ..."), "you can ...", "... can be
  used to ...", or a named function, method, option or command to use;
- **reason** ("Why ...", "What is the reason ...", 为什么, なぜ): a cause or purpose -
  "because", "so that", "to avoid", "this means";
- **definition** ("What is X?", "What does X mean?", 什么是, とは): a sentence saying
  what X is - "X is a ...", "X refers to ...".

:func:`question_intent` tells which one a question is (:attr:`Intent.OTHER` for
anything else, factual questions included: :mod:`deepcite.citations.answer_type`
handles those), and :func:`gives` whether a sentence holds what that intent asks for.
Ranking (:func:`deepcite.citations.sentence_ranking.rank_sentences`) raises a sentence that
does, so among the sentences about the question the one that answers it comes first.
The cues are patterns of the language, not of any corpus; Chinese and Japanese have
their own.
"""

from __future__ import annotations

import enum
import re


class Intent(enum.Enum):
    """What a question asks for beyond a short fact."""

    HOWTO = "how-to"
    REASON = "reason"
    DEFINITION = "definition"
    OTHER = "other"


#: Verbs a request opens with ("read a csv file", "parse a date string"): a how-to
#: question written as an imperative. Not "define"/"explain"/"list": those ask for a
#: definition or facts.
_ACTIONS = (r"(?:read|write|open|close|create|make|build|parse|convert|load|save|copy"
            r"|move|delete|remove|rename|split|join|merge|sort|filter|find|search|get"
            r"|set\s+up|install|configure|run|start|stop|send|receive|download|upload"
            r"|encode|decode|encrypt|decrypt|compress|extract|format|print|check|compare"
            r"|generate|serialize|deserialize|iterate|loop|wrap|replace|round|measure"
            r"|schedule|connect|import|export|append|insert|update|hash|count|shuffle"
            r"|pick|choose|capitalise|capitalize|strip|trim|pad|reverse|flatten|zip"
            r"|unzip|archive|log|debug|test|mock|validate|escape|quote|unquote)")
_HOWTO_QUESTION = re.compile(
    r"^\s*(?:how\s+(?:do|can|could|should|would|might|may|shall)\s+(?:i|you|we|one|they)\b"
    r"|how\s+to\b|how\s+(?:is|are)\s+\w+(?:\s+\w+)?\s+(?:done|made|created|configured"
    r"|installed|set)\b|what(?:'s|\s+is)\s+the\s+(?:best|right|recommended|easiest|proper"
    r"|correct|preferred)\s+way\b|is\s+there\s+(?:a|any)\s+way\b|in\s+what\s+way\b"
    r"|what\s+(?:steps|command)\b"
    r"|(?:please\s+)?" + _ACTIONS + r"\s+(?:an?|the|my|some|all|every|each|this|these)?\s*\w"
    r"(?![^?]*\?\s*$))"
    r"|如何|怎么|怎样|怎麼|方法|步骤|どうやって|どのように|どうすれば|方法は",
    re.IGNORECASE)
_REASON_QUESTION = re.compile(
    r"^\s*(?:why\b|how\s+come\b|what\s+(?:is|was|are)\s+the\s+(?:reason|cause|purpose"
    r"|point|motivation|rationale)\b|what\s+causes\b|for\s+what\s+reason\b)|\bwhy\b"
    r"|为什么|为何|為什麼|原因|なぜ|どうして|理由",
    re.IGNORECASE)
_DEFINITION_QUESTION = re.compile(
    r"^\s*(?:what\s+(?:is|are)\s+(?:an?\s+|the\s+)?(?P<subject>[^?]{1,60})\?*\s*$"
    r"|what\s+does\s+.+\s+mean\b|define\b|what\s+is\s+meant\s+by\b)"
    r"|什么是|是什么|何ですか|とは",
    re.IGNORECASE)
#: A what-is question that asks for a fact, not a definition ("What is the default
#: port?", "What is the capital of ...").
_FACT_WORDS = re.compile(r"\b(?:default|value|number|name|size|limit|maximum|minimum"
                         r"|capital|population|date|year|price|cost|age|length|largest"
                         r"|smallest|first|last|best|difference|example|examples"
                         r"|instance)\b", re.IGNORECASE)

_INSTRUCTION = re.compile(
    r"^\s*(?:to\s+\w+[^,]{0,80},\s*)?(?:use|call|pass|set|run|open|create|import|install"
    r"|add|write|read|type|enter|select|click|choose|define|specify|configure|enable"
    r"|disable|check|make|give|put|start|stop|apply|replace|remove|delete|copy|move"
    r"|wrap|subclass|override|register|instantiate|invoke|execute|load|save)\b"
    r"|\b(?:you\s+(?:can|could|should|must|need\s+to|may|have\s+to)|can\s+be\s+used\s+to"
    r"|is\s+used\s+to|are\s+used\s+to|allows?\s+you\s+to|lets?\s+you|enables?\s+you"
    r"|by\s+(?:calling|using|passing|setting|running|adding)|the\s+(?:easiest|simplest"
    r"|best|recommended|usual|standard)\s+way|in\s+order\s+to|make\s+sure"
    r"|is\s+done\s+(?:by|with))\b"
    r"|使用|调用|运行|设置|执行|输入|可以通过|可以用|请|を使|を実行|を設定|してください|できます"
    # a step a person takes with their hands or a phone: press, tap, dial, sign in
    r"|长按|按住|按下|点击|点按|拨打|致电|登录|登入|扫码|扫描|拧开|拧下|取出|拔下|插入|首先|然后",
    re.IGNORECASE)
#: A named thing to use: ``func()``, ``module.attr``, ``--option``, a code span.
CODE_NAME = re.compile(r"\w\(\)|\b[a-z_]\w*\.[a-z_]\w*\b|(?<!\w)--?[a-z][\w-]+|`[^`]+`"
                        r"|\b[a-z]+_[a-z_]+\b")
_REASON = re.compile(
    r"\b(?:because|since|so\s+that|in\s+order\s+to|the\s+reason|due\s+to|owing\s+to"
    r"|as\s+a\s+result|therefore|thus|hence|consequently|otherwise|to\s+avoid"
    r"|to\s+prevent|to\s+ensure|this\s+means|which\s+means|that\s+means|so\s+as\s+to"
    r"|caused\s+by|results?\s+in|leads?\s+to|the\s+purpose|is\s+designed\s+to|intended"
    r"\s+to|would\s+otherwise|the\s+cost\s+of|at\s+the\s+expense)\b"
    r"|因为|由于|所以|为了|因此|导致|以便|以免|ため|ので|から|によって|防ぐ",
    re.IGNORECASE)
_DEFINES = re.compile(
    r"\b(?:is|are|was|were)\s+(?:an?|the|one\s+of|any|some)\b|\brefers?\s+to\b"
    r"|\bmeans\b|\bis\s+defined\s+as\b|\bis\s+called\b|\bdescribes?\b|\brepresents?\b"
    r"|是一种|是一个|是指|指的是|とは|である|のことです",
    re.IGNORECASE)


#: A sentence that warns against a way of doing it ("parsing lines ... with something
#: like line.split(",") is bound to fail", "do not use ...", "is deprecated"): it names
#: code, but what not to do is no answer to how to do it.
_WARNS = re.compile(
    r"\b(?:bound\s+to\s+fail|(?:will|would|may|might|can|could)\s+(?:fail|break"
    r"|not\s+work)|does\s+not\s+work|doesn't\s+work|(?:is|are)\s+(?:not\s+recommended"
    r"|discouraged|deprecated|unsafe|insecure|not\s+safe)|should\s+(?:not|never)"
    r"|shouldn't|must\s+not|mustn't|(?:do\s+not|don't|never)\s+(?:use|call|pass|rely)"
    r"|not\s+(?:be\s+)?used\s+(?:to|for|with))\b",
    re.IGNORECASE)
#: What may stand between a how-to opening and the action it asks for ("How do I
#: *quickly* read ...", "What is the best way *to* read ...").
_BEFORE_ACTION = frozenset({"to", "i", "you", "we", "one", "they", "please", "quickly",
                            "easily", "properly", "correctly", "best", "simply", "just",
                            "actually", "also", "then", "first", "safely", "efficiently"})
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def action(question: str) -> str:
    """The word a how-to question asks how to do, as written, lower case: "read" for
    "How do I read a CSV file?" or "read a csv file"; empty when it names none.

    An API is named after what it does (``csv.reader``, ``os.listdir``,
    ``shutil.copyfile``): the action is what an example or signature shown with a
    sentence must do to answer the question
    (:func:`deepcite.citations.sentence_ranking.rank_sentences`)."""
    match = _HOWTO_QUESTION.search(question)
    if match is None:
        return ""
    # an imperative's match is its verb and the start of what follows
    imperative = _IMPERATIVE.match(match.group(0)) is not None
    rest = question[match.start() if imperative else match.end():]
    for found in _WORD.finditer(rest):  # a CJK question's action is no Latin word
        word = found.group(0).lower()
        if word not in _BEFORE_ACTION:
            return word
    return ""


_IMPERATIVE = re.compile(r"\s*(?:please\s+)?" + _ACTIONS + r"\b", re.IGNORECASE)


def warns(sentence: str) -> bool:
    """Whether ``sentence`` warns against a way of doing something (see
    :data:`_WARNS`): it names code without saying how to do it."""
    return _WARNS.search(sentence) is not None


def question_intent(question: str) -> Intent:
    """What ``question`` asks for: an instruction, a reason, a definition or other."""
    if _REASON_QUESTION.search(question):
        return Intent.REASON
    if _HOWTO_QUESTION.search(question):
        return Intent.HOWTO
    match = _DEFINITION_QUESTION.search(question)
    if match and not _FACT_WORDS.search(match.group("subject") or ""):
        return Intent.DEFINITION
    return Intent.OTHER


def gives(intent: Intent, sentence: str) -> bool:
    """Whether ``sentence`` holds what a question of ``intent`` asks for (see the module
    docs); always ``False`` for :attr:`Intent.OTHER`."""
    if intent is Intent.HOWTO:
        return not warns(sentence) and bool(_INSTRUCTION.search(sentence)
                                            or CODE_NAME.search(sentence))
    if intent is Intent.REASON:
        return _REASON.search(sentence) is not None
    if intent is Intent.DEFINITION:
        return _DEFINES.search(sentence[:160]) is not None
    return False


__all__ = ["CODE_NAME", "Intent", "action", "gives", "question_intent", "warns"]
