"""``bench/bench_check_sets.py`` sums the dev sets' verdicts and prints the held-back
drafts only as totals: their names come from ``bench/data/check_held_back.txt``, and a
set it names must exist, or the held-back figure silently shrinks."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_check_sets.py"

_OUTPUT = """MISS partly_supported  (want supported        ) 'x' -- y

dev set: check_devX  claims found: 17  expected: 16
verdicts right: 11/16 (69%)

confusion (rows: expected, columns: given)
                       supported  partly suppo  contradicted     not found
supported                      5             1             0             0
partly supported               0             2             0             0
contradicted                   1             1             3             0
not found                      0             1             0             1
"""


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_check_sets_under_test", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_outputs_are_summed_with_their_confusion_tables() -> None:
    tally = _bench().Tally()
    assert tally.add(_OUTPUT) == (11, 16)
    tally.add(_OUTPUT)
    assert (tally.right, tally.total) == (22, 32)
    assert tally.confusion["contradicted"] == [2, 2, 6, 0]
    assert tally.lines("held")[0] == "held: 22/32 (69%)"


def test_every_held_back_set_named_exists(tmp_path: Path) -> None:
    bench = _bench()
    held = bench.held_back()
    assert len(held) >= 10
    for name in held:
        assert (bench.DATA / name / "expected.json").exists(), name
    listing = tmp_path / "held.txt"
    listing.write_text("# a comment\ncheck_devA  # why\n\ncheck_devB\n", encoding="utf-8")
    assert bench.held_back(listing) == frozenset({"check_devA", "check_devB"})
