"""A fast and a slow consumer of one shared source: ours (lockstep ``publish()``, and
``publish(lead=N)``) against reactivex's ``publish()``, all in ONE process.

The fast consumer counts; the slow one sleeps ``SLOW_S`` per element on another thread
(``observe_on`` a pool, in both libraries). Reported per variant: when the fast one saw
its completion, when the slow one did (seconds from ``connect``), and the largest lead
of the fast over the slow observed (elements). Lockstep holds the fast one at the slow
one's pace; reactivex runs it free and buffers the difference unbounded; ``lead=N`` runs
it ahead by at most ``N`` (plus the slow path's ``observe_on`` prefetch, 128).
``publish`` + ``connect`` on both sides (``share`` is ``publish`` + ``ref_count``), so
both subscribers are in before the source starts. Rounds rotate the order; medians.

    python -m bench.multicast_lead [--n 2000] [--slow 0.0005] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

from bench.harness import WAIT_S

Result = tuple[float, float, int]  # fast done (s), slow done (s), largest lead observed


class Pair:
    """The two consumers' counts, the largest lead and the completion times."""

    def __init__(self, slow_s: float) -> None:
        self.slow_s = slow_s
        self.fast = 0
        self.slow = 0
        self.lead = 0
        self.t0 = 0.0
        self.fast_done = 0.0
        self.slow_done = 0.0
        self.done = threading.Event()

    def on_fast(self, _: object) -> None:
        self.fast += 1
        self.lead = max(self.lead, self.fast - self.slow)

    def on_slow(self, _: object) -> None:
        time.sleep(self.slow_s)
        self.slow += 1

    def fast_complete(self) -> None:
        self.fast_done = time.perf_counter() - self.t0

    def slow_complete(self) -> None:
        self.slow_done = time.perf_counter() - self.t0
        self.done.set()

    def result(self, n: int) -> Result:
        if not self.done.wait(WAIT_S):
            raise TimeoutError("the slow consumer did not complete")
        assert self.fast == self.slow == n, (self.fast, self.slow)
        return self.fast_done, self.slow_done, self.lead


def ours(lead: int | None) -> Callable[[int, float], Result]:
    def run(n: int, slow_s: float) -> Result:
        from reactive_streams import Flow
        from reactive_streams.executors import ThreadPoolExecutor

        pair = Pair(slow_s)
        with ThreadPoolExecutor(2, name="bench-slow") as pool:
            shared = Flow.range(n).publish(lead=lead)
            shared.subscribe(pair.on_fast, on_complete=pair.fast_complete)
            shared.observe_on(pool).subscribe(pair.on_slow, on_complete=pair.slow_complete)
            pair.t0 = time.perf_counter()
            shared.connect()
            return pair.result(n)

    return run


def reactivex_publish(n: int, slow_s: float) -> Result:
    import reactivex as rx
    from reactivex import operators as op
    from reactivex.scheduler import ThreadPoolScheduler

    pair = Pair(slow_s)
    shared: Any = rx.range(n).pipe(op.publish())
    shared.subscribe(on_next=pair.on_fast, on_completed=pair.fast_complete)
    shared.pipe(op.observe_on(ThreadPoolScheduler(2))).subscribe(
        on_next=pair.on_slow, on_completed=pair.slow_complete
    )
    pair.t0 = time.perf_counter()
    shared.connect()
    return pair.result(n)


VARIANTS: dict[str, Callable[[int, float], Result]] = {
    "ours publish() (lockstep)": ours(None),
    "ours publish(lead=64)": ours(64),
    "ours publish(lead=1024)": ours(1024),
    "reactivex publish() (unbounded)": reactivex_publish,
}


def measure(n: int, slow_s: float, rounds: int) -> dict[str, list[Result]]:
    names = list(VARIANTS)
    out: dict[str, list[Result]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            out[name].append(VARIANTS[name](n, slow_s))
    return out


def table(results: dict[str, list[Result]], n: int, slow_s: float) -> str:
    lines = [
        f"{n} elements, the slow consumer {slow_s * 1e3:g} ms each; medians of "
        f"{len(next(iter(results.values())))} rounds",
        "",
        "| variant | fast done (s) | slow done (s) | largest lead (elements) |",
        "|---|---|---|---|",
    ]
    for name, runs in results.items():
        fast = statistics.median(r[0] for r in runs)
        slow = statistics.median(r[1] for r in runs)
        lead = max(r[2] for r in runs)
        lines.append(f"| {name} | {fast:.2f} | {slow:.2f} | {lead} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--slow", type=float, default=0.0005, help="seconds per element")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    print(table(measure(args.n, args.slow, args.rounds), args.n, args.slow))


if __name__ == "__main__":
    main()
