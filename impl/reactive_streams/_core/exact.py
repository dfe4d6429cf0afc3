"""The end of an exact-length iterator: completed, or failed with a recorded error.

A source iterator whose ``__length_hint__`` is exact (its type registered in
``exact_length_types``) lets a drain signal the end eagerly, without waiting for more
demand (rule 1.5). A hint of 0 says only that no element is left; ``next`` then tells
how the stream ends: ``StopIteration`` or the error the iterator recorded (``generate``
after ``sink.error``), which is then as eager as completion (rule 1.4).
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from typing import Any

__all__ = ["exact_end"]


def exact_end(it: Iterator[Any]) -> tuple[bool, BaseException | None]:
    """For an exact iterator: (ended, its error). Not ended: (False, None)."""
    if operator.length_hint(it) != 0:
        return False, None
    try:
        next(it)
    except StopIteration:
        return True, None
    except Exception as exc:  # rule 1.4: the recorded error, at once
        return True, exc
    return True, RuntimeError(f"{type(it).__name__}: an element after length 0 (rule 1.1)")
