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
)
