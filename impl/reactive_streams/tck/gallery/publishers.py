"""Small correct publishers of ``0..n-1``: the controls that the publisher bugs mutate.

``GalleryPublisher(n)`` is synchronous: a trampolined drain loop (rules 1.3 and 3.3),
demand saturating at 2**63 - 1 (rule 3.17), references dropped at the end (rule 3.13).
Its ``Subscription`` is written as a few seams (``add_demand``, ``take``, ``drain``,
``complete``...) so that each bug in ``rules_*.py`` is a subclass overriding one of them.
``FailedPublisher`` fails at once, ``FailingPublisher(n)`` fails after ``n`` elements.

``ThreadedPublisher(n)`` is asynchronous: each subscription is drained on a thread of
its own, one drain at a time (a work-in-progress counter); its bugs only show when a
thread switch lands inside a signal.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, ClassVar

from ..._core.demand import MAX_DEMAND, add_demand, check_request
from ...api import Subscriber
from .specimen import Specimen

__all__ = ["FailedPublisher", "FailingPublisher", "GalleryPublisher", "ThreadedPublisher"]

_log = logging.getLogger("reactive_streams.tck.gallery")


class GalleryPublisher(Specimen):
    """Publishes ``0..n-1`` to each subscriber, synchronously (signals on the calling
    thread). Correct; the publisher bugs subclass it."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __repr__(self) -> str:
        return f"<gallery publisher {self.id} n={self.n}>"

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(None)")
        self.Subscription(self, subscriber).start()

    class Subscription:
        """One subscriber's stream; each method is a seam a bug may override."""

        def __init__(self, publisher: GalleryPublisher, subscriber: Subscriber[Any]) -> None:
            self.publisher = publisher
            self.subscriber: Subscriber[Any] | None = subscriber
            self.n = publisher.n
            self.next = 0
            self.demand = 0
            self.cancelled = False
            self.done = False
            self.bad: BaseException | None = None
            self.lock = threading.Lock()
            self.wip = 0

        # ------------------------------------------------------------- lifecycle
        def start(self) -> None:
            subscriber = self.subscriber
            assert subscriber is not None
            self.wip = 1  # on_subscribe is the first unit of work (rule 1.3)
            try:
                self.introduce(subscriber)
            except Exception:
                _log.exception("on_subscribe raised")
                self.release()
                return
            with self.lock:
                self.wip -= 1
                again = self.wip > 0
            if again:
                self.wip = 0
                self.drain()

        def introduce(self, subscriber: Subscriber[Any]) -> None:
            subscriber.on_subscribe(self)

        def release(self, why: str = "terminal") -> None:
            self.done = True
            self.subscriber = None  # rule 3.13

        def stopped(self) -> bool:
            return self.cancelled or self.done

        # --------------------------------------------------------- Subscription
        def request(self, n: int) -> None:
            message = check_request(n)
            if message is not None:
                if not (self.cancelled or self.done):  # rule 3.6: after cancel, a no-op
                    self.reject(message)
                return
            if not self.stopped():
                self.add_demand(n)

        def reject(self, message: str) -> None:
            self.bad = ValueError(message)  # rule 3.9: signalled by the drain
            self.drain()

        def add_demand(self, n: int) -> None:
            with self.lock:
                self.demand = add_demand(self.demand, n)  # rule 3.17: saturates
            self.drain()

        def cancel(self) -> None:
            self.cancelled = True
            self.release("cancel")

        # ---------------------------------------------------------------- drain
        def drain(self) -> None:
            with self.lock:
                self.wip += 1
                if self.wip != 1:
                    return  # the running drain takes it (rules 1.3, 3.3)
            missed = 1
            while True:
                self.emit()
                with self.lock:
                    self.wip -= missed
                    missed = self.wip
                    if missed == 0:
                        return

        def unbounded(self) -> bool:
            return self.demand == MAX_DEMAND  # rule 3.17

        def take(self) -> bool:
            with self.lock:
                if self.demand <= 0:
                    return False
                if not self.unbounded():
                    self.demand -= 1
                return True

        def emit(self) -> None:
            while True:
                if self.stopped():
                    return
                if self.bad is not None:
                    self.fail()
                    return
                if self.next >= self.n:
                    self.complete()
                    return
                if not self.take():
                    return
                index = self.next
                self.next += 1
                if not self.on_next(self.element(index)):
                    return

        def element(self, index: int) -> object:
            return index

        def on_next(self, item: object) -> bool:
            return self.signal("on_next", item)

        def signal(self, method: str, *args: object) -> bool:
            subscriber = self.subscriber
            if subscriber is None:
                return False
            try:
                getattr(subscriber, method)(*args)
            except Exception:
                _log.exception("%s raised; cancelling (rule 2.13)", method)
                self.cancelled = True
                self.release("cancel")
                return False
            return True

        def terminal(self, subscriber: Subscriber[Any], method: str, *args: object) -> None:
            try:
                getattr(subscriber, method)(*args)
            except Exception:
                _log.exception("%s raised", method)

        def complete(self) -> None:
            subscriber = self.subscriber
            self.release()
            if subscriber is not None:
                self.terminal(subscriber, "on_complete")

        def fail(self) -> None:
            error, self.bad = self.bad, None
            assert error is not None
            subscriber = self.subscriber
            self.release()
            if subscriber is not None:
                self.terminal(subscriber, "on_error", error)


class FailedPublisher(Specimen):
    """Fails at once: on_subscribe, then on_error (rules 1.4, 1.9). Correct; the
    failed-publisher bugs subclass it."""

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(None)")
        subscriber.on_subscribe(self.Dead())
        subscriber.on_error(self.error())

    def error(self) -> BaseException:
        return RuntimeError("the gallery's failed publisher")

    class Dead:
        """The subscription of a stream that has already failed: requests and cancels
        are no-ops (rules 3.6, 3.7)."""

        def request(self, n: int) -> None:
            pass

        def cancel(self) -> None:
            pass


class FailingPublisher(GalleryPublisher):
    """Emits ``n`` elements, then its source fails: on_error instead of on_complete
    (rule 1.4). Correct; P35 subclasses it."""

    class Subscription(GalleryPublisher.Subscription):
        def complete(self) -> None:
            self.bad = ValueError("the source failed")
            self.fail()


class ThreadedPublisher(Specimen):
    """Publishes ``0..n-1``; each subscription's signals come from a drain thread (started
    when there is work, at most one at a time: rule 1.3); requests made inside a signal
    are folded in by the running drain (rule 3.3). Correct; P51-P53 subclass it."""

    synchronous: ClassVar[bool] = False

    def __init__(self, n: int) -> None:
        self.n = n

    def __repr__(self) -> str:
        return f"<threaded publisher {self.id} n={self.n}>"

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(None)")
        self.Drained(self.n, subscriber).schedule()  # on_subscribe comes first (1.9)

    class Drained:
        """One subscriber's stream and its drain thread; methods are seams."""

        def __init__(self, n: int, subscriber: Subscriber[Any]) -> None:
            self.n = n
            self.subscriber: Subscriber[Any] | None = subscriber
            self.lock = threading.Lock()
            self.demand = 0
            self.pending = 0  # requested from inside a signal, on the drain thread
            self.next = 0
            self.bad: str | None = None
            self.cancelled = False
            self.subscribed = False
            self.wip = 0
            self.drainer: int | None = None

        def request(self, n: int) -> None:
            message = check_request(n)
            mine = threading.get_ident() == self.drainer
            with self.lock:
                if message is not None:
                    self.bad = self.bad or message
                elif mine:
                    self.pending = add_demand(self.pending, n)  # the drain folds it in
                else:
                    self.demand = add_demand(self.demand, n)  # rule 3.17: saturates
            if not mine:
                self.schedule()

        def cancel(self) -> None:
            self.cancelled = True
            if threading.get_ident() != self.drainer:
                self.schedule()

        def schedule(self) -> None:
            with self.lock:
                self.wip += 1
                if self.wip != 1:
                    return  # one drain at a time (rule 1.3)
            threading.Thread(target=self.drain, name="gallery-drain", daemon=True).start()

        def drain(self) -> None:
            self.drainer = threading.get_ident()
            try:
                missed = 1
                while True:
                    self.emit()
                    with self.lock:
                        self.wip -= missed
                        missed = self.wip
                        if missed == 0:
                            self.drainer = None  # a later thread may get this ident
                            return
            except BaseException:  # the kit aborts an overdue check by raising into its probes
                self.subscriber = None

        def spend(self) -> int:
            """Take one unit of demand (the lock is held); returns the demand seen."""
            seen = self.demand
            if seen != MAX_DEMAND:
                self.demand -= 1
            return seen

        def spent(self, seen: int) -> None:
            """After on_next returned, with the demand ``spend`` saw."""

        def emit(self) -> None:
            while True:
                subscriber = self.subscriber
                if subscriber is None:
                    return
                if not self.subscribed:
                    self.subscribed = True
                    if not self.signal(subscriber, "on_subscribe", self):
                        return
                    continue
                with self.lock:
                    self.demand = add_demand(self.demand, self.pending)
                    self.pending = 0
                    bad, self.bad = self.bad, None
                    if self.cancelled:
                        self.subscriber = None  # rule 3.13
                        return
                    if bad is None and self.next < self.n and self.demand <= 0:
                        return
                    seen = self.spend()
                    item = self.next
                    self.next += 1
                if bad is not None or item >= self.n:
                    self.subscriber = None  # rule 3.13: terminal
                    terminal = (
                        ("on_error", ValueError(bad)) if bad is not None else ("on_complete",)
                    )
                    self.signal(subscriber, *terminal)
                    return
                if not self.signal(subscriber, "on_next", item):
                    return
                self.spent(seen)

        def signal(self, subscriber: Subscriber[Any], method: str, *args: object) -> bool:
            try:
                getattr(subscriber, method)(*args)
            except Exception:
                _log.exception("%s raised; cancelling (rule 2.13)", method)
                self.cancelled = True
                self.subscriber = None
                return False
            return True
