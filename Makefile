# One-command set-up: `make run` (chat with the default model) and `make test` (lint, types, the test suite).
# Both create .venv, install torch 2.13.0 (CPU) first, then the package with its test extras.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install torch==2.13.0
	$(BIN)/python -m pip uninstall -y -q apsw 2>/dev/null || true  # replaced by apsw-sqlite3mc
	$(BIN)/python -m pip install -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/memgpt-local chat

test: $(STAMP) lint
	$(BIN)/python scripts/fetch_test_assets.py
	@command -v chromium >/dev/null || apt-get install -y -q chromium >/dev/null 2>&1 \
		|| echo "chromium is not installed and could not be: the browser test will be skipped (CI fails it)"
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check memgpt_local tests scripts
	$(BIN)/ruff format --check memgpt_local tests scripts
	$(BIN)/mypy

clean:
	rm -rf $(VENV) .pytest_cache
