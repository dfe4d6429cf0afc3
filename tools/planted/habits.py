"""Planted bugs for the habits of asyncio and reactivex users: the loop an async stage
and a default timer follow (the dropping stages ``map_not_none``/``handle``'s live with
their families: ``tests/operators/transform/``, ``tests/operators/fused/``)."""

from __future__ import annotations

from planted import Mutant, Patch

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
)
