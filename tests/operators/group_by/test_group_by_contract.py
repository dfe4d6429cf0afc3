"""group_by's contract at the edges its other tests leave open (issue 27: mutation
survivors): the bound's message, every group's end, demand replenished as groups consume
or drop, the main subscription's cancel, reprs and refused subscribers."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow

from .._util import PushPublisher, Recorder, traced_hops

pytestmark = pytest.mark.timeout(60)


class Groups(Recorder):
    """Records the groups; subscribes a Recorder (requesting ``initial``) to each."""

    def __init__(self, initial: int = 2**63 - 1, group_initial: int = 2**63 - 1) -> None:
        super().__init__(initial)
        self.groups: list[Any] = []
        self.members: dict[Any, Recorder] = {}
        self.group_initial = group_initial

    def on_next(self, item: Any) -> None:
        self.groups.append(item)
        rec = Recorder(self.group_initial)
        self.members[item.key] = rec
        item.subscribe(rec)


def _grouped(groups: Groups, prefetch: int = 256, max_groups: int = 256) -> PushPublisher:
    up = PushPublisher()
    Flow(up).group_by(lambda x: x % 10, max_groups=max_groups, prefetch=prefetch).subscribe(groups)
    return up


def test_upstream_is_asked_for_prefetch_and_replenished_as_groups_consume() -> None:
    groups = Groups()
    up = _grouped(groups, prefetch=4)
    assert up.requested == [4]
    up.push(1, 11, 21)
    assert groups.members[1].values == [1, 11, 21]
    assert up.requested == [4, 3]  # rule 3.17: 75 % of prefetch


def test_a_cancelled_group_gives_its_queued_elements_back_to_the_demand() -> None:
    groups = Groups(group_initial=0)
    up = _grouped(groups, prefetch=4)
    up.push(1, 11, 21)
    assert up.requested == [4]
    groups.members[1].subscription.cancel()
    assert up.requested == [4, 3]  # the dropped queue counts as consumed


def test_every_group_ends_with_upstream_after_its_elements() -> None:
    groups = Groups(group_initial=0)
    up = _grouped(groups)
    up.push(1, 2)
    up.complete()
    assert groups.ends == ["complete"]
    one = groups.members[1]
    assert one.ends == []  # rule 1.5: its element first
    one.subscription.request(1)
    assert (one.values, one.ends) == ([1], ["complete"])


def test_an_upstream_error_ends_every_group_at_once() -> None:
    groups = Groups(group_initial=0)
    up = _grouped(groups)
    up.push(1, 2)
    up.fail(ValueError("up"))
    assert groups.ends == ["error ValueError: up"]
    assert [groups.members[k].ends for k in (1, 2)] == [["error ValueError: up"]] * 2


def test_a_key_function_raising_ends_everything_and_cancels_upstream() -> None:
    groups = Groups()
    up = PushPublisher()

    def key(x: int) -> int:
        if x == 3:
            raise KeyError(x)
        return x

    Flow(up).group_by(key).subscribe(groups)
    up.push(1, 3)
    assert groups.ends == ["error KeyError: 3"]
    assert groups.members[1].ends == ["error KeyError: 3"]
    assert up.cancelled


def test_a_key_past_max_groups_ends_everything_naming_the_bound() -> None:
    groups = Groups()
    up = _grouped(groups, max_groups=2)
    up.push(1, 2, 3)
    message = (
        "error ValueError: group_by: key 3 would open group 3, past max_groups=2 (at most "
        "max_groups groups are open at once; a group closes when its subscriber cancels it)"
    )
    assert groups.ends == [message]
    assert groups.members[1].ends == [message]
    assert up.cancelled


def test_after_the_main_cancel_new_keys_are_dropped_and_upstream_stops_with_the_last_group() -> (
    None
):
    groups = Groups()
    up = _grouped(groups, prefetch=4)
    up.push(1)
    groups.subscription.cancel()
    assert not up.cancelled  # group 1 is still open
    up.push(2, 3)  # no new group: dropped, and counted consumed
    up.push(11)
    assert groups.members[1].values == [1, 11]
    assert up.requested == [4, 3]
    groups.members[1].subscription.cancel()
    assert up.cancelled  # rule 3.12: no one wants elements any more


def test_a_main_cancel_before_any_group_was_emitted_cancels_upstream() -> None:
    groups = Groups(initial=0)
    up = _grouped(groups)
    up.push(1)  # a group waits for demand
    groups.subscription.cancel()
    assert up.cancelled  # its group was never emitted: closed


def test_the_reprs_and_refused_subscribers() -> None:
    def parity(x: int) -> int:
        return x % 2

    groups = Groups()
    up = PushPublisher()
    flow = Flow(up).group_by(parity)
    assert repr(flow.source) == "<group_by(parity)>"
    flow.subscribe(groups)
    up.push(1)
    group = groups.groups[0].source
    assert repr(group) == "<group_by group 1>"
    rule_109 = "rule 1.9: subscribe(subscriber) requires a Subscriber, got None"
    for publisher in (flow.source, group):
        with pytest.raises(TypeError) as raised:
            publisher.subscribe(None)  # type: ignore[arg-type]
        assert str(raised.value) == rule_109
    second = Recorder()
    group.subscribe(second)
    assert second.ends == ["error ValueError: group_by: group 1 allows one subscriber"]


def test_on_error_none_raises_rule_2_13() -> None:
    groups = Groups()
    up = _grouped(groups)
    assert up.subscriber is not None
    with pytest.raises(TypeError) as raised:
        up.subscriber.on_error(None)  # type: ignore[arg-type]
    assert str(raised.value) == "rule 2.13: on_error(None)"


def test_the_hop_and_its_groups_name_themselves_in_the_trace() -> None:
    def run() -> None:
        Flow.just(1, 2).group_by(lambda x: x % 2).subscribe(Groups())

    assert traced_hops(run) == ["group_by", "just", "group_by.group", "group_by.group"]


def test_a_group_delivers_only_as_far_as_its_subscribers_demand() -> None:
    groups = Groups(group_initial=2)
    up = _grouped(groups)
    up.push(1)  # each push drains the group's queue empty
    up.push(11)
    up.push(21)
    one = groups.members[1]
    assert one.values == [1, 11]  # rule 1.1: two asked, two sent
    one.subscription.request(1)
    assert one.values == [1, 11, 21]


def test_upstream_is_not_replenished_before_75_percent_were_consumed() -> None:
    groups = Groups()
    up = _grouped(groups, prefetch=4)
    up.push(1, 11)
    assert up.requested == [4]  # 2 of 4 consumed: below the replenish size 3
    up.push(21)
    assert up.requested == [4, 3]


def test_waiting_groups_are_emitted_only_as_far_as_the_demand() -> None:
    groups = Groups(initial=0)
    up = _grouped(groups)
    up.push(1, 2, 3)  # three groups wait for demand
    groups.subscription.request(2)
    assert [g.key for g in groups.groups] == [1, 2]  # rule 1.1
    groups.subscription.request(1)
    assert [g.key for g in groups.groups] == [1, 2, 3]


def test_completion_waits_for_the_groups_not_yet_emitted() -> None:
    groups = Groups(initial=0)
    up = _grouped(groups)
    up.push(1)
    up.complete()
    assert groups.ends == []  # rule 1.5: the group first
    groups.subscription.request(1)
    assert ([g.key for g in groups.groups], groups.ends) == ([1], ["complete"])
    assert (groups.members[1].values, groups.members[1].ends) == ([1], ["complete"])


def test_an_error_does_not_wait_for_the_groups_not_yet_emitted() -> None:
    groups = Groups(initial=0)
    up = _grouped(groups)
    up.push(1)
    up.fail(ValueError("up"))
    assert (groups.groups, groups.ends) == ([], ["error ValueError: up"])  # at once


def test_a_main_cancel_with_no_group_at_all_cancels_upstream() -> None:
    groups = Groups()
    up = _grouped(groups)
    groups.subscription.cancel()
    assert up.cancelled  # rule 3.12: no group is open either
