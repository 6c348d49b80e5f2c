# Two commands: `make run` sets everything up and serves the app; `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
CHROMIUM ?= /usr/bin/chromium
PYTEST_WORKERS ?= 2
export DJANGO_SETTINGS_MODULE := policyeditor.settings

.PHONY: run test lint format bench serve install browser clean screenshots

# A stamp file keeps a second `make run` fast: reinstall only when pyproject.toml changes.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev,bench]"
	@touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	DEBUG=1 $(BIN)/python manage.py migrate --noinput
	DEBUG=1 $(BIN)/python manage.py seed_demo
	@# A task worker (impact runs) beside the web server; stopped with it.
	DEBUG=1 $(BIN)/python manage.py db_worker & worker=$$!; \
	  trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	  DEBUG=1 $(BIN)/python manage.py runserver $(HOST):$(PORT)

# Debian's chromium for the browser tests; never a browser downloaded by a test tool.
browser:
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "Installing Debian's chromium for the browser tests..."; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "The browser tests need Debian's chromium: run 'sudo apt-get install chromium' (or set CHROMIUM=/path)."; \
	    exit 1; \
	  fi; \
	fi

test: $(STAMP) browser
	DEBUG=1 $(BIN)/python -m pytest -n $(PYTEST_WORKERS) $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	# The django-stubs plugin imports the settings, which need DEBUG=1 or a SECRET_KEY.
	DEBUG=1 $(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: $(STAMP)
	DEBUG=1 $(BIN)/python bench/run.py

# Production-style serving: gunicorn with several workers, static files through whitenoise.
serve: $(STAMP)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py collectstatic --noinput
	@# TASK_WORKERS task workers (impact runs) beside gunicorn; more can run on other machines (PostgreSQL).
	pids=""; for i in $$(seq $${TASK_WORKERS:-2}); do $(BIN)/python manage.py db_worker & pids="$$pids $$!"; done; \
	  trap 'kill $$pids 2>/dev/null' EXIT INT TERM; \
	  $(BIN)/gunicorn policyeditor.wsgi --bind $(HOST):$(PORT) --workers $${WORKERS:-4} --timeout 30

clean:
	rm -rf $(VENV) staticfiles .pytest_cache

# Refresh the screenshots of key states in docs/screenshots (the README shows one).
screenshots: $(STAMP) browser
	POLICYEDITOR_SCREENSHOTS=1 DEBUG=1 $(BIN)/python -m pytest -q tests/browser
