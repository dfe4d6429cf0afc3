"""Planted bug of operators/_sliding.py, killed by the pipeline machine's buffer_skip cell."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "sliding-buffer-drops-the-open-lists",
        "buffer(count, skip) drops the lists still open at completion (reactivex and "
        "Reactor emit them, shorter)",
        "value",
        (
            Patch(
                OPS + "_sliding.py",
                "            self._ready.extend(b for b in self._filling if b)",
                "            self._ready.extend(b for b in self._filling if len(b) == -1)",
            ),
        ),
        PIPE,
        "buffer_skip",
    ),
)
