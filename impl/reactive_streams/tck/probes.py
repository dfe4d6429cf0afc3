"""Instrumented stand-ins: a subscriber that checks publishers, a publisher that checks
subscribers, and the whitebox probe / puppet pair.

Every recorded call carries (logical clock, thread id, nesting depth), so serial
signalling (rule 1.3), recursion depth (3.3), calls after a terminal signal on any thread
(2.3, 2.4) and overlapping subscription calls (2.7) are observed, not guessed from
stack frames or time windows. Violations are "flopped" into the check's ``Env`` and
reported when the check ends, so a probe never raises into the implementation's threads
(except ``CheckAborted`` after the deadline): a failure inside a hook (a ``cancel()``
that raised, rule 3.15) is recorded and the signal returns normally, since the
implementation would swallow it (rule 2.13) and the check would fail on a consequence.

The probe subscriber yields the interpreter inside every signal (``Config.signal_pause``):
a race that needs a thread switch while a signal runs is provoked, not left to luck.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._core.demand import MAX_DEMAND, add_demand, check_request
from ..api import Publisher, Subscriber, Subscription
from ._env import CheckFailure, Env
from ._manual import Call, ManualPublisher, ManualSubscription

__all__ = [
    "BlackboxProxy",
    "Call",
    "ManualPublisher",
    "ManualSubscription",
    "ProbeSubscriber",
    "Record",
    "WhiteboxProbe",
    "WhiteboxPuppet",
]


@dataclass(frozen=True)
class Record:
    """One signal received by a probe subscriber."""

    kind: str  # on_subscribe / on_next / on_error / on_complete
    value: object
    thread: int
    clock: int
    depth: int


Hook = Callable[["ProbeSubscriber", Any], None]

_OVERFLOW_ABORT = 1000  # elements beyond demand after which a check is aborted


class ProbeSubscriber:
    """The kit's subscriber for publisher checks (the JVM ``ManualSubscriber`` and friends).

    It checks, on every signal: on_subscribe first and once (1.9), no signal overlaps one
    on another thread (1.3), nothing after a terminal signal (1.7), no element beyond the
    demand it requested (1.1), no None (2.13, caller side), signals only on caller
    threads when the implementation declared itself synchronous. Hooks run inside the
    signal (``on_next=lambda probe, x: probe.request(1)``).
    """

    def __init__(
        self,
        env: Env,
        name: str = "subscriber",
        *,
        on_subscribe: Hook | None = None,
        on_next: Hook | None = None,
        on_terminal: Hook | None = None,
        limit_after_cancel: int | None = None,
        limit_rule: str = "3.12",
    ) -> None:
        self.env = env
        self.name = name
        self._hooks = (on_subscribe, on_next, on_terminal)
        self._lock = threading.Lock()
        self._active: dict[int, int] = {}
        self._next_depth: dict[int, int] = {}
        self.max_depth = 0
        """Most on_next frames open at once on one thread (rule 3.3's recursion depth)."""
        self.subscription: Subscription | None = None
        self.records: list[Record] = []
        self.values: list[object] = []
        self.consumed = 0
        self.errors: list[BaseException] = []
        self.completions = 0
        self.requested = 0
        self.cancelled = False
        self.cancel_mark: int | None = None  # len(records) when cancel() was called
        self.cancel_returned: int | None = None  # len(records) when the first cancel() returned
        self._limit_after_cancel = limit_after_cancel
        self._limit_rule = limit_rule
        self._owed_since: float | None = None  # when the subject started owing a signal
        self._after_terminal = 0  # signals seen after the terminal one (rule 1.7)
        self._terminal_begun = False  # a terminal signal has begun (maybe still running)
        self._terminal_after_cancel = False  # ... and began after a signal that followed cancel
        env.cancellers.append(weakref.WeakMethod(self._cancel_at_end))  # 3.13 checks need it weak

    # ------------------------------------------------------------- bookkeeping
    def _flop(self, rule: str, message: str) -> None:
        self.env.flop(rule, f"rule {rule}: {self.name}: {message}")

    def _begin(self, kind: str, value: object) -> int:
        env = self.env
        env.check_abort()
        tid = threading.get_ident()
        env.note_signal()  # the subject's CPU time per signal (absence is judged in it)
        clock = env.tick()
        with self._lock:
            terminal = self.completions or self.errors or self._terminal_begun
            if terminal and kind != "on_subscribe":  # before 1.3: a second end is the bug
                if self._terminal_after_cancel:  # the first end answered a call after cancel
                    self._flop("3.6", f"{kind} after cancel() (and after a terminal signal)")
                else:
                    self._flop("1.7", f"{kind} after a terminal signal")
                self._after_terminal += 1
                if self._after_terminal > _OVERFLOW_ABORT:
                    env.aborted = True  # stop an emitter that goes on after its end (1.7)
            if kind in ("on_error", "on_complete") and not self._terminal_begun:
                self._terminal_begun = True
                returned = self.cancel_returned
                self._terminal_after_cancel = returned is not None and len(self.records) >= returned
            others = [t for t, d in self._active.items() if d > 0 and t != tid]
            if others:
                self._flop("1.3", f"{kind} on thread {tid} overlaps a signal on thread {others[0]}")
            depth = self._active.get(tid, 0) + 1
            self._active[tid] = depth
            if kind == "on_next":  # rule 3.3 counts on_next -> request -> on_next only
                nested = self._next_depth.get(tid, 0) + 1
                self._next_depth[tid] = nested
                self.max_depth = max(self.max_depth, nested)
            if kind != "on_subscribe" and self.subscription is None and not self.records:
                self._flop("1.9", f"{kind} before on_subscribe")
            elif kind == "on_subscribe" and self.records:
                self._flop("1.9", "on_subscribe called a second time (see also 2.12)")
            limit = self._limit_after_cancel
            if (
                limit is not None
                and self.cancel_mark is not None
                and len(self.records) - self.cancel_mark >= limit
            ):
                self._flop(self._limit_rule, f"still signalling {limit} signals after cancel()")
                env.aborted = True  # stop an emitter that ignores cancel
            if env.mode == "synchronous" and tid not in env.caller_threads:
                self._flop(
                    "1.3",
                    f"{kind} on thread {tid}, which never called the publisher, though the "
                    "implementation was declared synchronous",
                )
            self.records.append(Record(kind, value, tid, clock, depth))
            count = len(self.records)
            owed_since, self._owed_since = self._owed_since, None
        if owed_since is not None and kind != "on_subscribe":
            env.note_gap(time.monotonic() - owed_since)
        pause = env.config.signal_pause
        if pause is not None and (count <= env.config.paused_signals or count % 64 == 0):
            time.sleep(pause)  # yield inside the signal: provoke a racing one
        return tid

    def _owe(self) -> None:
        """Start the clock on the next element if the subject owes one (demand is
        outstanding, nothing cancelled or ended); ``Env.max_gap`` takes the wait."""
        with self._lock:
            owes = self.requested > len(self.values) and not (
                self.cancelled or self.completions or self.errors
            )
            self._owed_since = time.monotonic() if owes else None

    def _end(self, tid: int, kind: str = "") -> None:
        with self._lock:
            self._active[tid] -= 1
            if kind == "on_next":
                self._next_depth[tid] -= 1
        self._owe()
        self.env.notify()
        self.env.check_abort()

    def _hook(self, index: int, value: object) -> None:
        """Run a hook inside a signal; its failure is recorded, never raised into the
        implementation (which must swallow it, rule 2.13, and would hide the rule)."""
        hook = self._hooks[index]
        if hook is None:
            return
        try:
            hook(self, value)
        except CheckFailure as failure:
            self.env.flop(failure.rule, str(failure))

    # -------------------------------------------------------------- Subscriber
    def on_subscribe(self, subscription: Subscription) -> None:
        tid = self._begin("on_subscribe", subscription)
        try:
            if subscription is None:
                self._flop("1.9", "on_subscribe(None)")
                return
            if self.subscription is None:
                self.subscription = subscription
            self._hook(0, subscription)
        finally:
            self._end(tid)

    def on_next(self, item: object) -> None:
        tid = self._begin("on_next", item)
        try:
            if item is None:
                self._flop("2.13", "the publisher signalled on_next(None)")
            with self._lock:
                self.values.append(item)
                if len(self.values) > self.requested:
                    if len(self.values) == self.requested + 1:
                        self._flop(
                            "1.1",
                            f"element {len(self.values)} exceeds the demand of {self.requested}",
                        )
                    elif len(self.values) > self.requested + _OVERFLOW_ABORT:
                        self.env.aborted = True  # stop an endless over-delivery
                        self.env.notify()
            self._hook(1, item)
        finally:
            self._end(tid, "on_next")

    def on_error(self, error: BaseException) -> None:
        tid = self._begin("on_error", error)
        try:
            if error is None:
                self._flop("2.13", "the publisher signalled on_error(None)")
            with self._lock:
                self.errors.append(error)
            self._hook(2, error)
        finally:
            self._end(tid)

    def on_complete(self) -> None:
        tid = self._begin("on_complete", None)
        try:
            with self._lock:
                self.completions += 1
            self._hook(2, None)
        finally:
            self._end(tid)

    # ----------------------------------------------------------------- control
    def _subscription(self) -> Subscription:
        if self.subscription is None:
            raise CheckFailure(f"rule 1.9: {self.name}: no on_subscribe yet", "1.9")
        return self.subscription

    def request(self, n: int) -> None:
        """Request ``n`` (counted first, so the demand check never races the element)."""
        subscription = self._subscription()
        with self._lock:
            before = self.requested
            if check_request(n) is None:
                self.requested = add_demand(self.requested, n)
            inside = self._active.get(threading.get_ident(), 0) > 0
        self._owe()
        self.env.notify()  # a call is activity: a quiet period starts after it
        try:
            subscription.request(n)
        except Exception as exc:
            if n > 0 and before + n >= MAX_DEMAND:  # 3.17: demand up to 2**63 - 1, and past it
                rule, why = "3.17", "a demand reaching 2**63 - 1 must be supported"
            elif inside:  # 3.2: request from within on_next / on_subscribe
                rule, why = "3.2", "a request from within a signal must be allowed"
            else:
                rule, why = "3.16", "it must return normally"
            raise CheckFailure(
                f"rule {rule}: {self.name}: request({n}) raised {exc!r}; {why} "
                "(rule 3.9: an invalid n is signalled through on_error)",
                rule,
            ) from exc

    def cancel(self) -> None:
        subscription = self._subscription()
        self.cancelled = True
        self.env.notify()
        with self._lock:
            if self.cancel_mark is None:
                self.cancel_mark = len(self.records)  # signals from here on follow the cancel
        try:
            subscription.cancel()
        except Exception as exc:
            raise CheckFailure(f"rule 3.15: {self.name}: cancel() raised {exc!r}", "3.15") from exc
        finally:  # returned or raised: later signals began after it
            with self._lock:
                if self.cancel_returned is None:
                    self.cancel_returned = len(self.records)

    def _cancel_at_end(self) -> None:
        subscription = self.subscription
        if subscription is not None and not self.cancelled and not self.terminated:
            self.cancelled = True
            subscription.cancel()

    # ------------------------------------------------------------------- state
    @property
    def terminated(self) -> bool:
        return bool(self.completions or self.errors)

    @property
    def subscribed(self) -> bool:
        return self.subscription is not None

    def signals_after(self, mark: int) -> list[Record]:
        with self._lock:
            return list(self.records[mark:])

    def mark(self) -> int:
        with self._lock:
            return len(self.records)

    def kinds(self) -> list[str]:
        with self._lock:
            return [r.kind for r in self.records]

    # ------------------------------------------------------------------- waits
    def expect_subscribed(self) -> ProbeSubscriber:
        self.env.wait_until(lambda: self.subscribed, f"rule 1.9: {self.name}: no on_subscribe")
        return self

    def expect_next(self, rule: str = "3.8") -> object:
        """The next element not yet taken; fails on end-of-stream or timeout (citing
        ``rule``: 3.8, or 3.17 where the demand is the point)."""
        index = self.consumed
        self.env.wait_until(
            lambda: len(self.values) > index or self.terminated,
            lambda: (
                f"rule {rule}: {self.name}: expected element {index + 1}, "
                f"{len(self.values)} arrived (demand {self.requested})"
            ),
            rule,
        )
        if len(self.values) <= index:
            raise self.env.fail(
                f"rule 1.5: {self.name}: expected element {index + 1}, got "
                f"{'on_complete' if self.completions else repr(self.errors[0])} "
                f"after {index} elements"
            )
        self.consumed = index + 1
        return self.values[index]

    def expect_elements(self, count: int, rule: str = "3.8") -> list[object]:
        return [self.expect_next(rule) for _ in range(count)]

    def expect_complete(self) -> None:
        self.env.wait_until(
            lambda: self.terminated,
            lambda: f"rule 1.5: {self.name}: no on_complete after {len(self.values)} elements",
        )
        if self.errors:
            raise self.env.fail(
                f"rule 1.5: {self.name}: expected on_complete, got on_error({self.errors[0]!r})"
            )

    def expect_count(self, count: int, rule: str = "3.8") -> None:
        """Wait until ``count`` elements (or a terminal signal) arrived, then settle: no
        element beyond ``count`` may follow (the probe flags one beyond demand, 1.1)."""
        self.env.wait_until(
            lambda: len(self.values) >= count or self.terminated,
            lambda: f"rule {rule}: {self.name}: {len(self.values)} of {count} elements arrived",
            rule,
        )
        self.env.settle()
        if len(self.values) < count:
            raise self.env.fail(
                f"rule {rule}: {self.name}: {len(self.values)} of {count} elements arrived, "
                f"then {'on_complete' if self.completions else 'on_error'}",
                rule,
            )

    def expect_error(
        self, kind: type[BaseException] = BaseException, rule: str = "1.4"
    ) -> BaseException:
        self.env.wait_until(
            lambda: self.terminated,
            f"rule {rule}: {self.name}: no on_error({kind.__name__})",
        )
        if not self.errors:
            raise self.env.fail(f"rule {rule}: {self.name}: expected on_error, got on_complete")
        error = self.errors[0]
        if not isinstance(error, kind):
            raise self.env.fail(
                f"rule {rule}: {self.name}: expected on_error({kind.__name__}), got {error!r}"
            )
        return error

    def expect_element_or_end(self) -> None:
        index = self.consumed
        self.env.wait_until(
            lambda: len(self.values) > index or self.terminated,
            f"rule 3.8: {self.name}: neither an element nor a terminal signal",
            "3.8",
        )
        if len(self.values) > index:
            self.consumed = index + 1

    def expect_none(
        self, what: str = "no further signal", rule: str | None = None, *, since: int | None = None
    ) -> None:
        """Settle the implementation; no signal may have arrived since ``since`` (a
        ``mark()``; default: this call; a synchronous publisher signals inside the calls
        made before it, so pass the mark taken before them)."""
        mark = self.mark() if since is None else since
        self.env.settle()
        late = self.signals_after(mark)
        if late:
            kinds = ", ".join(r.kind for r in late[:5])
            prefix = f"rule {rule}: " if rule else ""
            raise self.env.fail(f"{prefix}{self.name}: expected {what}, got {kinds}", rule)


# --------------------------------------------------------------------------------------
# --------------------------------------------------------------------------------------
class WhiteboxPuppet:
    """What the subscriber under test registers: how the kit makes it act (JVM
    ``SubscriberPuppet``). ``trigger_request(n)`` makes it request ``n`` (maybe lazily or
    piecewise); ``signal_cancel()`` tells it it is no longer needed (it must cancel)."""

    def __init__(
        self, trigger_request: Callable[[int], None], signal_cancel: Callable[[], None]
    ) -> None:
        self.trigger_request = trigger_request
        self.signal_cancel = signal_cancel


class WhiteboxProbe:
    """Handed to ``create_subscriber(probe)``; the subscriber reports what it received.

    The subscriber calls ``register_on_subscribe(puppet)`` from its ``on_subscribe`` and
    ``register_on_next`` / ``register_on_error`` / ``register_on_complete`` from the
    other signals (after handling them).
    """

    def __init__(self, env: Env) -> None:
        self.env = env
        self.puppet: WhiteboxPuppet | None = None
        self.elements: list[object] = []
        self.errors: list[BaseException] = []
        self.completions = 0

    def register_on_subscribe(self, puppet: WhiteboxPuppet) -> None:
        if self.puppet is None:  # a later registration (a second on_subscribe) is ignored
            self.puppet = puppet
        self.env.notify()

    def register_on_next(self, element: object) -> None:
        self.elements.append(element)
        self.env.notify()

    def register_on_error(self, error: BaseException) -> None:
        self.errors.append(error)
        self.env.notify()

    def register_on_complete(self) -> None:
        self.completions += 1
        self.env.notify()

    def expect_puppet(self) -> WhiteboxPuppet:
        self.env.wait_until(
            lambda: self.puppet is not None,
            "rule 2.1: the subscriber did not call probe.register_on_subscribe(puppet)",
            "2.1",
        )
        assert self.puppet is not None
        return self.puppet

    def expect_next(self, element: object) -> None:
        self.env.wait_until(
            lambda: element in self.elements,
            f"rule 2.1: the subscriber did not register element {element!r}",
            "2.1",
        )

    def expect_complete(self, rule: str) -> None:
        self.env.wait_until(
            lambda: self.completions > 0,
            f"rule {rule}: the subscriber did not register on_complete",
            rule,
        )

    def expect_error(self, error: BaseException, rule: str) -> None:
        self.env.wait_until(
            lambda: any(e is error for e in self.errors),
            f"rule {rule}: the subscriber did not register on_error({error!r})",
            rule,
        )


class BlackboxProxy:
    """Wraps an unmodified subscriber; records what it received and whether it raised."""

    def __init__(self, env: Env, target: Subscriber[Any]) -> None:
        self.env = env
        self.target = target
        self.received: list[str] = []
        self.raised: list[tuple[str, BaseException]] = []

    def _call(self, method: str, *args: object) -> None:
        self.received.append(method)
        try:
            getattr(self.target, method)(*args)
        except Exception as exc:
            self.raised.append((method, exc))
            raise
        finally:
            self.env.notify()

    def on_subscribe(self, subscription: Subscription) -> None:
        self._call("on_subscribe", subscription)

    def on_next(self, item: object) -> None:
        self._call("on_next", item)

    def on_error(self, error: BaseException) -> None:
        self._call("on_error", error)

    def on_complete(self) -> None:
        self._call("on_complete")


def subscribe_probe(env: Env, publisher: Publisher[Any], probe: ProbeSubscriber) -> ProbeSubscriber:
    """``publisher.subscribe(probe)``; a raise is a rule 1.9 failure."""
    try:
        publisher.subscribe(probe)
    except Exception as exc:
        raise env.fail(
            f"rule 1.9: subscribe() raised {exc!r} for a non-null subscriber; rejection must be "
            "signalled with on_subscribe then on_error"
        ) from exc
    return probe
