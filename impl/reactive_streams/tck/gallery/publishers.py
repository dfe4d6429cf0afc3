"""A small correct synchronous publisher of ``0..n-1`` with one switch per bug class.

``GalleryPublisher(n)`` is correct (a trampolined drain loop, rules 1.3 and 3.3; demand
saturating at 2**63 - 1, rule 3.17; references dropped at the end, rule 3.13).
``GalleryPublisher(n, bug="P02")`` has exactly one mutation, named by its id in the
bug-class catalogue (docs/conformance.md). Several mutations widen a race window with a
tiny sleep: they model the bug, they are not evidence of anything.

``ThreadedPublisher(n)`` is a correct asynchronous one: each subscription is drained on
a thread of its own, one drain at a time (a work-in-progress counter); its mutations
(P51-P53) are bugs that only show when a thread switch lands inside a signal.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from typing import Any

from ..._core.demand import MAX_DEMAND, check_request
from ...api import Subscriber

__all__ = ["FailedPublisher", "FailingPublisher", "GalleryPublisher", "ThreadedPublisher"]

_log = logging.getLogger("reactive_streams.tck.gallery")

_REGISTRY: list[object] = []  # P21 / P22: a publisher-level registry that leaks


def _wrap64(value: int) -> int:
    value &= 2**64 - 1
    return value - 2**64 if value >= 2**63 else value


def _wrap32(value: int) -> int:
    value &= 2**32 - 1
    return value - 2**32 if value >= 2**31 else value


class GalleryPublisher:
    """Publishes ``0..n-1`` to each subscriber, synchronously (signals on the calling
    thread); ``bug`` switches on one mutation of the catalogue (None: correct)."""

    def __init__(self, n: int, bug: str | None = None) -> None:
        self.n = n
        self.bug = bug
        self.subscribed = 0
        self.shared_demand = [0]  # P46: one counter for every subscription
        self.subscriptions: list[_Subscription] = []
        self.lock = threading.RLock()

    def __repr__(self) -> str:
        return f"<gallery publisher {self.bug or 'correct'} n={self.n}>"

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        bug = self.bug
        if bug in _THREADED:
            ThreadedPublisher(self.n, bug).subscribe(subscriber)
            return
        if subscriber is None:
            if bug == "P31":
                return
            raise TypeError("rule 1.9: subscribe(None)")
        self.subscribed += 1
        if bug == "P32" and self.subscribed > 1:
            raise RuntimeError("only one subscriber allowed")
        subscription = _Subscription(self, subscriber)
        if bug == "P46":
            self.subscriptions.append(subscription)
        if bug == "P29":
            return
        if bug == "P28":
            subscriber.on_complete()
        subscription.start()
        if bug == "P30":
            subscriber.on_subscribe(subscription)
        if bug == "P01":
            subscription.request_unchecked(MAX_DEMAND)


class _Subscription:
    def __init__(self, publisher: GalleryPublisher, subscriber: Subscriber[Any]) -> None:
        self.publisher = publisher
        self.bug = publisher.bug
        self.subscriber: Subscriber[Any] | None = subscriber
        self.n = publisher.n
        self.next = 0
        self.demand = 0
        self.total = 0
        self.cancelled = False
        self.done = False
        self.bad: str | None = None
        self.lock = threading.Lock()
        self.emit_lock = threading.RLock()  # P41 / P42: held while on_next runs
        self.wip = 0
        self.local = threading.local()  # P36: trampolined per thread only
        self.in_on_subscribe = False
        self.order: list[int] = []
        if self.bug == "P45" and self.n <= 10_000:
            self.order = list(range(self.n))
            random.shuffle(self.order)
        if self.bug in ("P21", "P22"):
            _REGISTRY.append(self)

    # ----------------------------------------------------------------- lifecycle
    def start(self) -> None:
        subscriber = self.subscriber
        assert subscriber is not None
        self.wip = 1  # on_subscribe is the first unit of work (rule 1.3)
        self.in_on_subscribe = True
        try:
            subscriber.on_subscribe(self)
        except Exception:
            _log.exception("on_subscribe raised")
            self._release()
            return
        finally:
            self.in_on_subscribe = False
        with self.lock:
            self.wip -= 1
            again = self.wip > 0
        if again:
            self.wip = 0
            self.drain()

    def _release(self, why: str = "terminal") -> None:
        self.done = True
        if (self.bug == "P21" and why == "cancel") or (
            self.bug in ("P16", "P22") and why == "terminal"
        ):
            return  # the leak: the registry keeps this subscription, and so the subscriber
        self.subscriber = None  # rule 3.13

    # ------------------------------------------------------------- Subscription
    def request(self, n: int) -> None:
        bug = self.bug
        if bug == "P41":
            with self.emit_lock:  # waits for an on_next running on another thread
                pass
        message = check_request(n)
        if message is not None:
            if bug == "P16" and self.done and not self.cancelled:
                self._signal("on_error", ValueError(message))
                return
            if self.cancelled or self.done:
                return
            if bug == "P11":
                return
            if bug == "P12":
                raise ValueError(message)
            if bug == "P14":
                _log.warning("ignored %s", message)
                return
            self.bad = {
                "P13": "RuntimeError",
                "P15": "ValueError:bad request",
            }.get(bug or "", message)
            self.drain()
            return
        if self.cancelled and bug not in ("P17", "P19", "P20"):
            return
        if self.done and bug not in ("P25", "P26"):
            return
        if bug == "P26" and self.done:
            self.done = False
        if bug == "P25" and self.done:
            self.done = False
            self.n += n
        self.request_unchecked(n)

    def request_unchecked(self, n: int) -> None:
        bug = self.bug
        with self.lock:
            if bug == "P46":
                shared = self.publisher.shared_demand
                shared[0] = min(shared[0] + n, MAX_DEMAND)
            elif bug == "P07":
                self.demand = _wrap64(self.demand + n)
            elif bug == "P09":
                self.demand = _wrap32(self.demand + n)
            elif bug == "P08" and self.demand + n > MAX_DEMAND:
                self.bad = "overflow"
            else:
                before = self.total
                self.total += n
                extra = 1 if bug == "P02" else 0
                if bug == "P04" and before < 1024 <= self.total:
                    extra = 1
                self.demand = min(self.demand + n + extra, MAX_DEMAND)
        if bug == "P03":
            for _ in range(2):
                threading.Thread(target=self._emit_ignoring_demand, args=(n,), daemon=True).start()
            return
        if bug == "P37":
            threading.Thread(target=self._drain_aside, daemon=True).start()
            return
        if bug == "P46":
            for other in list(self.publisher.subscriptions):
                other.drain()  # one publisher-level loop serves every subscription
            return
        self.drain()

    def cancel(self) -> None:
        bug = self.bug
        if bug == "P42":
            with self.emit_lock:
                pass
        if bug == "P18" and self.cancelled:
            raise RuntimeError("already cancelled")
        if bug == "P19":
            return
        if bug == "P20":
            self.demand = MAX_DEMAND  # "cancel" flushes the rest, ignoring demand
            self.drain()
            return
        if bug == "P48" and self.in_on_subscribe:
            return
        if bug == "P43":
            self.subscriber = None  # frees what the emitter is using, without telling it
            return
        self.cancelled = True
        if bug == "P27" and not self.done:
            self.done = True
            subscriber = self.subscriber
            if subscriber is not None:
                subscriber.on_complete()
        if bug == "P17":
            return
        self._release("cancel")

    # -------------------------------------------------------------------- drain
    def drain(self) -> None:
        bug = self.bug
        if bug == "P39":
            self._emit()
            return
        if bug == "P36":
            if getattr(self.local, "busy", False):
                self.local.again = True
                return
            self.local.busy = True
            try:
                self.local.again = True
                while self.local.again:
                    self.local.again = False
                    self._emit()
            finally:
                self.local.busy = False
            return
        if bug == "P40":
            lock = self.__dict__.setdefault("plain", threading.Lock())
            with lock:  # not reentrant: a request from on_next deadlocks here
                self._emit()
            return
        if bug == "P37":
            with self.emit_lock:
                self._emit()
            return
        with self.lock:
            self.wip += 1
            if self.wip != 1:
                return
        missed = 1
        while True:
            self._emit()
            if bug == "P06":
                time.sleep(0.0005)  # the emitter is leaving...
                with self.lock:
                    self.wip = 0  # ...and forgets a request that arrived meanwhile
                return
            with self.lock:
                self.wip -= missed
                missed = self.wip
                if missed == 0:
                    return

    def _take(self) -> bool:
        if self.bug == "P05":
            current = self.demand  # read-modify-write without the lock...
            if current <= 0:
                return False
            time.sleep(0.0002)  # ...so a request landing here is overwritten (lost)
            self.demand = current - 1
            return True
        with self.lock:
            if self.bug == "P46":
                shared = self.publisher.shared_demand
                if shared[0] <= 0:
                    return False
                shared[0] -= 1
                return True
            if self.demand <= 0:
                return False
            if self.demand != MAX_DEMAND and not (self.bug == "P10" and self.demand >= 1024):
                self.demand -= 1
            return True

    def _emit(self) -> None:
        bug = self.bug
        while True:
            if self.cancelled and bug not in ("P17", "P19", "P20"):
                return
            if self.done and not (bug == "P17" and self.cancelled):
                return
            if self.bad is not None:
                self._fail_request()
                return
            if self.next >= self.n:
                if bug == "P49" and self.demand <= 0:
                    return  # lazy completion: legal
                if bug != "P23":
                    self._complete()
                return
            if not self._take():
                return
            index = self.next
            self.next += 1
            item: object = self.order[index] if self.order else index
            if bug == "P44" and index == 2:
                item = None
            if bug == "P25" and index >= self.publisher.n:
                item = index
            if bug == "P43":
                time.sleep(0.0002)
                subscriber = self.subscriber
                if subscriber is None and self.cancelled:
                    return
                self.subscriber.on_next(item)  # type: ignore[union-attr]
                continue
            with self.emit_lock:
                if not self._signal("on_next", item):
                    return

    def _drain_aside(self) -> None:
        try:
            self.drain()
        except BaseException:  # the kit aborts an overdue check by raising into its probes
            return

    def _emit_ignoring_demand(self, n: int) -> None:
        try:
            self._emit_n(n)
        except BaseException:  # the kit aborts an overdue check by raising into its probes
            return

    def _emit_n(self, n: int) -> None:
        for _ in range(n + 1):
            if self.cancelled or self.next >= self.n:
                return
            index = self.next
            self.next += 1
            self._signal("on_next", index)

    def _signal(self, method: str, *args: object) -> bool:
        subscriber = self.subscriber
        if subscriber is None:
            return False
        try:
            getattr(subscriber, method)(*args)
        except Exception:
            _log.exception("%s raised; cancelling (rule 2.13)", method)
            self.cancelled = True
            self._release("cancel")
            return False
        return True

    def _complete(self) -> None:
        subscriber = self.subscriber
        if self.bug == "P25":
            self.done = True  # "completed", yet a later request serves more
        else:
            self._release()
        if subscriber is None:
            return
        try:
            subscriber.on_complete()
            if self.bug == "P24":
                subscriber.on_complete()
        except Exception:
            _log.exception("on_complete raised")

    def _fail_request(self) -> None:
        bad = self.bad
        assert bad is not None
        error: BaseException
        if bad == "RuntimeError":
            error = RuntimeError("bad request")
        elif bad.startswith("ValueError:"):
            error = ValueError(bad.split(":", 1)[1])
        elif bad == "overflow":
            error = ValueError("demand overflow")
        else:
            error = ValueError(bad)
        subscriber = self.subscriber
        self.bad = None
        if self.bug == "P26":
            self.done = True  # but a later request resurrects it
            if subscriber is not None:
                subscriber.on_error(error)
            return
        self._release()
        if subscriber is not None:
            try:
                subscriber.on_error(error)
            except Exception:
                _log.exception("on_error raised")


class FailedPublisher:
    """Fails at once: on_subscribe then on_error (P33: no on_subscribe; P34: no on_error;
    P50: on_error only after a request)."""

    def __init__(self, bug: str | None = None) -> None:
        self.bug = bug

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(None)")
        error = RuntimeError("the gallery's failed publisher")
        if self.bug == "P33":
            subscriber.on_error(error)
            return
        bug = self.bug

        class _Dead:
            done = False

            def request(self, n: int) -> None:
                if bug == "P50" and not self.done:
                    self.done = True
                    subscriber.on_error(error)

            def cancel(self) -> None:
                self.done = True

        subscriber.on_subscribe(_Dead())
        if bug in ("P34", "P50"):
            return
        subscriber.on_error(error)


class FailingPublisher(GalleryPublisher):
    """Emits ``n`` elements, then its source fails (P35: the failure is swallowed and the
    stream completes instead)."""

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(None)")
        subscription = _FailingSubscription(self, subscriber)
        subscription.start()


class _FailingSubscription(_Subscription):
    def _complete(self) -> None:
        if self.publisher.bug == "P35":
            super()._complete()
            return
        self.bad = "ValueError:the source failed"
        self._fail_request()


# ------------------------------------------------------------------ asynchronous publisher
_THREADED = ("P51", "P52", "P53")


class ThreadedPublisher:
    """Publishes ``0..n-1``; each subscription's signals come from a drain thread (started
    when there is work, at most one at a time: rule 1.3); requests made inside a signal
    are folded in by the running drain (rule 3.3). ``bug``: P51 ignores cancel(), P52
    starts a drain per request (no serialisation: two threads in on_next), P53 stores
    the demand it read before on_next (a request from another thread meanwhile is lost)."""

    def __init__(self, n: int, bug: str | None = None) -> None:
        self.n = n
        self.bug = bug

    def __repr__(self) -> str:
        return f"<threaded publisher {self.bug or 'correct'} n={self.n}>"

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        if subscriber is None:
            raise TypeError("rule 1.9: subscribe(None)")
        _Drained(self.n, subscriber, self.bug).schedule()  # on_subscribe comes first (1.9)


class _Drained:
    def __init__(self, n: int, subscriber: Subscriber[Any], bug: str | None) -> None:
        self.n = n
        self.subscriber: Subscriber[Any] | None = subscriber
        self.bug = bug
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
                self.pending = min(self.pending + n, MAX_DEMAND)  # the drain folds it in
            else:
                self.demand = min(self.demand + n, MAX_DEMAND)  # rule 3.17: saturates
        if not mine:
            self.schedule()

    def cancel(self) -> None:
        if self.bug == "P51":
            return  # the bug: the emitter never hears of it
        self.cancelled = True
        if threading.get_ident() != self.drainer:
            self.schedule()

    def schedule(self) -> None:
        if self.bug != "P52":  # P52: no work-in-progress guard
            with self.lock:
                self.wip += 1
                if self.wip != 1:
                    return
        threading.Thread(target=self._drain, name="gallery-drain", daemon=True).start()

    def _drain(self) -> None:
        me = self.drainer = threading.get_ident()
        try:
            missed = 1
            while True:
                self._emit()
                if self.bug == "P52":
                    return
                with self.lock:
                    self.wip -= missed
                    missed = self.wip
                    if missed == 0:
                        self.drainer = None  # a later thread may get this ident
                        return
        except BaseException:  # the kit aborts an overdue check by raising into its probes
            self.subscriber = None
        finally:
            if self.drainer == me and self.bug == "P52":
                self.drainer = None

    def _emit(self) -> None:
        while True:
            subscriber = self.subscriber
            if subscriber is None:
                return
            if not self.subscribed:
                self.subscribed = True
                if not self._signal(subscriber, "on_subscribe", self):
                    return
                continue
            with self.lock:
                self.demand = min(self.demand + self.pending, MAX_DEMAND)
                self.pending = 0
                bad, self.bad = self.bad, None
                if self.cancelled:
                    self.subscriber = None  # rule 3.13
                    return
                if bad is None and self.next < self.n and self.demand <= 0:
                    return
                seen = self.demand
                if self.demand != MAX_DEMAND and self.bug != "P53":
                    self.demand -= 1
                item = self.next
                self.next += 1
            if bad is not None or item >= self.n:
                self.subscriber = None  # rule 3.13: terminal
                terminal = ("on_error", ValueError(bad)) if bad is not None else ("on_complete",)
                self._signal(subscriber, *terminal)
                return
            if not self._signal(subscriber, "on_next", item):
                return
            if self.bug == "P53" and seen != MAX_DEMAND:
                with self.lock:
                    self.demand = seen - 1  # the bug: overwrites a request made meanwhile

    def _signal(self, subscriber: Subscriber[Any], method: str, *args: object) -> bool:
        try:
            getattr(subscriber, method)(*args)
        except Exception:
            _log.exception("%s raised; cancelling (rule 2.13)", method)
            self.cancelled = True
            self.subscriber = None
            return False
        return True
