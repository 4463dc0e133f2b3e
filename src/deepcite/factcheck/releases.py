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
RELEASE_FOUND = 0.66
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(?P<title>[^\n]*?)[ \t#]*$", re.MULTILINE)
# A heading naming a release first: "2.1 (3 June 2024)", "[2.1.0] - 2024-06-03",
# "v2.1", "Version 2.1", "Release 2.1.0 - ..."
_RELEASE = re.compile(r"\[?(?:v|(?:version|release)\s+)?(?P<version>\d+(?:\.\d+){1,3})\]?"
                      r"(?=$|[\s(:,\u2013\u2014-])", re.IGNORECASE)
_VERSION_WORDS = frozenset({"version", "release"})
# "version 2.2" written just before the number (the number's ``before`` may be a word
# further back: "as CSV since version 2.2")
_NAMED_VERSION = re.compile(r"\b(?:version|release)\s+$", re.IGNORECASE)
# "removed in 4.0", "added in 3.1": a number after a change is its release
_OWN_RELEASE = re.compile(r"\b(?:removed|added|introduced|dropped|deprecated|changed|"
                          r"available|new|arrived|came|landed|shipped|appeared|released)"
                          r"\s+(?:in|since|from|with)\s+(?:version\s+)?$",
                          re.IGNORECASE)
# The words of a version and of a change arriving or leaving: what ties the change to
# a release, which the heading says, not the change itself.
_RELEASE_TERMS = terms_of("""version versions release releases released since onwards
    from available availability added adds introduced introduces new first came come
    arrived arrives shipped ships shipping launched supported support stopped stops
    dropped drops removed removes provided provides offered offers began begins
    already still old now yet longer anymore""")


def _key(version: str) -> str:
    """A version as compared: "2.0" and "2" and "2.0.0" are one release."""
    parts = version.lstrip("vV").split(".")
    while len(parts) > 1 and parts[-1].strip("0") == "":
        parts.pop()
    return ".".join(parts)


def release_heading(text: str, start: int) -> tuple[str, str] | None:
    """The release (its key and heading title) of the heading standing over the place
    ``start`` of a passage's ``text`` - the nearest heading above, or the nearest of a
    higher level above that ("### Deprecated" under "## 3.1.0") - or None when none of
    them names a release first (or ``start`` is on a heading's own line)."""
    headings = [m for m in _HEADING.finditer(text, 0, start)]
    if not headings or headings[-1].end() >= start:
        return None
    level = 7
    for heading in reversed(headings):
        depth = len(heading.group(0).lstrip()) - len(heading.group(0).lstrip().lstrip("#"))
        if depth >= level:
            continue
        level = depth
        title = heading.group("title").strip()
        found = _RELEASE.match(title)
        if found is not None:
            return _key(found.group("version")), title
    return None


def _line(text: str, start: int, end: int) -> tuple[int, int]:
    """The line of ``text`` holding ``start``..``end`` (a list item, a paragraph)."""
    return text.rfind("\n", 0, start) + 1, (text.find("\n", end) + 1 or len(text) + 1) - 1


def claim_release(text: str) -> Value | None:
    """The one product version a claim states ("since version 1.8", "Version 2.0 came
    out", "dropped in 3.1"), not a platform's ("macOS from version 12"); None with none
    or several."""
    found = []
    for value in values_of(text):
        if value.kind == "version" or (value.kind == "number" and (
                value.before in _VERSION_WORDS or _OWN_RELEASE.search(text, 0, value.start)
                or _NAMED_VERSION.search(text, 0, value.start))):
            platform = of_platform(text, value).before
            if platform != value.before and platform not in _VERSION_WORDS:
                continue  # macOS's version, not the product's
            found.append(value)
    return found[0] if len(found) == 1 else None


def release_item(text: str, version: Value, claim_terms: frozenset[str],
                 pool: Pool) -> tuple[Sentence, str, str] | None:
    """The item under a release heading saying most of the claim's words (its version
    aside), with that release's key and heading: the change the claim ties to a
    version. None when none says :data:`RELEASE_FOUND` of them, or two releases' items
    say them equally."""
    # (the words of its values too: "March" of "released in March 2024")
    words = claim_terms - _RELEASE_TERMS - frozenset(
        term for value in (version, *values_of(text)) for term in terms_of(value.text))
    if not words:
        return None
    best: list[tuple[float, Sentence, str, str]] = []
    for sentence in pool.sentences:
        if not words & sentence.terms:
            continue
        text_of = pool.texts[sentence.passage]
        start, end = _line(text_of, sentence.start, sentence.end)
        line = text_of[start:end]
        # an item naming a version of its own says which itself ("The `--gzip` flag.
        # ... Will be removed in 4.0.")
        own = [v for v in values_of(line)
               if v.kind == "version" or v.before in _VERSION_WORDS
               or (v.kind == "number" and _OWN_RELEASE.search(line, 0, v.start))]
        release = (_key(own[0].key), line.strip(" -*")) if own else \
            release_heading(text_of, sentence.start)
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
