"""Polarity: what a negation in a text denies ("does not use a camera"), and pairs of
opposites ("enabled"/"disabled", "rose"/"fell") of which a source saying one
contradicts a claim saying the other.
"""

from __future__ import annotations

import re
from collections.abc import Set

from deepcite.text.stopwords import STOPWORDS

__all__ = ["FALLING", "KEEPING", "NOT_NEGATION", "OPPOSITES", "RISING", "denied", "negated",
           "opposites"]

_NEGATION = re.compile(
    r"\b(?:not|never|no|none|nobody|nothing|cannot|without|neither|nor)\b|n[\u2019']t\b|"
    r"不|没有|沒有|未|無|无|ない|ません|않|없|못", re.IGNORECASE)
# "no more than 30 days" bounds a value; it does not deny anything.
NOT_NEGATION = re.compile(
    r"\b(?:no|not) (?:more|less|later|earlier|longer|fewer|greater|sooner|only)\b|"
    r"\bnot just\b|\bno matter\b|\bnot until\b|"
    # "no limit on entry" says "unlimited entry": no denial of the entry
    r"\bno (?:upper )?limit\b|\bwithout (?:any )?limits?\b|"
    # "costs nothing", "pay nothing": a price of nothing, which the values compare
    r"\b(?:costs?|costing|charges?|pays?|paying)\s+(?:you\s+)?nothing\b|"
    # "if you don't set a quality": a condition (the default), which asserts no denial
    r"\b(?:if|when)\s+(?:you|they|one|users?)\s+(?:do\s+not|don[\u2019']t|does\s+not|"
    r"doesn[\u2019']t)\s+(?=(?:set|specify|choose|pick|give|pass|select|configure|change)\b)|"
    # "as long as nobody else has reserved them", "provided no one objects": a
    # condition that something does not happen, which "unless another member has
    # reserved it" states too; no denial of what the claim says
    r"\b(?:as|so)\s+long\s+as\s+(?:nobody|no\s+one|no-one|nothing|none)\b|"
    r"\bprovided(?:\s+that)?\s+(?:nobody|no\s+one|no-one|nothing|none)\b|"
    # "If you don't check in within 15 minutes, they give the room away": what
    # happens when the reader does not act, against "You must check in ... If you do
    # not, the room is released"; the condition denies nothing the source states
    r"^\W*(?:if|when|unless)\s+(?:you|they|users?|members?|guests?|customers?|"
    r"someone|anyone)\s+(?:do\s+not|don[\u2019']t|does\s+not|doesn[\u2019']t|"
    r"did\s+not|didn[\u2019']t|fail\s+to|can\s*not|can[\u2019']t)\b",
    re.IGNORECASE | re.MULTILINE)
#: Keeping something against taking it away ("keeps the EXIF data" against "strips all
#: metadata"): verbs whose object, not the word next to them, is what they qualify.
KEEPING: tuple[tuple[str, str], ...] = (
    ("keep", "strip"), ("keeps", "strips"), ("kept", "stripped"), ("keep", "remove"),
    ("keeps", "removes"), ("kept", "removed"), ("keep", "discard"), ("keeps", "discards"),
    ("kept", "discarded"), ("retain", "strip"), ("retains", "strips"),
    ("retained", "stripped"), ("preserve", "strip"), ("preserves", "strips"),
    ("preserved", "stripped"), ("keeps", "deletes"), ("kept", "deleted"),
)
#: Pairs of words of which a source saying one contradicts a claim saying the other.
OPPOSITES: tuple[tuple[str, str], ...] = (
    ("enabled", "disabled"), ("enable", "disable"), ("allowed", "forbidden"),
    ("allowed", "banned"), ("permitted", "banned"), ("permitted", "forbidden"),
    ("permitted", "prohibited"), ("legal", "illegal"), ("lawful", "unlawful"),
    ("increasing", "decreasing"), ("growing", "shrinking"), ("grew", "shrank"),
    ("alive", "dead"), ("present", "absent"), ("winner", "loser"),
    ("allowed", "prohibited"), ("allow", "forbid"), ("allow", "prohibit"),
    ("increase", "decrease"), ("increased", "decreased"), ("increases", "decreases"),
    ("rise", "fall"), ("rose", "fell"), ("before", "after"), ("before", "following"),
    ("previous", "following"), ("previous", "next"), ("earlier", "later"), ("more", "fewer"),
    ("more", "less"), ("higher", "lower"), ("larger", "smaller"), ("bigger", "smaller"),
    ("faster", "slower"), ("longer", "shorter"), ("required", "optional"),
    ("mandatory", "optional"), ("public", "private"), ("always", "never"),
    ("included", "excluded"), ("include", "exclude"), ("open", "closed"),
    ("accept", "reject"), ("accepted", "rejected"), ("accepts", "rejects"),
    ("minimum", "maximum"), ("first", "last"), ("earliest", "latest"), ("most", "least"),
    ("primary", "secondary"), ("best", "worst"),
    ("synchronous", "asynchronous"), ("online", "offline"), ("internal", "external"),
    ("success", "failure"), ("succeeded", "failed"), ("true", "false"), ("on", "off"),
    ("win", "lose"), ("won", "lost"), ("gain", "loss"), ("profit", "loss"),
    ("above", "below"), ("over", "under"), ("inside", "outside"), ("encrypted",
    "unencrypted"), ("supported", "unsupported"), ("available", "unavailable"),
    ("free", "paid"), ("cheaper", "costlier"), ("easier", "harder"), ("north", "south"),
    ("east", "west"), ("weekly", "monthly"), ("daily", "weekly"), ("monthly", "yearly"),
    ("monthly", "annually"), ("daily", "monthly"), ("hourly", "daily"),
    ("free", "pay"), ("free", "pays"),
    # "goes ahead", "went ahead": what is cancelled does not
    ("cancelled", "ahead"), ("canceled", "ahead"), ("cancel", "ahead"),
    *KEEPING,
)
# Prefixes that make a word its own opposite: "clockwise"/"anticlockwise",
# "locked"/"unlocked", "direct"/"indirect". The short ones ("in", "dis") only on longer
# words, so that "come"/"income" or "count"/"discount" are never taken for a pair.
_NEGATING_PREFIXES: tuple[tuple[str, int], ...] = (
    ("anti", 4), ("un", 4), ("non-", 4), ("non", 4), ("dis", 6), ("in", 6), ("im", 6),
    ("il", 6), ("ir", 6))


def _prefixed(word: str, other: str) -> bool:
    """Whether ``other`` is ``word`` with a negating prefix ("anticlockwise")."""
    return any(other == prefix + word and len(word) >= shortest
               for prefix, shortest in _NEGATING_PREFIXES)


# "modelled on Guarneri rather than Stradivari" denies Stradivari as "not" would.
_INSTEAD = re.compile(r"\b(?:rather than|instead of|in place of)\b", re.IGNORECASE)


def negated(text: str) -> bool:
    """Whether ``text`` denies something ("not", "never", "n't", "rather than", "没有"
    ...), bounds like "no more than" aside."""
    return _NEGATION.search(NOT_NEGATION.sub(" ", _INSTEAD.sub(" not ", text))) is not None


_NEGATION_WORD = re.compile(
    r"(?:not|never|no|none|nobody|nothing|cannot|without|neither|nor|\w+n[\u2019']t)",
    re.IGNORECASE)
_CJK_NEGATION = re.compile(r"不|没有|沒有|未|無|无|ない|ません|않|없|못")
_PIECE = re.compile(r"[^,;:.!?\u3002\uff0c\uff1b\uff1a()]+")
_PIECE_WORD = re.compile(r"[\w'\u2019-]+")
# how often a thing is done: "does not rebuild twice" still rebuilds
_REPEATED = re.compile(r"twice|thrice|again|repeatedly", re.IGNORECASE)
#: How many content words after a negation it governs ("does not use a camera"; "none
#: are sold at the door" reaches "door": the small words between do not count) ...
DENIAL_REACH = 4
#: ... within this many words in all.
DENIAL_SPAN = 8


# "Cash is not accepted", "Dogs aren't allowed inside", "Refunds are not available": a
# denial of permission or offer whose subject is what it denies (the words after the
# negation name only where: "at any office")
_DENIED_SUBJECT = re.compile(
    r"(?P<subject>[\w'\u2019-]+(?:\s+[\w'\u2019-]+){0,3}?)\s+(?:is|are|was|were|will|can|"
    r"may|must|shall)(?:\s+not|n[\u2019']t)\s+(?:be\s+)?(?:(?:normally|usually|currently|"
    r"generally)\s+)?(?:accepted|allowed|permitted|available|offered|provided|sold|"
    r"refunded|refundable|included|possible|supported|served)\b|"
    r"(?P<short>[\w'\u2019-]+(?:\s+[\w'\u2019-]+){0,3}?)\s+(?:isn[\u2019']t|aren[\u2019']t|"
    r"won[\u2019']t\s+be|can[\u2019']t\s+be|cannot\s+be)\s+(?:accepted|allowed|permitted|"
    r"available|offered|provided|sold|refunded|included|possible|supported|served)\b",
    re.IGNORECASE)


def _denied_subject(piece: str) -> str:
    """The subject of a denial of permission or offer in ``piece`` (``"Cash"`` of "Cash
    is not accepted at any office"), its last content words; else ""."""
    match = _DENIED_SUBJECT.search(piece)
    if match is None:
        return ""
    words = (match.group("subject") or match.group("short")).split()
    content = [w for w in words if w.lower() not in STOPWORDS]
    return " ".join(content[-2:])


def denied(text: str, *, subjects: bool = True) -> list[str]:
    """What each negation of ``text`` denies: the words after it within its clause
    ("use a camera" of "does not use a camera, so ..."), :data:`DENIAL_REACH` content
    words of them, the small words between not counted ("may not be brought into the
    laboratory" denies "laboratory"); bounds such as "no more than" are no negation.
    ``subjects``: a denial of permission or offer denies its subject too ("Cash is not
    accepted" denies cash)."""
    found: list[str] = []
    for piece in _PIECE.findall(NOT_NEGATION.sub(" ", _INSTEAD.sub(" not ", text))):
        words = _PIECE_WORD.findall(piece)
        for index, word in enumerate(words):
            if _NEGATION_WORD.fullmatch(word):
                after = words[index + 1:index + 1 + DENIAL_SPAN]
                if len(after) >= 2 and _REPEATED.fullmatch(after[1]):
                    # "no longer rebuilds twice": the repetition is denied, not the verb
                    after = after[1:]
                subject = _denied_subject(piece) if subjects else ""
                found.append(" ".join([subject, *_reach(after)]) if subject
                             else " ".join(_reach(after)))
        for match in _CJK_NEGATION.finditer(piece):
            found.append(piece[match.end():match.end() + DENIAL_REACH])
    return found


def _reach(words: list[str]) -> list[str]:
    """The first words of ``words`` up to the :data:`DENIAL_REACH`-th that is not a
    stopword."""
    content = 0
    for index, word in enumerate(words):
        content += word.lower() not in STOPWORDS
        if content == DENIAL_REACH:
            return words[:index + 1]
    return words


#: Words of going up and of going down: any of one against any of the other opposes.
RISING = frozenset("""increase increased increases increasing rise rises rose risen rising
    grew grow grows growing gained gain gains climbed climb climbs jumped jump jumps
    soared improved improve improves expanded expand expands""".split())  # noqa: SIM905
FALLING = frozenset("""decrease decreased decreases decreasing fall falls fell fallen
    falling declined decline declines declining dropped drop drops shrank shrink shrinks
    slumped worsened worsen reduced reduce reduces contracted""".split())  # noqa: SIM905


def opposites(claim_words: Set[str], other_words: Set[str]) -> tuple[str, str] | None:
    """A pair of opposites the two texts take sides on (the claim's word first), or None."""
    for ups, downs in ((RISING, FALLING), (FALLING, RISING)):
        rising = sorted(claim_words & ups)
        falling = sorted(other_words & downs)
        if rising and falling and not claim_words & downs and not other_words & ups:
            return rising[0], falling[0]
    for one, two in OPPOSITES:
        for mine, theirs in ((one, two), (two, one)):
            if mine in claim_words and theirs in other_words and theirs not in claim_words \
                    and mine not in other_words:
                return mine, theirs
    for mine in sorted(claim_words - other_words):
        for theirs in sorted(other_words - claim_words):
            if _prefixed(mine, theirs) or _prefixed(theirs, mine):
                return mine, theirs
    return None
