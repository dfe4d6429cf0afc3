"""``repeat`` and ``repeat_when``: resubscribe to the source after it completes.

Both are :class:`~reactive_streams._core.arbiter.Arbiter` hops, as ``retry`` (which
resubscribes after an error): demand not met by one subscription carries over to the
next, never lost nor doubled; resubscription runs in the arbiter's drain loop (rule 3.3:
a synchronous source is repeated by a loop, not by recursion); an error passes on at
once; a rule 3.9 error ends the stream and is never repeated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from .._core.arbiter import Arbiter

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber

T = TypeVar("T")

__all__ = ["Repeat", "RepeatWhen"]


class Repeat(Arbiter[T]):
    """Resubscribes after each completion, ``times`` more times (None: without end):
    ``times + 1`` subscriptions in all, as Reactor's ``repeat(n)``."""

    __slots__ = ("_completions", "_left", "_source")

    hop = "repeat"

    def __init__(self, downstream: Subscriber[T], source: Publisher[T], times: int | None) -> None:
        super().__init__(downstream)
        self._source = source
        self._left = times
        self._completions = 0  # completions seen so far

    def _first(self) -> Publisher[T]:
        return self._source

    def _again(self) -> bool:
        left = self._left
        if left is None:
            return True
        self._left = left - 1
        return left > 0

    def _upstream_complete(self) -> None:
        self._completions += 1
        try:
            again = self._again()
        except Exception as exc:
            self._finish(exc)  # the predicate failed: its error ends the stream
            return
        if again:
            self._switch(self._source)
        else:
            self._finish(None)


class RepeatWhen(Repeat[T]):
    """Resubscribes after a completion while ``predicate(completions)`` is true
    (``completions``: 1, 2, ...); a raising predicate ends the stream with its error."""

    __slots__ = ("_predicate",)

    hop = "repeat_when"

    def __init__(
        self, downstream: Subscriber[T], source: Publisher[T], predicate: Callable[[int], object]
    ) -> None:
        super().__init__(downstream, source, None)
        self._predicate = predicate

    def _again(self) -> bool:
        return bool(self._predicate(self._completions))
