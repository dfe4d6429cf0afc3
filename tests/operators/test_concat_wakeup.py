"""A request made by a multicast drain that a cancel moved to the shared pool, through
``concat_with`` to a source on a ``ManualExecutor`` (the long-profile failure of
``test_pipeline_machine[concat_with-fused]``: "rule 3.8: sub 4: request(3) was never
received (lost wake-up)").

The request is not lost: the source registers it (rule 3.8; the spec's RecvRequest) in
the task the request queued on the source's own executor (request returns at once,
rule 3.4; the cancel handed the drain to the pool, rule 3.5). The
machine judged the trace "at rest" while that task was queued: its ``_quiet`` looked
at the executors before waiting for the pooled drain (``_settle``), which queued the
task meanwhile. ``test_machine_not_at_rest_while_a_settled_drain_queued_work`` forces
that order; ``test_pooled_request_reaches_the_source`` pins the implementation's side.
The last test pins a second model error the same cell's long sweep met (group_by's oracle).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import stateful.test_pipeline_machine as pm

from reactive_streams import ManualExecutor, from_iterable
from reactive_streams.flow import Flow
from reactive_streams.multicast import _connection, publish
from reactive_streams.testing import TestSubscriber
from reactive_streams.trace.format import event_from_dict
from reactive_streams.trace.model import Replay
from reactive_streams.tracing import tracing


def _settled(connection: Any, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while connection._wip and time.monotonic() < deadline:
        time.sleep(0.001)
    return not connection._wip


def test_pooled_request_reaches_the_source(fusion: bool) -> None:
    """publish's only subscriber leaves with the buffer full: the drain, moved to the
    pool by the cancel (rule 3.5), requests again through concat_with; the source
    receives that request(3) in the task it queued (rule 3.8), and the run ends."""
    ex = ManualExecutor()
    with tracing() as tracer:
        flow = Flow.from_publisher(from_iterable(range(4), executor=ex, batch_size=2))
        hub = publish(flow.concat_with(from_iterable([])), 3, batch_size=2)
        joiner: TestSubscriber[int] = TestSubscriber(0)
        hub.subscribe(joiner)
        conn = hub.connect()
        ex.run_all()  # 3 elements buffered: the upstream demand is the buffer (3)
        assert conn._received == 3
        assert joiner.subscription is not None
        joiner.subscription.cancel()
        assert _settled(conn), "the pooled drain did not finish in 10 s"
        assert len(ex) == 1, "rule 3.8: the request(3) queued no task on the source's executor"
        ex.run_all()
    replay = Replay(sync=False, call_ends=True)
    for k, raw in enumerate(tracer.events):
        why = replay.step(event_from_dict(raw, k + 1))
        assert why is None, f"event {k + 1} ({raw}): {why}"
    assert replay.unfinished() is None, replay.unfinished()
    assert conn._received == 4  # the 4th element answered the pooled request


class _Fake:
    """Stands for Hypothesis' ``data``: returns the scripted draws in order."""

    def __init__(self, *script: Any) -> None:
        self.script = list(script)

    def draw(self, strategy: Any, label: str | None = None) -> Any:
        return self.script.pop(0)


class _Gate:
    """The shared pool for publish's handed-over drain: each task waits until the
    machine next enters ``_settle``, i.e. after ``_quiet`` looked at the executors."""

    def __init__(self) -> None:
        self.waiting: list[threading.Event] = []
        self.threads: list[threading.Thread] = []

    def execute(self, task: Callable[[], None]) -> None:
        opened = threading.Event()
        self.waiting.append(opened)

        def run() -> None:
            opened.wait(10.0)  # bounded: a missing _settle runs it late, never hangs
            task()

        thread = threading.Thread(target=run, daemon=True)
        self.threads.append(thread)
        thread.start()

    def open(self) -> None:
        for opened in self.waiting:
            opened.set()


def _machine(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, _Gate]:
    """The forced concat_with cell's machine; publish's pooled drain is gated."""
    gate = _Gate()
    settle = pm._settle

    def gated_settle(connection: Any, deadline_s: float = 10.0) -> None:
        gate.open()
        settle(connection, deadline_s)

    monkeypatch.setattr(_connection, "default_executor", lambda: gate)
    monkeypatch.setattr(pm, "_settle", gated_settle)
    machine_class = type("Machine", (pm.PipelineMachine,), {"forced": "concat_with", "fused": True})
    return machine_class(), gate


def _shrunk(m: Any, leave_checked: bool) -> ManualExecutor:
    """The failure's shrunk steps, each followed by the machine's invariants (but the
    last, ``leave``, unless ``leave_checked``); returns the source's executor."""

    def step(rule: Callable[..., None], *args: Any, checked: bool = True) -> None:
        rule(*args)
        if checked:
            m.probes_and_values()
            m.properties_at_rest()
            m.publish_upstream_leq_buffer_inv()
            m.spec_invariants()

    ops = [pm.OpSpec("publish", k=2, variant="a", other=0), pm.OpSpec("take", k=0, variant="a")]
    forced = pm.OpSpec("concat_with", k=0, variant="a", other=0)
    source = pm.SourceSpec(kind="manual", length=4, batch=2)
    step(m.setup, _Fake(2, ops, 0, forced), source, False, None, [], None)
    ex: ManualExecutor = next(e for role, e in m.executors if role == "source")
    step(m.run_task, _Fake(("source", ex), 0))
    step(m.join, _Fake(m.stages[0]), None)
    step(m.run_task, _Fake(("source", ex), 0))
    step(m.leave, _Fake(m.extras[0][0]), checked=leave_checked)
    return ex


def _finish(m: Any, gate: _Gate) -> None:
    try:
        m.teardown()  # the gate stays as the run left it: teardown must settle
    finally:
        gate.open()
        for thread in gate.threads:
            thread.join(10.0)


def test_machine_not_at_rest_while_a_settled_drain_queued_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pooled drain requests only once ``_quiet`` has checked the executors: its
    request(3) is then a task queued on the source's executor, so the machine is not
    at rest (and is, once that task ran)."""
    m, gate = _machine(monkeypatch)
    try:
        ex = _shrunk(m, leave_checked=True)
        assert gate.threads, "the cancel did not move publish's drain to the pool"
        assert len(ex) == 1, "the pooled drain's request(3) queued no task"
        m.run_task(_Fake(("source", ex), 0))
        m.properties_at_rest()
    finally:
        _finish(m, gate)


def test_machine_teardown_settles_a_pooled_drain(monkeypatch: pytest.MonkeyPatch) -> None:
    """The example ends while the pooled drain is in flight (the last step's ``_quiet``
    saw work queued, so it did not settle): ``teardown`` settles it and runs the task
    its request queued before the checks at rest, which open the gate if it did not."""
    m, gate = _machine(monkeypatch)
    check_at_rest = m.check_at_rest

    def settled_then_checked() -> None:
        gate.open()
        assert _settled(m.stages[0].hub.connection)
        check_at_rest()

    m.check_at_rest = settled_then_checked
    try:
        ex = _shrunk(m, leave_checked=False)
        assert gate.threads, "the cancel did not move publish's drain to the pool"
    finally:
        _finish(m, gate)
    assert len(ex) == 0, "teardown left the pooled request's task queued"


def test_group_by_oracle_keeps_retried_values_in_order() -> None:
    """Found by the concat_with cell's long sweep: the group_by oracle placed a value by
    its last place in the expected list, so retry's second pass (0, 1, 0, 1) read as
    "group 0 out of order". Each element is placed after its group's previous one."""
    cell = {"forced": "concat_with", "fused": False}
    m = type("Machine", (pm.PipelineMachine,), cell)()
    ops = [
        pm.OpSpec("map", k=0, variant="a", other=0),
        pm.OpSpec("retry", k=1, variant="a", other=0),
        pm.OpSpec("group_by", k=0, variant="a", other=0),
    ]
    forced = pm.OpSpec("concat_with", k=0, variant="a", other=0)
    source = pm.SourceSpec(kind="failing", length=2, batch=1, at=2)
    try:
        m.setup(_Fake(3, ops, 0, forced), source, False, 1, [], 1)
        m.probes_and_values()
        m.properties_at_rest()
        assert m.main.values == [(0, ("m", v)) for v in (0, 1, 0, 1)]
    finally:
        m.teardown()
