"""Reactive Streams 1.0.4 for Python.

Publishers (``range``, ``from_iterable``, ``just``, ``empty``, ``error``,
``from_callable``, ``generate``), subscribers (``subscribe``, ``LambdaSubscriber``,
``AsyncSubscriber``), executors and the tracing hook. ``reactive_streams.testing``
holds ``TestSubscriber``.
"""

from ._demand import MAX_DEMAND, add_demand, check_request, take
from .api import Processor, Publisher, Subscriber, Subscription
from .executors import (
    Executor,
    ImmediateExecutor,
    ManualExecutor,
    NewThreadExecutor,
    SingleThreadExecutor,
    ThreadPoolExecutor,
    default_executor,
)
from .flow import Flow
from .sources import (
    IterablePublisher,
    Sink,
    empty,
    error,
    from_callable,
    from_iterable,
    generate,
    just,
    range,
)
from .subscribers import AsyncSubscriber, LambdaSubscriber, subscribe
from .tracing import Tracer, start_tracing, stop_tracing

__all__ = [
    "MAX_DEMAND",
    "AsyncSubscriber",
    "Executor",
    "Flow",
    "ImmediateExecutor",
    "IterablePublisher",
    "LambdaSubscriber",
    "ManualExecutor",
    "NewThreadExecutor",
    "Processor",
    "Publisher",
    "SingleThreadExecutor",
    "Sink",
    "Subscriber",
    "Subscription",
    "ThreadPoolExecutor",
    "Tracer",
    "add_demand",
    "check_request",
    "default_executor",
    "empty",
    "error",
    "from_callable",
    "from_iterable",
    "generate",
    "just",
    "range",
    "start_tracing",
    "stop_tracing",
    "subscribe",
    "take",
]
