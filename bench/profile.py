"""Profile one workload with cProfile: ``python -m bench.profile NAME [--n N] [--top K]``;
``--operator TEXT`` profiles ours of each row of the per-operator table
(``bench.operators``) whose operator contains TEXT instead (N: the table's 50k).

Prints the functions with the most own time (``tottime``) and the call counts per
element, the numbers that say where a per-element path spends its time. Under the
profiler every Python call costs more, so read shares, not absolute times.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import pstats
import sys
import threading

from bench import operators
from bench.harness import REGISTRY

MODULES = ("bench.baselines", "bench.ours")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.profile")
    p.add_argument("name")
    p.add_argument("--n", type=int, help="elements (default: the workload's N / 10)")
    p.add_argument("--top", type=int, default=15)
    p.add_argument("--sort", default="tottime")
    p.add_argument("--operator", action="store_true", help="NAME: rows of bench.operators")
    a = p.parse_args(argv)
    if a.operator:
        return _profile_operators(a.name, a.n or operators.N, a.top)
    for module in MODULES:
        importlib.import_module(module)
    w = REGISTRY[a.name]
    n = a.n or max(1, w.n // 10)
    w.setup(max(1, n // 10))()  # warm-up, unprofiled
    thread_profiles: list[cProfile.Profile] = []

    def profile_new_thread(*_: object) -> None:
        # first event in a thread started from now on: hand the thread to its own profiler
        p = cProfile.Profile()
        thread_profiles.append(p)
        p.enable()

    threading.setprofile(profile_new_thread)  # executors started by the setup below
    run = w.setup(n)
    prof = cProfile.Profile()
    prof.enable()
    got = run()
    prof.disable()
    threading.setprofile(None)
    if got != w.expect(n):
        print(f"{a.name}: delivered {got}, expected {w.expect(n)}", file=sys.stderr)
        return 1
    stats = pstats.Stats(prof)
    for tp in thread_profiles:
        stats.add(tp)
    _print(stats, a.name, n, a.top)
    return 0


def _profile_operators(text: str, n: int, top: int) -> int:
    """Ours of every per-operator row whose name contains ``text``, one profile each."""
    data = list(range(n))
    cases = [c for c in operators._cases(n) if text in c.name]
    if not cases:
        print(f"no operator row contains {text!r}", file=sys.stderr)
        return 1
    for c in cases:
        operators._run_ours(c.ours(data[: n // 10]), operators.CountSink().on_next)  # warm-up
        source = c.ours(data)
        sink = operators.CountSink()
        prof = cProfile.Profile()
        prof.enable()
        operators._run_ours(source, sink.on_next)
        prof.disable()
        _print(pstats.Stats(prof), c.name, n, top)
    return 0


def _print(stats: pstats.Stats, name: str, n: int, top: int) -> None:
    total = sum(v[2] for v in stats.stats.values())  # type: ignore[attr-defined]
    print(f"{name}: n={n}, profiled total {total:.3f} s ({1e9 * total / n:.0f} ns/element)")
    print(f"{'calls/elem':>10} {'own ns/elem':>11} {'own %':>6}  function")
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])  # type: ignore[attr-defined]
    for (file, line, fn), (_cc, nc, tt, _ct, _callers) in rows[:top]:
        short = "/".join(file.rsplit("/", 2)[-2:]) if "/" in file else file
        print(
            f"{nc / n:>10.3g} {1e9 * tt / n:>11.0f} {100 * tt / total:>5.1f}%  {short}:{line} {fn}"
        )


if __name__ == "__main__":
    sys.exit(main())
