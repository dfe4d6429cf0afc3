"""Planted bug of operators/_math.py, killed by the pipeline machine's to_dict cell."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "to-dict-first-wins",
        "to_dict keeps the first element of a key, not the last",
        "value",
        (
            Patch(
                OPS + "_math.py",
                "        self._dict[self._key(item)] = item if self._value is None else "
                "self._value(item)\n",
                "        self._dict.setdefault(\n            self._key(item), item if "
                "self._value is None else self._value(item)\n        )\n",
            ),
        ),
        PIPE,
        "to_dict",
    ),
)
