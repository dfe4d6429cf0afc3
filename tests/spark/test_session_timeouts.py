"""Unreachable Spark URLs fail fast, naming the URL (issue 26 item 5)."""

from __future__ import annotations

import socket
import time

import pytest

from reactive_streams.spark.session import check_reachable, local_session


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # nothing listens once it is closed


@pytest.mark.parametrize("scheme", ["sc", "spark"])
def test_an_unreachable_url_fails_fast_and_names_it(scheme: str) -> None:
    url = f"{scheme}://127.0.0.1:{closed_port()}"
    started = time.monotonic()
    with pytest.raises(ConnectionError) as info:
        local_session(url, connect_timeout=2.0)
    assert url in str(info.value)
    assert "reachable" in str(info.value)
    assert time.monotonic() - started < 60  # bounded, not the 615 s / 102 s of before


def test_one_reachable_master_of_several_is_enough() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        check_reachable(f"spark://127.0.0.1:{closed_port()},127.0.0.1:{port}", 2.0)
        check_reachable(f"sc://127.0.0.1:{port}/;user_id=x", 2.0)
    check_reachable("local[2]", 0.1)  # not a network URL: nothing to check
