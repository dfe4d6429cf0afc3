"""Unreachable Spark URLs fail fast, naming the URL (issue 26 item 5), and so do
endpoints that accept TCP but are not Spark: a silent listener, an HTTP server
(issue 42: a silent listener hung an ``sc://`` session for more than 240 s)."""

from __future__ import annotations

import http.server
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

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


@contextmanager
def listener(serve: Any = None) -> Iterator[int]:
    """A loopback port; ``serve(conn)`` handles each connection on a thread (None: a
    silent listener, whose kernel accepts connections that nothing ever answers)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        server.settimeout(0.2)
        stop = threading.Event()

        def loop() -> None:
            while not stop.is_set():
                try:
                    conn, _ = server.accept()
                except TimeoutError:
                    continue
                except OSError:
                    return
                with conn:
                    serve(conn)

        thread = threading.Thread(target=loop, daemon=True) if serve else None
        if thread:
            thread.start()
        try:
            yield int(server.getsockname()[1])
        finally:
            stop.set()
            if thread:
                thread.join(10)


def spark_like(conn: socket.socket) -> None:
    """Spark's RPC server: a frame of an impossible length closes the connection."""
    conn.settimeout(5)
    conn.recv(64)


@contextmanager
def grpc_server() -> Iterator[int]:
    grpc = pytest.importorskip("grpc")
    from concurrent.futures import ThreadPoolExecutor

    server = grpc.server(ThreadPoolExecutor(1))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield port
    finally:
        server.stop(None)


@contextmanager
def http_server() -> Iterator[int]:
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def test_one_reachable_master_of_several_is_enough() -> None:
    with listener(spark_like) as port:
        check_reachable(f"spark://127.0.0.1:{closed_port()},127.0.0.1:{port}", 2.0)
    with grpc_server() as port:
        check_reachable(f"sc://127.0.0.1:{port}/;user_id=x", 2.0)
    check_reachable("local[2]", 0.1)  # not a network URL: nothing to check


@pytest.mark.timeout(60)
@pytest.mark.parametrize("scheme", ["sc", "spark"])
def test_a_silent_listener_fails_within_the_timeout_and_names_the_url(scheme: str) -> None:
    # main took it for a server: an sc:// session then hung
    with listener() as port:
        url = f"{scheme}://127.0.0.1:{port}"
        started = time.monotonic()
        with pytest.raises(ConnectionError, match="answered no handshake within 1 s") as info:
            check_reachable(url, 1.0)  # what local_session checks before anything
        assert url in str(info.value)
        assert time.monotonic() - started < 30  # two timeouts, not minutes


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("scheme", "why"), [("sc", "not an HTTP/2 .gRPC. SETTINGS frame"), ("spark", "not Spark RPC")]
)
def test_an_http_server_is_not_taken_for_spark(scheme: str, why: str) -> None:
    # main took it for a server: an sc:// client retried against it in silence
    with http_server() as port:
        url = f"{scheme}://127.0.0.1:{port}"
        with pytest.raises(ConnectionError, match=why) as info:
            check_reachable(url, 5.0)
        assert url in str(info.value)
        assert "answered b" in str(info.value)  # what it answered, quoted


@pytest.mark.spark
def test_a_spark_rpc_server_passes_the_master_handshake(spark: Any) -> None:
    # the local driver's RPC server is the same server a standalone master runs
    port = spark.conf.get("spark.driver.port")
    check_reachable(f"spark://127.0.0.1:{port}", 5.0)
