"""Planted bug of operators/_notification.py, killed by the pipeline machine's
dematerialize cell."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "dematerialize-completes-on-an-error-notification",
        "dematerialize ends an error notification with a completion: the error is lost",
        "value",
        (
            Patch(
                OPS + "_notification.py",
                "        self._stop(item.error)",
                "        self._stop(None)",
            ),
        ),
        PIPE,
        "dematerialize",
    ),
)
