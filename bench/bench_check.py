"""How well a document check judges a draft's claims, and what it costs.

Builds a collection from a dev set's documents in a temporary data dir, checks the dev
set's draft against it offline with the bundled model (``deepcite check`` does the
same), and compares each claim's verdict with the dev set's ``expected.json`` (a claim
is named there by a piece of its text; a contradicted one also by the source's value,
which its note must name). Prints the verdict accuracy with a confusion table, whether
every ``[n]`` resolves, claims per second, model calls and tokens per claim.

    PYTHONPATH=src .venv/bin/python bench/bench_check.py [bench/data/check_dev] [--show]

Dev sets, invented: ``bench/data/check_dev`` (a company's history, handbook and
product sheets), ``check_dev2`` (a stream-processing library's documentation),
``check_dev3`` (a town library's rules and history), ``check_dev4`` (an island's
geography, economy and wildlife), ``check_dev5`` (a cache server's documentation),
``check_dev_zh`` (a tea garden, in Chinese), ``check_dev6`` (a rowing club),
``check_dev7`` (a bike-share scheme), ``check_dev8`` (quarterly results, as a list of
notes), ``check_dev9`` (a chemist's biography), ``check_dev10`` (a clinic's
policies), ``check_dev11`` (a notes app), ``check_dev12`` (a music festival),
``check_dev13`` (a Python library's reference), ``check_dev14`` (a satellite modem
and its plans), ``check_dev15`` (a primary school's welcome pack), ``check_dev16`` (a
ferry company), ``check_dev17`` (a maritime museum), ``check_dev18`` (a community
garden), ``check_dev19`` (a mountain hut), ``check_dev20`` (a council's waste service),
``check_dev21`` (a violin maker), ``check_dev22`` (a rail pass), ``check_dev23`` (a
password manager), ``check_dev24`` (a glacier research station), ``check_dev25`` (a
dairy cooperative), ``check_dev26`` (a lido), ``check_dev27`` (an observatory),
``check_dev28`` (a teaching laboratory's safety rules), ``check_dev29`` (a coffee
roaster; measured first, then tuned on in the sixth pass), ``check_dev30`` (a hospital's
car parks), ``check_dev31`` (a bakery chain; kept for measuring only: no change was
written from its claims), ``check_dev32`` (a city marathon), ``check_dev33`` (a
database release; measured only), ``check_dev34`` (a migraine trial) and
``check_dev35`` (a community wind cooperative), both held back: measured before and
after the eighth pass, never tuned on, and ``check_dev36`` (a heritage railway) and
``check_dev37`` (a language summer school), the eighth pass's tuning sets,
``check_dev38`` (a bus company) and ``check_dev39`` (a sync tool's documentation),
written by the lead and kept from the helper who tuned the eighth pass,
``check_dev40`` (a makerspace) and ``check_dev41`` (a wetland nature reserve), the
ninth pass's tuning sets, and ``check_dev42`` (an indoor climbing centre), held back
in the ninth pass: measured before and after, never tuned on, and ``check_dev43`` (a
ferry and its island), written by the lead after the ninth pass and run once, and
``check_dev44`` (a rowing club), written by a helper who never read the checker's code
or docs, held back for the next pass (first run 13/16), and ``check_dev45`` (an airport) and
``check_dev46`` (an image command-line tool's documentation), the tenth pass's tuning
sets, written the same way (first runs 8/16 and 3/16), and ``check_dev47`` (a food
market hall), written the same way and held back (first run 6/16: a crash, fixed), and
``check_dev48`` (a bike-share scheme) and ``check_dev49`` (a backup tool's docs), the
eleventh pass's tuning sets (first runs 9/16 and 8/16), and ``check_dev50`` (a ferry
company), written the same way and held back (first run 7/16), and ``check_dev51`` (a
home battery, held back, first run 6/16) and ``check_dev52`` (a catalog-sync
command-line tool, the twelfth pass's tuning set, first run 5/16), written the same way; from
``check_dev19`` on they are drafts written as a person would (true claims reworded,
restrictions changed). Each
after the first two was measured before the judge was tuned on it (first-run scores
in ``docs/benchmarks.md``).

With the ``embeddings`` extra installed the check also matches claims by meaning
(``docs/check.md``); the figures then include loading the sentence encoder once.

Target (issue 48):
>= 11 of 12 verdicts right, every contradiction naming the source's value, every [n]
resolving, <= 2 model calls per claim.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from pathlib import Path

from deepcite.collections import Collection
from deepcite.config import load_settings
from deepcite.factcheck import VERDICT_LABELS, read_document, run_check
from deepcite.runs.build import build_researcher
from deepcite.types import VERDICTS

ROOT = Path(__file__).resolve().parent
_MARK = re.compile(r"\[(\d+)\]")


_SOURCE_SIDE = re.compile(r"source \[\d+\]: ([^;]+)")


def names_value(note: str, source_value: str) -> bool:
    """Whether ``note`` names the source's value of a set whose ``source_value`` is a
    phrase holding it ("default `--parallel` raised from 2 to 4" for a note "source [8]:
    4"): the phrase itself, or a source side of the note whose values all agree with
    the phrase's, or, stating no value, whose words the phrase all says. The exact
    phrase alone is the stricter figure printed above it."""
    from deepcite.factcheck.agreement import agrees
    from deepcite.factcheck.passages import values_of
    from deepcite.factcheck.terms import terms_of

    if source_value.lower() in note.lower():
        return True
    theirs = values_of(source_value)
    for side in _SOURCE_SIDE.findall(note):
        mine = values_of(side)
        if mine and all(any(agrees(v, t) for t in theirs) for v in mine):
            return True
        words = terms_of(side)
        if not mine and words and words <= terms_of(source_value):
            return True
    return False


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dev_set", nargs="?", default=str(ROOT / "data" / "check_dev"))
    parser.add_argument("--show", action="store_true", help="print every claim's verdict")
    args = parser.parse_args()
    folder = Path(args.dev_set)
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    document = read_document(folder / "draft.md")
    with tempfile.TemporaryDirectory() as data_dir:
        settings = load_settings({"data_dir": data_dir, "collections": ["checkdev"],
                                  "provider": "local", "offline": True},
                                 config_files=[], environ={})
        Collection.create("checkdev", settings=settings).add(folder / "docs")
        with build_researcher(settings) as researcher:
            started = time.perf_counter()
            result = run_check(researcher, document, title=folder.name)
            seconds = time.perf_counter() - started
    claims = result.claims
    confusion = {want: dict.fromkeys(VERDICTS, 0) for want in VERDICTS}
    right = named = named_in_phrase = contradictions = 0
    unmatched = []
    for item in expected:
        claim = next((c for c in claims if item["claim"] in c.text), None)
        if claim is None:
            unmatched.append(item["claim"])
            continue
        confusion[item["verdict"]][claim.verdict] += 1
        ok = claim.verdict == item["verdict"]
        right += ok
        if item["verdict"] == "contradicted":
            contradictions += 1
            named += ok and item["source_value"].lower() in claim.note.lower()
            named_in_phrase += ok and names_value(claim.note, item["source_value"])
        if args.show or not ok:
            print(f"{'ok  ' if ok else 'MISS'} {claim.verdict:17} (want {item['verdict']:17})"
                  f" {claim.text[:70]!r} -- {claim.note[:90]}")
    numbers = {s.number for s in result.sources}
    cited = {int(n) for n in _MARK.findall(result.answer)} | {
        n for c in claims for n in c.citations}
    extra = [c.text for c in claims if not any(i["claim"] in c.text for i in expected)]
    print(f"\ndev set: {folder.name}  claims found: {len(claims)}  expected: {len(expected)}")
    if unmatched:
        print(f"expected claims not found: {unmatched}")
    if extra:
        print(f"claims not in expected.json: {extra}")
    print(f"verdicts right: {right}/{len(expected)} ({100 * right / len(expected):.0f}%)")
    print(f"contradictions naming the source's value: {named}/{contradictions}")
    print(f"  ... or the value inside the set's source phrase: {named_in_phrase}/{contradictions}")
    print(f"every [n] resolves: {cited <= numbers} ({len(numbers)} sources)")
    print("\nconfusion (rows: expected, columns: given)")
    print(" " * 18 + "".join(f"{VERDICT_LABELS[v][:12]:>14}" for v in VERDICTS))
    for want in VERDICTS:
        print(f"{VERDICT_LABELS[want]:18}" + "".join(f"{confusion[want][v]:>14}"
                                                     for v in VERDICTS))
    metrics = result.metrics
    per = max(1, len(claims))
    print(f"\nclaims per second: {len(claims) / seconds:.2f} ({seconds:.1f} s, "
          f"{metrics.searches} searches)")
    print(f"model calls per claim: {metrics.model_calls / per:.2f}; tokens per claim: "
          f"{(metrics.prompt_tokens + metrics.completion_tokens) / per:.0f}")


if __name__ == "__main__":
    main()
