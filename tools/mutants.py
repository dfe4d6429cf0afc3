#!/usr/bin/env python3
# ruff: noqa: E501  (the patches quote source lines verbatim)
"""Plant known bugs in a copy of the implementation; the state machines must catch each.

Every mutant is a textual patch keyed to exact source lines of ``impl/reactive_streams``
(see the research catalogue of bug classes in docs/verification.md). The script copies
``impl/`` to a temporary directory, applies one mutant there (never in the working
tree), and runs ``stateful/test_publisher_machine.py`` (core mutants) or the cells of
``stateful/test_pipeline_machine.py`` for the operator concerned (operator and multicast
mutants, ``select``, ``examples`` per cell) against the copy. The unmutated copy must
pass each of these runs first. A mutant is killed when the machine fails; the table
shows the rule or check named by the failure. A patch that no longer matches the source
stops the script with an error: update the mutant. ``--check`` lists every stale one.

The mutants come from three places: this file (the core's, and those that span areas),
``tools/planted/<area>.py``, and each operator family's
``tests/operators/<family>/mutants.py`` (``planted.collect``); a name used twice stops
the script.

Runs side by side (``-j N``): each mutant and each baseline gets its own copy of ``impl/``
and its own temporary directory (``TMPDIR``, so pytest's ``tmp_path``, the trace
checker's TLC ``-metadir`` and ``-Djava.io.tmpdir``; ``SPARK_LOCAL_DIRS``), and every run
reads the tests from one copy of the tree taken at the start, so edits meanwhile do not
leak in. Every result is appended to ``build/mutants/results.jsonl`` as it ends (the
mutant's name, verdict, seconds, reason); ``--resume`` keeps the kills (and passed
baselines) recorded for today's ``impl/`` and patches, and runs the rest, survivors and
timeouts again. A run that hangs (pytest-timeout, or the run's
own bound) is "timed out", never counted as killed: under load a slow survivor looks the
same, so each is run once more, alone, after the others (so is a run that Hypothesis
calls flaky: ``FlakyStrategyDefinition``, the machine's draws, not a kill); a baseline that fails leaves its
mutants "not run". The summary counts killed, survived, timed out and not run, and names
all but the killed.

Usage:
    python tools/mutants.py            # all mutants, then the kill table
    python tools/mutants.py -k wrap    # mutants whose name contains "wrap"
    python tools/mutants.py -j 2 --resume   # two at once; continue an interrupted run
    python tools/mutants.py --summary  # the results file's table and counts, nothing run
    python tools/mutants.py --set operators --check   # only: does every patch apply
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MACHINE = "stateful/test_publisher_machine.py"
sys.path.insert(0, str(Path(__file__).resolve().parent))

from planted import Mutant, Patch, collect, unique  # noqa: E402  (tools/planted/: one module per area)

SUB = "_core/pump.py"
DOWN = "_core/downstream.py"

MUTANTS = (
    Mutant(
        "lost-demand-update",
        "the drain writes back demand read before the batch; requests made meanwhile are lost",
        "3.8",
        (
            Patch(
                SUB,
                "    def _after_batch(self, it: Iterator[T], sent: int, exhausted: bool) -> bool:\n",
                "    def _after_batch(\n        self, it: Iterator[T], sent: int, exhausted: bool,"
                " start: int = -1\n    ) -> bool:\n",
            ),
            Patch(
                SUB,
                "            self._requested = take(self._requested, sent)  # rule 3.17: unbounded stays\n",
                "            self._requested = take(self._requested if start < 0 else start, sent)\n",
            ),
            Patch(
                SUB,
                "        return self._after_batch(it, sent, exhausted)\n",
                "        return self._after_batch(it, sent, exhausted, start)\n",
            ),
            Patch(
                SUB,
                "        on_next = downstream.on_next\n        sent = 0\n",
                "        on_next = downstream.on_next\n        start = self._requested\n        sent = 0\n",
            ),
        ),
    ),
    Mutant(
        "missed-wake-up",
        "the drainer leaves without looking at work recorded while it ran",
        "3.8",
        (
            Patch(
                "_core/serial.py",
                "            self._wip = wip\n        return wip\n",
                "            self._wip = 0  # forgets the work recorded meanwhile\n        return 0\n",
            ),
        ),
    ),
    Mutant(
        "wrap-not-saturate",
        "demand overflow wraps around like a 64-bit long instead of saturating",
        "3.17",
        (
            Patch(
                DOWN,
                "            self._requested = add_demand(self._requested, int(n))  # rule 3.17\n",
                "            total = self._requested + int(n)\n"
                "            self._requested = total if total <= 2**63 - 1 else total - 2**64\n",
            ),
        ),
    ),
    Mutant(
        "on-next-after-cancel",
        "the emission loop does not look at the cancel flag",
        "3.12",
        (
            Patch(
                SUB,
                "                if self._pub is not ACTIVE or self._bad is not None:\n"
                "                    break\n                if item is None:\n",
                "                if self._bad is not None:\n                    break\n"
                "                if item is None:\n",
            ),
            Patch(
                DOWN,
                "            if self._pub is not ACTIVE or self._bad is not None:\n",
                "            if self._bad is not None:\n",
            ),
        ),
    ),
    Mutant(
        "no-error-for-request-0",
        "request(n <= 0) is silently ignored",
        "3.9",
        (
            Patch(
                DOWN,
                "        message = check_request(n) if type(n) is not int or n <= 0 else None\n",
                "        message = check_request(n) if type(n) is not int or n <= 0 else None\n"
                "        if message is not None:\n            return\n",
            ),
        ),
    ),
    Mutant(
        "unbounded-recursion",
        "request() drains inline even when a drain is already running (no trampoline)",
        "3.3",
        (
            Patch(
                DOWN,
                "        if wake:\n            self._wake(False)\n",
                "        if True:  # drains even while a drain runs\n            self._wake(False)\n",
            ),
        ),
    ),
    Mutant(
        "terminal-twice",
        "an error path falls through to completion and the terminal guard is gone",
        "1.7",
        (
            Patch(
                DOWN,
                "            if self._pub is not ACTIVE:\n                return False\n"
                "            if self._bad is not None:",
                "            if self._pub is CANCELLED:\n                return False\n"
                "            if self._bad is not None:",
            ),
            Patch(
                SUB,
                "        if self._answer_bad_request():  # rule 3.9\n            return False\n"
                "        if exhausted",
                "        self._answer_bad_request()  # rule 3.9\n        if exhausted",
            ),
            Patch(
                DOWN,
                "            if self._bad is not None:  # read under the lock",
                "            if self._bad is not None and error is not None:  # read under the lock",
            ),
        ),
    ),
    Mutant(
        "signal-before-on-subscribe",
        "the first drain round opens the source before delivering onSubscribe",
        "1.9",
        (
            Patch(
                SUB,
                "        self._receive()\n"
                "        if self._pub is not ACTIVE and not (self._pub is SUBSCRIBED and self._deliver_subscribe()):\n",
                "        self._receive()\n"
                "        if self._pub is not ACTIVE and not (\n"
                "            self._pub is SUBSCRIBED and (self._it is None or self._deliver_subscribe())\n"
                "        ):\n",
            ),
            Patch(
                DOWN,
                "        if self._pub is SUBSCRIBED:\n            self._deliver_subscribe()\n",
                "        if False:\n            self._deliver_subscribe()\n",
            ),
            Patch(
                DOWN,
                "            if self._pub is not ACTIVE:\n                return False\n"
                "            if self._bad is not None:",
                "            if self._pub in DONE:\n                return False\n"
                "            if self._bad is not None:",
            ),
        ),
    ),
    Mutant(
        "over-delivery-at-batch-boundary",
        "a full batch takes one element too few from the demand",
        "1.1",
        (
            Patch(
                SUB,
                "            self._requested = take(self._requested, sent)  # rule 3.17",
                "            self._requested = take(\n"
                "                self._requested, sent - (sent == self._batch and self._executor is not None)\n"
                "            )  # rule 3.17",
            ),
        ),
    ),
    Mutant(
        "subscriber-kept-after-cancel",
        "the subscription keeps its Subscriber after cancel and after the end",
        "3.13",
        (
            Patch(
                SUB,
                "        self._downstream = None\n        self._it = None\n",
                "        self._it = None\n",
            ),
            Patch(
                DOWN,
                "        self._downstream = None  # rule 3.13\n\n    def _receive(self)",
                "        pass\n\n    def _receive(self)",
            ),
            Patch(
                DOWN,
                "            downstream, self._downstream = self._downstream, None  # rule 3.13\n",
                "            downstream = self._downstream\n",
            ),
        ),
    ),
    # issue 21, defects 1 to 4: the asyncio bridges and the concurrent.futures adapter
    Mutant(
        "aclose-leaves-anext-waiting",
        "after aclose() (or a timed-out __anext__) the next __anext__ waits for ever",
        "liveness",
        (
            Patch(
                "bridges.py",
                "                if self._cancelled:\n"
                "                    return False, None  # closed (aclose, a cancelled __anext__): it is over\n",
                "",
            ),
        ),
        "stateful/test_reach_bridges.py",
    ),
    Mutant(
        "async-source-cancel-only-flags",
        "a cancel while the async iterator awaits its next element only wakes the pump",
        "3.12",
        (
            Patch(
                "bridges.py",
                "        if self._pulling and task is not None:\n            task.cancel()\n",
                "        if self._pulling and task is not None:\n            pass  # the pump stays in anext()\n",
            ),
        ),
        "stateful/test_reach_bridges.py",
    ),
    Mutant(
        "async-source-closed-loop-raises",
        "from_async_iterable over a closed loop raises out of subscribe(), no signal",
        "1.9",
        (
            Patch(
                "bridges.py",
                "        except RuntimeError:  # the loop is closed: nothing will ever run there\n",
                "        except ArithmeticError:  # the closed loop's RuntimeError escapes\n",
            ),
        ),
        "stateful/test_reach_bridges.py",
    ),
    Mutant(
        "futures-pool-drops-the-future",
        "a concurrent.futures pool's Future is not watched: a dropped drain is never signalled",
        "1.4",
        (
            Patch(
                "executors.py",
                "        future.add_done_callback(submitted.done)\n",
                "        del future  # nobody reads it\n",
            ),
        ),
        "stateful/test_reach_bridges.py",
    ),
    Mutant(
        "yield-per-round",
        "the drain loop's budget is renewed every round (the old yield rule): nested "
        "request(1) calls keep one task draining round after round, starving the pool",
        "fairness",
        (
            Patch(
                "_core/serial.py",
                "        while True:\n            if self._drain_round():\n",
                "        while True:\n"
                "            self._budget = self._batch if self._executor is not None else MAX_DEMAND\n"
                "            if self._drain_round():\n",
            ),
        ),
        "stateful/test_reach_fairness.py",
        "share_one_pool_thread",
    ),
    # issue 21: inner subscriptions, do_on_request's fault, raising subscribe, generate
    Mutant(
        "inner-subscription-not-serial",
        "a zip/flat_map inner's prefetch request and the drain's replenishing one may overlap",
        "2.7",
        (
            Patch(
                "_core/attach.py",
                "                self._upstream = serial = SerialSubscription(subscription)  # rule 2.7\n",
                "                self._upstream = serial = subscription  # type: ignore[assignment]\n",
            ),
        ),
        "stateful/test_pipeline_machine.py",
        "zip or flat_map or concat_map",
    ),
    Mutant(
        "subscribe-raise-escapes",
        "a source's raising subscribe() escapes the operator's subscribe (zip, flat_map...)",
        "1.9",
        (
            Patch(
                "_core/subscribing.py",
                "        fail(exc)\n        return False\n",
                "        raise\n",
            ),
        ),
        "stateful/test_pipeline_machine.py",
        "zip or flat_map or concat_map",
    ),
    Mutant(
        "generate-error-withheld",
        "generate's error recorded with the last element waits for more demand",
        "1.4",
        (
            Patch(
                "sources.py",
                "        return 0 if self._sink._finished else 1\n",
                "        return 0 if self._sink._finished and self._sink._error is None else 1\n",
            ),
        ),
        "tests/test_sources.py",
        "eager",
    ),
    # --- time: the timed operators' own tests, in virtual time
    Mutant(
        "timed-tick-not-serial",
        "a timed hop's event does not wait for the running drain: a tick and an element overlap",
        "1.3",
        (
            Patch(
                "operators/_timed.py",
                "        self._signal()  # rule 1.3: only the drain signals downstream\n",
                "        self._wip = 0  # forgets the running drain\n        self._signal()\n",
            ),
        ),
        "tests/operators/timed/test_timed.py",
        "never_signal",
    ),
    Mutant(
        "timed-cancel-keeps-timer",
        "a cancelled timed hop leaves its timer armed (it keeps the subscriber)",
        "3.13",
        (
            Patch(
                "operators/_timed.py",
                "        self._disarm()  # rules 3.12, 3.13: no timer keeps the subscriber\n",
                "        pass  # the timer stays armed\n",
            ),
        ),
        "tests/operators/timed/test_timed.py",
        "cancel_cancels",
    ),
    # issue 28: the independent review's planted bugs, each killed by a machine; the
    # interleaving machine runs real threads under the deterministic scheduler
    Mutant(
        "serial-lost-wake-up",
        "the serial subscription's holder leaves without looking at calls queued meanwhile",
        "3.8",
        (
            Patch(
                "_core/serial.py",
                "            self._calls.append(n)\n"
                "        if hook is not None:\n"
                '            hook("serial.pending", self)\n'
                "        if self._pending():\n"
                "            self._run_queued()  # queued by another thread meanwhile (no lost wake-up)\n",
                "            self._calls.append(n)\n"
                "            if self._pending():\n"
                "                self._run_queued()  # only the queuing thread looks\n"
                "        if hook is not None:\n"
                '            hook("serial.pending", self)\n',
            ),
        ),
        "stateful/test_interleaved.py",
        "explore and filter",
    ),
    Mutant(
        "relay-keeps-subscriber-after-end",
        "a pass-through hop keeps its subscriber after its terminal signal",
        "3.13",
        (
            Patch(
                "_core/relay.py",
                "    def _released(self) -> None:\n        self._out = None  # rule 3.13\n",
                "    def _released(self) -> None:\n        pass  # keeps the subscriber\n",
            ),
        ),
        "stateful/test_pipeline_machine.py",
        "map-unfused",
    ),
    Mutant(
        "emitter-drop_oldest-overfills",
        "an Emitter with overflow='drop_oldest' keeps the oldest: its buffer exceeds the bound",
        "bound",
        (
            Patch(
                "_emitter.py",
                '            if overflow == "drop_oldest":\n                self._buffer.popleft()\n',
                '            if overflow == "drop_oldest":\n                pass  # the oldest stays\n',
            ),
        ),
        "stateful/test_interleaved.py",
        "explore and emitter",
    ),
    Mutant(
        "spark-nested-values-unchecked",
        "nested, float32 and timestamp values go to Arrow unchecked (2.5 lands as 2)",
        "issue 26",
        (
            Patch(
                "spark/records.py",
                "        problem = column_problem(values, name, ftype, first)\n",
                "        problem = None  # only top-level numbers are checked\n",
            ),
        ),
        "tests/spark/test_values.py",
    ),
    Mutant(
        "spark-fanout-not-split",
        "an input expanding past a batch is never cut: the full buffer hangs the sink",
        "issue 26",
        (
            Patch(
                "spark/sink.py",
                "        if full:\n",
                "        if False:  # never split an input\n",
            ),
        ),
        "tests/spark/test_fanout.py",
        "split_not_hung",
    ),
    Mutant(
        "spark-fanout-replay-not-dropped",
        "a resumed sink keeps the replayed outputs of a split input it already committed",
        "issue 26",
        (
            Patch(
                "spark/sink.py",
                "        if self._replay_skip:  # resumed inside a split input: drop what is committed\n",
                "        if False:\n",
            ),
        ),
        "tests/spark/test_fanout.py",
        "resumes_exactly",
    ),
    Mutant(
        "file-source-single-cursor",
        "every file sorting before the open one counts as done: a late file is skipped",
        "issue 26",
        (
            Patch(
                "spark/replay.py",
                "            finished = set(done)\n",
                "            finished = set(done) | set(names[:at])\n",
            ),
        ),
        "tests/spark/test_file_source.py",
    ),
    Mutant(
        "spark-first-batch-unbudgeted",
        "the first batch ignores batch_bytes until one batch was measured",
        "issue 26",
        (
            Patch(
                "spark/sink.py",
                "        self._seal_bytes = float(batch_bytes)\n",
                "        self._seal_bytes = float('inf')  # until a batch is measured\n",
            ),
        ),
        "tests/spark/test_sink_budget.py",
    ),
    Mutant(
        "spark-quarantine-per-attempt",
        "a quarantined record's file is named per attempt: a replay quarantines it again",
        "issue 26",
        (
            Patch(
                "spark/quarantine.py",
                'join(self.uri, f"{self.sink_id}-{offset:012d}.json")',
                'join(self.uri, f"{self.sink_id}-{offset:012d}-{id(self)}.json")',
            ),
        ),
        "tests/spark/test_bad_records.py",
    ),
    Mutant(
        "spark-declared-schema-unchecked",
        "a declared schema is not compared with the table's stored one",
        "issue 26",
        (
            Patch(
                "spark/sink.py",
                "            store.check(declared, evolution)\n",
                "            pass\n",
            ),
        ),
        "tests/spark/test_table_schema.py",
        "refused_with_a_diff",
    ),
    Mutant(
        "spark-retry-forgets-first-error",
        "a failed step names only its last attempt (the 0-byte record, not ENOSPC)",
        "issue 26",
        (
            Patch(
                "spark/sink.py",
                "                first = first or e\n",
                "                first = e\n",
            ),
        ),
        "tests/spark/test_io_errors.py",
        "full_disk",
    ),
    # issue 23 (fusion): the fused chain refuses None as the unfused hop does; a pulled
    # upstream ends when the subscribed source would
    Mutant(
        "fused-filter-hides-map-none",
        "a fused filter drops the None a fused map returned instead of failing the stream",
        "2.13",
        (
            Patch(
                "operators/_fused.py",
                "    return fn if sync.nulls is None else _refusing_none(fn, sync.nulls)\n",
                "    return fn\n",
            ),
        ),
        "tests/operators/test_fusion.py",
        "none",
    ),
    Mutant(
        "pulled-upstream-passes-none",
        "a fused (pulled) source hands a None element to observe_on instead of failing",
        "2.13",
        (
            Patch(
                "_core/fusion.py",
                "        if self._nulls:\n            index = _first_none(items)",
                "        if False:\n            index = _first_none(items)",
            ),
        ),
        "tests/operators/test_fusion.py",
        "none",
    ),
    # --- issue 24: switch_map and retry's backoff, killed by the pipeline machine
    Mutant(
        "retry-backoff-cancel-keeps-timer",
        "a cancel during retry's backoff leaves the resubscription timer armed",
        "3.13",
        (
            Patch(
                "operators/_recover.py",
                "        if cancel:\n            self._timer.dispose()  # rules 3.12, 3.13: no timer keeps the subscriber\n",
                "        if cancel:\n            pass\n",
            ),
        ),
        "tests/operators/combine/test_combining.py",
        "backoff",
    ),
    Mutant(
        "to-iterable-bulk-replenish-asks-limit",
        "to_iterable's bulk replenish asks for 75 % of the window, not for everything taken: "
        "the window shrinks to 75 % for good",
        "issue 23.5",
        (
            Patch(
                "bridges.py",
                "                    subscriber.replenish(taken)\n",
                "                    subscriber.replenish(limit)\n",
            ),
        ),
        "tests/test_bridges.py",
        "bounded_replenished",
    ),
    Mutant(
        "to-async-iterator-uncounted-refill",
        "to_async_iterator does not count the element it takes right after a synchronous "
        "refill: each request asks for one too few, the window shrinks to nothing (a stall)",
        "issue 23.5",
        (
            Patch(
                "bridges.py",
                "                    self._taken = 1\n",
                "                    self._taken = 0\n",
            ),
        ),
        "tests/test_bridges.py",
        "window",
    ),
    # issue 27 (round 4, the Spark sink): a failing batch leaves the in-flight count in
    # the step that fails the sink
    Mutant(
        "spark-failure-lost-to-on-complete",
        "a failing batch leaves the in-flight count before the sink fails: an on_complete "
        "in between finds it idle, finishes it done and the failure is lost",
        "issue 27",
        (
            Patch(
                "spark/sink.py",
                "        with self._lock:\n"
                "            if failed is not None:\n"
                "                self._drop_locked(failed)\n",
                "        if failed is not None:\n"
                "            self._drop(failed)\n"
                "        with self._lock:\n",
            ),
        ),
        "tests/spark/test_sink_contract.py",
        "lost_to_an_on_complete",
    ),
    Mutant(
        "spark-finalized-before-sealed-batches",
        "a failure finalizes on the write lane before the batches still converting queue "
        "their writes: they are written after the result said they were not",
        "issue 27",
        (
            Patch(
                "spark/sink.py",
                "        self._convert_lane.submit(lambda: self._write_lane.submit(self._finalize))\n",
                "        self._write_lane.submit(self._finalize)\n",
            ),
        ),
        "tests/spark/test_sink_contract.py",
        "resolves_after_the_batches",
    ),
    Mutant(
        "spark-upstream-error-hides-dropped-records",
        "an upstream error followed by a cancel reports no uncommitted records, though the "
        "cancel dropped the batches the sink held",
        "issue 27",
        (
            Patch(
                "spark/sink.py",
                "                uncommitted_records=uncommitted,  # 0 unless the sink dropped some (a cancel)\n",
                '                uncommitted_records=uncommitted if state == "failed" else 0,\n',
            ),
        ),
        "tests/spark/test_sink_contract.py",
        "upstream_error_then_a_cancel",
    ),
    # timed hops: a tick is stale by its arming, not by the clock
    Mutant(
        "timed-stale-by-the-clock",
        "a timed hop tells a stale tick by its scheduler's clock: the live timer's tick, run "
        "a little early by now() (asyncio's call_at), is dropped and nothing fires again",
        "1.4",
        (
            Patch(
                "operators/_timed.py",
                "        return self._timer is None or arming != self._armed\n",
                "        return self._timer is None or self._scheduler.now() < self._due - 1e-9\n",
            ),
        ),
        "tests/operators/timed/test_timed_stale_ticks.py",
        "early",
    ),
    # the lease heartbeat ("spark-sink-lease") outlives its writer: the lease stays live
    Mutant(
        "spark-lease-heartbeat-not-stopped",
        "releasing (or abandoning) a lease leaves its heartbeat thread beating: the lease "
        "stays live after the sink ended and a writer on another host gets LeaseHeld",
        "issue 26.2",
        (
            Patch(
                "spark/lease.py",
                "        self._stop.set()\n        beater, self._beater = self._beater, None\n",
                "        beater, self._beater = None, None\n",
            ),
        ),
        "tests/spark/test_lease_threads.py",
        "every_end and completed",
    ),
    Mutant(
        "spark-writer-setup-failure-keeps-lease",
        "a SparkBatchWriter whose constructor fails after it took the lease (a bad "
        "partition_by, a refused conf) leaves its heartbeat beating and the lease unreleased",
        "issue 26.2",
        (
            Patch(
                "spark/writer.py",
                "            self.release()  # no writer came of it: no heartbeat may keep the lease live\n",
                "            pass\n",
            ),
        ),
        "tests/spark/test_lease_threads.py",
        "a_writer_whose_constructor_fails",
    ),
    Mutant(
        "spark-sink-setup-failure-keeps-lease",
        "a SparkSink whose constructor fails after its writer took the lease (recovery "
        "refuses the table, a bad schema_evolution) leaves the heartbeat beating",
        "issue 26.2",
        (
            Patch(
                "spark/sink.py",
                "            if built and release is not None:  # no sink came of it: its writer's lease\n",
                "            if False:\n",
            ),
        ),
        "tests/spark/test_lease_threads.py",
        "a_sink_whose_constructor_fails and recovery",
    ),
)


PIPE = "stateful/test_pipeline_machine.py"
OPS = "operators/"

#: planted bugs in operators and multicast; the pipeline machine's cells for the
#: operator concerned (``select``) must kill each
OPERATOR_MUTANTS = (
    Mutant(
        "take-does-not-cancel-upstream",
        "take/take_while complete downstream but leave upstream subscribed",
        "1.8",
        (
            Patch(
                "_core/relay.py",
                '        """Stop before upstream ends (take, take_while): cancel upstream, complete."""\n'
                "        self._stop(None)\n",
                '        """Stop before upstream ends (take, take_while): cancel upstream, complete."""\n'
                "        self._finish(None)\n",
            ),
        ),
        PIPE,
        "take",
    ),
    Mutant(
        "concat_map-runs-two-inners",
        "concat_map subscribes two inners at once: their elements interleave",
        "value",
        (
            Patch(
                "flow.py",
                '            "concat_map", fn, lambda m: self._flat_map(m, 1, prefetch, "concat_map"), iterables=True\n',
                '            "concat_map", fn, lambda m: self._flat_map(m, 2, prefetch, "concat_map"), iterables=True\n',
            ),
        ),
        PIPE,
        "concat_map",
        400,  # two inners on an executor must be scheduled out of order
    ),
    Mutant(
        "relay-cancel-stops-at-the-hop",
        "a pass-through hop does not pass a cancel upstream (only a later element would)",
        "3.12",
        (
            Patch(
                "_core/relay.py",
                "            self._upstream.cancel()  # serial: queued while another thread calls upstream\n"
                "            return\n",
                "            return  # the cancel is not passed upstream\n",
            ),
        ),
        PIPE,
        "map-unfused or scan",
    ),
    Mutant(
        "kit-fixture-wakes-before-demand",
        "the kit's ManualSubscription wakes the check before it adds the requested demand",
        "2.7 (kit)",
        (
            Patch(
                "tck/_manual.py",
                '            if kind == "cancel":\n'
                "                self.cancelled = True\n"
                "            elif check_request(n) is None and not self.cancelled:\n"
                "                assert isinstance(n, int)\n"
                "                self.demand = add_demand(self.demand, n)\n"
                "            self.calls.append(call)\n"
                "            self._in_call = None\n"
                "        env.notify()\n",
                "            self.calls.append(call)\n"
                "            self._in_call = None\n"
                "        env.notify()\n"
                "        with self._lock:\n"
                '            if kind == "cancel":\n'
                "                self.cancelled = True\n"
                "            elif check_request(n) is None and not self.cancelled:\n"
                "                assert isinstance(n, int)\n"
                "                self.demand = add_demand(self.demand, n)\n",
            ),
        ),
        "tests/tck/test_subscriber_fixture.py",
        "recorded",
    ),
    Mutant(
        "retry-doubles-demand",
        "the switching core asks a new upstream for the full demand ever requested, not the outstanding part",
        "1.1",
        (
            Patch(
                "_core/arbiter.py",
                "                    requested = max(0, requested - self._produced)\n",
                "                    requested = max(0, requested)  # the delivered ones asked again\n",
            ),
        ),
        PIPE,
        "retry",
    ),
    Mutant(
        "kit-settles-on-one-quiet-period",
        "the kit's settle: one wall-clock quiet period, starved threads ignored, not scaled",
        "3.12",
        (
            Patch(
                "tck/_env.py",
                "            judged = _cpu.judge(before, after, self.enough_cpu_ns(), window)\n",
                "            judged = _cpu.Window((), {})\n",
            ),
            Patch(
                "tck/_env.py",
                "        while counted < self.config.quiet_windows or busy_since is not None:\n",
                "        while counted < 1:\n",
            ),
            Patch(
                "tck/_env.py",
                "        share = self.config.quiet / max(1, self.config.quiet_windows)\n"
                "        return max(share, min(_GAP_FACTOR * self.max_gap, self.config.timeout / 4))\n",
                "        return self.config.quiet\n",
            ),
        ),
        "tests/tck/test_settle.py",
    ),
    Mutant(
        "kit-probe-never-yields-in-a-signal",
        "the probe subscriber holds the interpreter through every signal it receives",
        "1.3",
        (
            Patch(
                "tck/probes.py",
                "            time.sleep(pause)  # yield inside the signal: provoke a racing one\n",
                "            pass\n",
            ),
        ),
        "tests/tck/test_provoking_probes.py",
    ),
    Mutant(
        "kit-probe-raises-into-the-publisher",
        "a hook's failure (cancel() raised, rule 3.15) is raised into the implementation",
        "3.15",
        (
            Patch(
                "tck/probes.py",
                "            self.env.flop(failure.rule, str(failure))\n",
                "            raise\n",
            ),
        ),
        "tests/tck/test_right_rule.py",
        "3_15",
    ),
    Mutant(
        "kit-317-stall-cited-as-3.8",
        "the 3.17 checks cite rule 3.8 when a wrapped demand stalls delivery",
        "3.17",
        (
            Patch("tck/publisher.py", 'expect_elements(3, "3.17")', "expect_elements(3)", count=2),
            Patch("tck/publisher.py", 'expect_elements(11, "3.17")', "expect_elements(11)"),
            Patch("tck/publisher.py", 'expect_elements(n, "3.17")', "expect_elements(n)"),
        ),
        "tests/tck/test_right_rule.py",
        "3_17",
    ),
    Mutant(
        "kit-317-waits-out-an-ignored-cancel",
        "required_spec317 sets no limit on signals after cancel (runs to its cap)",
        "3.12",
        (
            Patch(
                "tck/publisher.py",
                "        limit_after_cancel=_IGNORED_CANCEL,",
                "        limit_after_cancel=None,",
            ),
        ),
        "tests/tck/test_right_rule.py",
        "ignored_cancel",
    ),
    # ---- issue 25: the newcomer's surface (tests/test_newcomer_surface.py)
    Mutant(
        "unhandled-error-silent",
        "an error with no on_error is logged to a library logger nobody configured: silence",
        "2.13",
        (
            Patch(
                "_report.py",
                "        if _configured(logging.getLogger(record.name), self):\n",
                "        if True:  # mutant: never the last resort\n",
            ),
        ),
        "tests/test_newcomer_surface.py",
        "unhandled_error",
    ),
    Mutant(
        "lambda-subscriber-forgets-error",
        "LambdaSubscriber does not keep the error it ended with",
        "2.13",
        (Patch("subscribers.py", "        self.error = error\n", "        pass\n"),),
        "tests/test_newcomer_surface.py",
        "exposes_error",
    ),
    Mutant(
        "blocking-terminal-on-loop-thread",
        "a blocking terminal waits on the thread of the event loop its flow needs: deadlock",
        "-",
        (
            Patch(
                "_blocking.py",
                '    asyncio = sys.modules.get("asyncio")  # no asyncio imported: no loop can be running\n',
                "    asyncio = None  # mutant: never checked\n",
            ),
        ),
        "tests/test_newcomer_surface.py",
        "coroutine",
    ),
    Mutant(
        "terminal-timeout-unchecked",
        "to_list(timeout=-1) and friends accept a negative or non-number timeout",
        "-",
        (
            Patch(
                "_blocking.py",
                "    if timeout is None:\n        return\n    if type",
                "    return\n    if type",
            ),
        ),
        "tests/test_newcomer_surface.py",
        "bad_timeout",
    ),
    Mutant(
        "one-shot-source-shared",
        "a one-shot iterator is handed to every subscriber: the second silently gets what is left",
        "-",
        (
            Patch(
                "_oneshot.py",
                "            it, self._it = self._it, None\n",
                "            it = self._it  # mutant: kept for the next subscriber\n",
            ),
        ),
        "tests/test_newcomer_surface.py",
        "second_subscriber",
    ),
    Mutant(
        "flow-wraps-a-non-publisher",
        "Flow([1, 2, 3]) is accepted and fails only at subscribe with an AttributeError",
        "1.9",
        (
            Patch(
                "flow.py",
                '        if not callable(getattr(source, "subscribe", None)):\n            hint',
                "        if source is None:\n            hint",
            ),
        ),
        "tests/test_newcomer_surface.py",
        "construction",
    ),
    Mutant(
        "observe-on-none-runs-on-caller",
        "observe_on(None) is accepted and silently hops nowhere",
        "-",
        (
            Patch(
                "flow.py",
                '        if executor is None:\n            raise TypeError(\n                "observe_on',
                '        if False:\n            raise TypeError(\n                "observe_on',
            ),
        ),
        "tests/test_newcomer_surface.py",
        "observe_on_none",
    ),
    Mutant(
        "from-future-overlaps-on-subscribe",
        "from_future's done callback signals on_next while on_subscribe still runs on another thread",
        "1.3",
        (
            Patch(
                "_future.py",
                "    def start(self) -> None:\n        if self._enter():\n",
                "    def start(self) -> None:\n        self._deliver_subscribe()  # outside the drain\n        if self._enter():\n",
            ),
        ),
        "tests/test_newcomer_surface.py",
        "on_subscribe_runs",
    ),
    Mutant(
        "flat-map-rejects-a-future",
        "a flat_map mapper returning a concurrent.futures.Future raises TypeError",
        "-",
        (Patch("flow.py", "        if _is_concurrent_future(result):\n", "        if False:\n"),),
        "tests/test_newcomer_surface.py",
        "concurrent_future",
    ),
    Mutant(
        "zip-untyped",
        "Flow.zip of two sources is typed Flow[tuple[Any, ...]]: a wrong element type passes mypy",
        "-",
        (
            Patch(
                "flow.py",
                "/, *, prefetch: int = 128) -> Flow[tuple[A, B]]: ...\n",
                "/, *, prefetch: int = 128) -> Flow[tuple[Any, ...]]: ...\n",
            ),
        ),
        "tests/test_newcomer_surface.py",
        "mypy",
    ),
    Mutant(
        "repr-not-recorded",
        "an operator's Flow does not record the call that made it: repr shows an object address",
        "-",
        (
            Patch(
                "_describe.py",
                "            result._desc = (self, name, args, kwargs)",
                "            pass",
            ),
        ),
        "tests/test_newcomer_surface.py",
        "repr",
    ),
    Mutant(
        "fault-cancel-after-own-cancel",
        "a raise after the Subscriber's own cancel gets a second cancel, begun inside request()",
        "2.7",
        (
            Patch(
                DOWN,
                "            if fault is not None and self._cancel_called:",
                "            if False:",
            ),
        ),
        "tests/test_model_edges.py",
        "raise_after_own_cancel",
    ),
    Mutant(
        "pulled-batch-drops-elements-before-error",
        "a pulled batch loses the elements pulled before the source raised",
        "1.4",
        (
            Patch(
                "_core/fusion.py",
                "            items.extend(islice(it, n))  # keeps the elements before an exception\n",
                "            items = list(islice(it, n))\n",
            ),
        ),
        "tests/operators/test_fusion.py",
        "batch",
    ),
    Mutant(
        "spark-reset-matches-a-sink-id-prefix",
        "overwrite of sink id ev deletes the batches of ev-eu (prefix match)",
        "issue 26.1",
        (
            Patch(
                "spark/commit_log.py",
                "if self.batch_id_of(n) is not None)",
                'if n.startswith(f"{BATCH_DIR}{self.sink_id}-"))',
            ),
        ),
        "tests/spark/test_commit_log.py",
        "prefixes",
    ),
    Mutant(
        "spark-takeover-without-fence",
        "a writer that takes over an unreleased lease writes no fence: the zombie commits",
        "issue 26.2",
        (
            Patch(
                "spark/commit_log.py",
                "        if prev is not None and not released:\n",
                "        if False:\n",
            ),
        ),
        "tests/spark/test_lease.py",
        "zombie",
    ),
    Mutant(
        "spark-second-writer-not-refused",
        "a live lease holder is not checked: the second writer's recovery deletes its batches",
        "issue 26.2",
        (Patch("spark/commit_log.py", "and not takeover and lease.live(prev):", "and False:"),),
        "tests/spark/test_lease.py",
        "second_writer",
    ),
    Mutant(
        "spark-restart-past-missing-data",
        "a restart does not check that committed batch directories exist",
        "issue 26.2",
        (
            Patch(
                "spark/commit_log.py", "        if missing:  # never", "        if False:  # never"
            ),
        ),
        "tests/spark/test_lease.py",
        "missing",
    ),
    Mutant(
        "spark-batch-written-in-place",
        "a batch is written straight into rs_batch=...: plain readers see it before its commit",
        "issue 26.4",
        (
            Patch(
                "spark/writer.py",
                "staging = self.log.staging_dir_name(batch_id)\n",
                "staging = self.log.batch_dir_name(batch_id)\n",
            ),
        ),
        "tests/spark/test_sink_isolation.py",
        "plain_readers",
    ),
    Mutant(
        "spark-catalog-shows-batches-at-the-end",
        "table= adds no partition per commit: the catalog shows 0 rows until the stream ends",
        "issue 26.4",
        (
            Patch(
                "spark/writer.py",
                "ADD IF NOT EXISTS PARTITION (rs_batch='{value}')",
                "ADD IF NOT EXISTS PARTITION (rs_batch='{value}') LOCATION '/nowhere'",
            ),
        ),
        "tests/spark/test_sink_isolation.py",
        "plain_readers",
    ),
    Mutant(
        "spark-log-never-compacted",
        "the commit log is never compacted: a restart reads one file per commit",
        "issue 26.8",
        (
            Patch(
                "spark/commit_log.py",
                "if (record.batch_id + 1) % self.compact_every == 0:",
                "if False:",
            ),
        ),
        "tests/spark/test_lease.py",
        "compaction",
    ),
    Mutant(
        "spark-zombie-recreates-a-compacted-record",
        "a commit does not check the compaction: a fenced writer re-creates a deleted record",
        "issue 26.2",
        (
            Patch(
                "spark/commit_log.py",
                "if any(c >= record.batch_id for c in covered) and record not in self.records():",
                "if False:",
            ),
        ),
        "tests/spark/test_lease.py",
        "compaction_deleted",
    ),
    Mutant(
        "spark-flush-time-not-measured",
        "sink.metrics.flush_s stays 0",
        "issue 26.8",
        (
            Patch(
                "spark/sink.py",
                "self._flush_s += time.monotonic() - flush_started",
                "self._flush_s += 0.0",
            ),
        ),
        "tests/spark/test_sink_metrics.py",
    ),
    Mutant(
        "spark-failed-last-publish-hangs",
        "a publish failing on the last batch marks the stream done: the result never resolves",
        "issue 26.4",
        (
            Patch(  # the failure is recorded after the done check (issue 27 moved it first)
                "spark/sink.py",
                "            failing = publish_error is not None and self._fail_locked(publish_error, bid + 1)\n"
                "            nxt = self._seal_locked() if self._should_seal_locked() else None\n"
                "            finished = publish_error is None and self._finished_locked()\n",
                "            nxt = self._seal_locked() if self._should_seal_locked() else None\n"
                "            finished = self._finished_locked()\n"
                "            failing = publish_error is not None and self._fail_locked(publish_error, bid + 1)\n",
            ),
        ),
        "tests/spark/test_sink_publish.py",
    ),
    Mutant(
        "twin-serial-signals-unchecked",
        "the one twin of Spec103_SerialSignalsInv holds always: testing.py's event check, which applies it, goes blind",
        "1.3",
        (
            Patch(
                "trace/invariants/__init__.py",
                "    return s.top_level <= 1 and (not s.open or s.open[0].thread == s.open[-1].thread)\n",
                "    return True\n",
            ),
        ),
        "tests/test_testing_trace_checks.py",
    ),
    # issue 23 (perf): to_async_iterator pulls a fusable source through the protocol
    Mutant(
        "aiter-never-fuses",
        "to_async_iterator subscribes to a fusable source: a subscription and a signal per element",
        "fusion",
        (
            Patch(
                "bridges.py",
                "            if not subscribe_fused(publisher, subscriber, self._fuse):\n",
                "            if not subscribe_fused(publisher, subscriber, False):\n",
            ),
        ),
        "tests/test_bridge_fusion.py",
    ),
    Mutant(
        "blocking-iter-wakes-per-element",
        "to_iterable's producer wakes a waiting consumer for every element it appends",
        "batching",
        (
            Patch(
                "bridges.py",
                "            self._waiting = False  # one wake-up per wait, not one per element\n",
                "",
            ),
        ),
        "tests/test_bridge_batching.py",
    ),
    Mutant(
        "blocking-iter-never-fuses",
        "to_iterable subscribes to a fusable source: a subscription and a signal per element",
        "fusion",
        (
            Patch(
                "bridges.py",
                "    if not subscribe_fused(publisher, subscriber, fuse):  # a synchronous source: pulled\n",
                "    if not subscribe_fused(publisher, subscriber, False):\n",
            ),
        ),
        "tests/test_bridge_fusion.py",
    ),
    Mutant(
        "just-flat_map-unguarded-subscribe",
        "just(x).flat_map(f) macro-fused: f(x) subscribed directly, a raising subscribe escapes",
        "1.9",
        (
            Patch(
                "flow.py",
                "        # just(x).flat_map(f) too: the operator pulls x (fused) and subscribes f(x) as\n"
                "        # every inner is (a raising subscribe is on_error, rule 1.9), one path\n",
                "        sync = self._fusable()\n"
                '        if sync is not None and sync.kind == "scalar":\n'
                "            value = sync.value\n"
                "            return Flow(_DeferPublisher(lambda: fn(value)))\n",
            ),
        ),
        "tests/operators/test_inner_defects.py",
        "just",
    ),
    Mutant(
        "spark-connect-first-candidate-wins",
        "a record's candidates resolve to the first that landed: a zombie's beats the fence",
        "issue 26.2",
        (
            Patch(
                "spark/commit_log.py",
                "        top = max(c.epoch for c in candidates)\n",
                "        top = candidates[0].epoch\n",
            ),
        ),
        "tests/spark/test_lease.py",
        "over_connect",
    ),
    Mutant(
        "spark-connect-zombie-commits-past-the-fence",
        "a fenced writer's record after the fence counts as committed",
        "issue 26.2",
        (
            Patch(
                "spark/commit_log.py",
                "            if 0 <= record.epoch < top:\n",
                "            if False:\n",
            ),
        ),
        "tests/spark/test_lease.py",
        "over_connect",
    ),
    Mutant(
        "spark-connect-compaction-deletes-a-newer-candidate",
        "a compaction over Connect deletes whole records: a fence that landed meanwhile is lost",
        "issue 26.2",
        (
            Patch(
                "spark/commit_log.py",
                "            if not candidates or m.re",
                "            if True or m.re",
            ),
        ),
        "tests/spark/test_lease.py",
        "over_connect",
    ),
    Mutant(
        "spark-overwrite-drops-the-fence",
        "mode=overwrite deletes the fence with the log: a zombie's record breaks the new log",
        "issue 26.2",
        (
            Patch(
                "spark/commit_log.py",
                "            self._fence(self.lease.mine)\n",
                "            pass\n",
            ),
        ),
        "tests/spark/test_lease.py",
        "overwrite_keeps_the_fence",
    ),
    Mutant(
        "spark-commit-ignores-its-predecessor",
        "a commit does not check the batch before it: a zombie commits after an overwrite",
        "issue 26.2",
        (
            Patch(
                "spark/commit_log.py",
                "        self._check_predecessor(record, uri, created)\n",
                "",
            ),
        ),
        "tests/spark/test_lease.py",
        "overwrite_keeps_the_fence",
    ),
    Mutant(
        "spark-fenced-record-not-replaced",
        "the heir's commit at an id a fenced writer's record holds fails on 'different content'",
        "issue 26.2",
        (
            Patch(
                "spark/commit_log.py",
                "        if 0 <= existing.epoch < record.epoch and",
                "        if False and",
            ),
        ),
        "tests/spark/test_lease.py",
        "replaced_by_the_heirs",
    ),
    Mutant(
        "spark-publish-keeps-a-stale-batch-dir",
        "publish leaves a batch directory no record commits in place of the committed one",
        "issue 26.2",
        (
            Patch(
                "spark/commit_log.py",
                "            self.fs.delete(final)\n",
                "            return False\n",
            ),
        ),
        "tests/spark/test_lease.py",
        "publish_replaces",
    ),
    Mutant(
        "spark-cut-short-create-left-behind",
        "a record create that fails after Hadoop created the file leaves a 0-byte record",
        "issue 26.5",
        (
            Patch(
                "spark/hadoop_fs.py",
                "            with contextlib.suppress(Exception):\n                fs.delete(path, False)\n",
                "            pass\n",
            ),
        ),
        "tests/spark/test_io_errors.py",
        "cut_short",
    ),
    Mutant(
        "spark-unreadable-lease-blocks-restart",
        "a 0-byte lease (a create cut short) fails every later start",
        "issue 26.5",
        (
            Patch(
                "spark/lease.py",
                "                continue  # a create cut short (a full disk, a kill): it never started\n",
                "                raise\n",
            ),
        ),
        "tests/spark/test_io_errors.py",
        "zero_byte",
    ),
    Mutant(
        "spark-compaction-repeats-the-done-set",
        "a compaction stores every record's files-done set whole: N^2/2 names for N files",
        "issue 26.8",
        (
            Patch(
                "spark/commit_log.py",
                "        text = _encode_compaction(done)",
                "        text = json.dumps([r.to_json() for r in done])",
            ),
        ),
        "tests/spark/test_file_source.py",
        "compacted",
    ),
    Mutant(
        "spark-connect-create-always-wins",
        "over Connect a create wins whatever other candidates the record holds",
        "issue 26.2",
        (
            Patch(
                "spark/connect_fs.py",
                '        return set(self.read(uri).split(b"\\n")) == {data}\n',
                "        return True\n",
            ),
        ),
        "tests/spark/test_connect.py",
        "killed",
    ),
    # issue 23.6: flat_map's direct path (a fused upstream's batch in one drain hold)
    Mutant(
        "items-answer-for-any-tuple",
        "a from_iterable tuple answers 'items' (no None check), so its None is sent",
        "2.13",
        (
            Patch(
                "sources.py",
                'isinstance(items, builtins.range) or (self._name == "just" and type(items) is tuple)',
                "isinstance(items, builtins.range) or type(items) is tuple",
            ),
        ),
        "tests/operators/test_fusion.py",
        "flat_map",
    ),
    # issue 23.6: the one-shot scalar subscription's fast paths
    Mutant(
        "scalar-request-drains-while-held",
        "a fast-path request drains even when the drain is held (on_subscribe, on_next, another thread)",
        "1.3",
        (
            Patch(
                SUB,
                "            self._wip = wip + 1\n        if wip == 0:\n            self._drain()\n",
                "            self._wip = wip + 1\n        self._drain()\n",
            ),
        ),
        "tests/test_scalar_subscription.py",
    ),
    Mutant(
        "scalar-start-drops-missed-work",
        "a request that arrives as the inline first round ends is never served",
        "3.8",
        (
            Patch(
                SUB,
                "        missed = self._leave(1)\n        if missed:\n            self._drain(missed)\n",
                "        self._leave(1)\n",
            ),
        ),
        "tests/test_scalar_subscription.py",
    ),
    Mutant(
        "scalar-fast-request-untraced",
        "a traced scalar's request takes the fast path: no request events in the trace",
        "trace",
        (
            Patch(
                SUB,
                "            self._tracer is not None\n            or type(n) is not int\n",
                "            type(n) is not int\n",
            ),
        ),
        "tests/test_scalar_subscription.py",
    ),
    # issue 23.5: to_async_iterator pulls a fused synchronous source when its buffer is empty
    Mutant(
        "aiter-pulled-never-refills",
        "the pulled iterator waits on an empty buffer without asking the source for more",
        "3.8",
        (
            Patch(
                "bridges.py",
                "            subscription.request(self._prefetch)  # the source fills the empty buffer here\n",
                "            pass\n",
            ),
        ),
        "tests/test_async_pulled.py",
    ),
    Mutant(
        "aiter-pulls-an-unfused-source",
        "an executor (unfused) source gets the refill-when-empty iterator: demand no longer bounded",
        "3.17",
        (
            Patch(
                "bridges.py",
                "                publisher.subscribe(subscriber)\n"
                "            else:\n"
                "                self.__class__ = _PulledFlowIterator  # pulled on this thread: no count\n",
                "                publisher.subscribe(subscriber)\n"
                "            self.__class__ = _PulledFlowIterator\n",
            ),
        ),
        "tests/test_async_pulled.py",
    ),
    Mutant(
        "aiter-error-in-index-error-context",
        "the source's error is raised while handling the empty buffer's IndexError",
        "-",
        (
            Patch(
                "bridges.py",
                "        except IndexError:\n            pass\n"
                "        return await self._next()  # the end, the error, or closed (no IndexError context)\n",
                "        except IndexError:\n            return await self._next()\n",
            ),
        ),
        "tests/test_async_pulled.py",
    ),
    Mutant(
        "kit-failed-publisher-ignores-its-declaration",
        "the failed publisher's checks stay timed though synchronous_failed declares it",
        "issue 27.5",
        (
            Patch(
                "tck/publisher.py",
                "        env.use_factory(accepts_executor(self.failed), self.config.synchronous_failed)",
                "        env.use_factory(accepts_executor(self.failed), False)",
            ),
        ),
        "tests/tck/test_synchronous_failed.py",
    ),
    Mutant(
        "refused-subscription-asks-upstream",
        "a hop that asks upstream at subscription (skip, skip_last, ignore_elements, "
        "on_backpressure_drop) asks its first upstream again when it refuses a second on_subscribe",
        "2.5, 1.1",
        (
            Patch(
                "_core/relay.py",
                "            subscription.cancel()  # rule 2.5: one active subscription\n"
                "            return\n",
                "            subscription.cancel()  # rule 2.5: one active subscription\n"
                "            if self._pub is ACTIVE:\n"
                "                self._opened()\n"
                "            return\n",
            ),
        ),
        "tests/operators/test_refused_subscription.py",
    ),
    Mutant(
        "spark-empty-first-batch-estimated",
        "an empty batch of records (a list, an empty Arrow table) as the first element is "
        "budgeted by a record it lacks: on_next raises IndexError",
        "2.13",
        (
            Patch(
                "spark/sink.py",
                "                    if sizes:\n",
                "                    if True:\n",
            ),
        ),
        "tests/spark/test_sink_contract.py",
        "empty_batch",
    ),
    Mutant(
        "async-iterable-cancel-before-first-pull-not-closed",
        "from_async_iterable: a cancel before the pump's first pull (in or racing on_subscribe) "
        "ends the pump before it takes the one-shot iterator, which is never aclosed",
        "3.12, 3.13",
        (
            Patch(
                "bridges.py",
                "                if isinstance(iterable, OneShotAsync):  # cancelled before the first pull\n"
                "                    iterator = iterable.unclaimed()  # closed below all the same (rule 3.12)\n",
                "",
            ),
        ),
        "tests/test_sweep_regressions.py",
        "spec312",
    ),
)


def patched(mutant: Mutant, read: Callable[[str], str]) -> dict[str, str]:
    """The mutant's files after its patches (``read`` gives a file's text by its path
    under impl/reactive_streams); exits naming the patch whose text no longer matches."""
    texts: dict[str, str] = {}
    for patch in mutant.patches:
        text = texts.get(patch.file)
        if text is None:
            text = read(patch.file)
        found = text.count(patch.old)
        if found != patch.count:
            raise SystemExit(
                f"mutant {mutant.name}: patch for {patch.file} matches {found} time(s), "
                f"expected {patch.count}; the source changed, update the mutant:\n{patch.old}"
            )
        texts[patch.file] = text.replace(patch.old, patch.new)
    return texts


def apply(mutant: Mutant, package: Path) -> None:
    for file, text in patched(mutant, lambda f: (package / f).read_text("utf-8")).items():
        (package / file).write_text(text, encoding="utf-8")


def check_all(chosen: list[Mutant]) -> None:
    """Every patch applies to today's source and the patched module still compiles."""
    package = ROOT / "impl" / "reactive_streams"
    for mutant in chosen:
        for file, text in patched(mutant, lambda f: (package / f).read_text("utf-8")).items():
            try:
                compile(text, str(package / file), "exec")
            except SyntaxError as error:
                raise SystemExit(
                    f"mutant {mutant.name}: {file} no longer compiles: {error}"
                ) from None


_RULE = re.compile(r"(rule \d\.\d+[^\n]{0,90})")
_ASSERTION = re.compile(r"AssertionError: ([^\n]+)")
_HUNG = "Failed: Timeout >"  # pytest-timeout's verdict on a test that outlived --timeout
_FLAKY = "hypothesis.errors.FlakyStrategyDefinition"

#: the results file ``--resume`` continues from: one JSON object a line, a baseline or a mutant
RESULTS = ROOT / "build" / "mutants" / "results.jsonl"
#: what the copy of the tree leaves out (never read by a run, or rebuilt by it)
_SKIP = shutil.ignore_patterns(
    ".git", "build", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis"
)


def run_machine(
    impl: Path,
    timeout: float,
    machine: str = MACHINE,
    select: str = "",
    examples: int = 0,
    *,
    tree: Path = ROOT,
    tmp: Path | None = None,
) -> tuple[int, str, float]:
    """Run ``machine`` (in ``tree``) against the package in ``impl``: exit code, output, seconds.

    ``tmp`` is the run's own temporary directory: ``TMPDIR`` (pytest's ``tmp_path``, the
    trace checker's TLC ``-metadir`` and ``-Djava.io.tmpdir``, Spark's log4j file) and
    ``SPARK_LOCAL_DIRS`` point there, so runs side by side share no scratch file."""
    env = dict(os.environ, PYTHONPATH=str(impl), HYPOTHESIS_PROFILE="mutants")
    env.pop("RS_TRACE_DIR", None)
    env.pop("RS_PIPELINE_EXAMPLES", None)
    if examples:
        env["RS_PIPELINE_EXAMPLES"] = str(examples)
    if tmp is not None:
        tmp.mkdir(parents=True, exist_ok=True)
        env.update(TMPDIR=str(tmp), SPARK_LOCAL_DIRS=str(tmp))
    probe = subprocess.run(
        [sys.executable, "-c", "import reactive_streams; print(reactive_streams.__file__)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    if not probe.stdout.startswith(str(impl)):
        raise SystemExit(f"the copy is not the one imported: {probe.stdout.strip()}")
    started = time.monotonic()
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-x",
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:logging",
                "--timeout",
                str(int(timeout)),
                *(["-k", select] if select else []),
                machine,
            ],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout + 60,
            check=False,
        )
        output, code = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired:
        output, code = "timed out", -1
    return code, output, time.monotonic() - started


def reason(output: str) -> str:
    for line in output.splitlines():
        if line.startswith("E ") and "AssertionError: " in line:
            return line.split("AssertionError: ", 1)[1].strip()[:100]
    for line in output.splitlines():
        if line.startswith("E ") and "rule" in line:
            match = _RULE.search(line)
            if match:
                return match.group(1).strip()
    match = _RULE.search(output)
    if match:
        return match.group(1).strip()
    found = _ASSERTION.search(output)  # the value oracle and liveness name no rule number
    return found.group(1).strip()[:100] if found else "(no rule named)"


def verdict(code: int, output: str) -> tuple[str, str]:
    """``(verdict, why)`` of one run: ``killed``, ``survived``, ``timed out`` or ``flaky``.

    A failing check kills; so does a process the mutant crashed (a signal; the baseline
    ran clean). A run that hangs (pytest-timeout fails the test, or the whole run outlives
    its bound) is ``timed out``, not killed: under load a slow survivor looks the same."""
    if code == -1 or _HUNG in output:
        return "timed out", "timed out"
    if _FLAKY in output:  # the machine's draws, not the mutant's behaviour, failed
        return "flaky", "FlakyStrategyDefinition (the machine drew differently on replay)"
    if code < -1:
        return "killed", f"the machine's process died ({signal.Signals(-code).name})"
    if code == 1 and "failed" in output:
        return "killed", reason(output)
    return "survived", f"exit {code}"


def fingerprint(mutant: Mutant | None, run: tuple[str, str, int]) -> str:
    """What a recorded result stands for: today's ``impl/`` source, the run, the patches.
    ``--resume`` reuses a line only while this is unchanged."""
    digest = hashlib.sha256(repr((run, mutant.patches if mutant else ())).encode())
    for path in sorted((ROOT / "impl" / "reactive_streams").rglob("*.py")):
        digest.update(path.relative_to(ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def load(results: Path) -> dict[str, dict[str, object]]:
    """The recorded results by key (``baseline <run>`` or the mutant's name); a torn last
    line (the run was killed while writing) is skipped."""
    found: dict[str, dict[str, object]] = {}
    if results.exists():
        for line in results.read_text("utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            found[str(row["key"])] = row
    return found


def _baseline_key(run: tuple[str, str, int]) -> str:
    return f"baseline {run[0]} -k {run[1]!r} examples={run[2]}"


class Runner:
    """Runs baselines and mutants, ``jobs`` at once, each in its own copy of ``impl/``
    and its own temporary directory, against one snapshot of the tree; appends every
    result to ``results`` as it ends."""

    def __init__(
        self, tmp: Path, timeout: float, results: Path, done: dict[str, dict[str, object]]
    ):
        self.tmp, self.timeout, self.results, self.done = tmp, timeout, results, done
        self.tree = (
            tmp / "tree"
        )  # the tests as they were at the start: edits meanwhile do not leak in
        shutil.copytree(ROOT, self.tree, symlinks=True, ignore=_SKIP)
        self.lock = threading.Lock()
        self.prints = threading.Lock()

    def record(self, row: dict[str, object]) -> None:
        with self.lock:
            self.done[str(row["key"])] = row
            with self.results.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")

    def say(self, text: str) -> None:
        with self.prints:
            print(text, flush=True)

    def baseline(self, run: tuple[str, str, int]) -> dict[str, object]:
        slot = Path(tempfile.mkdtemp(prefix="baseline-", dir=self.tmp))
        shutil.copytree(self.tree / "impl", slot / "impl", symlinks=True)
        code, output, secs = run_machine(
            slot / "impl", self.timeout, *run, tree=self.tree, tmp=slot / "tmp"
        )
        shutil.rmtree(slot, ignore_errors=True)
        what = run[0] + (f" -k {run[1]!r}" if run[1] else "")
        what += f", {run[2]} examples per cell" if run[2] else ""
        passed = code == 0
        row: dict[str, object] = {
            "key": _baseline_key(run),
            "kind": "baseline",
            "verdict": "passed" if passed else "failed",
            "seconds": round(secs, 1),
            "reason": "" if passed else verdict(code, output)[1],
            "source": fingerprint(None, run),
        }
        self.record(row)
        if passed:
            self.say(f"baseline (no mutant) {what}: passes in {secs:.1f} s")
        else:
            self.say(f"{output[-3000:]}\nthe unmutated copy fails {what} ({row['reason']})")
        return row

    def mutant(self, mutant: Mutant, alone: bool = False) -> dict[str, object]:
        slot = Path(tempfile.mkdtemp(prefix=f"{mutant.name}-", dir=self.tmp))
        shutil.copytree(self.tree / "impl", slot / "impl", symlinks=True)
        apply(mutant, slot / "impl" / "reactive_streams")
        code, output, secs = run_machine(
            slot / "impl", self.timeout, *mutant.run, tree=self.tree, tmp=slot / "tmp"
        )
        shutil.rmtree(slot, ignore_errors=True)
        result, why = verdict(code, output)
        row: dict[str, object] = {
            "key": mutant.name,
            "kind": "mutant",
            "name": mutant.name,
            "verdict": result,
            "seconds": round(secs, 1),
            "reason": why,
            "alone": alone,
            "source": fingerprint(mutant, mutant.run),
        }
        self.record(row)
        tag = " (run again alone)" if alone else ""
        self.say(f"{mutant.name:34} {result.upper():9} {secs:6.1f} s  {why}{tag}")
        return row


def run_all(chosen: list[Mutant], runner: Runner, jobs: int) -> None:
    """Every baseline that a chosen mutant still needs, then its mutants, ``jobs`` at once:
    a mutant whose baseline passed goes before the next baseline, so results come early."""

    def recorded(key: str, source: str) -> dict[str, object] | None:
        row = runner.done.get(key)
        return row if row is not None and row.get("source") == source else None

    def kept(mutant: Mutant) -> bool:
        row = recorded(mutant.name, fingerprint(mutant, mutant.run))
        return row is not None and row["verdict"] == "killed"

    # a kill is kept; a survivor or a timeout is judged again (its checks may have been
    # strengthened since), and so is its baseline
    todo = [m for m in chosen if not kept(m)]
    again = {m.run for m in todo if m.name in runner.done}
    runs: dict[tuple[str, str, int], list[Mutant]] = {}
    for mutant in todo:
        runs.setdefault(mutant.run, []).append(mutant)
    ready: list[Mutant] = []
    baselines: list[tuple[str, str, int]] = []
    for run in sorted(runs):
        row = recorded(_baseline_key(run), fingerprint(None, run))
        if row is not None and row["verdict"] == "passed" and run not in again:
            ready.extend(runs[run])
        else:
            baselines.append(run)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        pending: dict[Future[dict[str, object]], tuple[str, str, int] | None] = {}
        while ready or baselines or pending:
            while len(pending) < jobs and (ready or baselines):
                if ready:
                    pending[pool.submit(runner.mutant, ready.pop(0))] = None
                else:
                    run = baselines.pop(0)
                    pending[pool.submit(runner.baseline, run)] = run
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                ran = pending.pop(future)
                if ran is not None and future.result()["verdict"] == "passed":
                    ready.extend(runs[ran])
    # a timeout under load may hide a survivor or a kill: run each once more, alone
    for mutant in chosen:
        row = runner.done.get(mutant.name, {})
        if row.get("verdict") in ("timed out", "flaky") and not row.get("alone"):
            runner.mutant(mutant, alone=True)


def summary(
    chosen: list[Mutant], done: dict[str, dict[str, object]], seconds: float, jobs: int
) -> int:
    """The kill table and the counts; 1 unless every chosen mutant was killed."""
    print()
    print("| mutant | bug class | rule | result | caught by | seconds |")
    print("|---|---|---|---|---|---|")
    by: dict[str, list[str]] = {
        "killed": [],
        "survived": [],
        "timed out": [],
        "flaky": [],
        "not run": [],
    }
    for mutant in chosen:
        row = done.get(mutant.name)
        if row is None:  # its baseline failed, or the run stopped before it
            base = done.get(_baseline_key(mutant.run), {})
            why = f" (baseline {base['verdict']})" if base.get("verdict") == "failed" else ""
            by["not run"].append(mutant.name + why)
            continue
        result = str(row["verdict"])
        by[result].append(mutant.name)
        shown = "killed" if result == "killed" else f"**{result}**"
        print(
            f"| {mutant.name} | {mutant.bug} | {mutant.rule} | {shown} | {row['reason']} "
            f"| {float(str(row['seconds'])):.0f} |"
        )
    print(
        f"\n{len(chosen)} mutants: {len(by['killed'])} killed, {len(by['survived'])} survived, "
        f"{len(by['timed out'])} timed out, {len(by['flaky'])} flaky, "
        f"{len(by['not run'])} not run"
        + (f" ({seconds:.0f} s in this run, -j {jobs})" if seconds else "")
    )
    for result in ("survived", "timed out", "flaky", "not run"):
        if by[result] and (result != "not run" or len(by[result]) <= 20):
            print(f"{result}: {', '.join(by[result])}")
    return 0 if len(by["killed"]) == len(chosen) else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", default="", help="only mutants whose name contains this")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per mutant run")
    parser.add_argument(
        "--set", choices=("core", "operators", "all"), default="all", help="which mutants"
    )
    parser.add_argument(
        "--check", action="store_true", help="only check that every patch still applies"
    )
    parser.add_argument(
        "-j", "--jobs", type=int, default=1, help="runs at once, each in its own copy (default 1)"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the results file's kills for today's source; run the rest",
    )
    parser.add_argument(
        "--results",
        type=Path,
        default=RESULTS,
        help=f"results file (default {RESULTS.relative_to(ROOT)})",
    )
    parser.add_argument(
        "--summary",
        action="store_true",
        help="only print the results file's table and counts (an interrupted run's too)",
    )
    args = parser.parse_args()
    if args.jobs < 1:
        parser.error(f"-j/--jobs must be at least 1, got {args.jobs}")
    planted = collect()
    sets = {
        "core": MUTANTS,
        "operators": (*OPERATOR_MUTANTS, *planted),
        "all": unique((*MUTANTS, *OPERATOR_MUTANTS, *planted)),
    }
    chosen = [m for m in sets[args.set] if args.k in m.name]
    if args.check:
        stale = []  # every stale patch, not just the first
        for mutant in chosen:
            try:
                check_all([mutant])
            except SystemExit as exc:
                stale.append(str(exc))
        for text in stale:
            print(text, file=sys.stderr)
        print(f"{len(chosen) - len(stale)} of {len(chosen)} mutants apply")
        return 1 if stale else 0
    if args.summary:
        return summary(chosen, load(args.results), 0.0, args.jobs)
    check_all(chosen)  # a stale patch stops the run before anything runs
    args.results.parent.mkdir(parents=True, exist_ok=True)
    if not args.resume:
        args.results.write_text("", encoding="utf-8")
    done = load(args.results)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="rs-mutants-") as tmp:
        runner = Runner(Path(tmp), args.timeout, args.results, done)
        run_all(chosen, runner, args.jobs)
    return summary(chosen, done, time.monotonic() - started, args.jobs)


if __name__ == "__main__":
    sys.exit(main())
