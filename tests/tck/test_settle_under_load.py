"""The settle mechanism under load, cheaply (the full version: ``make kit-load``,
``tests/tck/test_load.py::test_absence_verdicts_do_not_flip_under_load``).

An asynchronous publisher that ignores cancel() (gallery P51) must fail the checks that
conclude "nothing more will come" on rule 3.12 or 1.8 in every run while CPU burners
starve its emitter, and the correct control must pass them in every run: a quiet window
counts only if every thread of the process had the chance to run in it."""

from __future__ import annotations

import pytest

from .test_load import absence_table, burning

RUNS = 3
BURNERS = 4


@pytest.mark.timeout(300)
def test_a_starved_emitter_is_not_taken_for_a_stopped_one() -> None:
    with burning(BURNERS):
        rows = absence_table(RUNS, BURNERS, 20_000)
    assert all(good == n for _, n, good, _ in rows), rows
