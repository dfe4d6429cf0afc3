"""Planted bugs of operators/_cut.py, killed by the pipeline machine's cells."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "cut-forgets-the-replacement",
        "buffer_until/buffer_while do not replace an element that closed no list: under "
        "bounded demand the stream stalls short of a requested list",
        "1.1",
        (
            Patch(
                OPS + "_cut.py",
                "            self._upstream.request(1)  # this element closed no list",
                "            pass  # this element closed no list",
            ),
        ),
        PIPE,
        "buffer_until or buffer_while",
    ),
    Mutant(
        "until-changed-loses-the-changing-element",
        "buffer_until_changed closes the list at an element of a new key but does not open "
        "the next list with it: that element is lost",
        "value",
        (
            Patch(
                OPS + "_cut.py",
                "        done, self._list = self._list, [item]\n",
                "        done, self._list = self._list, []\n",
            ),
        ),
        PIPE,
        "buffer_until_changed",
    ),
)
