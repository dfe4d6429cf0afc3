"""``to_iterable`` across threads moves elements in batches (issue 23): a waiting
consumer is woken once per wait, not once per element the producer appends meanwhile."""

from __future__ import annotations

import pytest

import reactive_streams as rs
from reactive_streams.bridges import _BlockingSubscriber, to_iterable


class _Idle:
    def request(self, n: int) -> None:
        pass

    def cancel(self) -> None:
        pass


def test_a_waiting_consumer_is_woken_once_per_wait() -> None:
    subscriber: _BlockingSubscriber[int] = _BlockingSubscriber(8)
    subscriber.on_subscribe(_Idle())
    notified: list[int] = []
    subscriber._ready.notify_all = lambda: notified.append(1)  # type: ignore[method-assign]
    with subscriber._ready:
        assert not subscriber._takeable()  # the consumer found nothing: it is about to wait
    for i in range(3):
        subscriber.on_next(i)  # the producer appends while the consumer is still asleep
    assert notified == [1]  # one wake-up; the consumer takes all three when it runs
    with subscriber._ready:
        assert subscriber._takeable()
    assert list(subscriber._buffer) == [0, 1, 2]


@pytest.mark.timeout(30)
def test_to_iterable_across_threads_sees_every_element_in_order() -> None:
    with rs.SingleThreadExecutor(name="batching-source") as executor:
        seen = list(to_iterable(rs.range(0, 5000, executor=executor), prefetch=16, timeout=20))
    assert seen == list(range(5000))
    with rs.SingleThreadExecutor(name="batching-error") as executor, pytest.raises(KeyError):
        list(to_iterable(rs.error(KeyError("k"), executor=executor), timeout=20))
