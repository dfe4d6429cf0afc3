"""The kill model of spec/TraceReactiveStreams.tla runs the committed batch
spec/TraceData.tla; it must be what spec/trace_kill.py writes from the fixtures, so
a changed fixture cannot leave the kill table judging an old one."""

from __future__ import annotations

import spec_scripts

kill = spec_scripts.load("trace_kill", "spec_trace_kill")


def test_the_committed_batch_is_what_the_fixtures_give() -> None:
    assert kill.main(["--check"]) == 0


def test_the_batch_has_traces_to_reject_and_to_accept_for_each_new_rule() -> None:
    expects = {path.stem: accept for path, accept in kill.FIXTURES}
    assert expects["raise_never_cancelled"] is False  # 2.13
    assert expects["request_raises"] is False  # 3.16
    assert expects["cancel_raises"] is False  # 3.15
    assert expects["on_next_after_request_0_and_no_error"] is False  # 3.9
    assert expects["on_next_before_the_3_9_error"] is True  # 3.9 as its text reads
    assert sum(expects.values()) >= 3
