"""What the pipeline machine's long sweep found its model wrong about: the documented
behaviour its model now follows, pinned on the operators directly (ManualExecutors, no
threads)."""

from __future__ import annotations

from collections.abc import Iterator

from reactive_streams.executors import ManualExecutor
from reactive_streams.flow import Flow
from reactive_streams.multicast import publish
from reactive_streams.sources import IterablePublisher, from_iterable
from reactive_streams.testing import TestSubscriber


class ActionFault(Exception):
    """do_on_complete's action raised on purpose."""


class SourceFault(Exception):
    """The source failed on purpose."""


def _one_then_fail() -> Iterator[int]:
    yield 0
    raise SourceFault("after 1 element")


def test_delay_subscription_after_a_connected_publish_sees_only_its_end() -> None:
    """docs/multicast.md: with no child, publish drops elements; a child that subscribes
    after the source ended receives the terminal signal at once."""
    clock = ManualExecutor()
    hub = publish(Flow.from_iterable([0, 1]), 1)
    ts: TestSubscriber[int] = TestSubscriber(1)
    Flow.from_publisher(hub).delay_subscription(0.5, scheduler=clock).subscribe(ts)
    hub.connect()  # the machine connects its stages after subscribing its probe
    assert (ts.values, ts.completions) == ([], 0), "nothing before the delay elapsed"
    clock.advance_by(0.5)
    assert (ts.values, ts.completions, ts.errors) == ([], 1, [])


def test_concat_map_error_overtakes_an_inner_not_yet_emitted() -> None:
    """docs/operators.md: flat_map's (and concat_map's) errors are eager, so do_on_complete's
    raising action (its error replaces the completion) reaches any() before the inner's
    element: any() answers the error, not True."""

    def action() -> None:
        raise ActionFault("do_on_complete")

    inners = ManualExecutor()
    ts: TestSubscriber[bool] = TestSubscriber(1)
    flow = Flow.from_iterable([0]).do_on_complete(action)
    flow.concat_map(lambda x: from_iterable([x], executor=inners), 1).any(lambda _: True).subscribe(
        ts
    )
    assert (ts.values, ts.completions) == ([], 0)
    assert [type(e) for e in ts.errors] == [ActionFault]
    while len(inners):  # the cancelled inner's queued task: no signal after the end (1.7)
        inners.run(0)
    assert (ts.values, ts.completions, len(ts.errors)) == ([], 0, 1)


def test_publish_error_overtakes_its_buffer_before_any_decides() -> None:
    """docs/multicast.md: publish lets a source error overtake buffered elements, so any()
    behind a publish draining on an executor answers the error, not True."""
    drain = ManualExecutor()
    hub = publish(Flow.from_publisher(IterablePublisher(_one_then_fail)), 2, executor=drain)
    ts: TestSubscriber[bool] = TestSubscriber(1)
    Flow.from_publisher(hub).any(lambda _: True).subscribe(ts)
    hub.connect()  # the element and the error both arrive before the drain runs
    while len(drain):
        drain.run(0)
    assert (ts.values, ts.completions) == ([], 0)
    assert [type(e) for e in ts.errors] == [SourceFault]
