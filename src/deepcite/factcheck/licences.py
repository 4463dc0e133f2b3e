"""A software licence named otherwise: "It is licensed under the MIT licence" against
"... published under the Apache 2.0 licence".

A claim naming a licence says little else ("it", "licensed"), so no sentence is found
by its words and the name it gives is one no passage has - not found, though the
sources name the project's licence and it is another. A licence is one of a short,
closed set of names, so a sentence giving the licence (a word of licensing beside one
of those names) that is not the claim's contradicts it; a passage naming the claim's
licence anywhere (dual licensing, a dependency's) leaves it to the other rules.
"""

from __future__ import annotations

import re

from deepcite.factcheck.judgement import Conflict, Judgement, quote_of_sentence
from deepcite.factcheck.passages import Pool

__all__ = ["other_licence"]

# The licences' names, each as the family it belongs to ("GPLv3" and "GPL-2.0" are GPL,
# "the Apache License" Apache): a claim and a source giving one family agree.
_FAMILIES = (
    ("agpl", r"AGPL(?:-?v?\d(?:\.\d)?)?|GNU\s+Affero"),
    ("lgpl", r"LGPL(?:-?v?\d(?:\.\d)?)?|GNU\s+Lesser"),
    ("gpl", r"GPL(?:-?v?\d(?:\.\d)?)?|GNU\s+General\s+Public"),
    ("mit", r"MIT"),
    ("apache", r"Apache(?:\s+License)?(?:[\s-]+v?2(?:\.0)?)?"),
    ("bsd", r"(?:[23]-[Cc]lause\s+)?BSD(?:-[23]-[Cc]lause)?"),
    ("mpl", r"MPL(?:-?v?\d(?:\.\d)?)?|Mozilla\s+Public"),
    ("isc", r"ISC"),
    ("eupl", r"EUPL(?:-?v?\d(?:\.\d)?)?"),
    ("unlicense", r"Unlicense"),
    ("cc0", r"CC0"),
    ("zlib", r"zlib"),
    ("boost", r"Boost\s+Software"),
)
_NAMES = tuple((family, re.compile(rf"(?<![\w-])(?:{pattern})(?!\w)")) for family, pattern
               in _FAMILIES)
# a word of licensing: "licence", "license", "licensed", "licensing"
_LICENSING = re.compile(r"\blicen[cs](?:e|es|ed|ing)\b", re.IGNORECASE)


def _families(text: str) -> list[tuple[str, str]]:
    """The licences ``text`` names, as (family, name as written), in order of place."""
    found = sorted((match.start(), family, match.group(0)) for family, pattern in _NAMES
                   for match in pattern.finditer(text))
    taken: list[tuple[str, str]] = []
    for _, family, name in found:
        if family not in (f for f, _ in taken) and not (
                family == "gpl" and any(f in ("lgpl", "agpl") for f, _ in taken)):
            taken.append((family, name))
    return taken


def other_licence(claim: str, pool: Pool) -> Judgement | None:
    """The sentence giving a licence other than the one the claim names, contradicting
    it; None where the claim names none, a passage names the claim's, or no sentence
    gives a licence."""
    if _LICENSING.search(claim) is None:
        return None
    mine = {family for family, _ in _families(claim)}
    if len(mine) != 1 or any(family in mine for text in pool.texts
                             for family, _ in _families(text)):
        return None
    for sentence in pool.sentences:
        if _LICENSING.search(sentence.text) is None:
            continue
        theirs = _families(sentence.text)
        if theirs:
            named = next(name for family, name in _families(claim) if family in mine)
            return Judgement("contradicted", 0.5, (quote_of_sentence(sentence),),
                             (Conflict(named, theirs[0][1], 0),))
    return None
