"""Reactive Streams 1.0.4 for Python.

``Flow`` is the way in: sources (``range``, ``from_iterable``, ``just``, ``empty``,
``error``, ``from_callable``, ``generate``; also here at the top level, returning a
Flow), operators, and terminals (``to_list``, ``for``, ``async for``, ``aio``).
``Emitter`` is a hot, bounded push source. Executors decide where signals run
(``reactive_streams.schedulers`` has the named ones); ``reactive_streams.testing``
holds ``TestSubscriber``.

The protocol-level pieces stay in their modules: the raw publishers in
``reactive_streams.sources``, the operators in ``reactive_streams.operators``.
"""

# The package's version: pyproject.toml reads it from here ([tool.hatch.version]).
__version__ = "0.1.0"

from . import _report, schedulers
from ._core.demand import MAX_DEMAND
from ._emitter import Emitter
from .api import Processor, Publisher, Subscriber, Subscription
from .executors import (
    AsyncioExecutor,
    Executor,
    ExecutorLike,
    ImmediateExecutor,
    ManualExecutor,
    NewThreadExecutor,
    SingleThreadExecutor,
    ThreadPoolExecutor,
    as_executor,
    default_executor,
)
from .flow import AsyncTerminals, Flow
from .operators._backpressure import BufferOverflowError
from .sources import Sink
from .subscribers import AsyncSubscriber, LambdaSubscriber, subscribe
from .tracing import Tracer, start_tracing, stop_tracing

# A library logs, the application decides where it goes (logging HOWTO); with no
# handler configured, errors still reach stderr (``_report``: never silent).
_report.install()

# Sources, as Flows.
empty = Flow.empty
error = Flow.error
from_callable = Flow.from_callable
from_iterable = Flow.from_iterable
generate = Flow.generate
just = Flow.just
range = Flow.range  # Python's range arguments, as a Flow
range_count = Flow.range_count

__all__ = [
    "MAX_DEMAND",
    "AsyncSubscriber",
    "AsyncTerminals",
    "AsyncioExecutor",
    "BufferOverflowError",
    "Emitter",
    "Executor",
    "ExecutorLike",
    "Flow",
    "ImmediateExecutor",
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
    "as_executor",
    "default_executor",
    "empty",
    "error",
    "from_callable",
    "from_iterable",
    "generate",
    "just",
    "range",
    "range_count",
    "schedulers",
    "start_tracing",
    "stop_tracing",
    "subscribe",
]
