"""How fast is :func:`deepcite.citations.verify.verify` without a model, and how much
would a model have to decide?

Builds a synthetic 5,000-word report with 100 citations over 50 sources: sentences
copied from a source, lightly edited, paraphrased (reordered, words dropped), with a
wrong number, or fabricated, plus a few markers to sources that do not exist. Prints the
time of one ``verify`` call (target: under a second) and the outcome counts, including
how many citations were undecided, i.e. would cost one model call each.

    .venv/bin/python bench/bench_verify.py
"""

from __future__ import annotations

import random
import time

from deepcite.citations.verify import verify

WORDS = (  # noqa: SIM905 - a word block reads better
    "river engine protein market climate signal harbor theory crystal vaccine orbit "
         "glacier network enzyme archive turbine forest voltage library mineral canal "
         "spectrum reactor pigment fossil satellite compiler harvest lattice monsoon").split()
NAMES = ["Aldor", "Brenn", "Castia", "Dovel", "Estra", "Fenwick", "Galen", "Hollis",
         "Irwen", "Jaska"]
FILLER = ["this", "section", "summarises", "what", "the", "sources", "say", "about",
          "the", "topic", "at", "hand"]


def sentence(rng: random.Random) -> str:
    words = rng.sample(WORDS, 9)
    return (f"{rng.choice(NAMES)} reported that the {words[0]} {words[1]} affects the "
            f"{words[2]} {words[3]} near {words[4]} in {rng.randint(1900, 2024)}, while "
            f"{words[5]} {words[6]} and {words[7]} {words[8]} stayed stable.")


def build(rng: random.Random) -> tuple[str, list[dict[str, object]]]:
    sources = []
    for n in range(1, 51):
        text = " ".join(sentence(rng) for _ in range(12))
        sources.append({"number": n, "title": f"S{n}", "url": f"https://s/{n}", "snippet": text})
    parts: list[str] = []
    for i in range(100):
        n = rng.randint(1, 50)
        picked = rng.choice(str(sources[n - 1]["snippet"]).split(". ")).rstrip(".")
        kind = i % 5
        if kind == 1:  # light edit
            picked = picked.replace(" the ", " a ", 1)
        elif kind == 2:  # paraphrase: clauses swapped, a word dropped
            head, _, tail = picked.partition(", while ")
            picked = f"While {tail}, {head.replace(' that', '', 1)}"
        elif kind == 3:  # wrong year
            picked = picked[:-1] + "x" if picked[-1].isalpha() else picked
            picked = " ".join(w if not w.strip(",").isdigit() else "1776," for w in
                              picked.split())
        elif kind == 4:  # fabricated
            picked = sentence(rng).rstrip(".")
        marker = f"[{n}]" if i % 17 else f"[{n}, {60 + i}]"
        parts.append(f"{picked} {marker}. " + " ".join(FILLER * 2).capitalize() + ".")
    return "\n\n".join(" ".join(parts[i:i + 4]) for i in range(0, 100, 4)), sources


def main() -> None:
    report, sources = build(random.Random(7))
    start = time.perf_counter()
    result = verify(report, sources)
    seconds = time.perf_counter() - start
    print(f"report: {len(report.split())} words, {result.markers_checked} markers, "
          f"{len(sources)} sources")
    print(f"verify (no model): {seconds:.3f} s")
    print(f"supported {result.supported}, partial {result.partial}, "
          f"unsupported {result.unsupported}, unresolvable removed {result.markers_removed}")
    methods: dict[str, int] = {}
    for check in result.citations:
        methods[check.method] = methods.get(check.method, 0) + 1
    print(f"by method: {methods}")
    print(f"undecided (one model call each with a model): {result.undecided}")


if __name__ == "__main__":
    main()
