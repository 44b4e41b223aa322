# The two commands of the README are `make run` and `make test`; both set up everything first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench check-engines clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

run: $(VENV)/.installed
	$(BIN)/python manage.py serve

test: $(VENV)/.installed
	$(BIN)/python -m pytest

# ruff and mypy, each configured in pyproject.toml (mypy's paths are its `files`).
lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/mypy

check-engines: $(VENV)/.installed
	$(BIN)/python ../shared/tools/check_engines.py

bench: $(VENV)/.installed
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) var
