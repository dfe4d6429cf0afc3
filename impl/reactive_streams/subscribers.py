"""Ready-made subscribers: callbacks (``LambdaSubscriber``, ``subscribe``) and
``AsyncSubscriber``, which hands every signal to an executor (signals in flight).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

from ._core.attach import Attach
from ._core.demand import MAX_DEMAND, check_request
from ._core.serial import SerialQueue
from .executors import ExecutorLike, as_executor

if TYPE_CHECKING:
    from .api import Publisher, Subscription

__all__ = ["AsyncSubscriber", "LambdaSubscriber", "subscribe"]

_log = logging.getLogger("reactive_streams")

T = TypeVar("T")


class LambdaSubscriber(Generic[T]):
    """Calls ``on_next`` / ``on_error`` / ``on_complete`` callbacks.

    ``request`` is the batch: it requests that many on subscription and again each
    time that many have arrived (``MAX_DEMAND``, the default, means unbounded).
    If ``on_next`` raises, the subscription is cancelled and the exception goes to
    ``on_error``. Without ``on_error`` the error is logged at ERROR on the
    ``reactive_streams`` logger, which reaches stderr when the application configured
    no logging (never silent). ``done`` is set after the terminal callback has
    returned, or by ``cancel``; ``error`` and ``completed`` then say how it ended.
    ``with flow.subscribe(...) as sub:`` cancels on exit.
    """

    def __init__(
        self,
        on_next: Callable[[T], object] | None = None,
        on_error: Callable[[BaseException], object] | None = None,
        on_complete: Callable[[], object] | None = None,
        *,
        request: int = MAX_DEMAND,
    ) -> None:
        message = check_request(request)
        if message is not None:
            raise ValueError(message)
        self._on_next = on_next
        self._on_error = on_error
        self._on_complete = on_complete
        self._batch = request
        self._received = 0
        self._upstream = Attach(request)  # the batch is asked when the subscription is set
        self._failed = False
        self.done = threading.Event()
        self.error: BaseException | None = None
        """The error the stream (or the ``on_next`` callback) ended with, else None."""
        self.completed = False
        """True once ``on_complete`` arrived (and its callback returned)."""

    def __repr__(self) -> str:
        name = getattr(self._on_next, "__qualname__", None) or type(self._on_next).__name__
        return f"LambdaSubscriber(on_next={name})"

    def __enter__(self) -> LambdaSubscriber[T]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.cancel()  # rule 3.5: a no-op when the stream already ended

    def on_subscribe(self, subscription: Subscription) -> None:
        # rules 2.5, 3.12: a second subscription, or one after cancel() or the end, is
        # cancelled; the check and the store are one step (_core.attach)
        self._upstream.set(subscription)

    def on_next(self, item: T) -> None:
        if item is None:
            raise TypeError("rule 2.13: on_next(None)")
        if self._failed:
            return  # rule 2.8: signals after our own cancel are ignored
        if self._on_next is not None:
            try:
                self._on_next(item)
            except Exception as exc:  # rule 2.13: the subscriber must not throw; it fails instead
                self._fail(exc)
                return
        if self._batch != MAX_DEMAND:
            self._received += 1
            if self._received == self._batch:
                self._received = 0
                self._upstream.request(self._batch)  # a no-op once cancelled or ended

    def _fail(self, exc: Exception) -> None:
        """The on_next callback raised: cancel upstream, then report it as the error."""
        self._failed = True
        self._upstream.cancel()  # rule 2.13 / 3.5
        self._deliver_error(exc, "rule 2.13: the on_next callback raised; subscription cancelled")

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        self._upstream.release()  # rule 2.4: the subscription is over
        if not self._failed:
            self._deliver_error(error, "rule 1.4: the stream failed")

    def _deliver_error(self, error: BaseException, what: str) -> None:
        self.error = error
        try:
            if self._on_error is not None:
                self._on_error(error)
            else:
                _log.error(
                    "%r: %s, and subscribe() was given no on_error callback (pass one, or "
                    "read the subscriber's .error): %s: %s",
                    self,
                    what,
                    type(error).__name__,
                    error,
                    exc_info=error,
                )
        except Exception:
            _log.exception("the on_error callback of %r raised", self)  # rule 2.13: nobody else
        finally:
            self.done.set()  # after the callback: waiting on done sees its effects

    def on_complete(self) -> None:
        self._upstream.release()  # rule 2.4
        if self._failed:
            return
        self.completed = True
        try:
            if self._on_complete is not None:
                self._on_complete()
        except Exception:
            _log.exception("the on_complete callback of %r raised", self)  # rule 2.13
        finally:
            self.done.set()

    def cancel(self) -> None:
        """Cancel the subscription (rule 3.5: safe to call more than once); before it
        arrives, the subscription that arrives is cancelled (rule 3.12)."""
        self.done.set()
        self._upstream.cancel()


def subscribe(
    publisher: Publisher[T],
    on_next: Callable[[T], object] | None = None,
    on_error: Callable[[BaseException], object] | None = None,
    on_complete: Callable[[], object] | None = None,
    *,
    request: int = MAX_DEMAND,
) -> LambdaSubscriber[T]:
    """Subscribe callbacks to ``publisher``; returns the subscriber (``cancel()``, ``done``)."""
    subscriber: LambdaSubscriber[T] = LambdaSubscriber(
        on_next, on_error, on_complete, request=request
    )
    publisher.subscribe(subscriber)
    return subscriber


class _Signal:
    __slots__ = ("kind", "value")

    def __init__(self, kind: str, value: object) -> None:
        self.kind = kind
        self.value = value


_COMPLETE = _Signal("complete", None)


class AsyncSubscriber(Generic[T]):
    """Base class for subscribers whose work runs on an executor (rule 2.2).

    The ``on_*`` methods only queue the signal; the ``when_*`` hooks run later, one at
    a time, in order, on ``executor`` (rules 1.3 and 2.7 through ``SerialQueue``).
    Override ``when_next`` (return False to cancel; raising cancels and calls
    ``when_error`` with the exception), and optionally ``when_subscribe``
    (default: ``request(1)``), ``when_complete`` and ``when_error``. ``when_next``
    calling nothing means no more demand: call ``request`` to ask for more.
    """

    def __init__(self, executor: ExecutorLike, *, batch: int = 256) -> None:
        hop = as_executor(executor)  # a pool or an asyncio loop, adapted
        self._signals: SerialQueue[_Signal] = SerialQueue(hop, self._handle, batch)
        self._upstream = Attach()  # set by the queued on_subscribe; cancel() may come first
        self._done = False

    # ---- hooks
    def when_subscribe(self) -> None:
        self.request(1)

    def when_next(self, item: T) -> bool:
        raise NotImplementedError

    def when_complete(self) -> None:
        """Called once on completion."""

    def when_error(self, error: BaseException) -> None:
        _log.error("unhandled on_error in %r", self, exc_info=error)

    # ---- upstream control, usable from the hooks
    def request(self, n: int) -> None:
        """Ask for ``n`` more (before the subscription arrives: asked when it does; an
        invalid ``n`` then raises the rule 3.9 ValueError here)."""
        if not self._done:
            self._upstream.request(n)

    def cancel(self) -> None:
        self._done = True
        self._upstream.cancel()  # before the subscription arrives: it is cancelled then

    # ---- Subscriber: queue only (rule 2.2)
    def on_subscribe(self, subscription: Subscription) -> None:
        if subscription is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        self._signals.offer(_Signal("subscribe", subscription))

    def on_next(self, item: T) -> None:
        if item is None:
            raise TypeError("rule 2.13: on_next(None)")
        self._signals.offer(_Signal("next", item))

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        self._signals.offer(_Signal("error", error))

    def on_complete(self) -> None:
        self._signals.offer(_COMPLETE)

    # ---- the serialized side
    def _handle(self, signal: _Signal) -> None:
        kind = signal.kind
        if kind == "subscribe":
            subscription: Subscription = signal.value  # type: ignore[assignment]
            if not self._upstream.set(subscription):
                return  # rule 2.5, or cancelled before it came (3.12): cancelled
            self._guard(self.when_subscribe)
        elif self._done:
            return  # rule 2.8 allows signals after cancel; they are ignored
        elif kind == "next":
            try:
                keep = self.when_next(signal.value)  # type: ignore[arg-type]
            except Exception as exc:  # rule 2.13: cancel, then report it as the error
                self.cancel()
                failure = exc
                self._guard(lambda: self.when_error(failure))
                return
            if not keep:
                self.cancel()
        elif kind == "complete":
            self._done = True
            self._upstream.release()  # rule 2.4 / 3.13
            self._guard(self.when_complete)
        else:
            self._done = True
            self._upstream.release()
            error: BaseException = signal.value  # type: ignore[assignment]
            self._guard(lambda: self.when_error(error))

    def _guard(self, hook: Callable[[], None]) -> None:
        try:
            hook()
        except Exception:
            _log.exception("%r hook raised; cancelling (rule 2.13)", self)
            self.cancel()
