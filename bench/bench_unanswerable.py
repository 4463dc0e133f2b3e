"""How often a question the demo collection does not answer gets an honest "not found".

Asks the bundled model (offline, the demo collection of Python documentation) questions
the collection cannot answer - other software, geography, history, science - and counts
the answers that say nothing was found (the grounded path's "No sentence of the sources
answers this directly", or "No sources were found") instead of quoting an unrelated
sentence that happens to share a word with the question. Also prints the model calls
spent (an honest "not found" needs none).

    .venv/bin/python bench/bench_unanswerable.py [--show]

Target (issue 25): >= 90% honest "not found".
"""

from __future__ import annotations

import argparse
import tempfile

from deepcite.config import load_settings
from deepcite.runs import RunRequest, execute

QUESTIONS = (
    "How do I create a virtual environment with venv?",
    "What is the capital of Australia?",
    "How do I train a neural network with PyTorch?",
    "Who won the 2018 FIFA World Cup?",
    "How do I deploy a Django application to Heroku?",
    "What causes the northern lights?",
    "How do I install packages with pip from a requirements file?",
    "What is the boiling point of water on Mount Everest?",
    "How do I draw a bar chart with matplotlib?",
    "How many moons does Jupiter have?",
    "How do I read an Excel spreadsheet with pandas?",
    "Who wrote the novel Middlemarch?",
    "How do I configure nginx as a reverse proxy?",
    "When did the Berlin Wall fall?",
    "How do I center a div with CSS flexbox?",
    "What is the population of Canada?",
    "How do I write a React component with hooks?",
    "Which river flows through Budapest?",
    "How do I set up a Kubernetes deployment?",
    "What year did the first Moon landing happen?",
)
NOT_FOUND = ("No sentence of the sources answers this directly",
             "No sources were found for this question")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--show", action="store_true", help="print each answer's first line")
    show = parser.parse_args().show
    with tempfile.TemporaryDirectory() as data_dir:
        settings = load_settings({"data_dir": data_dir, "collections": ["demo"],
                                  "provider": "local", "offline": True},
                                 config_files=[], environ={})
        honest = calls = 0
        for question in QUESTIONS:
            result = execute(RunRequest(question=question), settings)
            said = any(phrase in result.answer for phrase in NOT_FOUND)
            honest += said
            calls += result.metrics.model_calls
            if show:
                first = result.answer.splitlines()[0] if result.answer else ""
                print(f"{'not found' if said else 'ANSWERED '}  {question} -> {first[:100]}")
    print(f"questions the demo does not answer: {len(QUESTIONS)}")
    print(f"honest not found: {honest}/{len(QUESTIONS)} "
          f"({100 * honest / len(QUESTIONS):.0f}%; target >= 90%)")
    print(f"model calls: {calls} ({calls / len(QUESTIONS):.2f} per question)")


if __name__ == "__main__":
    main()
