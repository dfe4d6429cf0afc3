"""``TracedHop``: the trace of one operator hop's outgoing subscription.

Every operator is a subscriber upstream and a publisher downstream. When tracing is on
(read once, when the hop is subscribed), the operator's downstream is wrapped in a
``TracedHop``, which records that subscription in the shared vocabulary: the calls the
downstream makes (``request``/``cancel``, received at once: the hop acts on them in the
call) and every signal the operator sends (``send_*``, ``begin_*``, ``end_*``). It only
records and forwards: the operator runs the same code path as untraced, and an exception
from the downstream is re-raised to the operator after it is recorded (rule 2.13: the hop
then counts as cancelled). With tracing off no hop exists: the cost is the one read.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .. import tracing as _tracing
from .downstream import DONE, NOOP, Pub, traced_n

if TYPE_CHECKING:
    from ..api import Subscriber, Subscription
    from ..tracing import Tracer

__all__ = ["TracedHop", "traced"]

T = TypeVar("T")


def traced(subscriber: Subscriber[T], name: str) -> Subscriber[T]:
    """``subscriber`` itself with tracing off; otherwise a ``TracedHop`` around it."""
    tracer = _tracing._tracer
    if tracer is None:
        return subscriber
    return TracedHop(subscriber, tracer, name)


class TracedHop(Generic[T]):
    """Subscriber for the operator, Subscription for the downstream; records both."""

    __slots__ = ("_downstream", "_id", "_lock", "_name", "_pub", "_seq", "_tracer", "_up")

    def __init__(self, downstream: Subscriber[T], tracer: Tracer, name: str) -> None:
        self._downstream: Subscriber[T] | None = downstream
        self._tracer = tracer
        self._name = name
        self._id = tracer.new_subscription_id()
        self._up: Subscription = NOOP
        self._seq = 0
        self._pub = Pub.SUBSCRIBED  # the spec's ``pub``, as far as the hop's signals tell
        self._lock = threading.Lock()
        tracer.emit(self._id, "subscribe", hop=name)

    def __repr__(self) -> str:
        return f"<{self._name} hop {self._id}>"

    @property
    def subscription_id(self) -> int:
        return self._id

    # ------------------------------------------------ the downstream's calls
    def request(self, n: int) -> None:
        tracer = self._tracer
        with self._lock:
            tracer.emit(self._id, "request", n=traced_n(n))
            if self._pub not in DONE:  # rule 3.6: a no-op after the end
                tracer.emit(self._id, "recv_request", n=traced_n(n))
        self._up.request(n)

    def cancel(self) -> None:
        self._cancel()
        self._up.cancel()

    def _cancel(self, fault: tuple[str, dict[str, Any]] | None = None) -> None:
        tracer = self._tracer
        with self._lock:
            if fault is not None:
                tracer.emit(self._id, fault[0], **fault[1])
            tracer.emit(self._id, "cancel")
            if self._pub not in DONE:  # rule 3.7
                self._pub = Pub.CANCELLED
                tracer.emit(self._id, "recv_cancel")
                self._downstream = None  # rule 3.13

    # ------------------------------------------------ the operator's signals
    def _call(self, method: str, send: dict[str, Any], arg: Any) -> None:
        tracer = self._tracer
        sid = self._id
        with self._lock:
            downstream = self._downstream
            if downstream is None:
                return  # cancelled: the operator's late signal is not delivered (rule 3.12)
            if method == "on_next":
                self._seq += 1
                send = {"seq": self._seq}
            elif method == "on_subscribe":
                self._pub = Pub.ACTIVE
            else:
                self._pub = Pub.FAILED if method == "on_error" else Pub.COMPLETED
                self._downstream = None  # rule 3.13
            tracer.emit(sid, "send_" + method, **send)
        seq = send.get("seq")
        fields: dict[str, Any] = {} if seq is None else {"seq": seq}
        tracer.emit(sid, "begin_" + method, **fields)
        try:
            if method == "on_next":
                downstream.on_next(arg)
            elif method == "on_subscribe":
                downstream.on_subscribe(arg)
            elif method == "on_error":
                downstream.on_error(arg)
            else:
                downstream.on_complete()
        except BaseException:
            self._cancel(("end_" + method, {**fields, "raised": True}))  # rule 2.13
            raise
        tracer.emit(sid, "end_" + method, raised=False, **fields)

    def on_subscribe(self, subscription: Subscription) -> None:
        self._up = subscription
        self._call("on_subscribe", {}, self)

    def on_next(self, item: T) -> None:
        self._call("on_next", {}, item)

    def on_error(self, error: BaseException) -> None:
        send = {"error": _tracing.error_text(error), "error_type": _tracing.error_type(error)}
        self._call("on_error", send, error)

    def on_complete(self) -> None:
        self._call("on_complete", {}, None)
