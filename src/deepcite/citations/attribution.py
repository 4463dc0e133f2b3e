"""Cheap attribution: give uncited sentences the source they were plainly taken from.

Small models often write a correct sentence lifted from a passage and forget the
``[n]``. When most of a sentence's meaningful words occur in exactly one best source,
citing that source is what a careful editor would do. Sentences that match nothing
stay uncited; nothing is ever attributed to a source that does not contain the words.
"""

from __future__ import annotations

import re

from deepcite.citations.markers import cited_numbers
from deepcite.citations.text import content_words, overlap, split_sentences
from deepcite.types import Source

MIN_WORDS = 3
MIN_OVERLAP = 0.6
_TRAILING_PUNCT = re.compile(r"([.!?:;]+)$")


def attribute_sentences(text: str, sources: list[Source]) -> tuple[str, int]:
    """Append ``[n]`` to uncited sentences well covered by one source; returns count."""
    source_words = [(s.number, content_words(s.text)) for s in sources]
    added = 0
    out: list[str] = []
    in_fence = False
    for paragraph in text.split("\n"):
        if paragraph.lstrip().startswith("```"):
            in_fence = not in_fence
        prose = not in_fence and _looks_like_prose(paragraph)
        sentences = split_sentences(paragraph) if prose else []
        if not sentences:
            out.append(paragraph)
            continue
        new_sentences = []
        for sentence in sentences:
            marker = _best_marker(sentence, source_words)
            if marker is not None:
                added += 1
                match = _TRAILING_PUNCT.search(sentence)
                if match:
                    sentence = f"{sentence[: match.start()]} [{marker}]{match.group(1)}"
                else:
                    sentence = f"{sentence} [{marker}]"
            new_sentences.append(sentence)
        out.append(" ".join(new_sentences))
    return "\n".join(out), added


_CODE_START = re.compile(
    r"^\s*(?:import|from|def|class|return|if|elif|else|for|while|with|try|except|print)\b"
    r"|^\s*[#>]|[{};]\s*$"
)
_PLAIN_WORD = re.compile(r"^[A-Za-z][A-Za-z'’-]*[.,;:!?]?$")


def _looks_like_prose(line: str) -> bool:
    """Sentences, not code: mostly plain words and no statement-like start."""
    stripped = line.strip()
    if not stripped or "`" in stripped or _CODE_START.search(stripped):
        return False
    tokens = stripped.split()
    plain = sum(bool(_PLAIN_WORD.match(token)) for token in tokens)
    return plain / len(tokens) >= 0.7


def _best_marker(sentence: str, source_words: list[tuple[int, set[str]]]) -> int | None:
    if cited_numbers(sentence):
        return None
    words = content_words(sentence)
    if len(words) < MIN_WORDS or not source_words:
        return None
    number, score = max(
        ((n, overlap(words, ws)) for n, ws in source_words), key=lambda item: item[1]
    )
    return number if score >= MIN_OVERLAP else None
