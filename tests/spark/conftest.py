"""One shared SparkSession for every Spark test, and a replayable record publisher."""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from reactive_streams.api import Subscriber

_SKIP: str | None = None
if importlib.util.find_spec("pyspark") is None or importlib.util.find_spec("pyarrow") is None:
    _SKIP = "pyspark/pyarrow not installed (pip install -e '.[spark]')"
else:
    from reactive_streams.spark.session import java_available

    if java_available() is None:
        _SKIP = "no Java runtime (Spark needs Java 17+)"


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    if _SKIP is not None:
        pytest.skip(_SKIP)
    from reactive_streams.spark.session import local_session

    session = local_session("local[2]", app_name="reactive-streams-tests", fast_start=True)
    yield session
    session.stop()


def event(i: int) -> dict[str, Any]:
    """The test record for offset ``i``: deterministic, so a replay is identical."""
    return {"id": i, "key": f"k{i % 7}", "value": i * 0.5}


class RecordSource:
    """Publisher of ``make(i)`` for offsets ``start..stop-1`` on its own thread.

    Honours demand exactly; records the largest ``outstanding demand`` seen and
    every request, so tests can compare them with the sink's buffer.
    """

    def __init__(
        self,
        start: int,
        stop: int | None,
        make: Callable[[int], Any] = event,
        on_emit: Callable[[int], None] | None = None,
    ) -> None:
        self.start, self.stop, self.make, self.on_emit = start, stop, make, on_emit
        self.cond = threading.Condition()
        self.demand = 0
        self.emitted = 0
        self.cancelled = threading.Event()
        self.finished = threading.Event()
        self.requests: list[int] = []
        self.subscriber: Subscriber[Any] | None = None
        self.thread: threading.Thread | None = None

    def subscribe(self, subscriber: Subscriber[Any]) -> None:
        self.subscriber = subscriber
        subscriber.on_subscribe(self)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def request(self, n: int) -> None:
        with self.cond:
            assert n > 0, "rule 3.9"
            self.requests.append(n)
            self.demand += n
            self.cond.notify_all()

    def cancel(self) -> None:
        with self.cond:
            self.cancelled.set()
            self.cond.notify_all()

    def _run(self) -> None:
        sub = self.subscriber
        assert sub is not None
        i = self.start
        try:
            while self.stop is None or i < self.stop:
                with self.cond:
                    while self.demand == 0 and not self.cancelled.is_set():
                        if not self.cond.wait(timeout=60):
                            raise TimeoutError("no demand for 60 s")
                    if self.cancelled.is_set():
                        return
                    self.demand -= 1
                sub.on_next(self.make(i))
                self.emitted += 1
                if self.on_emit is not None:
                    self.on_emit(i)
                i += 1
            if not self.cancelled.is_set():
                sub.on_complete()
        finally:
            self.finished.set()
