"""Checks shared by the blocking terminals (``to_list``, ``first``, ``last``, ``for``,
``blocking_iter``): no blocking on an event loop's thread, and a sane ``timeout``.

A blocking terminal on the thread of a running asyncio loop stops that loop until the
flow ends; a flow that needs the loop (``from_async_iterable``, an ``AsyncioExecutor``,
an awaitable from ``flat_map``) then never ends, a silent deadlock. Whether a flow needs
the loop is not known before it runs, so any running loop on the calling thread is
refused, at once and always (as Reactor's ``block()`` refuses a non-blocking thread).
"""

from __future__ import annotations

import math
import sys

__all__ = ["check_not_on_loop", "check_timeout"]


def check_not_on_loop(what: str, instead: str) -> None:
    """Raise ``RuntimeError`` naming ``instead`` when an event loop runs on this thread."""
    asyncio = sys.modules.get("asyncio")  # no asyncio imported: no loop can be running
    if asyncio is None:
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RuntimeError(
        f"{what} blocks, and this thread runs an event loop ({type(loop).__name__}): the "
        "loop would stop until the flow ends, and a flow that needs the loop "
        "(from_async_iterable, an asyncio executor) would never end. Inside a coroutine "
        f"use {instead}"
    )


def check_timeout(what: str, timeout: object) -> None:
    """``timeout`` is None or a number of seconds >= 0 (else ``ValueError``/``TypeError``)."""
    if timeout is None:
        return
    if type(timeout) is bool or not isinstance(timeout, int | float):
        raise TypeError(
            f"{what}: timeout must be None or a number of seconds, got {type(timeout).__name__}"
        )
    if math.isnan(timeout) or timeout < 0:
        raise ValueError(f"{what}: timeout must be None or seconds >= 0, got {timeout!r}")
