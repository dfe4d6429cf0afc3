"""``TestSubscriber``: records every signal and checks the subscriber-side rules itself.

Time without sleeping: ``marbles("-a-b--c|", scheduler=ex)`` is a cold source on a
``ManualExecutor``'s virtual clock; ``TimedSubscriber`` records (time, signal) pairs and
draws them back as a diagram; ``expect_marbles`` runs the clock and compares.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ._core.demand import MAX_DEMAND, add_demand
from .api import Subscription
from .executors import ManualExecutor
from .trace import invariants as twin
from .trace.state import Open, SubState

if TYPE_CHECKING:
    from .api import Publisher, Subscriber
    from .flow import Flow

__all__ = [
    "AutoClock",
    "Signal",
    "TestSubscriber",
    "TimedSubscriber",
    "expect_marbles",
    "marbles",
]

T = TypeVar("T")


@dataclass(frozen=True)
class Signal:
    """One recorded call: ``kind`` is on_subscribe/on_next/on_error/on_complete."""

    kind: str
    value: object
    thread: int


class TestSubscriber(Generic[T]):
    """A Subscriber for tests.

    ``initial_request`` is requested from ``on_subscribe``; by default 0, nothing: this is
    the probe that steps demand by hand (``ts.request(n)``), so an element sent without a
    request is a visible rule 1.1 violation (Reactor: ``StepVerifier.create(p, 0)``; pass
    ``MAX_DEMAND`` for ``StepVerifier.create(p)``). ``TimedSubscriber`` defaults to
    ``MAX_DEMAND`` instead: its timeline shows the source's timing, not the test's
    demand. ``on_next_hook``
    runs inside ``on_next`` (e.g. ``lambda ts, x: ts.request(1)``). ``violations`` lists
    the protocol breaches it saw: a signal before ``on_subscribe`` or after a terminal
    one (rules 1.3, 1.7), a second ``on_subscribe`` (2.12), more elements than requested
    (1.1), None arguments (2.13), overlapping calls (1.3).

    The ``await_*`` methods wait 10 s by default, unlike the library's terminals: in a
    test a missing signal must fail (``AssertionError`` with what did arrive), not hang.
    """

    __test__ = False  # not a pytest test class

    def __init__(
        self,
        initial_request: int = 0,
        *,
        on_next_hook: Callable[[TestSubscriber[T], T], None] | None = None,
        cancel_on_subscribe: bool = False,
    ) -> None:
        self._initial = initial_request
        self._hook = on_next_hook
        self._cancel_on_subscribe = cancel_on_subscribe
        self._lock = threading.Lock()
        self._active = 0
        self._terminated = threading.Event()
        self._changed = threading.Condition()
        self.subscription: Subscription | None = None
        self.signals: list[Signal] = []
        self.values: list[T] = []
        self.errors: list[BaseException] = []
        self.completions = 0
        self.requested = 0
        self.violations: list[str] = []

    # ------------------------------------------------------------ bookkeeping
    def _begin(self, kind: str, value: object) -> None:
        with self._lock:
            self._active += 1
            if self._active > 1:
                self.violations.append(f"rule 1.3: {kind} overlaps another signal")
            if kind != "on_subscribe" and self.subscription is None:
                self.violations.append(f"rule 1.3: {kind} before on_subscribe")
            if self.completions or self.errors:
                self.violations.append(f"rule 1.7: {kind} after a terminal signal")
            self.signals.append(Signal(kind, value, threading.get_ident()))

    def _end(self) -> None:
        with self._lock:
            self._active -= 1
        with self._changed:
            self._changed.notify_all()

    # ------------------------------------------------------------- Subscriber
    def on_subscribe(self, subscription: Subscription) -> None:
        self._begin("on_subscribe", subscription)
        try:
            if subscription is None:
                self.violations.append("rule 2.13: on_subscribe(None)")
                return
            if self.subscription is not None:
                self.violations.append("rule 2.12: on_subscribe called twice")
                subscription.cancel()  # rule 2.5
                return
            self.subscription = subscription
            if self._cancel_on_subscribe:
                subscription.cancel()
            elif self._initial > 0:
                self.request(self._initial)
        finally:
            self._end()

    def on_next(self, item: T) -> None:
        self._begin("on_next", item)
        try:
            if item is None:
                self.violations.append("rule 2.13: on_next(None)")
            with self._lock:
                self.values.append(item)
                if len(self.values) > self.requested:
                    self.violations.append(
                        f"rule 1.1: element {len(self.values)} exceeds demand {self.requested}"
                    )
            if self._hook is not None:
                self._hook(self, item)
        finally:
            self._end()

    def on_error(self, error: BaseException) -> None:
        self._begin("on_error", error)
        try:
            if error is None:
                self.violations.append("rule 2.13: on_error(None)")
            self.errors.append(error)
            self._terminated.set()
        finally:
            self._end()

    def on_complete(self) -> None:
        self._begin("on_complete", None)
        try:
            self.completions += 1
            self._terminated.set()
        finally:
            self._end()

    # ------------------------------------------------------------ control
    def request(self, n: int) -> None:
        """Request ``n`` more (counted first, so the demand check never races)."""
        subscription = self.subscription
        if subscription is None:
            raise AssertionError("request() before on_subscribe")
        if isinstance(n, int) and not isinstance(n, bool) and n > 0:
            with self._lock:
                self.requested = add_demand(self.requested, n)
        subscription.request(n)

    def cancel(self) -> None:
        subscription = self.subscription
        if subscription is None:
            raise AssertionError("cancel() before on_subscribe")
        subscription.cancel()

    # ------------------------------------------------------------ waiting
    @property
    def terminated(self) -> bool:
        return self._terminated.is_set()

    def await_terminal(self, timeout: float = 10.0) -> TestSubscriber[T]:
        """Wait for on_complete/on_error; AssertionError after ``timeout`` seconds."""
        if not self._terminated.wait(timeout):
            raise AssertionError(f"no terminal signal within {timeout}s: {self._summary()}")
        return self

    def await_count(self, count: int, timeout: float = 10.0) -> TestSubscriber[T]:
        """Wait until ``count`` values arrived (or a terminal signal); AssertionError on timeout."""
        with self._changed:
            ok = self._changed.wait_for(
                lambda: len(self.values) >= count or self.terminated, timeout
            )
        if not ok:
            raise AssertionError(f"fewer than {count} values within {timeout}s: {self._summary()}")
        return self

    def await_subscribed(self, timeout: float = 10.0) -> TestSubscriber[T]:
        """Wait for on_subscribe; AssertionError after ``timeout`` seconds."""
        with self._changed:
            ok = self._changed.wait_for(lambda: self.subscription is not None, timeout)
        if not ok:
            raise AssertionError(f"no on_subscribe within {timeout}s")
        return self

    # ------------------------------------------------------------ assertions
    def _summary(self) -> str:
        return (
            f"values={self.values[:10]!r}{'...' if len(self.values) > 10 else ''} "
            f"({len(self.values)}), errors={self.errors!r}, completions={self.completions}, "
            f"violations={self.violations!r}"
        )

    def assert_no_violations(self) -> TestSubscriber[T]:
        assert not self.violations, self.violations
        return self

    def assert_values(self, *expected: T) -> TestSubscriber[T]:
        assert self.values == list(expected), f"expected {list(expected)!r}: {self._summary()}"
        return self

    def assert_value_count(self, count: int) -> TestSubscriber[T]:
        assert len(self.values) == count, f"expected {count} values: {self._summary()}"
        return self

    def assert_complete(self) -> TestSubscriber[T]:
        assert self.completions == 1, f"not completed: {self._summary()}"
        assert not self.errors, f"not completed: {self._summary()}"
        return self.assert_no_violations()

    def assert_error(
        self, error_type: type[BaseException], match: str | None = None
    ) -> TestSubscriber[T]:
        assert len(self.errors) == 1, f"no error: {self._summary()}"
        assert not self.completions, f"completed: {self._summary()}"
        error = self.errors[0]
        assert isinstance(error, error_type), f"expected {error_type.__name__}, got {error!r}"
        if match is not None:
            assert re.search(match, str(error)), f"{str(error)!r} does not match {match!r}"
        return self.assert_no_violations()

    def assert_no_terminal(self) -> TestSubscriber[T]:
        assert not self.errors, f"terminated: {self._summary()}"
        assert not self.completions, f"terminated: {self._summary()}"
        return self

    def __repr__(self) -> str:
        return f"TestSubscriber({self._summary()})"


# --------------------------------------------------------------------------- traces
_SIGNAL = {
    "subscribe": "onSubscribe",
    "next": "onNext",
    "error": "onError",
    "complete": "onComplete",
}
_TERMINAL = ("onComplete", "onError")


def _fold(s: SubState, event: Mapping[str, object], seq: dict[object, int]) -> str | None:
    """Step the fields the signal twins read (demand received, signals committed, open
    on* frames) through one core tracer event; tolerant of every other rule, so a test
    that breaks 2.7 on purpose is still judged on 1.1. Returns a malformed-trace note."""
    sig = str(event["sig"])
    n = event.get("n")
    if sig == "recv_request" and type(n) is int and n > 0:
        s.requested += n  # exact: the twin compares with elements committed
    elif sig.startswith("send_on_"):
        name = _SIGNAL[sig[len("send_on_") :]]
        if any(s.count(t) for t in _TERMINAL):
            s.after_terminal += 1
        s.first_sent = s.first_sent or name
        s.counts[name] = s.count(name) + 1
        s.sent_total += 1
        if name == "onNext":
            s.emitted += 1
            seq[event["sub"]] = seq.get(event["sub"], 0) + 1
            if event.get("seq") != seq[event["sub"]]:
                return f"seq {event.get('seq')} != {seq[event['sub']]}"
    elif sig.startswith("begin_on_"):
        thread = event.get("thread")
        sig_name = _SIGNAL[sig[len("begin_on_") :]]
        s.open.append(Open(sig_name, 0, thread=thread if isinstance(thread, int) else None))
        s.top_level += 1  # any overlap of on* calls counts (rule 1.3)
    elif sig.startswith("end_on_"):
        name = _SIGNAL[sig[len("end_on_") :]]
        if not s.open or s.open[-1].sig != name:
            return f"{sig} without a matching begin"
        s.open.pop()
        s.top_level -= 1
    return None


def _on_events(
    *twins: Callable[[SubState], bool],
) -> Callable[[list[dict[str, object]]], list[str]]:
    """An event-list check: fold a core tracer's events (``Tracer.events``) into one
    ``SubState`` per subscription and apply ``twins`` (the one definition, in
    ``reactive_streams.trace.invariants``) after every step. Returns the problems found,
    each naming its rule (empty: all hold)."""

    def check(events: list[dict[str, object]]) -> list[str]:
        states: dict[object, SubState] = {}
        seq: dict[object, int] = {}
        broken: set[tuple[object, str]] = set()  # reported once, when it breaks
        problems: list[str] = []
        last_clock = 0
        for event in events:
            clock = event["clock"]
            assert isinstance(clock, int)
            if clock <= last_clock:
                problems.append(f"clock not increasing at {event}")
            last_clock = clock
            s = states.setdefault(event["sub"], SubState())
            note = _fold(s, event, seq)
            if note is not None:
                problems.append(f"{note}: {event}")
            for f in twins:
                key = (event["sub"], f.__name__)
                if not f(s) and key not in broken:
                    broken.add(key)
                    rule = f"{f.__name__[4]}.{int(f.__name__[5:7])}"
                    problems.append(f"rule {rule}: {f.__name__} broken at {event}")
        return problems

    check.__name__ = check.__qualname__ = twins[0].__name__
    return check


#: Rule 1.1 on a trace: per subscription, onNext committed <= demand received.
spec101_delivered_leq_requested_inv = _on_events(twin.spec101_delivered_leq_requested_inv)
#: Rules 1.3 / 1.7 / 1.9 / 2.12 on a trace: serial signals, nothing after a terminal
#: signal, onSubscribe first and once.
spec103_serial_signals_inv = _on_events(
    twin.spec103_serial_signals_inv,
    twin.spec107_nothing_after_terminal_inv,
    twin.spec109_on_subscribe_first_inv,
    twin.spec212_on_subscribe_once_inv,
)


# ================================================================ marbles
# A diagram is read one frame per character: ``-`` nothing, ``|`` complete, ``#`` error,
# any other character an element (``values[c]``, else the character itself), ``( )`` a
# group of signals in one frame (the group takes one frame), spaces are ignored.


def _parse(diagram: str) -> list[list[str]]:
    frames: list[list[str]] = []
    group: list[str] | None = None
    for c in diagram:
        if c == " ":
            continue
        if c == "(":
            if group is not None:
                raise ValueError(f"marbles: nested group in {diagram!r}")
            group = []
        elif c == ")":
            if group is None:
                raise ValueError(f"marbles: ')' without '(' in {diagram!r}")
            frames.append(group)
            group = None
        elif group is not None:
            group.append(c)
        else:
            frames.append([] if c == "-" else [c])
    if group is not None:
        raise ValueError(f"marbles: unclosed group in {diagram!r}")
    return frames


def marbles(
    diagram: str,
    *,
    scheduler: ManualExecutor,
    frame: float = 1.0,
    values: Mapping[str, Any] | None = None,
    error: BaseException | None = None,
) -> Flow[Any]:
    """A cold source: each subscription plays ``diagram`` on ``scheduler``'s clock from
    its subscription time (frame ``i`` at ``+ i * frame``). An element due with no
    demand waits for it (rule 1.1); ``#`` signals ``error`` (default ``RuntimeError``)."""
    from .flow import Flow
    from .operators._marbles import Marbles
    from .operators._timed import TimedPublisher

    events: list[tuple[float, str]] = []
    for i, group in enumerate(_parse(diagram)):
        events.extend((i * frame, c) for c in group)
    table = dict(values or {})
    failure = error if error is not None else RuntimeError(f"marbles {diagram!r}: #")

    def make(downstream: Subscriber[Any]) -> Marbles:
        return Marbles(downstream, events, table, failure, scheduler)

    return Flow(TimedPublisher(None, make))


class TimedSubscriber(TestSubscriber[T]):
    """A ``TestSubscriber`` that also records when each signal arrived on ``scheduler``'s
    clock (``timeline``: (time, kind, value)), relative to its creation. It requests
    everything by default (``initial_request=MAX_DEMAND``, unlike ``TestSubscriber``'s
    0): a marble timeline records when the source emits, which demand would reshape;
    pass ``initial_request`` to step demand by hand."""

    __test__ = False

    def __init__(
        self,
        scheduler: ManualExecutor,
        initial_request: int = MAX_DEMAND,
        **kwargs: Any,
    ) -> None:
        super().__init__(initial_request, **kwargs)
        self._clock = scheduler
        self._origin = scheduler.now()
        self.timeline: list[tuple[float, str, object]] = []

    def _begin(self, kind: str, value: object) -> None:
        super()._begin(kind, value)
        if kind != "on_subscribe":
            self.timeline.append((self._clock.now() - self._origin, kind, value))

    def diagram(self, frame: float = 1.0, values: Mapping[str, Any] | None = None) -> str:
        """The timeline as a marble diagram (``values`` maps characters to elements)."""
        names = {repr(v): c for c, v in (values or {}).items()}
        frames: dict[int, list[str]] = {}
        for time, kind, value in self.timeline:
            if kind == "on_next":
                c = names.get(repr(value), str(value))
                if len(c) != 1:
                    raise ValueError(f"diagram: name {value!r} with one character in values")
            else:
                c = "|" if kind == "on_complete" else "#"
            index = round(time / frame)
            if abs(index * frame - time) > 1e-9 * max(1.0, abs(time)):
                raise ValueError(f"diagram: {kind}({value!r}) at {time} is between frames")
            frames.setdefault(index, []).append(c)
        if not frames:
            return ""
        out = []
        for i in range(max(frames) + 1):
            group = frames.get(i, [])
            out.append("-" if not group else group[0] if len(group) == 1 else f"({''.join(group)})")
        return "".join(out)


def expect_marbles(
    flow: Publisher[Any],
    expected: str,
    *,
    scheduler: ManualExecutor,
    frame: float = 1.0,
    values: Mapping[str, Any] | None = None,
    request: int = MAX_DEMAND,
    duration: float | None = None,
) -> TimedSubscriber[Any]:
    """Subscribe, run ``scheduler``'s clock for ``duration`` (default: the diagram's
    length plus 10 frames), and assert the signals drew ``expected`` (trailing ``-``
    ignored) without a rule violation. Returns the subscriber for further checks."""
    subscriber: TimedSubscriber[Any] = TimedSubscriber(scheduler, request)
    flow.subscribe(subscriber)
    span = duration if duration is not None else (len(_parse(expected)) + 10) * frame
    scheduler.advance_by(span)
    got = subscriber.diagram(frame, values)
    assert got.rstrip("-") == expected.replace(" ", "").rstrip("-"), (
        f"expected {expected!r}, got {got!r}: {subscriber.timeline}"
    )
    assert not subscriber.violations, subscriber.violations
    return subscriber


class AutoClock(ManualExecutor):
    """A ``ManualExecutor`` whose clock jumps to the next timed task when no immediate
    task is pending: ``len`` counts both, ``run_next`` runs the oldest immediate task,
    else advances to the earliest due one. A loop of ``run_next`` drives timed code to
    its end in virtual time (a periodic task runs until cancelled)."""

    def __len__(self) -> int:
        return super().__len__() + self.scheduled

    def run(self, index: int = 0) -> str:
        if super().__len__():
            return super().run(index)
        due = self.next_due()
        if due is None:
            raise IndexError("no pending task")
        self.advance_to(max(due, self.now()))
        return f"advance_to({due})"
