"""A quiet, fast SparkSession factory (embedded ``local[*]`` by default).

Cold start costs 17-20 s on a small machine, so build one session per process
and pass it to every sink. The master URL is configurable (``spark://``,
``yarn``, ``k8s://``) through the argument or ``RS_SPARK_MASTER``; an ``sc://``
URL connects to a Spark Connect server instead (no JVM in this process).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

__all__ = ["check_reachable", "is_connect", "java_available", "local_session", "session_conf"]

_QUIET_LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = STDERR
appender.console.type = Console
appender.console.name = STDERR
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""


def java_available() -> str | None:
    """The ``java -version`` banner if a Java runtime is on PATH (or JAVA_HOME), else None."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java or not os.path.exists(java):
        return None
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    banner = (out.stderr or out.stdout).strip().splitlines()
    return banner[0] if out.returncode == 0 and banner else None


def is_connect(spark: Any) -> bool:
    """True for a Spark Connect session (``pyspark.sql.connect``), which has no py4j."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


# settings a client may change on a running Connect server's session
_CONNECT_RUNTIME = (
    "spark.sql.execution.arrow.pyspark.enabled",
    "spark.sql.execution.arrow.localRelationThreshold",
    "spark.sql.session.timeZone",
    "spark.sql.shuffle.partitions",
)


_DEFAULT_PORTS = {"sc": 15002, "spark": 7077}
_WHAT = {"sc": "Spark Connect server", "spark": "Spark master"}
# HTTP/2's client preface and an empty SETTINGS frame: a gRPC server (Spark Connect)
# answers with its own SETTINGS frame (RFC 9113 section 3.4)
_H2_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
_H2_SETTINGS = 0x4
# to a Spark RPC server these bytes are a frame of an impossible length: it closes the
# connection (TransportFrameDecoder); an HTTP server answers them
_SPARK_PROBE = b"GET / HTTP/1.0\r\n\r\n"


def _handshake(sock: socket.socket, scheme: str, timeout: float) -> str | None:
    """Why the peer is not a ``scheme`` server, or None if it answered like one."""
    sock.settimeout(timeout)
    try:
        if scheme == "sc":
            sock.sendall(_H2_HELLO)
            head = b""
            while len(head) < 9:
                chunk = sock.recv(9 - len(head))
                if not chunk:
                    break
                head += chunk
            if len(head) == 9 and head[3] == _H2_SETTINGS:
                return None
            return f"answered {head!r}, not an HTTP/2 (gRPC) SETTINGS frame"
        sock.sendall(_SPARK_PROBE)
        answer = sock.recv(64)
        return None if not answer else f"answered {answer[:40]!r}, not Spark RPC"
    except ConnectionResetError:
        return None if scheme == "spark" else "reset the connection at the HTTP/2 preface"
    except TimeoutError:
        return f"accepted TCP but answered no handshake within {timeout:g} s"
    except OSError as e:
        return f"handshake failed: {e.strerror or e}"


def check_reachable(url: str, timeout: float) -> None:
    """Raise ``ConnectionError`` naming ``url`` unless one of its ``host:port``s
    accepts a TCP connection and answers a handshake, each within ``timeout`` seconds
    (so at most ``2 * timeout`` per listed host): an ``sc://`` server answers HTTP/2's
    preface with a SETTINGS frame, as gRPC does (skipped with ``use_ssl=true``); a
    ``spark://`` master closes a connection that sends it an HTTP request, as Spark's
    RPC server does, where an HTTP server answers. Other URLs pass. Without it an
    unreachable Connect server retried for about 10 minutes, a silent listener hung,
    and an unreachable standalone master failed after about 100 s without naming
    itself."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in _DEFAULT_PORTS:
        return
    hosts, _, params = url.split("://", 1)[1].split("/", 1)[0].partition(";")
    tls = "use_ssl=true" in params.lower()
    errors = []
    for hostport in hosts.split(","):
        parts = urlsplit(f"//{hostport}")
        host, port = parts.hostname or "localhost", parts.port or _DEFAULT_PORTS[scheme]
        try:
            with socket.create_connection((host, port), timeout=timeout) as sock:
                why = None if tls else _handshake(sock, scheme, timeout)
        except OSError as e:
            errors.append(f"{host}:{port}: {e.strerror or e}")
            continue
        if why is None:
            return
        errors.append(f"{host}:{port}: {why}")
    raise ConnectionError(
        f"{url}: no {_WHAT[scheme]} reachable within {timeout:g} s ({'; '.join(errors)})"
    )


def _connect_session(url: str, app_name: str, conf: Mapping[str, str] | None) -> Any:
    try:
        from pyspark.sql.connect.session import SparkSession as ConnectSession
    except ImportError as e:
        raise RuntimeError(
            f"{url}: Spark Connect needs the client packages "
            f"(pip install 'reactive-streams-reference[connect]'): {e}"
        ) from e
    spark = ConnectSession.builder.remote(url).appName(app_name).getOrCreate()
    settings = {k: v for k, v in session_conf("local[*]").items() if k in _CONNECT_RUNTIME}
    settings.update(conf or {})
    for key, value in settings.items():
        spark.conf.set(key, value)
    return spark


def _quiet_log4j_file() -> str:
    path = os.path.join(tempfile.gettempdir(), "reactive-streams-log4j2.properties")
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(_QUIET_LOG4J2)
    return path


def session_conf(
    master: str | None = None, *, fast_start: bool = False, driver_memory: str = "2g"
) -> dict[str, str]:
    """The settings :func:`local_session` uses, as a dict (handy for spark-submit)."""
    master = master or os.environ.get("RS_SPARK_MASTER", "local[*]")
    java_opts = [f"-Dlog4j.configurationFile=file:{_quiet_log4j_file()}"]
    if fast_start:
        # C1 only and a serial GC: about 5 s less from launch to first write (tests).
        java_opts += ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]
    conf = {
        "spark.master": master,
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "2",
        "spark.default.parallelism": "2",
        "spark.driver.memory": driver_memory,
        "spark.driver.extraJavaOptions": " ".join(java_opts),
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.execution.arrow.pyspark.fallback.enabled": "false",
        "spark.sql.execution.arrow.localRelationThreshold": "0",
        "spark.sql.session.timeZone": "UTC",
    }
    if _loopback(master):
        conf["spark.driver.host"] = "127.0.0.1"
        conf["spark.driver.bindAddress"] = "127.0.0.1"
    return conf


def _loopback(master: str) -> bool:
    """Local masters, and a standalone master on this host (executors call back to
    the driver, so it must listen where they can reach it)."""
    if master.startswith("local"):
        return True
    host = urlsplit(master.split(",")[0]).hostname if "://" in master else None
    return master.startswith("spark://") and host in ("127.0.0.1", "localhost")


def local_session(
    master: str | None = None,
    *,
    app_name: str = "reactive-streams",
    conf: Mapping[str, str] | None = None,
    fast_start: bool = False,
    driver_memory: str = "2g",
    connect_timeout: float = 30.0,
) -> Any:
    """Build (or reuse) a SparkSession with quiet, small-machine settings.

    Spark 4 adds the Java 17 ``--add-opens`` flags itself; ``fast_start`` adds the
    C1-only JIT flags that shorten start-up for test suites. ``master="sc://host:port"``
    returns a Spark Connect session (``conf`` then holds runtime SQL settings only;
    ``fast_start`` and ``driver_memory`` belong to the server). An ``sc://`` server or a
    ``spark://`` master that does not accept a connection within ``connect_timeout``
    seconds raises ``ConnectionError`` naming the URL.
    """
    url = master or os.environ.get("RS_SPARK_MASTER", "")
    check_reachable(url, connect_timeout)
    if urlsplit(url).scheme == "sc":
        return _connect_session(url, app_name, conf)
    if java_available() is None:
        raise RuntimeError("Spark needs Java 17+: no `java` on PATH or in JAVA_HOME")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    settings = session_conf(master, fast_start=fast_start, driver_memory=driver_memory)
    if _loopback(settings["spark.master"]):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    settings.update(conf or {})
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
