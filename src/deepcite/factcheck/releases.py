"""The release a changelog's heading scopes its items to: "## 2.1 (3 June 2024)" then
"- AVIF output." says AVIF output came in 2.1, though the item names no version.

A claim tying a change to a version ("AVIF output has been available since version
1.8", "Version 2.0 stopped shipping 32-bit builds") is judged against the item saying
the same change and the release heading above it: the same release states the claim's
version, another contradicts it ("draft: version 1.8; source: 2.1 (3 June 2024)").
"""

from __future__ import annotations

import re

from deepcite.factcheck.judgement import Conflict, Judgement, quote_of_sentence
from deepcite.factcheck.passages import Pool, Sentence, share_said, values_of
from deepcite.factcheck.terms import terms_of
from deepcite.factcheck.value import Value
from deepcite.factcheck.versions import of_platform

__all__ = ["RELEASE_FOUND", "claim_release", "release_heading", "release_item",
           "release_scope", "released", "same_release"]

#: The share of the claim's words (its version's aside) an item under a release heading
#: must say to be the change the claim speaks of.
RELEASE_FOUND = 0.75
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(?P<title>[^\n]*?)[ \t#]*$", re.MULTILINE)
# A heading naming a release first: "2.1 (3 June 2024)", "[2.1.0] - 2024-06-03",
# "v2.1", "Version 2.1", "Release 2.1.0 - ..."
_RELEASE = re.compile(r"\[?(?:v|(?:version|release)\s+)?(?P<version>\d+(?:\.\d+){1,3})\]?"
                      r"(?=$|[\s(:,\u2013\u2014-])", re.IGNORECASE)
_VERSION_WORDS = frozenset({"version", "release"})
# The words of a version and of a change arriving or leaving: what ties the change to
# a release, which the heading says, not the change itself.
_RELEASE_TERMS = terms_of("""version versions release releases released since onwards
    from available availability added adds introduced introduces new first came come
    arrived arrives shipped ships shipping launched supported support stopped stops
    dropped drops removed removes provided provides offered offers began begins""")


def _key(version: str) -> str:
    """A version as compared: "2.0" and "2" and "2.0.0" are one release."""
    parts = version.lstrip("vV").split(".")
    while len(parts) > 1 and parts[-1].strip("0") == "":
        parts.pop()
    return ".".join(parts)


def release_heading(text: str, start: int) -> tuple[str, str] | None:
    """The release (its key and heading title) of the heading standing over the place
    ``start`` of a passage's ``text``, or None when the nearest heading above names no
    release first (or ``start`` is on the heading's own line)."""
    heading = None
    for match in _HEADING.finditer(text, 0, start):
        heading = match
    if heading is None or heading.end() >= start:
        return None
    title = heading.group("title").strip()
    found = _RELEASE.match(title)
    return (_key(found.group("version")), title) if found is not None else None


def claim_release(text: str) -> Value | None:
    """The one product version a claim states ("since version 1.8", "Version 2.0 came
    out"), not a platform's ("macOS from version 12"); None with none or several."""
    found = [v for v in values_of(text)
             if v.kind == "version" or (v.kind == "number" and v.before in _VERSION_WORDS)]
    found = [v for v in found if of_platform(text, v).before in _VERSION_WORDS
             or (v.kind == "version" and not v.before)]
    return found[0] if len(found) == 1 else None


def release_item(text: str, version: Value, claim_terms: frozenset[str],
                 pool: Pool) -> tuple[Sentence, str, str] | None:
    """The item under a release heading saying most of the claim's words (its version
    aside), with that release's key and heading: the change the claim ties to a
    version. None when none says :data:`RELEASE_FOUND` of them, or two releases' items
    say them equally."""
    words = claim_terms - terms_of(version.text) - _RELEASE_TERMS
    if not words:
        return None
    best: list[tuple[float, Sentence, str, str]] = []
    for sentence in pool.sentences:
        if not words & sentence.terms or any(
                v.kind == "version" or v.before in _VERSION_WORDS
                for v in values_of(sentence.text)):
            continue  # an item naming a version of its own says which itself
        release = release_heading(pool.texts[sentence.passage], sentence.start)
        if release is None:
            continue
        score = share_said(words, frozenset(), sentence, pool)
        if score >= RELEASE_FOUND:
            best.append((score, sentence, *release))
    if not best:
        return None
    best.sort(key=lambda item: -item[0])
    top = best[0]
    if any(other[0] == top[0] and other[2] != top[2] for other in best[1:]):
        return None
    return top[1], top[2], top[3]


def same_release(version: Value, key: str) -> bool:
    """Whether the claim's version is the release ``key``."""
    return _key(version.key) == key or _key(version.text) == key


def release_scope(text: str, claim_terms: frozenset[str],
                  pool: Pool) -> tuple[Value, Sentence, str, bool] | None:
    """The claim's version, the changelog item saying its change, that item's release
    heading, and whether the two are one release; None when the claim states no one
    version or no item says its change."""
    version = claim_release(text)
    if version is None:
        return None
    item = release_item(text, version, claim_terms, pool)
    if item is None:
        return None
    return version, item[0], item[2], same_release(version, item[1])


def released(text: str, claim_terms: frozenset[str], pool: Pool) -> Judgement | None:
    """The claim's change under another release's heading: contradicted (the claim's
    words said of no other sentence well enough to be found by the judge's ranking, a
    changelog item says them: "- AVIF output." under "## 2.1"); under the claim's own
    release: supported."""
    scope = release_scope(text, claim_terms, pool)
    if scope is None:
        return None
    version, item, heading, same = scope
    quote = quote_of_sentence(item)
    if same:
        return Judgement("supported", RELEASE_FOUND, (quote,), (), (version.text, heading))
    return Judgement("contradicted", RELEASE_FOUND, (quote,),
                     (Conflict(_shown(text, version), heading, 0),))


def _shown(text: str, version: Value) -> str:
    """The claim's version with the word naming it ("version 1.8")."""
    before = text[:version.start].rstrip().rsplit(" ", 1)[-1]
    return f"{before} {version.text}" if before.lower() in _VERSION_WORDS else version.text
