# The two commands of the README are `make run` and `make test`; both set up everything first.
PYTHON ?= python3

# Some machines set PYTHONDONTWRITEBYTECODE (this one does): then every process a run starts (the
# pytest workers, each server, worker and command line the tests start) compiles the project's
# modules again, and pytest rewrites the asserts of every test module again in each worker,
# about 10 CPU-seconds a worker. The compiled files go to __pycache__, which git ignores.
unexport PYTHONDONTWRITEBYTECODE
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test test-all test-thorough lint bench check-engines clean messages settings-doc

# The Welsh (and any other) catalogues, compiled from locale/*/LC_MESSAGES/*.po by GNU gettext's
# msgfmt, which also checks that every translation keeps its message's placeholders.
MO_FILES := $(patsubst %.po,%.mo,$(wildcard locale/*/LC_MESSAGES/*.po))
%.mo: %.po
	msgfmt --check -o $@ $<

# The browser tests' own tools from npm (axe-core, the accessibility checker), as package-lock.json pins them.
node_modules/.package-lock.json: package-lock.json
	npm ci --no-audit --no-fund

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

run: $(VENV)/.installed $(MO_FILES)
	$(BIN)/python manage.py serve

# The fast tier, on every core: each test that needs no browser and starts no process (on SQLite
# unless DATABASE_URL says otherwise; with REDIS_URL, on Redis).
test: $(VENV)/.installed $(MO_FILES)
	$(BIN)/python -m pytest -m fast -n auto --dist worksteal

# Every tier (browser, e2e, processes, slow too), with coverage and the slowest 25 tests at the
# end. CI runs it on PostgreSQL and Redis (DATABASE_URL, REDIS_URL). One worker more than cores:
# many of these tests wait on the servers, workers and browsers they start. Two more did not pay:
# the heavy tests, each with processes of its own, then ran four at once (the league night took
# 589 s instead of about 160, in a run of 27 min 54 s).
TEST_ALL_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
test-all: $(VENV)/.installed $(MO_FILES) node_modules/.package-lock.json
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-ci} $(BIN)/python -m pytest -n $(TEST_ALL_WORKERS) --dist worksteal \
		--cov --cov-report=term --durations=25

# The slow tier at full size, as a long hunt by hand or a nightly job: Hypothesis's `thorough`
# profile and the sweeps at the sizes their issues promised (tests/sweeps.py; CI runs a quarter).
test-thorough: $(VENV)/.installed $(MO_FILES)
	HYPOTHESIS_PROFILE=thorough $(BIN)/python -m pytest -m slow -n auto --durations=10

# ruff and mypy, each configured in pyproject.toml (mypy's paths are its `files`).
lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-logo

check-engines: $(VENV)/.installed
	$(BIN)/python ../shared/tools/check_engines.py

bench: $(VENV)/.installed
	$(BIN)/python -m bench

# Brings locale/cy/ up to date with the messages in the code (then translate what is new);
# tests/server/test_translations.py fails while a message has no Welsh.
MAKEMESSAGES_IGNORE := --ignore=.venv --ignore=var --ignore=tests --ignore=bench --ignore=test-artifacts --ignore=docker
messages: $(VENV)/.installed
	$(BIN)/python manage.py makemessages -l cy -d django --no-obsolete --add-location=file $(MAKEMESSAGES_IGNORE)
	$(BIN)/python manage.py makemessages -l cy -d djangojs --no-obsolete --add-location=file $(MAKEMESSAGES_IGNORE)

# The README's configuration tables and .env.example, from the declarations in server/environment.py
# (tests/server/test_settings_declared.py fails while either differs from them).
settings-doc: $(VENV)/.installed
	$(BIN)/python -m server.settings_doc

clean:
	rm -rf $(VENV) var node_modules
