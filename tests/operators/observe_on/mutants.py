"""The observe_on family's planted bugs (``operators/_observe_on.py``):
``tools/mutants.py`` applies each to a copy of ``impl/`` and runs the machine it names,
which must fail."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "observe_on-replenishes-once",
        "observe_on asks upstream for more once, never again",
        "3.8",
        (
            Patch(
                "operators/_observe_on.py",
                "                self._upstream.request(consumed)\n                consumed = 0\n",
                "                self._upstream.request(consumed)\n"
                "                consumed = -(2**62)  # never again\n",
            ),
        ),
        "stateful/test_interleaved.py",
        "explore and observe_on",
    ),
    Mutant(
        "observe_on-loses-late-element",
        "observe_on's drain leaves without looking again: an element that arrived while it "
        "was leaving (on_next wakes only an idle drain) waits for the next signal",
        "1.3",
        (
            Patch(
                "operators/_observe_on.py",
                "            if not (self._queue and self._requested and self._pub is ACTIVE"
                " and self._enter()):\n",
                "            if True:\n",
            ),
        ),
        "tests/operators/observe_on/test_observe_on.py",
        "leaves",
    ),
    Mutant(
        "observe-on-bulk-replenish-asks-limit",
        "observe_on's bulk replenish asks for 75 % of the window, not for everything "
        "delivered since the last request: the window shrinks to 75 % for good",
        "issue 23.4",
        (
            Patch(
                "operators/_observe_on.py",
                "                self._upstream.request(consumed)\n",
                "                self._upstream.request(limit)\n",
            ),
        ),
        "tests/operators/observe_on/test_observe_on.py",
        "bulk",
    ),
    Mutant(
        "observe-on-replenish-only-when-dry",
        "observe_on asks upstream again only once its queue ran dry: when downstream demand "
        "stops with elements queued, the producer idles until they are taken",
        "issue 23.4",
        (
            Patch(
                "operators/_observe_on.py",
                "                if consumed < limit or self._pub is not ACTIVE:\n",
                "                if consumed < limit or queue or self._pub is not ACTIVE:\n",
            ),
        ),
        "tests/operators/observe_on/test_observe_on.py",
        "75_percent",
    ),
    Mutant(
        "limit-rate-replenishes-in-bulk",
        "limit_rate asks in bulk as observe_on does: with elements still queued its "
        "requests are no longer 75 % batches (Reactor's limitRate)",
        "issue 23.4",
        (
            Patch(
                "operators/_observe_on.py",
                "        eager = self._executor is None\n",
                "        eager = False\n",
            ),
        ),
        "tests/operators/observe_on/test_observe_on.py",
        "limit_rate",
    ),
    Mutant(
        "observe_on-replenish-off-by-one",
        "observe_on/limit_rate replenish one element less than they consumed",
        "3.8",
        (
            Patch(
                OPS + "_observe_on.py",
                "                self._upstream.request(consumed)\n",
                "                self._upstream.request(consumed - 1)\n",
            ),
        ),
        PIPE,
        "observe_on or limit_rate",
        60,
    ),
    Mutant(
        "observe_on-drops-on-full-queue",
        "observe_on drops the element that fills its queue (prefetch) instead of queueing it",
        "value",
        (
            Patch(
                OPS + "_observe_on.py",
                "    def on_next(self, item: T) -> None:\n        self._queue.append(item)\n",
                "    def on_next(self, item: T) -> None:\n"
                "        if len(self._queue) + 1 < self._prefetch:\n"
                "            self._queue.append(item)\n",
            ),
        ),
        PIPE,
        "observe_on",
    ),
)
