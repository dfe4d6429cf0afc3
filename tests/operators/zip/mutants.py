"""The zip family's planted bugs (``operators/_zip.py``):
``tools/mutants.py`` applies each to a copy of ``impl/`` and runs the machine it names,
which must fail."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "zip-does-not-cancel-sources",
        "zip ends (complete, error, cancel) without cancelling its sources",
        "1.8",
        (
            Patch(
                "operators/_zip.py",
                "        for inner in self._inners:\n            inner.cancel()\n",
                "        for inner in self._inners:\n            pass  # left subscribed\n",
            ),
        ),
        "stateful/test_interleaved.py",
        "explore and zip",
    ),
    Mutant(
        "zip-completes-with-pair-due",
        "zip completes when one source is done although its queue still holds a pair",
        "1.5",
        (
            Patch(
                OPS + "_zip.py",
                "        return any(inner.done and not inner.queue for inner in self._inners)\n",
                "        return any(inner.done for inner in self._inners)\n",
            ),
        ),
        PIPE,
        "zip",
    ),
)
