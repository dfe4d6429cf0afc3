"""Planted bugs in the trace checker's Python twins (issue 38): each rule the replay
judges at the end of a trace or on a call's return, and the 3.9 reading, must be held
by the fixtures of tests/traces/v2 (tests/trace/test_fixtures_v2.py, replay side)."""

from __future__ import annotations

from planted import Mutant, Patch

_FIXTURES = "tests/trace/test_fixtures_v2.py"
_MODEL = "trace/model.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "trace-2.13-at-rest-forgotten",
        "a quiescent trace whose Subscriber raised and was never cancelled is accepted",
        "2.13",
        (
            Patch(
                _MODEL,
                "        if s.faulted and not s.cancelled:  # rule 2.13 at rest",
                "        if False:  # rule 2.13 at rest",
            ),
        ),
        _FIXTURES,
    ),
    Mutant(
        "trace-3.16-request-may-raise",
        "end_request/end_cancel with raised: true is accepted",
        "3.16",
        (
            Patch(
                _MODEL,
                "        if event.raised:  # rules 3.15, 3.16: the spec's EndRequest/EndCancel "
                "need ~raised\n",
                "        if False:\n",
            ),
        ),
        _FIXTURES,
    ),
    Mutant(
        "trace-3.9-silence-before-the-error",
        "an onNext between the receipt of request(0) and its onError is rejected",
        "3.9",
        (
            Patch(
                _MODEL,
                "            if s.demand <= 0:\n",
                "            if s.demand <= 0 or s.invalid:\n",
            ),
        ),
        _FIXTURES,
    ),
)
