"""The library's logger reports errors even when the application configured no logging.

A library should not configure logging (the logging HOWTO), so ``reactive_streams``
only attaches ``LastResortHandler`` to its logger. It does nothing while any other
handler would receive the record (the application's, pytest's, ``basicConfig``'s); with
none, it hands ERROR records to ``logging.lastResort`` (stderr), as Python does for a
library that attached no handler at all. An error that reaches a subscriber without
``on_error`` is such a record, so it is never silent. Setting ``logging.lastResort =
None`` silences it, as it does for the rest of Python.
"""

from __future__ import annotations

import logging

__all__ = ["LastResortHandler", "install"]

LOGGER = "reactive_streams"


class LastResortHandler(logging.Handler):
    """Forwards ERROR records to ``logging.lastResort`` when no other handler would
    receive them (the application configured none)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)

    def emit(self, record: logging.LogRecord) -> None:
        if _configured(logging.getLogger(record.name), self):
            return
        fallback = logging.lastResort
        if fallback is not None and record.levelno >= fallback.level:
            fallback.handle(record)


def _configured(logger: logging.Logger, me: logging.Handler) -> bool:
    """Whether a handler other than ``me`` or a NullHandler sees ``logger``'s records."""
    current: logging.Logger | None = logger
    while current is not None:
        for handler in current.handlers:
            if handler is not me and not isinstance(handler, logging.NullHandler):
                return True
        if not current.propagate:
            return False
        current = current.parent
    return False


def install() -> None:
    """Attach the handler to the library's logger (once)."""
    logger = logging.getLogger(LOGGER)
    if not any(isinstance(h, LastResortHandler) for h in logger.handlers):
        logger.addHandler(LastResortHandler())
