"""The pipeline machine's vocabulary: the value oracle (``Expect``), an operator's
drawn parameters (``OpSpec``), what building a pipeline needs (``Builder``), the failures
on purpose, and the helpers the operators' model functions share.

The model functions themselves live with their operator family
(``tests/operators/<family>/cells.py``, collected by ``stateful/families.py``); the
engine that draws and runs them is ``stateful/test_pipeline_machine.py``.
"""

from __future__ import annotations

import threading
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any, Protocol

from reactive_streams import from_iterable
from reactive_streams.api import Publisher
from reactive_streams.executors import Executor
from reactive_streams.flow import Flow
from reactive_streams.multicast import ConnectableFlow
from reactive_streams.operators import SyncSource

# ---------------------------------------------------------------- failures on purpose


class SourceFailure(Exception):
    """The source failed on purpose (rule 1.4)."""


class UserFault(Exception):
    """A user function (mapper, predicate, accumulator, action) raised on purpose."""


class InnerFailure(Exception):
    """An inner publisher of flat_map failed on purpose."""


COMPLETE = "complete"
MAPPER_NOT_PUBLISHER = frozenset({"TypeError", "AttributeError"})


def key_of(value: Any) -> str:
    return repr(value)


def stable(value: Any) -> int:
    """A hash of ``value`` that does not change between runs."""
    return zlib.crc32(repr(value).encode())


# ------------------------------------------------------------------------ the oracle


@dataclass(frozen=True)
class Expect:
    """What a subscriber may see. ``order``: ``list`` (delivered is a prefix of
    ``values``, all of them at completion), ``bag`` (a sub-multiset), ``subseq`` (a
    subsequence: elements may be dropped), ``none`` (values not modelled). ``ends``:
    the terminal signals allowed (``complete`` or exception class names); ``count``:
    how many elements a completed stream delivered (None: not modelled); ``most``: an
    upper bound on the elements delivered."""

    values: tuple[Any, ...]
    ends: frozenset[str]
    order: str = "list"
    count: int | None = None
    most: int | None = None
    anytime: frozenset[str] = frozenset()  # errors that may cut in at any element
    keeps_last: bool = False  # at completion the last value was delivered (debounce)

    def __post_init__(self) -> None:
        if self.order in ("list",) and self.count is None:
            object.__setattr__(self, "count", len(self.values))

    def degrade(self) -> Expect:
        """Values no longer modelled (an order-sensitive stage after a bag)."""
        return replace(self, order="none", values=(), count=None)

    def cut_in(self, name: str) -> Expect:
        """``name`` may end the stream before any element (an overflow)."""
        return replace(self, anytime=self.anytime | {name})

    def with_error(self, name: str) -> Expect:
        return replace(self, ends=self.ends | {name})


def _is_subsequence(items: list[str], of: list[str]) -> bool:
    it = iter(of)
    return all(any(x == y for y in it) for x in items)


def check_values(
    expect: Expect,
    got: list[Any],
    completed: bool,
    error: BaseException | None,
    who: str,
    invalid: bool,
) -> None:
    """The value oracle: ``got`` (delivered so far) against ``expect``. ``invalid``: the
    subscriber made an invalid request, so rule 3.9's onError may end the stream."""
    keys = [key_of(v) for v in got]
    want = [key_of(v) for v in expect.values]
    if expect.most is not None:
        assert len(got) <= expect.most, f"{who}: {len(got)} elements, at most {expect.most} due"
    if expect.order == "list":
        assert keys == want[: len(keys)], (
            f"{who}: delivered {got!r}, expected a prefix of {list(expect.values)!r}"
        )
    elif expect.order == "bag":
        extra = Counter(keys) - Counter(want)
        assert not extra, f"{who}: {sorted(extra)} delivered but not due (of {expect.values!r})"
    elif expect.order == "subseq":
        assert _is_subsequence(keys, want), (
            f"{who}: delivered {got!r}, not a subsequence of {list(expect.values)!r}"
        )
    if completed and expect.keeps_last and want:
        assert keys[-1:] == want[-1:], (
            f"{who}: completed after {got!r}, the last value {expect.values[-1]!r} is due"
        )
    if completed:
        assert COMPLETE in expect.ends, (
            f"{who}: completed, expected only {sorted(expect.ends)} (delivered {got!r})"
        )
        if expect.order == "list":
            assert keys == want, f"{who}: completed after {got!r}, expected {list(expect.values)!r}"
        elif expect.count is not None:
            assert len(got) == expect.count, (
                f"{who}: completed after {len(got)} elements, {expect.count} due: {got!r}"
            )
    if error is not None:
        name = type(error).__name__
        assert name != "SubscriberFault", (
            f"{who}: rule 2.13: the subscriber's own exception came back as on_error: {error}"
        )
        answer = invalid and name == "ValueError" and "rule 3.9" in str(error)
        assert name in expect.ends | expect.anytime or answer, (
            f"{who}: failed with {name}: {error}, expected one of {sorted(expect.ends)}"
            + ("" if invalid else " (it made no invalid request: rule 3.9 is not its answer)")
        )


# --------------------------------------------------------------------- user functions


def raising_on(target: Any, fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def call(x: Any) -> Any:
        if target is not None and key_of(x) == key_of(target):
            raise UserFault(f"on {x!r}")
        return fn(x)

    return call


def tag(x: Any) -> Any:
    return ("m", x)


def keeper(variant: str) -> Callable[[Any], bool]:
    """filter's predicate: each variant keeps a different half of the values (``a``
    drops 4, 5, 6; ``b`` drops 0 to 3, so the first elements are replaced at once;
    ``c`` keeps only the even ints), so a drop can meet any demand."""
    if variant == "c":
        return lambda x: not (type(x) is int and x % 2)
    parity = 1 if variant == "a" else 0
    return lambda x: stable(x) % 2 == parity


def inner_values(x: Any, salt: str) -> list[Any]:
    """flat_map's inner elements for ``x``: 0 to 3, a different count per ``salt``."""
    return [("i", x, j) for j in range(stable((salt, x)) % 4)]


def cut_at(expect: Expect, target: Any, error: str) -> tuple[int | None, Expect]:
    """Where ``target`` is in a list model (None: not there or not a list)."""
    if target is None or expect.order != "list":
        return None, expect
    keys = [key_of(v) for v in expect.values]
    if key_of(target) not in keys:
        return None, expect
    i = keys.index(key_of(target))
    return i, Expect(expect.values[:i], (expect.ends - {COMPLETE}) | {error})


def map_model(expect: Expect, fn: Callable[[Any], Any], target: Any) -> Expect:
    i, cut = cut_at(expect, target, "UserFault")
    if i is not None:
        return replace(cut, values=tuple(fn(v) for v in cut.values), count=None)
    values = tuple(fn(v) for v in expect.values if target is None or key_of(v) != key_of(target))
    out = replace(expect, values=values)
    if target is not None and expect.order != "list":
        out = out.with_error("UserFault")
    if expect.order == "list":
        out = replace(out, count=len(values))
    return out


def pick_target(expect: Expect, k: int | None) -> Any:
    """The element a user function raises on: the k-th of the model (None: never)."""
    if k is None or expect.order == "none" or k >= len(expect.values):
        return None
    return expect.values[k]


def failing_iter(values: list[Any]) -> Iterator[Any]:
    yield from values
    raise SourceFailure(f"after {len(values)} elements")


# ------------------------------------------------------------------------- operators


@dataclass(frozen=True)
class OpSpec:
    name: str
    k: int = 1  # count / size / prefetch
    fault: int | None = None  # the user function raises on the fault-th element
    variant: str = ""  # operator-specific choice
    other: int = 2  # merge/zip: length of the other source
    manual: bool = False  # the operator's own executor / inners on a ManualExecutor
    inner: str = "plain"  # flat_map/concat_map/zip: inners on own threads, or subscribe raises

    def __repr__(self) -> str:
        extras = [f"k={self.k}"]
        if self.fault is not None:
            extras.append(f"fault={self.fault}")
        if self.variant:
            extras.append(self.variant)
        if self.name in ("merge", "zip"):
            extras.append(f"other={self.other}")
        if self.manual:
            extras.append("manual")
        if self.inner != "plain":
            extras.append(f"inner={self.inner}")
        return f"{self.name}({', '.join(extras)})"


@dataclass
class Stage:
    """A multicast stage: its flow (for joiners), the model at that point, the kind."""

    flow: Flow[Any]
    expect: Expect
    kind: str  # publish | replay
    conn: ConnectableFlow[Any] | None  # to connect() (None: ref_count connects)
    hub: ConnectableFlow[Any] | None = None  # the shared connection's flow
    buffer: int = 0


class Builder(Protocol):
    """What building a pipeline needs: executors, and a place to list multicast stages."""

    stages: list[Stage]
    coverage_extra: set[str]
    where: list[str]  # the executor role running each pull of a generator source
    running: str  # the executor role whose task runs now ("test" outside tasks)

    def new_executor(self, role: str) -> Executor: ...


def chunks(values: tuple[Any, ...], k: int, tail: bool) -> tuple[Any, ...]:
    out = [list(values[i : i + k]) for i in range(0, len(values), k)]
    if out and len(out[-1]) < k and not tail:
        out.pop()
    return tuple(out)


def subscribes_late(expect: Expect, machine: Builder) -> Expect:
    """subscribe_on, delay_subscription: upstream is subscribed after setup connected the
    hot stages, so a publish drops what came before (docs/multicast.md: a late subscriber
    sees only later elements, or the terminal signal at once)."""
    return expect.degrade() if machine.stages else expect


def exact(expect: Expect) -> bool:
    """A list model with one end and no cut-in: its values all come before that end."""
    return expect.order == "list" and not expect.anytime and len(expect.ends) == 1


def unknown(expect: Expect, ends: frozenset[str]) -> Expect:
    """Values no longer modelled, nor their number."""
    return Expect((), ends, "none", most=None)


def complete_if(flag: bool) -> set[str]:
    return {COMPLETE} if flag else set()


def lossy(expect: Expect) -> Expect:
    if expect.order == "list":
        return replace(expect, order="subseq", count=None)
    if expect.order == "bag":
        return replace(expect, count=None)
    return replace(expect, count=None)


def overtaking(out: Expect, errors: frozenset[str]) -> Expect:
    """``errors`` are eager at this stage (they overtake the elements it still holds),
    so they may cut in before any element: all/any/element_at downstream must not
    count on their deciding element coming first."""
    return replace(out, anytime=out.anytime | errors)


def inner_fail(values: list[Any]) -> Iterator[Any]:
    yield from values
    raise InnerFailure("inner failed")


#: rule 2.7 seen by the threaded inners (two calls at once on one inner subscription),
#: and a timeout fired early (``tests/operators/timed_window/cells.py``), and other checks a
#: model makes at each element: judged after every step
INNER_PROBLEMS: list[str] = []
_EMIT_WAIT = 10.0  # seconds a request waits for its inner's thread (a hang is a failure)


class SubscribeRaises:
    """An inner source whose ``subscribe`` raises (rule 1.9: the operator must signal it
    as ``on_error`` to its subscriber, not let it out of its own ``subscribe``)."""

    def subscribe(self, subscriber: Any) -> None:
        raise InnerFailure("subscribe raised")


class _LenSaysNone(list):  # type: ignore[type-arg]
    """An "items" value whose ``len()`` says 0 (it holds more)."""

    def __len__(self) -> int:
        return 0


class LyingItems:
    """An inner source answering the public fusion protocol with an "items" value whose
    length lies: the core must not take it at its word (rules 1.1, 1.9), and pulls it."""

    def __init__(self, values: list[Any]) -> None:
        self.values = values

    def subscribe(self, subscriber: Any) -> None:
        Flow.from_iterable(self.values).subscribe(subscriber)

    def __rs_sync__(self) -> SyncSource:
        return SyncSource(self.values.__iter__, "items", _LenSaysNone(self.values), nulls=None)


class ThreadedInner:
    """An inner Publisher that emits on a thread of its own (issue 21, rule 2.7).

    A request from another thread starts an emitter thread and returns only when it has
    emitted what demand allows: the operator's drain runs on the emitter meanwhile and
    replenishes from there while that first call is still in progress, which is exactly
    where unserialised calls overlap. A request made on the emitter adds demand for its
    loop. Deterministic: the requester waits (bounded) for the emitter."""

    def __init__(self, values: list[Any]) -> None:
        self.values = values

    def subscribe(self, subscriber: Any) -> None:
        subscriber.on_subscribe(_ThreadedSubscription(self.values, subscriber))


class _ThreadedSubscription:
    def __init__(self, values: list[Any], subscriber: Any) -> None:
        self._values = values
        self._next = 0
        self._demand = 0
        self._subscriber = subscriber
        self._done = False
        self._lock = threading.Lock()
        self._inside = 0
        self._emitter: threading.Thread | None = None

    def _enter(self, call: str) -> None:
        with self._lock:
            self._inside += 1
            overlap = self._inside > 1
        if overlap:
            INNER_PROBLEMS.append(f"rule 2.7: {call} on an inner while another call runs")

    def _leave(self) -> None:
        with self._lock:
            self._inside -= 1

    def request(self, n: int) -> None:
        self._enter(f"request({n})")
        try:
            if self._done:
                return
            self._demand += n
            if threading.current_thread() is self._emitter:
                return  # the emitter's loop takes it
            emitter = threading.Thread(target=self._emit, daemon=True)
            self._emitter = emitter
            emitter.start()
            emitter.join(_EMIT_WAIT)
            if emitter.is_alive():
                INNER_PROBLEMS.append(f"an inner's emission did not return in {_EMIT_WAIT} s")
        finally:
            self._leave()

    def cancel(self) -> None:
        self._enter("cancel()")
        self._done = True
        self._leave()

    def _emit(self) -> None:
        subscriber = self._subscriber
        while not self._done and self._demand > 0 and self._next < len(self._values):
            self._demand -= 1
            self._next += 1
            subscriber.on_next(self._values[self._next - 1])
        if not self._done and self._next == len(self._values):
            self._done = True
            subscriber.on_complete()


#: what a model function returns: the flow built and the model of its output
Model = tuple[Flow[Any], Expect]


def other_source(op: OpSpec, m: Builder, label: str) -> tuple[Publisher[Any], tuple[Any, ...]]:
    values = tuple((label, j) for j in range(op.other))
    ex = m.new_executor(f"{label}-other") if op.manual else None
    return from_iterable(list(values), executor=ex), values
