# ruff: noqa: E501  (the patches quote source lines verbatim)
"""The multicast family's planted bugs (``reactive_streams/multicast/``):
``tools/mutants.py`` applies each to a copy of ``impl/`` and runs the machine it names,
which must fail."""

from __future__ import annotations

from planted import PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "publish-requests-beyond-buffer",
        "publish requests one more than the slowest demand plus its buffer",
        "Multicast",
        (
            Patch(
                "multicast/_publish.py",
                "        free = self._buffer_size - (self._upstream_requested - self._taken)\n",
                "        free = self._buffer_size + 1 - (self._upstream_requested - self._taken)\n",
            ),
        ),
        PIPE,
        "publish or ref_count",
    ),
    Mutant(
        "ref_count-disconnects-twice",
        "a ref_count subscriber is uncounted on every cancel, not once",
        "ref_count",
        (
            Patch(
                "multicast/_connectable.py",
                "            if not child._counted:\n                return None\n"
                "            child._counted = False\n",
                "            child._counted = False\n",
            ),
        ),
        PIPE,
        "ref_count",
    ),
    Mutant(
        "multicast-keeps-a-late-subscription",
        "a disconnected connection keeps (never cancels) an on_subscribe that comes after its cancel",
        "2.5",
        (
            Patch(
                "multicast/_connection.py",
                "            if upstream is not None:\n"
                "                # every subscription the source hands over after this is cancelled here\n",
                '            if upstream is not None and not getattr(self, "_upstream_cancelled", False):\n'
                "                self._upstream_cancelled = True  # once: a later on_subscribe is kept\n",
            ),
        ),
        "tests/operators/multicast/test_multicast_contract.py",
        "on_subscribe_after_the_disconnect",
    ),
    Mutant(
        "multicast-none-completes-a-late-child",
        "on_disconnect='none': a child that joins while the disconnect is made gets on_complete",
        "on_disconnect",
        (
            Patch(
                "multicast/_connection.py",
                '            elif self._on_disconnect == "none":\n'
                "                self._drop_all()  # one that joined while the disconnect was made: nothing\n",
                "",
            ),
        ),
        "tests/operators/multicast/test_multicast_contract.py",
        "slips_in",
    ),
    Mutant(
        "publish-drops-the-buffer-of-a-disconnect",
        "after a 'complete' disconnect, the buffer is dropped when no child listens, "
        "though a child still joining would be owed it (Multicast.tla: Drop needs disc = no)",
        "Multicast",
        (
            Patch(
                "multicast/_publish.py",
                "            if queue and not self._disconnect_requested:\n",
                "            if queue:\n",
            ),
        ),
        "tests/operators/multicast/test_multicast_edges.py",
        "complete",
    ),
    Mutant(
        "auto-connect-at-first-subscriber",
        "auto_connect(n) connects at the first subscriber whatever n",
        "-",
        (
            Patch(
                "multicast/_connectable.py",
                "            connect = self._left == 0\n",
                "            connect = True\n",
            ),
        ),
        "tests/test_newcomer_surface.py",
        "nth_subscriber",
    ),
    Mutant(
        "replay-bound-off-by-one",
        "replay(bound) keeps one element more than its bound",
        "replay",
        (
            Patch(
                "multicast/_replay.py",
                "        if self._size < self._bound:\n",
                "        if self._size <= self._bound:\n",
            ),
        ),
        "stateful/test_interleaved.py",
        "explore and replay",
    ),
    Mutant(
        "ref_count-never-disconnects",
        "ref_count keeps the connection after its last subscriber left",
        "ref_count",
        (
            Patch(
                "multicast/_connectable.py",
                "            self._count -= 1\n            if self._count != 0:\n                return None\n",
                "            self._count -= 1\n            if True:  # never disconnects\n                return None\n",
            ),
        ),
        "stateful/test_interleaved.py",
        "explore and ref_count",
    ),
    Mutant(
        "publish-drop-keeps-window",
        "publish drops elements nobody listens to without counting them taken: the source's "
        "request window never reopens (a stall after the first drop)",
        "Multicast",
        (
            Patch(
                "multicast/_publish.py",
                "        self._taken += len(self._queue)\n        self._queue.clear()\n",
                "        self._queue.clear()\n",
            ),
        ),
        "tests/operators/multicast/test_multicast_edges.py",
    ),
    Mutant(
        "publish-tops-up-early",
        "publish tops the source up one element before a quarter of its buffer has drained "
        "(the threshold off by one): more, smaller upstream requests",
        "Multicast",
        (
            Patch(
                "multicast/_publish.py",
                "        self._limit = max(1, buffer_size - (buffer_size >> 2))",
                "        self._limit = max(1, buffer_size - (buffer_size >> 2) - 1)",
            ),
        ),
        "tests/operators/multicast/test_multicast_edges.py",
    ),
    Mutant(
        "multicast-pooled-topup-lost",
        "a cancel's drain hands the source's top-up to the shared pool, which never runs "
        "it: the request concat_with would pass on (to a source on its executor) is lost",
        "3.8",
        (
            Patch(
                "multicast/_connection.py",
                "            return self._submit(default_executor())\n",
                "            return False\n",
            ),
        ),
        "tests/operators/test_concat_wakeup.py",
        "reaches_the_source",
    ),
    Mutant(
        "disconnect-only-kicks-the-drain",
        "an element after a disconnect (or ref_count's last cancel) is ignored: the cancel "
        "only kicks the drain that is stuck in the synchronous source's emission",
        "3.12",
        (
            Patch(
                "multicast/_connection.py",
                "        if self._done or self._disconnect_requested:\n"
                "            self._late()  # rule 2.8: ignored; the cancel takes effect now (3.12)\n",
                "        if self._done:\n            return\n        if False:\n",
            ),
        ),
        "stateful/test_reach_fairness.py",
        "synchronous_source",
    ),
)
