# ruff: noqa: E501  (the patches quote source lines verbatim)
"""Planted bugs of the attach primitive (``_core/attach.py``) and its users: each puts
back the mechanism of one defect it fixed (check, then store, with a cancel between;
an early request lost or left waiting; a timer stored after the cancel looked for it)."""

from __future__ import annotations

from planted import PIPE, Mutant, Patch

ATTACH = "_core/attach.py"
RACES = "tests/operators/test_attach_races.py"
CONTRACT = "tests/test_attach.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "attach-cancel-before-set-lost",
        "Attach.set stores over a cancelled slot: a cancel before on_subscribe is lost (D1, D2, D11)",
        "3.12",
        (
            Patch(
                ATTACH,
                "            upstream = self._upstream\n            if upstream is None:\n",
                "            upstream = None if self._upstream is GONE else self._upstream\n"
                "            if upstream is None:\n",
            ),
        ),
        # the explorer preempts at attach.set; the one-thread pipeline machine never
        # cancels before a set (tests/operators/test_attach_races.py kills it too: d1, d2, d11)
        machine="stateful/test_interleaved.py",
        select="flat_map",
    ),
    Mutant(
        "attach-early-demand-dropped",
        "Attach.set forgets the demand requested before it: an inner never gets its prefetch",
        "3.17",
        (
            Patch(
                ATTACH,
                "        if n:\n            serial.request(n)",
                "        if n < 0:\n            serial.request(n)",
            ),
        ),
        machine=PIPE,
        select="zip or flat_map",
    ),
    Mutant(
        "attach-invalid-early-dropped",
        "Attach drops an invalid request made before the set: rule 3.9 is never answered (D10)",
        "3.9",
        (
            Patch(
                ATTACH,
                "                self._invalid(check_request(n)",
                "                0 and self._invalid(check_request(n)",
            ),
        ),
        machine=RACES,  # the pipeline machine's delay_subscription cell survives it
        select="d10",
    ),
    Mutant(
        "arbiter-invalid-waits-for-upstream",
        "an invalid request between two upstreams (retry's backoff) waits for the next one (D10)",
        "3.9",
        (
            Patch(
                "_core/arbiter.py",
                "            self._answer_bad_request()  # rule 3.9: its error now",
                "            pass  # rule 3.9: its error now",
            ),
        ),
        machine=RACES,
        select="d10",
    ),
    Mutant(
        "slot-swap-after-dispose-kept",
        "Slot.swap stores a handle after dispose: retry's backoff timer stays armed (D3)",
        "3.13",
        (Patch(ATTACH, "            gone = self._held is GONE\n", "            gone = False\n"),),
        machine=RACES,
        select="d3 or d2",
    ),
    Mutant(
        "lambda-cancel-only-when-attached",
        "LambdaSubscriber.cancel before the subscription arrives is lost (D11)",
        "3.12",
        (
            Patch(
                "subscribers.py",
                "        self.done.set()\n        self._upstream.cancel()\n",
                "        self.done.set()\n        if self._upstream.attached:\n            self._upstream.cancel()\n",
            ),
        ),
        machine=RACES,
        select="d11",
    ),
    Mutant(
        "future-cancel-keeps-callback",
        "from_future's cancel leaves its done callback on a pending future (D8)",
        "3.13",
        (
            Patch(
                "_future.py", "            _forget(self._future, self._on_done)", "            pass"
            ),
        ),
        machine=RACES,
        select="d8",
    ),
    Mutant(
        "future-on-subscribe-unguarded",
        "from_future calls on_subscribe itself: a raise escapes subscribe() (D9)",
        "2.13",
        (
            Patch(
                "_future.py",
                "            self._deliver_subscribe()  # a raise cancels (2.13); subscribe() returns (1.9)",
                "            self._pub = ACTIVE\n            self._downstream.on_subscribe(self)  # type: ignore[union-attr]",
            ),
        ),
        machine=RACES,
        select="d9",
    ),
)
