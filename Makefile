# Entry points. `make check` is the main job (model checking and verification);
# `make test` runs lint, type checks, unit tests and the stateful machines.
# Both set themselves up on a fresh machine through tools/bootstrap.sh.

VENV    := .venv
PY      := $(VENV)/bin/python
JAR     := .tools/tla2tools.jar
SETUP   := $(VENV)/.ready

.PHONY: setup check check-deep test lint typecheck unit tlc traces crosshair demo bench bench-smoke mutants docs clean

$(SETUP): pyproject.toml tools/bootstrap.sh
	./tools/bootstrap.sh
	touch $(SETUP)

setup: $(SETUP)

## check: TLC on every model in spec/models.toml, trace validation, CrossHair contracts
check: $(SETUP)
	$(PY) spec/tlc.py --manifest spec/models.toml --set ci

check-deep: $(SETUP)
	$(PY) spec/tlc.py --manifest spec/models.toml --set deep

## test: ruff, mypy strict, pytest (unit, conformance kit, stateful machines, Spark)
test: lint typecheck unit

lint: $(SETUP)
	$(VENV)/bin/ruff check impl tests stateful bench spec tools
	$(VENV)/bin/ruff format --check impl tests stateful bench spec tools

typecheck: $(SETUP)
	$(VENV)/bin/mypy

unit: $(SETUP)
	$(PY) -m pytest -q -p no:cacheprovider

## bench: every workload in its own subprocess (peers in .bench/ venvs) -> docs/benchmarks.md
bench: $(SETUP)
	$(PY) -m bench

bench-smoke: $(SETUP)
	$(PY) -m bench --smoke

## demo: end-to-end job on embedded Spark: generate, transform, SparkSink, verify (make demo N=...)
demo: N ?= 1000000
demo: $(SETUP)
	$(PY) examples/demo_pipeline.py --n $(N)

docs: $(SETUP)
	$(PY) -m reactive_streams.rules > docs/rules.md

clean:
	rm -rf $(VENV) .tools .mypy_cache .ruff_cache .pytest_cache .hypothesis
