"""Planted bug of operators/_log.py, killed by the pipeline machine's log cell."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "log-swallows-requests",
        "log logs a request and does not pass it upstream: the stream stalls",
        "1.1",
        (
            Patch(
                OPS + "_log.py",
                '        self._say("request(%r)", n)\n        super()._forward(n)\n',
                '        self._say("request(%r)", n)\n',
            ),
        ),
        PIPE,
        "log",
    ),
)
