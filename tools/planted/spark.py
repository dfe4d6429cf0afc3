"""Planted bugs in the Spark sink's byte budget and its readers and values (issue 42)."""

from __future__ import annotations

from planted import Mutant, Patch

MACHINE = "stateful/test_spark_sink_machine.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "spark-demand-counts-records-only",
        "demand ignores the bytes held: a slow writer lets the source fill the record buffer",
        "issue 42",
        (
            Patch(
                "spark/sink.py",
                "                free = min(free, int(free_bytes // est), "
                "self._slice - outstanding)\n",
                "                free = min(free, self._slice - outstanding)\n",
            ),
        ),
        MACHINE,
        "byte",
    ),
    Mutant(
        "spark-estimate-stuck-at-first-record",
        "the bytes per record never follow a growth: demand for small rows is filled by large",
        "issue 42",
        (
            Patch(
                "spark/sink.py",
                "                if largest > est:  # the estimate per record follows a growth "
                "at once\n",
                "                if est == 0:\n",
            ),
        ),
        "tests/spark/test_sink_bytes.py",
    ),
    Mutant(
        "spark-batch-keeps-the-record-past-the-budget",
        "the record that passes batch_bytes stays in the sealed batch",
        "issue 42",
        (
            Patch(
                "spark/sink.py",
                "        if self._filling_bytes <= budget:\n            return limit\n",
                "        if True:\n            return limit\n",
            ),
        ),
        "tests/spark/test_sink_bytes.py",
    ),
    Mutant(
        "spark-reserved-column-accepted",
        "a data column named rs_batch is taken: readers put the batch value in its place",
        "issue 42",
        (
            Patch(
                "spark/records.py", "        if name.lower() == RESERVED:\n", "        if False:\n"
            ),
        ),
        "tests/spark/test_reserved_names.py",
    ),
    Mutant(
        "spark-read-committed-mixes-staging",
        "a committed batch not yet renamed is read from staging beside batch directories",
        "issue 42",
        (
            Patch(
                "spark/commit_log.py",
                "                break  # committed, not yet published: later batches wait "
                "for it\n",
                "                out.extend(join(self.uri, f'{r.staging}/{s}') "
                "for s, _ in r.files)\n",
            ),
        ),
        "tests/spark/test_commit_log_units.py",
    ),
    Mutant(
        "spark-handshake-tcp-only",
        "an endpoint that accepts TCP passes: a silent listener or an HTTP server hangs",
        "issue 42",
        (
            Patch(
                "spark/session.py",
                "                why = None if tls else _handshake(sock, scheme, timeout)\n",
                "                why = None\n",
            ),
        ),
        "tests/spark/test_session_timeouts.py",
        "silent or http",
    ),
    Mutant(
        "spark-aware-datetime-into-ntz",
        "an aware datetime into timestamp_ntz lands as its UTC wall time",
        "issue 42",
        (
            Patch(
                "spark/values.py",
                "    if t.tz is None and offset is not None",
                "    if False and offset is not None",
            ),
        ),
        "tests/spark/test_exact_values.py",
    ),
    Mutant(
        "spark-lease-lost-retried",
        "a fenced writer retries its refused commit",
        "issue 42",
        (
            Patch(
                "spark/sink.py",
                "                if attempt == self.max_attempts or isinstance(e, LeaseLost):\n",
                "                if attempt == self.max_attempts:\n",
            ),
        ),
        "tests/spark/test_exact_values.py",
    ),
    Mutant(
        "spark-record-repeats-done-set",
        "every commit record carries the whole done-set of a FileSource",
        "issue 42",
        (
            Patch(
                "spark/commit_log.py",
                "        if base is None or record.position is None",
                "        if True or record.position is None",
            ),
        ),
        "tests/spark/test_small_records.py",
    ),
)
