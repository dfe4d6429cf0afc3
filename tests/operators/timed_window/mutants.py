# ruff: noqa: E501  (the patches quote source lines verbatim)
"""The timed_window family's planted bugs (``operators/_timed_window.py``):
``tools/mutants.py`` applies each to a copy of ``impl/`` and runs the machine it names,
which must fail."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

FAMILIES = "stateful/test_interleaved_families.py"


MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "timeout-not-rearmed",
        "timeout arms its timer once, at the subscription, not again per element",
        "timeout",
        (
            Patch(
                "operators/_timed_window.py",
                "            elif source == 0:\n                self._arm(self._dt)  # per element\n",
                "            elif False:\n                self._arm(self._dt)  # per element\n",
            ),
        ),
        "stateful/test_pipeline_machine.py",
        "timeout",
    ),
    Mutant(
        "debounce-emits-first",
        "debounce keeps the first element of a burst instead of the last",
        "debounce",
        (
            Patch(
                "operators/_timed_window.py",
                "        if kind == NEXT:\n            self._latest = value\n            self._has = True\n"
                "            self._arm(self._dt)  # every element restarts the quiet period\n",
                "        if kind == NEXT:\n            if not self._has:\n                self._latest = value\n"
                "            self._has = True\n"
                "            self._arm(self._dt)  # every element restarts the quiet period\n",
            ),
        ),
        "stateful/test_pipeline_machine.py",
        "debounce",
    ),
    Mutant(
        "explorer-timeout-fallback-dropped-at-cleanup",
        "timeout's cleanup cancels only the fallback subscriptions already queued: one whose "
        "on_subscribe comes during or after it is never cancelled",
        "3.12",
        (
            Patch(
                OPS + "_timed_window.py",
                "        inner = self._inner\n"
                "        if inner is not None:\n"
                "            inner.slot.cancel()  # rule 3.12: the fallback stops, even one still "
                "on its way\n",
                "        for kind, value, _ in self._events:\n"
                "            if kind == SUBSCRIBED:\n"
                "                value.cancel()\n",
            ),
        ),
        machine=FAMILIES,
        select="test_family_lines[timeout-fallback]",
    ),
    Mutant(
        "timeout-fallback-raise-stalls",
        "timeout subscribes its fallback outside subscribe_or_fail: a raising subscribe "
        "escapes the drain, whose work counter stays above 0 (no terminal signal, ever)",
        "1.9",
        (
            Patch(
                OPS + "_timed_window.py",
                "        subscribe_or_fail(fallback, inner, inner.on_error)"
                "  # rule 1.9: a raise is its on_error\n",
                "        fallback.subscribe(inner)\n",
            ),
        ),
        PIPE,
        "timeout and not buffer_timeout and not window_timeout",
        50,  # the raise must meet a subscriber still owed elements and no earlier end
    ),
)
