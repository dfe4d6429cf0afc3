"""Hand a task to whatever executor a port was given (``execute`` like Java's
``Executor``, or ``submit`` like ``concurrent.futures``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def run_on(executor: Any, task: Callable[[], None]) -> None:
    execute = getattr(executor, "execute", None)
    if execute is not None:
        execute(task)
    else:
        executor.submit(task)
