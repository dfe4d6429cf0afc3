"""The base family's planted bugs (``operators/_base.py``):
``tools/mutants.py`` applies each to a copy of ``impl/`` and runs the machine it names,
which must fail."""

from __future__ import annotations

from planted import OPS, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "operator-upstream-raise-escapes",
        "an operator subscribes its own upstream outside subscribe_or_fail: a raising "
        "source escapes the operator's subscribe, and a subscriber that had on_subscribe "
        "waits for ever",
        "1.9",
        (
            Patch(
                OPS + "_base.py",
                "        subscribe_or_fail(self._source, hop, "
                "partial(deliver_subscribe_then_error, hop))\n",
                "        self._source.subscribe(hop)\n",
            ),
        ),
        # the machine's sources never raise from subscribe (their own upstream is the
        # library's): the raising-subscribe test kills it
        "tests/operators/test_raising_subscribe.py",
    ),
)
