"""Every document-check dev set in one process: verdicts right per tuning set, and for
the held-back drafts only their totals and summed confusion table.

    PYTHONPATH=src .venv/bin/python bench/bench_check_sets.py            # all sets
    PYTHONPATH=src .venv/bin/python bench/bench_check_sets.py --held     # held back only
    PYTHONPATH=src .venv/bin/python bench/bench_check_sets.py check_dev61 check_dev63

Why: a judge tuned on the sets it is measured on says little about a draft it has not
seen (issue 48). The drafts named in ``bench/data/check_held_back.txt`` were written
blind and are never read while the judge is worked on; this script prints nothing of
them but sums, so running it keeps them unseen. The sentence encoder loads once for all
sets (a set alone spends most of its time loading it).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent
DATA = ROOT / "data"
HELD_BACK = DATA / "check_held_back.txt"
ROWS = ("supported", "partly supported", "contradicted", "not found")


@dataclass
class Tally:
    """Verdicts right, claims expected and the confusion table, summed over sets."""

    right: int = 0
    total: int = 0
    confusion: dict[str, list[int]] = field(
        default_factory=lambda: {row: [0, 0, 0, 0] for row in ROWS})

    def add(self, output: str) -> tuple[int, int]:
        """Add one ``bench_check.py`` output; its (right, total)."""
        found = re.search(r"verdicts right: (\d+)/(\d+)", output)
        if found is None:
            raise ValueError("no 'verdicts right' line in bench_check's output")
        right, total = int(found.group(1)), int(found.group(2))
        self.right += right
        self.total += total
        for row in ROWS:
            cells = re.search(rf"^{row}\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$", output, re.M)
            if cells is not None:
                for index in range(4):
                    self.confusion[row][index] += int(cells.group(index + 1))
        return right, total

    def lines(self, name: str) -> list[str]:
        share = 100 * self.right / self.total if self.total else 0.0
        out = [f"{name}: {self.right}/{self.total} ({share:.0f}%)",
               "  expected \\ given: supported, partly, contradicted, not found"]
        out += [f"  {row:18} {cells}" for row, cells in self.confusion.items()]
        return out


def held_back(path: Path = HELD_BACK) -> frozenset[str]:
    """The held-back sets' names, one per line (``#`` starts a comment)."""
    if not path.exists():
        return frozenset()
    names = (line.split("#", 1)[0].strip() for line in path.read_text("utf-8").splitlines())
    return frozenset(name for name in names if name)


def _sets(names: list[str], held_only: bool, held: frozenset[str]) -> list[Path]:
    if names:
        return [DATA / name for name in names]
    every = sorted((p for p in DATA.glob("check_dev*") if (p / "expected.json").exists()),
                   key=lambda p: (len(p.name), p.name))
    return [p for p in every if p.name in held] if held_only else every


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="*", help="set names under bench/data (default: all)")
    parser.add_argument("--held", action="store_true", help="the held-back sets only")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    import bench_check

    held = held_back()
    tuning, back = Tally(), Tally()
    for folder in _sets(args.sets, args.held, held):
        buffer = io.StringIO()
        sys.argv = ["bench_check.py", str(folder)]
        with contextlib.redirect_stdout(buffer):
            bench_check.main()
        if folder.name in held:
            back.add(buffer.getvalue())
        else:
            right, total = tuning.add(buffer.getvalue())
            print(f"{folder.name} {right}/{total}", flush=True)
    if tuning.total:
        print("\n".join(tuning.lines("tuning sets")))
    if back.total:
        print("\n".join(back.lines(f"held-back sets ({len(held)} named, totals only)")))


if __name__ == "__main__":
    main()
