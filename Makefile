# Task runner used by people and CI alike. `make demo` and `make test` do all set-up.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.deepcite-installed
QUESTION ?= How do I parse command line arguments?

.PHONY: setup demo test unit integration lint typecheck bench clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "deepcite needs Python 3.11+; run: make PYTHON=python3.11 ..."; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || \
	  { echo "Cannot create $(VENV); on Debian/Ubuntu run: sudo apt-get install python3-venv"; exit 1; }
	$(BIN)/python -m pip install --quiet --upgrade pip
	# CPU torch first, so the embeddings extra does not pull a multi-GB CUDA build.
	$(BIN)/python -m pip install --quiet 'torch==2.13.0'
	$(BIN)/python -m pip install --quiet -e '.[local,docx,embeddings,dev]'
	@touch $(STAMP)

setup: $(STAMP)

demo: setup
	$(BIN)/deepcite ask "$(QUESTION)" --collection demo

lint: setup
	$(BIN)/ruff check src tests bench

typecheck: setup
	$(BIN)/mypy

unit: setup
	$(BIN)/pytest -m "not integration"

integration: setup
	$(BIN)/pytest -m integration

test: lint typecheck
	$(BIN)/pytest

bench: setup
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python bench/bench_quick_summary.py
	$(BIN)/python bench/bench_search.py
	$(BIN)/python bench/bench_collections.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
