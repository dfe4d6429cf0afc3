"""Async stages and timers follow the event loop that subscribed.

An element may reach an async stage (a mapper returning an awaitable, in ``flat_map``,
``concat_map``, ``switch_map``) on any thread: a timer's, a pool's. Its awaitable runs
on the loop that was running where the pipeline was subscribed, captured at subscribe
(``AtSubscribe``), not on whatever loop the delivering thread happens to run. A timed
operator built without ``scheduler=`` takes its clock at subscribe (``clock``): that
loop's when subscribed from a coroutine, else the shared pool's.
"""

from __future__ import annotations

import copy
import functools
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from .api import Publisher, Subscriber
from .executors import as_scheduler, default_executor

if TYPE_CHECKING:
    import asyncio

    from .executors import Scheduler

__all__ = [
    "AtSubscribe",
    "OneResult",
    "clock",
    "is_coroutine_function",
    "keeping",
    "passing",
    "running_loop",
]

T = TypeVar("T")


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running on this thread, or None (asyncio is never imported here)."""
    aio: Any = sys.modules.get("asyncio")  # no asyncio imported: no loop can be running
    if aio is None:
        return None
    # get_running_loop() without its RuntimeError: None when no loop runs here
    return cast("asyncio.AbstractEventLoop | None", aio._get_running_loop())


def clock(scheduler: object) -> Callable[[], Scheduler]:
    """The ``scheduler=`` argument of a timed operator, asked at subscribe: a given one as
    adapted now (a bad one fails at assembly); None is the running loop's clock when
    subscribed from a coroutine, else the shared pool (``default_executor()``)."""
    if scheduler is not None:
        fixed = as_scheduler(scheduler)
        return lambda: fixed

    def at_subscribe() -> Scheduler:
        loop = running_loop()
        return as_scheduler(default_executor() if loop is None else loop)

    return at_subscribe


def is_coroutine_function(fn: object) -> bool:
    """``async def`` (also behind ``functools.partial`` or a bound method): ``map``,
    ``filter`` and ``do_on_next`` then await it, one element at a time."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    return code is not None and bool(code.co_flags & 0x80)  # inspect.CO_COROUTINE


def passing(action: Callable[[T], Awaitable[object]]) -> Callable[[T], Awaitable[T]]:
    """``do_on_next``'s async ``action`` as a mapper: awaited, then the element itself."""

    async def step(item: T) -> T:
        await action(item)
        return item

    step.__qualname__ = getattr(action, "__qualname__", step.__qualname__)
    return step


def keeping(
    predicate: Callable[[T], Awaitable[object]],
) -> Callable[[T], Awaitable[tuple[T, ...]]]:
    """``filter``'s async ``predicate`` as a mapper: ``(item,)`` when kept, else ``()``
    (never None, rule 2.13; the caller unpacks with ``map_not_none``)."""

    async def step(item: T) -> tuple[T, ...]:
        return (item,) if await predicate(item) else ()

    step.__qualname__ = getattr(predicate, "__qualname__", step.__qualname__)
    return step


def kept(result: tuple[T, ...]) -> T | None:
    """The element ``keeping`` kept, or None (dropped)."""
    return result[0] if result else None


class AtSubscribe(Generic[T]):
    """An operator publisher whose mapper (``_fn``) is bound, per subscription, to the
    loop running where it is subscribed: ``bind(loop)`` makes that mapper. Without a
    running loop the operator is subscribed as built (its mapper asks the calling
    thread's loop, as before)."""

    __slots__ = ("_bind", "_operator")

    def __init__(self, operator: Publisher[T], bind: Callable[[Any], Any]) -> None:
        self._operator = operator
        self._bind = bind

    def __repr__(self) -> str:
        return repr(self._operator)

    def subscribe(self, subscriber: Subscriber[T]) -> None:
        loop = running_loop()
        if loop is None:
            self._operator.subscribe(subscriber)
            return
        bound = copy.copy(self._operator)  # the same operator, arguments and fusion switch
        bound._fn = self._bind(loop)  # type: ignore[attr-defined]  # its mapper, on this loop
        bound.subscribe(subscriber)


class OneResult(Generic[T]):
    """An async iterator of one element, ``awaitable``'s result (what an async mapper's
    inner pulls); closed before it is awaited, it closes the coroutine, so an inner
    cancelled early leaves no "coroutine was never awaited" warning."""

    __slots__ = ("_awaitable", "_origin")

    def __init__(self, awaitable: Awaitable[T], origin: str) -> None:
        self._awaitable: Awaitable[T] | None = awaitable
        self._origin = origin  # "concat_map(fetch)", named if the result is None

    def __aiter__(self) -> OneResult[T]:
        return self

    async def __anext__(self) -> T:
        awaitable, self._awaitable = self._awaitable, None
        if awaitable is None:
            raise StopAsyncIteration
        result = await awaitable
        if result is None:
            raise TypeError(f"rule 2.13: {self._origin}: its awaitable's result is None")
        return result

    async def aclose(self) -> None:
        awaitable, self._awaitable = self._awaitable, None
        close = getattr(awaitable, "close", None)
        if close is not None:
            close()  # a coroutine never awaited
