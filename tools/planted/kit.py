"""Planted bugs in the conformance kit (issue 43): absence judged in wall time, an eager
error rejected, no end-of-stream race provoked, the CLI waiting for pool workers, a
deadlock waited out to the check's deadline."""

from __future__ import annotations

from planted import Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "kit-settles-in-wall-time",
        "the kit's settle counts every quiet window, whatever CPU the subject's threads had",
        "3.12",
        (
            Patch(
                "tck/_env.py",
                "            judged = _cpu.judge(before, after, self.enough_cpu_ns(), window)\n",
                "            judged = _cpu.Window((), {})\n",
            ),
        ),
        "tests/tck/test_settle.py",
    ),
    Mutant(
        "kit-orders-buffered-elements-before-on-error",
        "extra_spec104 requires the 3 elements before on_error (an eager error fails it)",
        "1.4",
        (
            Patch(
                "tck/publisher.py",
                '    probe.request(10)\n    probe.expect_error(BaseException, "1.4")\n',
                "    probe.request(10)\n    probe.expect_elements(3)\n"
                '    probe.expect_error(BaseException, "1.4")\n',
            ),
        ),
        "tests/tck/test_pooled.py",
    ),
    Mutant(
        "kit-end-of-stream-requested-from-one-thread",
        "the end-of-stream race check requests from one thread only",
        "1.7",
        (
            Patch(
                "tck/publisher.py",
                "    workers = 4\n    for run in range(_END_ROUNDS):\n",
                "    workers = 1\n    for run in range(_END_ROUNDS):\n",
            ),
        ),
        "tests/tck/test_pooled.py",
    ),
    Mutant(
        "kit-cli-waits-for-pool-workers",
        "the CLI counts only non-daemon threads and exits normally otherwise",
        "CLI",
        (
            Patch(
                "tck/__main__.py",
                '    pooled = set(getattr(concurrent.futures.thread, "_threads_queues", {}))',
                "    pooled: set[threading.Thread] = set()",
            ),
            Patch(
                "tck/__main__.py",
                "    if left or others:",
                "    if left:",
            ),
        ),
        "tests/tck/test_cli_exit.py",
    ),
    Mutant(
        "kit-waits-out-a-deadlock",
        "a deadlocked check waits for check_timeout, and each check that hits it fails",
        "CLI",
        (Patch("tck/_runner.py", "DEADLOCK_AFTER = 3.0\n", "DEADLOCK_AFTER = 1000.0\n"),),
        "tests/tck/test_deadlock.py",
    ),
)
