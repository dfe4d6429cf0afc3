"""Planted bug of operators/_using.py, killed by the pipeline machine's using cell."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "using-takes-every-subscription-for-cancelled",
        "using releases the resource at once, as if cancelled while acquiring, and "
        "completes without subscribing the flow",
        "value",
        (
            Patch(
                OPS + "_using.py",
                "        if over:  # cancelled while acquiring",
                "        if True:  # cancelled while acquiring",
            ),
        ),
        PIPE,
        "using",
    ),
)
