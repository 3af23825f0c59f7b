# Atout developer commands. `make run` and `make test` work on a fresh machine.
VENV ?= .venv
PYTHON ?= python3
PY = $(VENV)/bin/python
CHROMIUM ?= /usr/bin/chromium
# pytest-xdist: one worker more than the logical cores, since a browser test spends part of
# its time waiting on its server and its browser (docs/architecture.md). A test module stays on one
# worker (--dist loadfile), so its module-scoped browser and server start once, and the modules
# are handed out in the order they are collected (--no-loadscope-reorder): the long bot, bench
# and browser modules start first instead of ending the run alone. PYTEST_WORKERS=0: serially.
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
PYTEST_PARALLEL = -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder
# make test-db runs serially by default: its scale-out tests start clusters of processes and a
# proxy, with recovery bounds that two clusters sharing two cores would not keep
PYTEST_DB_WORKERS ?= 0

# Stamps: the venv is reinstalled only when pyproject.toml, setup.py or the solver's C extension
# (app/bots/_dds.c, built in place by the editable install) is newer than the stamp.
RUN_STAMP = $(VENV)/.stamp-run
TEST_STAMP = $(VENV)/.stamp-test

.PHONY: run test test-db lint bench chromium clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml setup.py app/bots/_dds.c | $(PY)
	$(PY) -m pip install --disable-pip-version-check -e .
	touch $@

$(TEST_STAMP): pyproject.toml setup.py app/bots/_dds.c | $(PY)
	$(PY) -m pip install --disable-pip-version-check -e '.[test]'
	touch $@ $(RUN_STAMP)

## run: install, migrate the database (./data/atout.db by default), serve on http://127.0.0.1:8000
run: $(RUN_STAMP)
	mkdir -p data
	$(VENV)/bin/alembic upgrade head
	$(VENV)/bin/atout serve

## test: the whole suite (SQLite + real Chromium) on every core; fails when it collects no test
test: $(TEST_STAMP) chromium
	$(VENV)/bin/pytest $(PYTEST_PARALLEL)

## test-db: the database-facing tests against $$ATOUT_DATABASE_URL (CI points it at PostgreSQL);
## serially unless PYTEST_DB_WORKERS is set; each xdist worker then uses its own database beside
## it (<name>_gw0, <name>_gw1, ...)
test-db: $(TEST_STAMP)
	@test -n "$$ATOUT_DATABASE_URL" || { echo "make test-db: set ATOUT_DATABASE_URL, e.g. postgresql+asyncpg://postgres@127.0.0.1:54329/atout_test" >&2; exit 1; }
	$(VENV)/bin/pytest -n $(PYTEST_DB_WORKERS) --dist loadfile -m db

chromium:
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	  else \
	    echo "make test: $(CHROMIUM) is missing; install it with: sudo apt-get install -y chromium" >&2; \
	    exit 1; \
	  fi; \
	fi

## lint: ruff (check + format) everywhere; mypy on app/ and bench/ (strict on the engine:
## pyproject.toml [tool.mypy])
lint: $(TEST_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy app bench

## bench: engine benchmark (`atout bench engine`, bench/engine.py)
bench: $(RUN_STAMP)
	$(VENV)/bin/atout bench engine

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache *.egg-info
