# ruff: noqa: E501  (the patches quote source lines verbatim)
"""Planted bugs of the serial calls upstream (rule 2.7, ``_core/serial.py``'s
``SerialSubscription``): a hop that calls its upstream raw lets a call it makes from a
signal on another thread (an inner's emitter) overlap the request still open there."""

from __future__ import annotations

from planted import Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "relay-upstream-not-serial",
        "a pass-through hop calls its upstream raw: a request from a signal on an inner's thread overlaps the one still open",
        "2.7",
        (
            Patch(
                "_core/relay.py",
                "        self._upstream = SerialSubscription(subscription)\n",
                "        self._upstream = subscription\n",
            ),
        ),
        # the schedule is pinned there; the pipeline machine's start_with cell at 36
        # examples survives it (it rarely draws a dropping hop after a threaded inner)
        machine="stateful/test_serial_calls.py",
        select="hop_request",
    ),
)
