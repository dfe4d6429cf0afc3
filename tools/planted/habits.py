"""Planted bugs for the habits of asyncio and reactivex users: the loop an async stage
and a default timer follow, and the dropping stages ``map_not_none``/``handle``."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

ASYNC_STAGES = "tests/operators/test_async_stages.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "async-stage-ignores-the-subscribing-loop",
        "an async mapper's awaitable runs on the calling thread's loop, not the loop that "
        "subscribed: an element from a pool thread fails the stream",
        "value",
        (
            Patch(
                "_async_stage.py",
                "        if loop is None:\n            self._operator",
                "        if True:\n            self._operator",
            ),
        ),
        ASYNC_STAGES,
        "pool_thread",
    ),
    Mutant(
        "timed-default-ignores-the-running-loop",
        "a timed operator subscribed from a coroutine without scheduler= times on the shared "
        "pool: the element reaches the async stage on a pool thread",
        "value",
        (
            Patch(
                "_async_stage.py",
                "as_scheduler(default_executor() if loop is None else loop)",
                "as_scheduler(default_executor())",
            ),
        ),
        ASYNC_STAGES,
        "around or timed_operator_inside",
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
        "tests/operators/test_map_not_none.py",
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
        "tests/operators/test_map_not_none.py",
        "exact_demand",
    ),
)
