"""Evidence offsets over the demo collection: are the spans verification reports exact,
and do they start and end where the supporting sentence does?

Every chunk of the bundled ``demo`` collection (the Python documentation as pydoc
writes it: indented lines, reST roles, tables) is a source, as stored and once more with
CRLF line ends. From its sentences the script writes answers the way answers cite: each
sentence in its cleaned form (:func:`~deepcite.citations.display.clean_quote`, as a
grounded answer quotes it) followed by its marker, one after another
("S1 [1]. S2 [1]."), and a fuzzy variant with one word of each sentence dropped. It runs
:func:`~deepcite.citations.verify.verify` on them and counts, over the checks with a span:

- ``exact``: ``text[start:end] == quote`` (the offset convention, ``docs/citations.md``);
- ``word edges``: the span neither starts nor ends inside a word;
- ``first word`` / ``last word``, over exact and fuzzy matches (an overlap span is the
  best sentence, not the claim's): the cleaned quote starts (ends) with the claim's
  first (last) word - "E csv - CSV ..." or "hen the parse_args() ..." fail this.

    .venv/bin/python bench/bench_evidence_offsets.py            # all chunks
    .venv/bin/python bench/bench_evidence_offsets.py --limit 200
"""

from __future__ import annotations

import argparse
import random
import re
from collections import Counter

from deepcite.citations.display import clean_quote
from deepcite.citations.verify import verify
from deepcite.collections.demo import ensure_demo_collection
from deepcite.config import load_settings
from deepcite.text.sentences import split_sentences
from deepcite.types import Source

_WORD = re.compile(r"\w+")


def _chunks(limit: int | None) -> list[str]:
    collection = ensure_demo_collection(load_settings())
    with collection.index.connect() as conn:
        rows = conn.execute("SELECT text FROM chunks ORDER BY rowid").fetchall()
    texts = [str(row[0]) for row in rows]
    return texts[:limit] if limit else texts


def _answer(sentences: list[str], rng: random.Random, fuzzy: bool) -> str:
    parts = []
    for sentence in sentences:
        words = clean_quote(sentence).rstrip(".").split()
        if fuzzy and len(words) > 6:
            del words[rng.randrange(2, len(words) - 2)]
        parts.append(f"{' '.join(words)} [1].")
    return " ".join(parts)


def _inside(text: str, at: int) -> bool:
    return 0 < at < len(text) and text[at - 1].isalnum() and text[at].isalnum()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="chunks to use (default all)")
    args = parser.parse_args()
    rng = random.Random(45)
    counts: Counter[str] = Counter()
    failures: list[str] = []
    for stored in _chunks(args.limit):
        for text in (stored, stored.replace("\n", "\r\n")):
            sentences = [s for s in split_sentences(text)
                         if len(s.split()) >= 4 and len(s) <= 300 and "[" not in s]
            if not sentences:
                continue
            picked = rng.sample(sentences, min(4, len(sentences)))
            source = Source(number=1, title="t", url="https://docs.example/t",
                            canonical_url="https://docs.example/t", snippet=text, engine="web")
            for fuzzy in (False, True):
                for check in verify(_answer(picked, rng, fuzzy), [source]).citations:
                    if check.quote is None or check.start is None or check.end is None:
                        counts["no span"] += 1
                        continue
                    counts["spans"] += 1
                    counts[f"method {check.method}"] += 1
                    counts["exact"] += text[check.start:check.end] == check.quote
                    edges = not _inside(text, check.start) and not _inside(text, check.end)
                    counts["word edges"] += edges
                    if check.method not in ("exact", "fuzzy"):
                        continue  # an overlap span is the best sentence, not the claim's
                    counts["matched"] += 1
                    claim = _WORD.findall(check.sentence)
                    shown = _WORD.findall(clean_quote(check.quote))
                    first = bool(claim and shown and shown[0] == claim[0])
                    counts["first word"] += first
                    counts["last word"] += bool(claim and shown and shown[-1] == claim[-1])
                    if not (edges and first) and len(failures) < 5:
                        failures.append(f"{check.sentence[:60]!r} -> {check.quote[:60]!r}")
    spans = counts["spans"] or 1
    print(f"checks with a span: {counts['spans']}, without: {counts['no span']}")
    for key in ("exact", "word edges"):
        print(f"  {key:<11} {counts[key]:>6}  {100 * counts[key] / spans:5.1f}%")
    matched = counts["matched"] or 1
    print(f"exact or fuzzy matches: {counts['matched']}")
    for key in ("first word", "last word"):
        print(f"  {key:<11} {counts[key]:>6}  {100 * counts[key] / matched:5.1f}%")
    print("  methods:", ", ".join(f"{k[7:]} {v}" for k, v in sorted(counts.items())
                                 if k.startswith("method ")))
    for line in failures:
        print("  e.g.", line)


if __name__ == "__main__":
    main()
