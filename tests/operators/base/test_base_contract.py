"""The operator publisher (operators/_base.py): its repr names the operator and its
source; subscribe(None) is refused naming rule 1.9."""

from __future__ import annotations

from typing import Any

import pytest

from reactive_streams.flow import Flow

from .._util import PushPublisher, Recorder


def test_operator_publisher_repr_names_the_operator_and_its_source() -> None:
    pub = PushPublisher()
    op: Any = Flow(pub).take(2).source
    assert repr(op) == f"<take of {pub!r}>"
    assert repr(Flow(op).skip(1).source) == f"<skip of <take of {pub!r}>>"


def test_operator_publisher_subscribe_none_names_rule_19() -> None:
    pub = PushPublisher()
    op: Any = Flow(pub).take(2).source
    with pytest.raises(TypeError) as info:
        op.subscribe(None)
    assert str(info.value) == "rule 1.9: subscribe(subscriber) requires a Subscriber, got None"
    assert pub.subscriber is None  # nothing reached the source


def test_operator_publisher_subscribes_its_hop_for_the_subscriber() -> None:
    pub = PushPublisher()
    rec = Recorder()
    Flow(pub).take(2).subscribe(rec)
    assert pub.subscriber is not None  # the take hop, not the subscriber itself
    assert pub.subscriber is not rec
    pub.push(1, 2)
    assert (rec.values, rec.ends) == ([1, 2], ["complete"])
