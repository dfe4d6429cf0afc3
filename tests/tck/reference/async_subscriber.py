"""Port of ``AsyncSubscriber`` (reactive-streams-jvm 1.0.4 examples): the signal methods
only enqueue; one run at a time on the executor handles one signal, and every
``request``/``cancel`` is made from that run (rules 2.7, 2.11)."""

from __future__ import annotations

import logging
import threading
from collections import deque
from typing import Any, Generic, TypeVar

from reactive_streams.api import Subscription

from ._executor import run_on

T = TypeVar("T")
log = logging.getLogger(__name__)

_COMPLETE = "complete"


class _OnError:
    def __init__(self, error: BaseException) -> None:
        self.error = error


class _OnNext:
    def __init__(self, item: object) -> None:
        self.item = item


class _OnSubscribe:
    def __init__(self, subscription: Subscription) -> None:
        self.subscription = subscription


class AsyncSubscriber(Generic[T]):
    def __init__(self, executor: Any) -> None:
        if executor is None:
            raise TypeError("executor is required")
        self.executor = executor
        self._subscription: Subscription | None = None
        self._done = False
        self._inbound: deque[object] = deque()
        self._on = False
        self._on_lock = threading.Lock()

    def _finish(self) -> None:
        self._done = True
        if self._subscription is not None:
            try:
                self._subscription.cancel()
            except Exception:
                log.exception("cancel raised (rule 3.15)")

    def when_next(self, element: T) -> bool:
        raise NotImplementedError

    def when_complete(self) -> None:
        pass

    def when_error(self, error: BaseException) -> None:
        pass

    def _handle_subscribe(self, s: Subscription) -> None:
        if self._subscription is not None:
            try:
                s.cancel()  # rule 2.5
            except Exception:
                log.exception("cancel raised (rule 3.15)")
        else:
            self._subscription = s
            try:
                s.request(1)
            except Exception:
                log.exception("request raised (rule 3.16)")

    def _handle_next(self, element: Any) -> None:
        if self._done:
            return
        if self._subscription is None:
            log.error("on_next before on_subscribe (rules 1.9, 2.1)")
            return
        try:
            if self.when_next(element):
                try:
                    self._subscription.request(1)
                except Exception:
                    log.exception("request raised (rule 3.16)")
            else:
                self._finish()
        except Exception as exc:
            self._finish()
            try:
                self.on_error(exc)
            except Exception:
                log.exception("on_error raised (rule 2.13)")

    def _handle_complete(self) -> None:
        if self._subscription is None:
            log.error("on_complete before on_subscribe (rule 1.9)")
        else:
            self._done = True
            self.when_complete()

    def _handle_error(self, error: BaseException) -> None:
        if self._subscription is None:
            log.error("on_error before on_subscribe (rule 1.9)")
        else:
            self._done = True
            self.when_error(error)

    # -------------------------------------------------------------- Subscriber
    def on_subscribe(self, s: Subscription) -> None:
        if s is None:
            raise TypeError("rule 2.13: on_subscribe(None)")
        self._signal(_OnSubscribe(s))

    def on_next(self, element: T) -> None:
        if element is None:
            raise TypeError("rule 2.13: on_next(None)")
        self._signal(_OnNext(element))

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        self._signal(_OnError(error))

    def on_complete(self) -> None:
        self._signal(_COMPLETE)

    # ------------------------------------------------------------------ the queue
    def run(self) -> None:
        with self._on_lock:
            on = self._on
        if not on:
            return
        try:
            signal = self._inbound.popleft() if self._inbound else None
            if not self._done:
                if isinstance(signal, _OnNext):
                    self._handle_next(signal.item)
                elif isinstance(signal, _OnSubscribe):
                    self._handle_subscribe(signal.subscription)
                elif isinstance(signal, _OnError):
                    self._handle_error(signal.error)
                elif signal == _COMPLETE:
                    self._handle_complete()
        finally:
            with self._on_lock:
                self._on = False
            if self._inbound:
                self._try_schedule()

    def _signal(self, signal: object) -> None:
        self._inbound.append(signal)
        self._try_schedule()

    def _try_schedule(self) -> None:
        with self._on_lock:
            if self._on:
                return
            self._on = True
        try:
            run_on(self.executor, self.run)
        except Exception:
            if not self._done:
                try:
                    self._finish()
                finally:
                    self._inbound.clear()
                    with self._on_lock:
                        self._on = False


class Accepting(AsyncSubscriber[int]):
    """``AsyncSubscriberTest.createSubscriber``: accepts every element."""

    def when_next(self, element: int) -> bool:
        return True
