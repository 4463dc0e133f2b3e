"""Citation verification figures: quality without a model, and time against report size.

1. **Quality.** A synthetic 5,000-word report with 100 citations over 50 sources:
   sentences copied from a source, lightly edited, paraphrased (reordered, words
   dropped), with a wrong number, or fabricated, plus a few markers to sources that do
   not exist. Prints the time of one :func:`deepcite.citations.verify.verify` call
   (target: under a second), the outcome counts, and how many citations were undecided,
   i.e. would cost one model call each.
2. **Scaling.** ``deepcite verify REPORT.md --sources S`` on generated reports of 1, 2,
   4 and 8 MB (paragraphs of cited sentences over 100 sources, with headings, uncited
   lines, multi-number groups, unresolvable markers and a trailing Sources block),
   written to a temporary folder with the sources as ``deepcite ask --json`` output. Each
   size runs the CLI in process (typer's runner, output captured); the largest also
   runs once as a subprocess (``python -m deepcite verify``, start-up and imports
   included) and, with ``--with-json``, once with ``--json``. Prints seconds and seconds
   per MB per size, in wall-clock and CPU time (CPU time is steadier on a shared
   machine; the load average is printed before and after): a flat or falling
   seconds-per-MB column means linear growth (target: 8 MB under 10 s on 2 cores).

    .venv/bin/python bench/bench_verify.py
    .venv/bin/python bench/bench_verify.py --sizes 1 2 --no-subprocess   # quick look
    .venv/bin/python bench/bench_verify.py --with-json   # also time --json at 8 MB
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from typer.testing import CliRunner

from deepcite.citations.verify import verify
from deepcite.cli import app

WORDS = (  # noqa: SIM905 - a word block reads better
    "river engine protein market climate signal harbor theory crystal vaccine orbit "
         "glacier network enzyme archive turbine forest voltage library mineral canal "
         "spectrum reactor pigment fossil satellite compiler harvest lattice monsoon").split()
NAMES = ["Aldor", "Brenn", "Castia", "Dovel", "Estra", "Fenwick", "Galen", "Hollis",
         "Irwen", "Jaska"]
FILLER = ["this", "section", "summarises", "what", "the", "sources", "say", "about",
          "the", "topic", "at", "hand"]
MB = 1024 * 1024


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


def bench_quality() -> None:
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


def big_sources(rng: random.Random, count: int = 100) -> list[dict[str, object]]:
    """``count`` sources of 8-20 sentences each, shaped like ``deepcite ask --json``."""
    return [{"number": n, "title": f"Source {n}", "url": f"https://s.example/{n}",
             "snippet": " ".join(sentence(rng) for _ in range(rng.randint(8, 20)))}
            for n in range(1, count + 1)]


def cited_sentence(rng: random.Random, sources: list[dict[str, object]]) -> str:
    """One sentence with its marker group: copied, edited, fabricated or unresolvable."""
    n = rng.randint(1, len(sources))
    picked = rng.choice(str(sources[n - 1]["snippet"]).split(". ")).rstrip(".")
    kind = rng.randrange(10)
    if kind in (5, 6):  # light edit
        picked = picked.replace(" the ", " a ", 1)
    elif kind == 7:  # fabricated
        picked = sentence(rng).rstrip(".")
    if kind == 8:  # two sources, one group
        marker = f"[{n}][{rng.randint(1, len(sources))}]"
    elif kind == 9:  # a list shape and a number no source has
        marker = f"[{n}, {len(sources) + rng.randint(1, 50)}]"
    else:
        marker = f"[{n}]"
    return f"{picked} {marker}."


def big_report(size: int, sources: list[dict[str, object]], rng: random.Random) -> str:
    """A Markdown report of about ``size`` bytes, ending in a Sources block."""
    parts: list[str] = ["# Generated report\n"]
    total = 0
    section = 0
    while total < size:
        if rng.random() < 0.08:
            section += 1
            block = f"## Section {section}\n"
        elif rng.random() < 0.15:  # uncited lines: list items and remarks
            block = "\n".join(f"- {' '.join(FILLER).capitalize()} item {i}."
                              for i in range(rng.randint(2, 5))) + "\n"
        else:
            block = " ".join(cited_sentence(rng, sources)
                             for _ in range(rng.randint(3, 8))) + "\n"
        parts.append(block)
        total += len(block) + 1
    parts.append("## Sources\n\n" + "\n".join(
        f"[{s['number']}] {s['title']} - {s['url']}" for s in sources) + "\n")
    return "\n".join(parts)


def bench_scaling(sizes: list[float], run_subprocess: bool, with_json: bool) -> None:
    runner = CliRunner()
    rng = random.Random(11)
    sources = big_sources(rng)
    print(f"\nload average before: {_load()}")
    print(f"{'size':>8} {'markers':>9} {'seconds':>9} {'s/MB':>7} {'cpu s':>7} {'cpu s/MB':>9}"
          "   (deepcite verify, in process)")
    with tempfile.TemporaryDirectory(prefix="deepcite-bench-verify-") as folder:
        sources_path = Path(folder) / "sources.json"
        sources_path.write_text(json.dumps({"sources": sources}), encoding="utf-8")
        report_path = Path(folder) / "report.md"
        for size in sizes:
            report = big_report(int(size * MB), sources, rng)
            report_path.write_text(report, encoding="utf-8")
            megabytes = len(report.encode("utf-8")) / MB
            args = ["verify", str(report_path), "--sources", str(sources_path)]
            started, cpu_started = time.perf_counter(), time.process_time()
            result = runner.invoke(app, args)
            seconds = time.perf_counter() - started
            cpu = time.process_time() - cpu_started
            if result.exit_code != 0:
                print(f"{megabytes:6.1f}MB failed: {result.output[-300:]}")
                continue
            found = re.search(r"Checked (\d+) citation", result.stderr)
            markers = found.group(1) if found else "?"
            print(f"{megabytes:6.1f}MB {markers:>9} {seconds:9.2f} {seconds / megabytes:7.2f} "
                  f"{cpu:7.2f} {cpu / megabytes:9.2f}")
        if with_json and sizes:
            started = time.perf_counter()
            result = runner.invoke(app, [*args, "--json"])
            seconds = time.perf_counter() - started
            print(f"--json, {megabytes:.1f} MB: {seconds:.2f} s ({seconds / megabytes:.2f} s/MB, "
                  f"{len(result.stdout) / MB:.1f} MB of JSON, exit {result.exit_code})")
        if run_subprocess and sizes:
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "deepcite", *args], capture_output=True, check=False)
            seconds = time.perf_counter() - started
            print(f"subprocess, {megabytes:.1f} MB: {seconds:.2f} s "
                  f"({seconds / megabytes:.2f} s/MB, exit {done.returncode}, "
                  "interpreter start-up included)")
    print(f"load average after: {_load()}")


def _load() -> str:
    """The 1/5/15-minute load average: wall times on a busy machine are not comparable."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 2, 4, 8],
                        help="report sizes in MB (default: 1 2 4 8)")
    parser.add_argument("--no-subprocess", action="store_true",
                        help="skip the subprocess run of the largest size")
    parser.add_argument("--with-json", action="store_true",
                        help="also time --json output at the largest size (slow: rich "
                             "renders the JSON)")
    parser.add_argument("--skip-quality", action="store_true",
                        help="skip the 5,000-word quality figures")
    args = parser.parse_args()
    if not args.skip_quality:
        bench_quality()
    bench_scaling(args.sizes, not args.no_subprocess, args.with_json)


if __name__ == "__main__":
    main()
