"""Planted bugs for the habits of asyncio and reactivex users: the loop an async stage
and a default timer follow, and the dropping stages ``map_not_none``/``handle``."""

from __future__ import annotations

from planted import OPS, Mutant, Patch

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
