"""Per-operator table: every ``Flow`` operator that reactivex has, ours against
reactivex's and the plain-Python equivalent, all in ONE process.

``python -m bench.operators``          measure, print, and store the table in
                                        bench/results.json (``operators``) for the report
``python -m bench.operators --smoke``  tiny input, one repetition: proves every row runs
                                        and that ours, reactivex and plain agree

Method: the same input (``list(range(n))``, as ``Flow.from_iterable`` and
``reactivex.from_iterable``) and the same consumer (``Sink.on_next``, one bound-method
call per element) for every row. Before timing, each row's three outputs are compared
(the same elements, in the same order). Then ``--reps`` rounds; each round times every
row's ours/reactivex/plain back to back in a rotating order, so the load of a shared
machine falls on all three alike. Every row runs on one thread, so the time is that
thread's CPU time (``time.thread_time``): a moment the thread waits for a core on a
loaded machine does not count (the wall-clock ratio is kept too, ``vs_rx_wall``).
Reported: the median CPU time of each, and the ratios
``vs rx`` (reactivex's median / ours: above 1 is faster than reactivex) and ``vs plain``
(plain's median / ours: the share of the plain-Python speed). Sorted worst ``vs rx`` first.
Needs reactivex importable next to ``reactive_streams`` (the project venv has it as a
dev dependency; else run it with ``.bench/peers/bin/python`` and ``PYTHONPATH=impl:.``).
"""

from __future__ import annotations

import argparse
import functools
import gc
import itertools
import json
import os
import statistics
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.harness import WAIT_S, inc, is_even

ROOT = Path(__file__).resolve().parent.parent
N = 50_000
KEYS = 100  # group_by: keys of the 50k rows


class ListSink:
    """The validation consumer: keeps every element."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.on_next = self.items.append


class CountSink:
    """The timed consumer (``harness.Sink``): one bound-method call per element."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def on_next(self, item: object) -> None:
        self.count += 1


Build = Callable[[list[int]], Any]  # the data -> a source (ours or reactivex's)
Plain = Callable[[list[int], Callable[[Any], object]], object]


@dataclass(frozen=True)
class Case:
    name: str  # the Flow operator(s)
    rx: str  # reactivex's operator(s)
    ours: Build
    theirs: Build
    plain: Plain | None  # the plain-Python equivalent, when one exists


def _run_ours(source: Any, on_next: Callable[[Any], object]) -> None:
    errors: list[BaseException] = []
    s = source.subscribe(on_next, errors.append)
    if errors:
        raise errors[0]
    if not s.completed:
        raise AssertionError("ours did not complete synchronously")


def _run_rx(source: Any, on_next: Callable[[Any], object]) -> None:
    done = threading.Event()
    errors: list[Exception] = []
    source.subscribe(on_next=on_next, on_error=errors.append, on_completed=done.set)
    if errors:
        raise errors[0]
    if not done.wait(WAIT_S):
        raise TimeoutError("reactivex did not complete")


def _emit(items: Iterable[Any], on_next: Callable[[Any], object]) -> None:
    for x in items:
        on_next(x)


def _key(x: int) -> int:
    return x % KEYS


def _add(a: int, b: int) -> int:
    return a + b


def _cases(n: int) -> list[Case]:
    import reactivex as rx
    from reactivex import operators as op

    from reactive_streams.flow import Flow

    def ours(f: Callable[[Any], Any]) -> Build:
        return lambda data: f(Flow.from_iterable(data))

    def theirs(*ops: Any) -> Build:
        return lambda data: rx.from_iterable(data).pipe(*ops)

    def rx_flat(f: Callable[[Any], Any]) -> Any:
        return op.flat_map(f)

    half = n // 2

    def _small(x: int) -> bool:
        return x < half

    cases = [
        Case(
            "map",
            "map",
            ours(lambda f: f.map(inc)),
            theirs(op.map(inc)),
            lambda d, o: _emit(map(inc, d), o),
        ),
        Case(
            "filter",
            "filter",
            ours(lambda f: f.filter(is_even)),
            theirs(op.filter(is_even)),
            lambda d, o: _emit(filter(is_even, d), o),
        ),
        Case(
            "map.filter",
            "map, filter",
            ours(lambda f: f.map(inc).filter(is_even)),
            theirs(op.map(inc), op.filter(is_even)),
            lambda d, o: _emit([y for x in d if is_even(y := inc(x))], o),
        ),
        Case(
            "scan",
            "scan",
            ours(lambda f: f.scan(_add, 0)),
            theirs(op.scan(_add, 0)),
            lambda d, o: _emit(itertools.accumulate(d, _add), o),
        ),
        Case(
            "do_on_next",
            "do_action",
            ours(lambda f: f.do_on_next(_touch)),
            theirs(op.do_action(_touch)),
            lambda d, o: _plain_touch(d, o),
        ),
        Case(
            "take",
            "take",
            ours(lambda f: f.take(half)),
            theirs(op.take(half)),
            lambda d, o: _emit(itertools.islice(d, half), o),
        ),
        Case(
            "skip",
            "skip",
            ours(lambda f: f.skip(half)),
            theirs(op.skip(half)),
            lambda d, o: _emit(itertools.islice(d, half, None), o),
        ),
        Case(
            "take_while",
            "take_while",
            ours(lambda f: f.take_while(_small)),
            theirs(op.take_while(_small)),
            lambda d, o: _emit(itertools.takewhile(_small, d), o),
        ),
        Case(
            "skip_while",
            "skip_while",
            ours(lambda f: f.skip_while(_small)),
            theirs(op.skip_while(_small)),
            lambda d, o: _emit(itertools.dropwhile(_small, d), o),
        ),
        Case(
            "take_last",
            "take_last",
            ours(lambda f: f.take_last(10)),
            theirs(op.take_last(10)),
            lambda d, o: _emit(deque(d, 10), o),
        ),
        Case(
            "skip_last",
            "skip_last",
            ours(lambda f: f.skip_last(10)),
            theirs(op.skip_last(10)),
            lambda d, o: _emit(d[:-10], o),
        ),
        Case(
            "element_at",
            "element_at",
            ours(lambda f: f.element_at(half)),
            theirs(op.element_at(half)),
            lambda d, o: o(d[half]),
        ),
        Case(
            "distinct",
            "distinct",
            ours(lambda f: f.distinct(_key)),
            theirs(op.distinct(_key)),
            _plain_distinct,
        ),
        Case(
            "distinct_until_changed",
            "distinct_until_changed",
            ours(lambda f: f.distinct_until_changed(_key)),
            theirs(op.distinct_until_changed(_key)),
            _plain_until_changed,
        ),
        Case(
            "ignore_elements",
            "ignore_elements",
            ours(lambda f: f.ignore_elements()),
            theirs(op.ignore_elements()),
            lambda d, o: None,
        ),
        Case(
            "count",
            "count",
            ours(lambda f: f.count()),
            theirs(op.count()),
            lambda d, o: o(sum(1 for _ in d)),
        ),
        Case(
            "reduce",
            "reduce",
            ours(lambda f: f.reduce(_add)),
            theirs(op.reduce(_add)),
            lambda d, o: o(functools.reduce(_add, d)),
        ),
        Case(
            "collect",
            "to_list",
            ours(lambda f: f.collect()),
            theirs(op.to_list()),
            lambda d, o: o([x for x in d]),
        ),
        Case(
            "all",
            "all",
            ours(lambda f: f.all(_small)),
            theirs(op.all(_small)),
            lambda d, o: o(all(_small(x) for x in d)),
        ),
        Case(
            "any",
            "some",
            ours(lambda f: f.any(_negative)),
            theirs(op.some(_negative)),
            lambda d, o: o(any(_negative(x) for x in d)),
        ),
        Case(
            "buffer(100)",
            "buffer_with_count(100)",
            ours(lambda f: f.buffer(100)),
            theirs(op.buffer_with_count(100)),
            lambda d, o: _emit((d[i : i + 100] for i in range(0, len(d), 100)), o),
        ),
        Case(
            "start_with",
            "start_with",
            ours(lambda f: f.start_with(-1)),
            theirs(op.start_with(-1)),
            lambda d, o: _emit(itertools.chain((-1,), d), o),
        ),
        Case(
            "concat_with",
            "concat",
            lambda d: Flow.from_iterable(d).concat_with(Flow.from_iterable(d)),
            lambda d: rx.from_iterable(d).pipe(op.concat(rx.from_iterable(d))),
            lambda d, o: _emit(itertools.chain(d, d), o),
        ),
        Case(
            "merge_with",
            "merge",
            lambda d: Flow.from_iterable(d).merge_with(Flow.from_iterable(d)),
            lambda d: rx.from_iterable(d).pipe(op.merge(rx.from_iterable(d))),
            lambda d, o: _emit(itertools.chain(d, d), o),
        ),
        Case(
            "zip_with",
            "zip",
            lambda d: Flow.from_iterable(d).zip_with(Flow.from_iterable(d)),
            lambda d: rx.from_iterable(d).pipe(op.zip(rx.from_iterable(d))),
            lambda d, o: _emit(zip(d, d, strict=True), o),
        ),
        Case(
            "default_if_empty",
            "default_if_empty",
            ours(lambda f: f.default_if_empty(-1)),
            theirs(op.default_if_empty(-1)),
            lambda d, o: _emit(d, o),
        ),
        Case(
            "on_error_return",
            "catch",
            ours(lambda f: f.on_error_return(-1)),
            theirs(op.catch(rx.just(-1))),
            lambda d, o: _emit(d, o),
        ),
        Case(
            "retry",
            "retry",
            ours(lambda f: f.retry(1)),
            theirs(op.retry(2)),
            lambda d, o: _emit(d, o),
        ),
        Case(
            "flat_map(just)",
            "flat_map(return_value)",
            ours(lambda f: f.flat_map(Flow.just)),
            theirs(rx_flat(rx.return_value)),
            lambda d, o: _emit(d, o),
        ),
        Case(
            "flat_map(list of 2)",
            "flat_map(list of 2)",
            ours(lambda f: f.flat_map(_pair)),
            theirs(rx_flat(_pair)),
            lambda d, o: _emit((y for x in d for y in _pair(x)), o),
        ),
        Case(
            "concat_map(list of 2)",
            "concat_map(list of 2)",
            ours(lambda f: f.concat_map(_pair)),
            theirs(op.concat_map(lambda x: rx.from_iterable(_pair(x)))),
            lambda d, o: _emit((y for x in d for y in _pair(x)), o),
        ),
        Case(
            "concat_map([p] if p else [])",
            "map, filter",
            ours(lambda f: f.concat_map(_some_or_none)),
            theirs(op.map(_half_or_none), op.filter(_not_none)),
            lambda d, o: _emit((y for x in d for y in _some_or_none(x)), o),
        ),
        Case(
            "group_by + count per group",
            "group_by, flat_map(count)",
            ours(
                lambda f: f.group_by(_key).flat_map(
                    lambda g: g.count().map(lambda c, k=g.key: (k, c))
                )
            ),
            theirs(
                op.group_by(_key),
                op.flat_map(_rx_group_count(op)),
            ),
            _plain_group_count,
        ),
        Case(
            "window(999) + count",  # 999: reactivex adds an empty window after an exact end
            "window_with_count(999)",
            ours(lambda f: f.window(999).concat_map(lambda w: w.count())),
            theirs(op.window_with_count(999), op.concat_map(lambda w: w.pipe(op.count()))),
            lambda d, o: _emit((len(d[i : i + 999]) for i in range(0, len(d), 999)), o),
        ),
    ]
    return cases


def _touch(x: int) -> None:
    """The side effect of ``do_on_next``: a call and nothing else."""


def _plain_touch(d: list[int], o: Callable[[Any], object]) -> None:
    for x in d:
        _touch(x)
        o(x)


def _negative(x: int) -> bool:
    return x < 0


def _pair(x: int) -> list[int]:
    return [x, x]


def _half_or_none(x: int) -> int | None:
    return x if x % 2 else None


def _not_none(x: object) -> bool:
    return x is not None


def _some_or_none(x: int) -> list[int]:
    p = _half_or_none(x)
    return [p] if p else []


def _rx_group_count(op: Any) -> Callable[[Any], Any]:
    def count(g: Any) -> Any:
        key = g.key
        return g.pipe(op.count(), op.map(lambda c: (key, c)))

    return count


def _plain_distinct(d: list[int], o: Callable[[Any], object]) -> None:
    seen: set[int] = set()
    for x in d:
        k = _key(x)
        if k not in seen:
            seen.add(k)
            o(x)


def _plain_until_changed(d: list[int], o: Callable[[Any], object]) -> None:
    last: object = object()
    for x in d:
        k = _key(x)
        if k != last:
            last = k
            o(x)


def _plain_group_count(d: list[int], o: Callable[[Any], object]) -> None:
    counts: dict[int, int] = {}
    for x in d:
        k = _key(x)
        counts[k] = counts.get(k, 0) + 1
    _emit(counts.items(), o)


def _canon(items: list[Any]) -> list[Any]:
    """Output compared across the three: groups complete in any order, so sorted."""
    return sorted(items, key=repr)


def validate(cases: list[Case], data: list[int]) -> list[str]:
    """Each row's three outputs agree; the list of rows that do not."""
    bad = []
    for c in cases:
        outs = []
        for run in _runners(c, data):
            sink = ListSink()
            run(sink.on_next)
            outs.append(sink.items)
        if c.name.startswith(("group_by", "merge_with")):
            outs = [_canon(x) for x in outs]
        if any(o != outs[0] for o in outs[1:]):
            bad.append(f"{c.name}: " + " / ".join(f"{len(o)}: {o[-3:]}" for o in outs))
    return bad


def _runners(c: Case, data: list[int]) -> list[Callable[[Callable[[Any], object]], object]]:
    runs: list[Callable[[Callable[[Any], object]], object]] = [
        lambda o: _run_ours(c.ours(data), o),
        lambda o: _run_rx(c.theirs(data), o),
    ]
    if c.plain is not None:
        plain = c.plain
        runs.append(lambda o: plain(data, o))
    return runs


def _time(run: Callable[[Callable[[Any], object]], object]) -> tuple[float, float]:
    """(CPU seconds of this thread, wall seconds) of one run."""
    sink = CountSink()
    gc.collect()
    c0, t0 = time.thread_time(), time.perf_counter()
    run(sink.on_next)
    return time.thread_time() - c0, time.perf_counter() - t0


def measure(n: int, reps: int, only: str | None = None) -> dict[str, Any]:
    cases = [c for c in _cases(n) if only is None or only in c.name]
    data = list(range(n))
    bad = validate(cases, data)
    if bad:
        raise AssertionError("outputs differ: " + "; ".join(bad))
    cpu: dict[str, list[list[float]]] = {c.name: [[], [], []] for c in cases}
    wall: dict[str, list[list[float]]] = {c.name: [[], [], []] for c in cases}
    load_start = os.getloadavg()
    for rep in range(reps):
        for c in cases:
            runs = list(enumerate(_runners(c, data)))
            shift = rep % len(runs)  # rotate who goes first: drift falls on all alike
            for i, run in runs[shift:] + runs[:shift]:
                spent, elapsed = _time(run)
                cpu[c.name][i].append(spent)
                wall[c.name][i].append(elapsed)
    rows: list[dict[str, Any]] = []
    for c in cases:
        ours_t, rx_t, plain_t = (statistics.median(t) if t else None for t in cpu[c.name])
        ours_w, rx_w = (statistics.median(t) for t in wall[c.name][:2])
        assert ours_t is not None
        assert rx_t is not None
        rows.append(
            {
                "operator": c.name,
                "rx": c.rx,
                "ours_s": ours_t,
                "rx_s": rx_t,
                "plain_s": plain_t,
                "vs_rx": rx_t / ours_t,
                "vs_plain": plain_t / ours_t if plain_t is not None else None,
                "vs_rx_wall": rx_w / ours_w,
            }
        )
    rows.sort(key=lambda r: r["vs_rx"])
    return {
        "n": n,
        "reps": reps,
        "loadavg_start": load_start,
        "loadavg_end": os.getloadavg(),
        "rows": rows,
    }


def table(result: dict[str, Any]) -> str:
    """The markdown table, worst ``vs rx`` first."""
    lines = [
        "| operator | reactivex | ours µs/elem | reactivex µs/elem | plain µs/elem"
        " | vs reactivex | vs plain | vs reactivex, wall |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    n = result["n"]
    for r in result["rows"]:
        plain = f"{r['plain_s'] / n * 1e6:.3f}" if r["plain_s"] is not None else "–"
        vs_plain = f"{r['vs_plain']:.3f}×" if r["vs_plain"] is not None else "–"
        mark = " **below**" if r["vs_rx"] < 1.0 else ""
        lines.append(
            f"| `{r['operator']}` | `{r['rx']}` | {r['ours_s'] / n * 1e6:.3f} | "
            f"{r['rx_s'] / n * 1e6:.3f} | {plain} | {r['vs_rx']:.2f}×{mark} | {vs_plain} | "
            f"{r.get('vs_rx_wall', float('nan')):.2f}× |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m bench.operators", description=__doc__.splitlines()[0]
    )
    p.add_argument("--smoke", action="store_true", help="tiny input, one repetition")
    p.add_argument("--n", type=int, default=N, help=f"input rows (default {N})")
    p.add_argument("--reps", type=int, default=5, help="rounds (default 5); medians reported")
    p.add_argument("--only", help="rows whose operator contains this text")
    p.add_argument("--json", type=Path, help="write the result here (default: print only)")
    a = p.parse_args(argv)
    n, reps = (200, 1) if a.smoke else (a.n, a.reps)
    result = measure(n, reps, a.only)
    result["smoke"] = a.smoke
    print(table(result))
    la, lb = result["loadavg_start"], result["loadavg_end"]
    print(f"n={n} reps={reps} load average {la[0]:.1f} -> {lb[0]:.1f}", file=sys.stderr)
    if a.json is not None:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
