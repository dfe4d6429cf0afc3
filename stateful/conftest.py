"""Hypothesis profiles for the state machines.

``ci`` (the default): a fixed number of examples, derandomized, no deadline, so
``make test`` is reproducible and bounded. (Hypothesis also draws constants from the
project modules loaded, so one file run alone may explore other examples than the full
suite does; ``long`` with fresh randomness explores more.) ``long``: many more examples with fresh
randomness (``HYPOTHESIS_PROFILE=long``), for runs outside CI. ``mutants``: used by
``tools/mutants.py`` to hunt planted bugs. ``mutation``: few examples, for ``make mutation``
(tools/mutation.py), which runs the machines once per mutmut mutant.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

from stateful.tracer_guard import tracer_restored  # noqa: F401  (autouse: no test leaves a tracer on)

_common = settings(
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.register_profile("ci", _common, max_examples=300, stateful_step_count=30, derandomize=True)
settings.register_profile(
    "mutants",
    _common,
    max_examples=1000,
    stateful_step_count=30,
    derandomize=True,
    report_multiple_bugs=False,
)
settings.register_profile(
    "mutation", _common, max_examples=25, stateful_step_count=25, derandomize=True
)
settings.register_profile("long", _common, max_examples=3000, stateful_step_count=60)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
