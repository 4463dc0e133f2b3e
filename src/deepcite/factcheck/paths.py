"""A file or folder path the claim gives where its source gives another: "Backups land
in /var/lib/hearthline/backups" against "writes a single compressed archive to
`/var/backups/hearthline` by default".

A path is a value of its own kind - where a thing lives - that no number, unit or name
rule reads: its words ("var", "lib", "backups") are mostly the source's too, so the
sentence says "most of the claim" and the claim came out partly supported. A path
written in no passage, where the sentence on the claim's subject (or the one beside
it) writes a path of its own, is the source stating another place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepcite.factcheck.passages import Pool, Sentence
from deepcite.factcheck.terms import terms_of

__all__ = ["other_path", "paths_in"]

#: An absolute, home or Windows path of at least two parts ("/etc/app/app.toml",
#: "~/.config/app", "C:\\ProgramData\\App"); a URL's path is not one (the "//" or the
#: host before it).
_PATH = re.compile(r"(?<![\w/:.])(?:~|[A-Za-z]:)?(?:[/\\][\w.@+-]+){2,}[/\\]?")


def paths_in(text: str) -> list[str]:
    """The paths ``text`` writes, without a trailing slash or full stop."""
    return [match.group(0).rstrip("/\\.") for match in _PATH.finditer(text)]


def other_path(claim: str, sentences: Sequence[Sentence], pool: Pool) -> tuple[
        Sentence, str, str] | None:
    """Of ``sentences`` (the best on the claim's subject, the ones beside it and the
    next closest), the one writing a path where the claim writes one that no passage
    holds, with the claim's path and the sentence's; None where the claim's paths are
    all written somewhere (a path found is stated, or the source's other case) or no
    sentence writes one. Of several, the one saying most of the claim's other words:
    "the archive goes to /var/backups/x" for "backups land in ...", not the row of
    the uploaded files' folder, whose path shares as many parts."""
    mine = [path for path in paths_in(claim)
            if not any(path in text for text in pool.texts)]
    if not mine:
        return None
    words = terms_of(_PATH.sub(" ", claim))
    found = [(len(terms_of(_PATH.sub(" ", s.text)) & words), -index, s, theirs[0])
             for index, s in enumerate(dict.fromkeys(sentences))
             if (theirs := [p for p in paths_in(s.text) if p not in mine])]
    if not found:
        return None
    _, _, sentence, path = max(found, key=lambda item: item[:2])
    return sentence, mine[0], path
