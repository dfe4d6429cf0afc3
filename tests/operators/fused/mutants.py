"""The fused family's planted bugs (``operators/_fused.py``):
``tools/mutants.py`` applies each to a copy of ``impl/`` and runs the machine it names,
which must fail."""

from __future__ import annotations

from planted import OPS, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "fused-map-not-none-drops-falsy-values",
        "fused map_not_none filters falsy values (filter(None, ...)) instead of None only",
        "value",
        (
            Patch(
                OPS + "_fused.py",
                "_FusedFilter, _not_none, map(call, source)",
                "_FusedFilter, None, map(call, source)",
            ),
        ),
        "tests/operators/transform/test_map_not_none.py",
        "falsy",
    ),
    Mutant(
        "fused-handle-complete-not-exact",
        "fused handle's length hint ignores complete(): the completion waits for one more "
        "request instead of following the last value (unfused, it follows at once)",
        "value",
        (
            Patch(
                OPS + "_fused.py",
                "return 0 if self._sink._done else _hint(self._source)",
                "return _hint(self._source)",
            ),
        ),
        "tests/operators/transform/test_map_not_none.py",
        "exact_demand",
    ),
)
