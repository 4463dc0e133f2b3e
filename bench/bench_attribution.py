"""Attribution without a model: time for a 5,000-word report over 100 sources, and accuracy.

The report is generated: paragraphs of sentences that are, in turn, copied verbatim
from a source without a citation, lightly edited (one word changed), reordered, with a
wrong year, fabricated (no source says it), or already cited. Prints the seconds of one
:func:`deepcite.citations.attribution.attribute` call (target: under 1 s), how many
sentences got a citation and whether it was the right source, and how many stayed
unsupported, per kind of sentence. No assertions.

    .venv/bin/python bench/bench_attribution.py [--words 5000] [--sources 100] [--seed 0]
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

from deepcite.citations.attribution import attribute
from deepcite.citations.markers import cited_numbers
from deepcite.types import Source

# A vocabulary the size of a real topic's (a few thousand words, a few hundred names):
# with a few dozen words every random sentence would be "supported" by chance.
_SYLLABLES = ["ka", "ro", "mi", "tal", "ven", "dor", "sul", "ph", "ex", "an", "ber", "cor",
              "lin", "mas", "tro", "vel"]


def _vocabulary(rng: random.Random, size: int, capital: bool = False) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))
        words.add(word.capitalize() if capital else word)
    return sorted(words)


_VOCAB = random.Random(12345)
WORDS = _vocabulary(_VOCAB, 3000)
NAMES = _vocabulary(_VOCAB, 300, capital=True)
KINDS = ("copied", "edited", "reordered", "wrong_year", "fabricated", "cited")


def fact(rng: random.Random) -> str:
    w = rng.sample(WORDS, 8)
    return (f"{rng.choice(NAMES)} measured the {w[0]} {w[1]} of the {w[2]} {w[3]} in "
            f"{rng.randint(1900, 2024)}, and the {w[4]} {w[5]} near the {w[6]} {w[7]} "
            f"stayed stable.")


def make_sources(rng: random.Random, count: int) -> list[Source]:
    sources = []
    for n in range(1, count + 1):
        text = " ".join(fact(rng) for _ in range(12))
        url = f"https://example.org/{n}"
        sources.append(Source(number=n, title=f"Source {n}", url=url, canonical_url=url,
                              snippet=text, engine="bench"))
    return sources


def report_sentence(rng: random.Random, kind: str, sources: list[Source]
                    ) -> tuple[str, int | None]:
    """A sentence of ``kind`` and the number of the source it came from (None: none)."""
    src = rng.choice(sources)
    copied = rng.choice(src.text.split(". ")).rstrip(".") + "."
    words = copied.split()
    if kind == "copied":
        return copied, src.number
    if kind == "edited":
        i = rng.choice([i for i, w in enumerate(words[:-1]) if w.islower() and len(w) > 3])
        words[i] = "the" if words[i] != "the" else "a"
        return " ".join(words), src.number
    if kind == "reordered":
        half = len(words) // 2
        moved = " ".join(words[half:]).rstrip(".") + ", " + " ".join(words[:half]) + "."
        return moved[0].upper() + moved[1:], src.number
    if kind == "wrong_year":
        return " ".join(str(int(w[:4]) + 7) + w[4:] if w[:4].isdigit() else w
                        for w in words), None
    if kind == "fabricated":
        return fact(rng), None
    return f"{copied[:-1]} [{src.number}].", src.number


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=5000)
    parser.add_argument("--sources", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    sources = make_sources(rng, args.sources)
    lines: list[list[tuple[str, str, int | None]]] = [[]]
    words = 0
    while words < args.words:
        kind = rng.choice(KINDS)
        sentence, number = report_sentence(rng, kind, sources)
        lines[-1].append((kind, sentence, number))
        words += len(sentence.split())
        if len(lines[-1]) >= 5:
            lines.append([])
    report = "\n\n".join(" ".join(s for _, s, _ in line) for line in lines if line)
    started, cpu = time.perf_counter(), time.process_time()
    result = attribute(report, sources)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    added = dict(result.added)
    unsupported = set(result.unsupported_sentences)
    right: Counter[str] = Counter()
    wrong: Counter[str] = Counter()
    left: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for line in lines:
        for kind, sentence, number in line:
            total[kind] += 1
            if kind == "cited":
                continue
            got = added.get(sentence)
            if got is None:
                left[kind] += sentence in unsupported
            elif got == number:
                right[kind] += 1
            else:
                wrong[kind] += 1
    print(f"report: {words} words, {sum(total.values())} sentences, {len(sources)} sources")
    print(f"attribute(): {seconds:.3f} s wall, {cpu:.3f} s CPU (target < 1 s), "
          f"{len(result.added)} added, "
          f"{len(result.unsupported_sentences)} unsupported, {result.model_calls} model calls")
    print(f"{'kind':<12}{'sentences':>10}{'right [n]':>11}{'wrong [n]':>11}{'unsupported':>13}")
    for kind in KINDS:
        print(f"{kind:<12}{total[kind]:>10}{right[kind]:>11}{wrong[kind]:>11}{left[kind]:>13}")
    kept = all(str(n) in result.text for n in cited_numbers(report))
    print(f"existing citations kept: {kept}")


if __name__ == "__main__":
    main()
