"""The writer's own comment a claim ends with: a clause after a comma, opening with
"which", "so", "since" ..., that speaks of the writer ("we", "us", "our", "I") -
"Incremental backups only work against Postgres, which is fine for us since we have
no MySQL left" - or of the reader the writer addresses ("you", "your": "..., which
sounds like what you want", "..., so your cron job can override it"). No source states
the writer's or the reader's situation: the claim is what comes before it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from deepcite.factcheck.values import extract_values

__all__ = ["without_comment", "writer_comment"]

_COMMENT = re.compile(
    r",\s+(?:which|so|since|because|as|meaning|so\s+that|though|although)\b(?P<rest>[^;:]*)$",
    re.IGNORECASE)
# (not a word of a path or a name in code: "/posts/my-title/", "my-site")
_WRITER = re.compile(r"(?<![/\w-])(?:we|us|our|ours|I|me|my)\b(?![/-])")
_READER = re.compile(r"\b(?:you|your|yours)\b", re.IGNORECASE)


# a judgement of what was just said: ", which is brutal", ", which seems a bit steep" -
# words of how the writer finds it, which no source states
_JUDGEMENT = re.compile(
    r"^\s*(?:is|was|seems|sounds|feels|looks)\s+(?:(?:a|an)\s+)?"
    r"(?:(?:bit|little|lot|pretty|really|quite|very|rather|so|too|fairly|kind\s+of|sort\s+of|"
    r"somewhat|super|honestly|frankly|just|absolutely|totally)\s+)*"
    r"(?:brutal|great|handy|annoying|nice|useful|convenient|painful|awkward|lovely|perfect|"
    r"ideal|helpful|frustrating|ridiculous|crazy|silly|harsh|generous|reasonable|fair|steep|"
    r"pricey|amazing|awesome|fantastic|brilliant|excellent|terrible|awful|horrible|"
    r"unfortunate|shame|pity|relief|bonus|plus|win|nightmare|hassle|pain|bargain|"
    r"impressive|disappointing|weird|odd|strange|funny|cool|neat|smart|clever|sensible|"
    r"tight|tough|rough|early|ungodly|insane|wild|decent|okay|ok|fine|good|bad|"
    r"welcome|worrying|surprising|unusual|overkill|plenty|enough)\b",
    re.IGNORECASE)
# "which is a minute", "which was 30 days": the value of the thing before it
_STATES_VALUE = re.compile(r"^\s*(?:is|are|was|were)\s+(?:now\s+|still\s+|only\s+|just\s+)?"
                           r"(?:an?\s+|\d|one|two|three|four|five|six|seven|eight|nine|ten|"
                           r"twelve|twenty|thirty|forty|fifty|sixty|ninety|hundred|half)",
                           re.IGNORECASE)
# a name inside the comment: a capitalised word not all in capitals ("Lena", not "CI")
_NAME = re.compile(r"\b[A-Z][a-z]+\b")


def writer_comment(text: str, unknown: Callable[[str], bool] | None = None) -> int | None:
    """Where the writer's comment ``text`` ends with starts (its comma), or None. With
    ``unknown``, a comment naming someone it says no source names ("so Tomasz won't
    need WSL", "which Lena wants for the dashboard": the writer's colleagues) is the
    writer's too."""
    match = _COMMENT.search(text)
    if match is None:
        return None
    rest = match.group("rest")
    if match.group(0)[1:].lstrip().lower().startswith("which") and _JUDGEMENT.match(rest) \
            and not any(char.isdigit() for char in rest):
        return match.start()  # how the writer finds it: "..., which is brutal"
    if match.group(0)[1:].lstrip().lower().startswith("which") and _STATES_VALUE.match(rest) \
            and extract_values(rest):
        # "..., which is a minute unless you change it": the value of what it follows,
        # told to the reader - a fact, no comment
        return None
    if not _WRITER.search(rest) and not _READER.search(rest) and (unknown is None or not any(
            unknown(name.group(0)) for name in _NAME.finditer(rest))):
        return None
    if _WRITER.search(text[:match.start()]):
        # a claim about the writer ("I pay ..., so I ...") is theirs throughout (one
        # about "you" - "Anything you tag is kept, which is what you want" - is a
        # rule of the tool's, said to its reader)
        return None
    return match.start()


# a remark after a dash on what was just said: "- that catches a lot of people out",
# "- which is handy" (no number: "- that is 40 pounds" restates a value)
_DASH_REMARK = re.compile(r"\s+[\u2014\u2013-]{1,2}\s+(?:that|which|this)\b[^\d\u2014\u2013]*$",
                          re.IGNORECASE)


def without_comment(text: str, unknown: Callable[[str], bool] | None = None) -> str:
    """``text`` without the writer's comment it ends with (its full stop kept)."""
    remark = _DASH_REMARK.search(text)
    if remark is not None and remark.start() > 0:
        text = _cut(text, remark.start())
    at = writer_comment(text, unknown)
    return text if at is None else _cut(text, at)


def _cut(text: str, at: int) -> str:
    """``text`` up to ``at``, with the full stop it ends with."""
    end = text.rstrip()[-1:]
    return text[:at] + (end if end in ".!?" else "")
