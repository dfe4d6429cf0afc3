"""Operators that switch to another upstream: ``retry``, ``retry_when``,
``on_error_resume``, ``on_error_return``, ``concat``, ``start_with``,
``switch_if_empty``, ``default_if_empty``, ``defer``.

Each is an :class:`~reactive_streams._core.arbiter.Arbiter`: demand is carried across
the switch (outstanding = requested - produced), a rule 3.9 error is never retried nor
resumed, and resubscription is a drain loop (rule 3.3). A user function that raises
ends the stream with its error (the upstream it would replace has already ended).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from .._core.arbiter import Arbiter
from .._core.attach import Slot
from .._core.downstream import where
from .._core.relay import SkipMarker

if TYPE_CHECKING:
    from ..api import Publisher, Subscriber
    from ..executors import Cancellable, Scheduler

T = TypeVar("T")

__all__ = [
    "Backoff",
    "Concat",
    "DefaultIfEmpty",
    "Defer",
    "OnErrorResume",
    "OnErrorReturn",
    "Retry",
    "RetryWhen",
    "StartWith",
    "SwitchIfEmpty",
]


def _publisher(value: object, operator: str, fn: object) -> Publisher[T]:
    """``value`` if it is a Publisher, else the TypeError naming ``operator(fn)``."""
    if value is None:
        raise TypeError(f"rule 2.13: {where(operator, fn)}: returned None, not a Publisher")
    if not hasattr(value, "subscribe"):
        raise TypeError(f"{where(operator, fn)}: returned {type(value).__name__}, not a Publisher")
    return value


@dataclass(frozen=True)
class Backoff:
    """The wait before each resubscription of ``retry``: ``first`` seconds before the
    first, multiplied by ``factor`` each time, at most ``max`` (None: no cap). The wait
    runs on the scheduler's clock (virtual time under a ``ManualExecutor``)."""

    first: float
    factor: float = 2.0
    max: float | None = None

    def __post_init__(self) -> None:
        for name in ("first", "factor", "max"):
            value = getattr(self, name)
            if value is None and name == "max":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
                raise TypeError(f"Backoff: {name} must be a number, got {value!r}")
            if value < 0:
                raise ValueError(f"Backoff: {name} must be >= 0, got {value!r}")
        if self.factor < 1:
            raise ValueError(f"Backoff: factor must be >= 1, got {self.factor!r}")

    def delay(self, attempt: int) -> float:
        """The wait before resubscription number ``attempt`` (1, 2, ...)."""
        try:
            delay = self.first * self.factor ** (attempt - 1)
        except OverflowError:  # a long run of attempts: the cap, or as long as can be
            delay = float("inf")
        return delay if self.max is None else min(delay, self.max)


class Retry(Arbiter[T]):
    """Resubscribes to ``source`` after an error, at most ``times`` times (None: always);
    with ``backoff``, after its wait on ``scheduler`` (the demand waits meanwhile; a
    cancel or the end cancels the timer, rules 3.12, 3.13)."""

    __slots__ = ("_attempt_no", "_backoff", "_left", "_scheduler", "_source", "_timer")

    hop = "retry"

    def __init__(
        self,
        downstream: Subscriber[T],
        source: Publisher[T],
        times: int | None,
        backoff: Backoff | None = None,
        scheduler: Scheduler | None = None,
    ) -> None:
        super().__init__(downstream)
        self._source = source
        self._left = times
        self._attempt_no = 0  # errors seen so far
        self._backoff = backoff
        self._scheduler = scheduler
        self._timer: Slot[Cancellable] = Slot()  # the backoff's wait, if one is armed

    def _resubscribe(self) -> None:
        backoff, scheduler = self._backoff, self._scheduler
        if backoff is None or scheduler is None:
            self._switch(self._source)
            return
        try:
            timer = scheduler.schedule(backoff.delay(self._attempt_no), self._fire)
        except Exception as exc:  # rules 1.9, 1.4: the scheduler refused the timer
            self._finish(exc)
            return
        self._timer.swap(timer)  # rules 3.12, 3.13: cancelled at once if a cancel came first

    def _fire(self) -> None:
        self._timer.swap(None)
        self._switch(self._source)  # a no-op once cancelled or ended

    def _wake(self, cancel: bool) -> None:
        if cancel:
            self._timer.dispose()  # rules 3.12, 3.13: no timer keeps the subscriber
        super()._wake(cancel)

    def _released(self) -> None:
        super()._released()
        self._timer.dispose()

    def _first(self) -> Publisher[T]:
        return self._source

    def _again(self, error: BaseException) -> bool:
        left = self._left
        if left is None:
            return True
        self._left = left - 1
        return left > 0

    def _upstream_error(self, error: BaseException) -> None:
        self._attempt_no += 1
        try:
            again = self._again(error)
        except Exception as exc:
            exc.__context__ = error
            self._finish(exc)  # the predicate failed: its error, the source's as context
            return
        if again:
            self._resubscribe()
        else:
            self._finish(error)


class RetryWhen(Retry[T]):
    """Resubscribes while ``predicate(error, attempt)`` is true (attempt: 1, 2, ...)."""

    __slots__ = ("_predicate",)

    hop = "retry_when"

    def __init__(
        self,
        downstream: Subscriber[T],
        source: Publisher[T],
        predicate: Callable[[BaseException, int], object],
    ) -> None:
        super().__init__(downstream, source, None)
        self._predicate = predicate

    def _again(self, error: BaseException) -> bool:
        return bool(self._predicate(error, self._attempt_no))


class OnErrorResume(Arbiter[T]):
    """On the first error, continues with ``fn(error)`` (a Publisher) with the
    outstanding demand; the fallback's own error passes on."""

    __slots__ = ("_fn", "_resumed", "_source")

    hop = "on_error_resume"

    def __init__(
        self,
        downstream: Subscriber[T],
        source: Publisher[T],
        fn: Callable[[BaseException], Publisher[T]],
    ) -> None:
        super().__init__(downstream)
        self._source = source
        self._fn = fn
        self._resumed = False

    def _first(self) -> Publisher[T]:
        return self._source

    def _upstream_error(self, error: BaseException) -> None:
        if self._resumed:
            self._finish(error)
            return
        self._resumed = True
        try:
            fallback: Publisher[T] = _publisher(self._fn(error), self.hop, self._fn)
        except Exception as exc:
            exc.__context__ = error
            self._finish(exc)
            return
        self._switch(fallback)


class OnErrorReturn(OnErrorResume[T]):
    __slots__ = ()

    hop = "on_error_return"


class Concat(Arbiter[T]):
    """The elements of each publisher in turn; the next is subscribed at completion."""

    __slots__ = ("_index", "_sources")

    hop = "concat"

    def __init__(self, downstream: Subscriber[T], sources: Sequence[Publisher[T]]) -> None:
        super().__init__(downstream)
        self._sources = sources
        self._index = 0

    def _first(self) -> Publisher[T]:
        return self._sources[0]

    def _upstream_complete(self) -> None:
        self._index += 1
        if self._index < len(self._sources):
            self._switch(self._sources[self._index])
        else:
            self._finish(None)


class StartWith(Concat[T]):
    __slots__ = ()

    hop = "start_with"


class SwitchIfEmpty(Arbiter[T]):
    """``source``'s elements; if it completes without any, ``fallback``'s."""

    __slots__ = ("_fallback", "_source")

    hop = "switch_if_empty"

    def __init__(
        self, downstream: Subscriber[T], source: Publisher[T], fallback: Publisher[T]
    ) -> None:
        super().__init__(downstream)
        self._source = source
        self._fallback: Publisher[T] | None = fallback

    def _first(self) -> Publisher[T]:
        return self._source

    def _apply(self, item: T) -> T | SkipMarker:
        self._fallback = None  # not empty
        return item

    def _upstream_complete(self) -> None:
        fallback, self._fallback = self._fallback, None
        if fallback is None:
            self._finish(None)
        else:
            self._switch(fallback)


class DefaultIfEmpty(SwitchIfEmpty[T]):
    __slots__ = ()

    hop = "default_if_empty"


class Defer(Arbiter[T]):
    """Subscribes to ``factory()``, called per subscriber; a raising factory is
    ``on_subscribe`` then ``on_error`` (rule 1.9)."""

    __slots__ = ("_factory",)

    hop = "defer"

    def __init__(self, downstream: Subscriber[T], factory: Callable[[], Publisher[T]]) -> None:
        super().__init__(downstream)
        self._factory = factory

    def _first(self) -> Publisher[T]:
        return _publisher(self._factory(), self.hop, self._factory)
