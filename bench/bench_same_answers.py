"""Do two source trees give the same answers? For changes meant to be speed only.

Asks each demo question with ``deepcite ask QUESTION -c demo -q --offline`` (bundled
model, a fresh process each) once with the sources of ``--base-src`` and once with
those of ``--src`` (default: this checkout), then prints, per question, ``same`` or a
unified diff of the two answers. Exit status 1 when any answer differs or fails.

    git archive main src | tar -x -C /tmp/base       # the tree to compare with
    .venv/bin/python bench/bench_same_answers.py --base-src /tmp/base/src

The questions are about the demo collection (Python's documentation); the runs use the
data dir deepcite would use (``DEEPCITE_DATA_DIR``), whose demo index must be built.
"""

from __future__ import annotations

import argparse
import difflib
import os
import subprocess
import sys
from pathlib import Path

QUESTIONS = (
    "How do I read a CSV file?",
    "How do I parse JSON in Python?",
    "How do I create a virtual environment?",
    "What does the with statement do?",
    "How do I sort a list of dictionaries by a key?",
    "How do I format a date as a string?",
    "How do I run a subprocess and capture its output?",
    "What is a generator?",
)


def answer(src: Path, question: str) -> str:
    """The printed answer of one ask with the sources under ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, "-m", "deepcite", "ask", question, "-c", "demo", "-q", "--offline"],
        env=env, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        return f"<exit status {done.returncode}>\n{done.stderr[-2000:]}"
    return done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-src", type=Path, required=True,
                        help="the src folder of the tree to compare with")
    parser.add_argument("--src", type=Path,
                        default=Path(__file__).resolve().parent.parent / "src",
                        help="the src folder of the changed tree (default: this checkout)")
    args = parser.parse_args()
    differing = 0
    for question in QUESTIONS:
        before, after = answer(args.base_src, question), answer(args.src, question)
        if before == after and not before.startswith("<exit status"):
            print(f"same  {question} ({len(after)} characters)")
            continue
        differing += 1
        print(f"DIFF  {question}")
        sys.stdout.writelines(difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True),
            "base", "changed"))
    print(f"{len(QUESTIONS) - differing} of {len(QUESTIONS)} answers the same")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
