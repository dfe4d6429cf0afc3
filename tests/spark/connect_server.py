"""A Spark Connect server on loopback, started from the pyspark distribution (its
``spark-connect`` jar and ``spark-submit``), stopped with a check that nothing
is left running.

    with connect_server(work_dir) as url:          # "sc://127.0.0.1:<port>"
        spark = local_session(url)
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from .cluster import _alive, _stop, free_port, spark_home

SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"


def connect_jar() -> Path | None:
    """The Spark Connect server jar of the installed pyspark, if it ships one."""
    jars = sorted((spark_home() / "jars").glob("spark-connect_*.jar"))
    return jars[0] if jars else None


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"the Connect server exited ({proc.returncode}): {tail}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1.0):
            return
        time.sleep(0.3)
    raise TimeoutError(f"the Connect server did not listen on 127.0.0.1:{port} in {timeout} s")


@contextlib.contextmanager
def connect_server(
    work: Path, *, master: str = "local[2]", memory: str = "1g", timeout: float = 180.0
) -> Iterator[str]:
    """Yield ``sc://127.0.0.1:<port>``; the server is stopped on exit."""
    home = spark_home()
    work.mkdir(parents=True, exist_ok=True)
    port = free_port()
    env = dict(
        os.environ,
        SPARK_HOME=str(home),
        SPARK_LOCAL_IP="127.0.0.1",
        PYSPARK_PYTHON=sys.executable,
    )
    args = [
        str(home / "bin" / "spark-submit"),
        "--class",
        SERVER_CLASS,
        "--name",
        "reactive-streams-connect",
        "--master",
        master,
        "--driver-memory",
        memory,
        "--conf",
        "spark.connect.grpc.binding.address=127.0.0.1",
        "--conf",
        f"spark.connect.grpc.binding.port={port}",
        "--conf",
        "spark.ui.enabled=false",
        "--conf",
        "spark.driver.extraJavaOptions=-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
    ]
    log = work / "connect-server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            args, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        _wait_for_port(port, proc, log, timeout)
        yield f"sc://127.0.0.1:{port}"
    finally:
        _stop(proc)
        if _alive(proc.pid):
            raise RuntimeError(f"the Connect server (pid {proc.pid}) is still running after stop")
