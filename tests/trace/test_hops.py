"""Hop names: the ``hop`` field of ``subscribe`` events is read, checked, written back,
and ``validate`` prints the Subscriptions and events validated per hop."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reactive_streams.trace import __main__ as cli
from reactive_streams.trace.format import Event, FormatError, Header, parse_lines, write_trace
from reactive_streams.trace.hops import HopCount, count_hops, hop_table, merge_hops

from ._build import ev, signal, subscribed

HEADER = json.dumps({"format": "reactive-streams-trace", "version": 2, "mode": "sync"})


def _line(**raw: Any) -> str:
    return json.dumps({"clock": 1, "sub": 1, **raw})


def test_event_gains_hop_last_with_a_default() -> None:
    positional = Event(1, 1, 1, "subscribe", None, None, None, False, 3, None, None)
    assert positional.hop == ""
    assert "hop" not in positional.to_json()
    named = Event(1, 1, 1, "subscribe", hop="map")
    assert named.to_json()["hop"] == "map"


def test_reader_takes_hop_on_subscribe_only() -> None:
    trace = parse_lines([HEADER, _line(sig="subscribe", hop="flat_map.inner")])
    assert trace.events[0].hop == "flat_map.inner"
    with pytest.raises(FormatError, match="field 'hop' does not apply to 'request'"):
        parse_lines([HEADER, _line(sig="request", n=1, hop="map")])
    with pytest.raises(FormatError, match="field 'hop' must be a string, got 3"):
        parse_lines([HEADER, _line(sig="subscribe", hop=3)])


def _pipeline_events() -> list[dict[str, Any]]:
    """Two Subscriptions, "range" (1) and "map" (2), each delivering one element."""
    out: list[dict[str, Any]] = []
    for sub, hop in ((1, "range"), (2, "map")):
        first = subscribed(sub=sub)
        first[0]["hop"] = hop
        out += first
        out += [ev("request", sub=sub, n=1), ev("recv_request", sub=sub, n=1)]
        out += signal("on_next", sub=sub, seq=1)
        out += [ev("end_request", sub=sub)]
        out += signal("on_complete", sub=sub)
    return [{"clock": k, **e} for k, e in enumerate(out, start=1)]


def test_counts_per_hop_and_the_rejected_hop() -> None:
    events = parse_lines([HEADER, *(json.dumps(e) for e in _pipeline_events())]).events
    assert count_hops(events) == (HopCount("range", 1, 13), HopCount("map", 1, 13))
    counted = count_hops(events, rejected_at=events[15])
    assert counted[1] == HopCount("map", 1, 13, rejected=1)
    merged = merge_hops([counted, (HopCount("?", 2, 30),), (HopCount("map", 1, 5),)])
    assert merged == [
        HopCount("map", 2, 18, 1),
        HopCount("range", 1, 13),
        HopCount("?", 2, 30),
    ]
    table = hop_table(merged).splitlines()
    assert table[0].split() == ["hop", "subs", "events", "rejected"]
    assert table[1].split() == ["map", "2", "18", "1"]
    assert table[3].split() == ["?", "2", "30", "0"]


def test_cli_prints_the_hop_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    named = tmp_path / "named.jsonl"
    write_trace(named, _pipeline_events(), Header(mode="sync", quiescent=True))
    plain = Path(__file__).resolve().parents[1] / "traces" / "valid" / "sync_full.jsonl"
    assert cli.main(["validate", "--no-tlc", str(named), str(plain)]) == 0
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()}
    assert rows["range"] == ["1", "13", "0"]
    assert rows["map"] == ["1", "13", "0"]
    assert rows["?"] == ["1", "17", "0"]  # the trace without hop names
    # without hop names the table is printed on request only
    assert cli.main(["validate", "--no-tlc", str(plain)]) == 0
    assert "subs" not in capsys.readouterr().out
    assert cli.main(["validate", "--no-tlc", "--hops", str(plain)]) == 0
    assert "subs" in capsys.readouterr().out
