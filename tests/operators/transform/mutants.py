# ruff: noqa: E501  (the patches quote source lines verbatim)
"""The transform family's planted bugs (``operators/_transform.py``): ``tools/mutants.py`` applies each to
a copy of ``impl/`` and runs the machine it names, which must fail."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "filter-forgets-replacement",
        "filter drops an element without requesting a replacement",
        "3.8",
        (
            Patch(
                OPS + "_transform.py",
                "            self._upstream.request(1)  # replace the dropped element (rule 1.1 stays intact)",
                "            pass  # replace the dropped element (rule 1.1 stays intact)",
            ),
        ),
        PIPE,
        "filter-unfused",
    ),
    Mutant(
        "scan-emits-stale-accumulator",
        "scan emits the accumulator before the element was folded in",
        "value",
        (
            Patch(
                OPS + "_transform.py",
                "        self._acc = acc\n",
                "        acc, self._acc = self._acc, acc  # the element is folded in after\n",
            ),
        ),
        PIPE,
        "scan",
    ),
    Mutant(
        "map-emits-its-input",
        "map passes the element on instead of fn(element)",
        "value",
        (
            Patch(
                OPS + "_transform.py",
                '            self._fail(null_element_error(where("map", self._fn)))  # rule 2.13\n'
                "            return SKIP\n",
                '            self._fail(null_element_error(where("map", self._fn)))  # rule 2.13\n'
                "            return SKIP\n        value = item  # fn's result is dropped\n",
            ),
        ),
        PIPE,
        "map-unfused",
    ),
    Mutant(
        "dropping-stage-loses-the-replacement-request",
        "map_not_none/handle drop an element without asking upstream for another: under "
        "bounded demand the stream stalls short of what was requested",
        "1.1",
        (
            Patch(
                OPS + "_transform.py",
                "                self._upstream.request(1)  # replace the dropped element"
                " (rule 1.1)\n",
                "                pass\n",
                count=2,
            ),
        ),
        PIPE,
        "map_not_none or handle",
        30,
    ),
    Mutant(
        "do_on_request-fault-window",
        "do_on_request stops passing elements only once its fault is taken for on_error",
        "1.3",
        (
            Patch(
                "operators/_transform.py",
                "        with self._lock:\n            if self._faulted:\n                return False\n",
                "        with self._lock:\n            if self._fault is not None:\n                return False\n",
            ),
        ),
        "tests/operators/test_inner_defects.py",
        "do_on_request",
    ),
)
