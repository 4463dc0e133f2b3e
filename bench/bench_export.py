"""Export figures: time and output size of every format for a large detailed report.

The report is synthetic and deterministic: a 10,000-word detailed report (contents, a
summary and 8 sections of 3 subsections each, one CJK paragraph per section, a table
and a code block in every section) citing 100 sources - papers with authors, year,
venue and DOI, arXiv preprints, passages of local PDFs and web pages. Each format is
exported through :func:`deepcite.export.export_report`, as the CLI does, and the best
of ``--repeat`` runs is printed with its CPU time and the output size. A format whose
extra is missing is reported as such, not timed. Target: PDF under 10 s (it needs
libharfbuzz-subset0 for fast font subsetting; without it WeasyPrint falls back to
fontTools, several times slower with a large CJK font).

    .venv/bin/python bench/bench_export.py
    .venv/bin/python bench/bench_export.py --formats pdf docx --repeat 3
"""

from __future__ import annotations

import argparse
import os
import random
import time

from deepcite.errors import ExportError
from deepcite.export import EXPORTERS, ExportOptions, export_report
from deepcite.types import ResearchResult, Source

WORDS = (  # noqa: SIM905 - a word block reads better
    "river engine protein market climate signal harbor theory crystal vaccine orbit "
    "glacier network enzyme archive turbine forest voltage library mineral canal "
    "spectrum reactor pigment fossil satellite compiler harvest lattice monsoon").split()
CJK = "量子计算利用叠加和纠缠来处理信息，研究人员在多个实验中验证了这一点。"
SECTIONS = 8
SUBSECTIONS = 3
TARGET_WORDS = 10_000
SOURCES = 100


def make_sources() -> list[Source]:
    """100 sources of the four kinds engines produce, with their metadata."""
    sources = []
    for n in range(1, SOURCES + 1):
        kind = n % 4
        if kind == 0:
            url = f"file:///data/papers/paper-{n // 8}.pdf#page={n % 8 + 1}"
            sources.append(Source(
                number=n, title=f"Local paper {n // 8}", url=url, canonical_url=url,
                snippet="passage", engine="local",
                metadata={"collection": "papers", "path": f"/data/papers/paper-{n // 8}.pdf",
                          "page": n % 8 + 1, "kind": "pdf"}))
            continue
        url = f"https://example{n}.org/work/{n}"
        meta: dict[str, object] = {}
        if kind in (1, 2):
            meta = {"authors": [f"Author{n} Family{n}", "Jane Doe"], "year": 2000 + n % 25}
            if kind == 1:
                meta.update(venue="Journal of Examples", doi=f"10.1000/example.{n}")
            else:
                meta["arxiv_id"] = f"2401.{n:05d}"
        sources.append(Source(number=n, title=f"Work {n} on {WORDS[n % len(WORDS)]}",
                              url=url, canonical_url=url, snippet="snippet",
                              engine="openalex", metadata=meta))
    return sources


def make_report() -> ResearchResult:
    """The synthetic detailed report (about :data:`TARGET_WORDS` words of body)."""
    rng = random.Random(7)
    parts = SECTIONS * (SUBSECTIONS + 1)
    # What the headings, contents, tables and code blocks add is taken off first.
    words_per_part = (TARGET_WORDS - 200 - 300) // parts
    contents = ["## Contents", "", "- Summary"]
    body = []
    for section in range(1, SECTIONS + 1):
        contents.append(f"- {section}. Section {section}")
        body.append(f"## {section}. Section {section}\n\n{CJK} [{section}]\n\n"
                    "| Quantity | Value | Source |\n|---|--:|---|\n"
                    f"| alpha | {rng.randint(1, 99)} | [{section + 10}] |\n\n"
                    f"```python\nresult = compute(data)[{section}]\n```\n\n"
                    + _paragraphs(rng, words_per_part))
        for sub in range(1, SUBSECTIONS + 1):
            contents.append(f"    - {section}.{sub} Part {sub}")
            body.append(f"### {section}.{sub} Part {sub}\n\n" + _paragraphs(rng, words_per_part))
    summary = "## Summary\n\n" + _paragraphs(rng, 200)
    answer = "\n".join(contents) + "\n\n" + summary + "\n\n" + "\n\n".join(body)
    return ResearchResult(question="How do the examples behave?", answer=answer,
                          strategy="source-based", handler="standard", sources=make_sources(),
                          mode="detailed", title="A large benchmark report")


def _paragraphs(rng: random.Random, words: int) -> str:
    """Cited sentences of 14 words (marker included), five to a paragraph."""
    sentences = []
    for _ in range(max(1, round(words / 14))):
        chosen = rng.sample(WORDS, 12)
        sentences.append(f"The {' '.join(chosen)} [{rng.randint(1, SOURCES)}].")
    return "\n\n".join(" ".join(sentences[i:i + 5]) for i in range(0, len(sentences), 5))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--formats", nargs="+", default=list(EXPORTERS),
                        help="formats to export (default: every built-in)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per format; best is shown")
    args = parser.parse_args()
    report = make_report()
    words = len(report.answer.split())
    print(f"report: {words} words of body, {len(report.sources)} sources; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'format':<10} {'seconds':>8} {'cpu s':>8} {'bytes':>10}  file")
    for fmt in args.formats:
        timings: list[tuple[float, float]] = []
        try:
            for _ in range(max(1, args.repeat)):
                wall, cpu = time.perf_counter(), time.process_time()
                result = export_report(report, fmt, ExportOptions(links="number"))
                timings.append((time.perf_counter() - wall, time.process_time() - cpu))
        except ExportError as exc:
            print(f"{fmt:<10} {'-':>8} {'-':>8} {'-':>10}  ({exc})")
            continue
        best = min(timings)
        print(f"{fmt:<10} {best[0]:8.2f} {best[1]:8.2f} {len(result.data):10,d}  "
              f"{result.filename}")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
