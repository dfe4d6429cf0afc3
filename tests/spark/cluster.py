"""A Spark standalone cluster on loopback, from the pyspark distribution: one master
and ``workers`` workers (``cores`` each), every worker with its own private work
directory. Started as child processes (own process groups) and stopped, with a
check that none is left running.

    with standalone_cluster(tmp_dir) as master_url:
        spark = local_session(master_url, ...)
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for(log: Path, text: str, proc: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and text in log.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            raise RuntimeError(f"{log.name}: process exited ({proc.returncode}) before {text!r}")
        time.sleep(0.2)
    raise TimeoutError(f"{log}: no {text!r} within {timeout} s")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@contextlib.contextmanager
def standalone_cluster(
    work: Path,
    *,
    workers: int = 2,
    cores: int = 1,
    memory: str = "1g",
    timeout: float = 180.0,
    private_dirs: Sequence[Path] = (),
    info: dict[str, Any] | None = None,
) -> Iterator[str]:
    """Yield ``spark://127.0.0.1:<port>``; everything started is stopped on exit.

    With ``private_dirs``, each worker (and every executor it starts) runs in its
    own mount namespace (``unshare --mount``) in which each of those directories is
    an empty tmpfs of its own: e.g. ``/tmp`` becomes private scratch, and the
    driver's data directory is invisible. ``info`` receives the workers' pids and
    whether each one's mount namespace differs from this process's.
    """
    home = spark_home()
    work.mkdir(parents=True, exist_ok=True)
    env = dict(
        os.environ,
        SPARK_HOME=str(home),
        SPARK_LOCAL_IP="127.0.0.1",
        SPARK_LOG_DIR=str(work / "logs"),
        PYSPARK_PYTHON=sys.executable,
        SPARK_NO_DAEMONIZE="1",
    )
    port = free_port()
    url = f"spark://127.0.0.1:{port}"
    procs: list[subprocess.Popen[bytes]] = []
    logs: list[Path] = []

    def start(name: str, args: list[str], hide: Sequence[Path] = ()) -> subprocess.Popen[bytes]:
        log = work / f"{name}.log"
        logs.append(log)
        cmd = [str(home / "bin" / "spark-class"), *args]
        if hide:  # mount the tmpfs mounts in a new mount namespace, then exec the worker
            mounts = " && ".join(
                f"mount -t tmpfs -o size=2g rs-private {shlex.quote(str(d))}" for d in hide
            )
            cmd = [
                "unshare",
                "--mount",
                "--propagation",
                "private",
                "sh",
                "-c",
                f'{mounts} && exec "$@"',
                "sh",
                *cmd,
            ]
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                cmd,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        procs.append(proc)
        return proc

    try:
        master = start(
            "master",
            [
                "org.apache.spark.deploy.master.Master",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--webui-port",
                str(free_port()),
            ],
        )
        _wait_for(work / "master.log", "I have been elected leader", master, timeout)
        for k in range(workers):
            private = work / f"worker-{k}"  # each worker's own work dir (no shared scratch)
            private.mkdir(exist_ok=True)
            proc = start(
                f"worker-{k}",
                [
                    "org.apache.spark.deploy.worker.Worker",
                    "--host",
                    "127.0.0.1",
                    "--cores",
                    str(cores),
                    "--memory",
                    memory,
                    "--work-dir",
                    str(private),
                    "--webui-port",
                    str(free_port()),
                    url,
                ],
                private_dirs,
            )
            _wait_for(
                work / f"worker-{k}.log", "Successfully registered with master", proc, timeout
            )
        if info is not None:
            mine = os.readlink("/proc/self/ns/mnt")
            info["worker_pids"] = [p.pid for p in procs[1:]]
            info["workers_own_mount_ns"] = [
                os.readlink(f"/proc/{p.pid}/ns/mnt") != mine for p in procs[1:]
            ]
            info["worker_private_dirs"] = [str(d) for d in private_dirs]
        yield url
    finally:
        for proc in reversed(procs):
            _stop(proc)
        left = [p.pid for p in procs if _alive(p.pid)]
        if left:
            raise RuntimeError(f"cluster processes still running after stop: {left}")
