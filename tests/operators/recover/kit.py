"""The recover family's kit factories (``operators/_recover.py``):
the publishers the conformance kit checks (``tests/operators/test_tck.py``), each of
exactly ``n`` elements."""

from __future__ import annotations

from stateful.families import KitFactory, boom, ends_in_error, fails_once

from reactive_streams.flow import Flow
from reactive_streams.operators import Backoff

KIT: tuple[KitFactory, ...] = (
    KitFactory("retry", lambda n: fails_once(n).retry(2)),
    KitFactory("retry_when", lambda n: fails_once(n).retry_when(lambda e, attempt: attempt < 3)),
    KitFactory(
        "on_error_resume",
        lambda n: (
            Flow.range(0, n // 2)
            .concat_with(boom())
            .on_error_resume(lambda e: Flow.range(0, n - n // 2))
        ),
    ),
    KitFactory(
        "on_error_return", lambda n: ends_in_error(n, 1).on_error_return(-1) if n else Flow.empty()
    ),
    KitFactory(
        "concat",
        lambda n: Flow.concat(Flow.range(0, n // 2), Flow.empty(), Flow.range(0, n - n // 2)),
    ),
    KitFactory("start_with", lambda n: Flow.range(0, n - min(n, 2)).start_with(*range(min(n, 2)))),
    KitFactory("switch_if_empty", lambda n: Flow.empty().switch_if_empty(Flow.range(0, n))),
    KitFactory(
        "default_if_empty",
        lambda n: Flow.range(0, n) if n != 1 else Flow.empty().default_if_empty(7),
    ),
    KitFactory("defer", lambda n: Flow.defer(lambda: Flow.range(0, n))),
    KitFactory.pooled("retry_backoff", lambda n: fails_once(n).retry(2, backoff=Backoff(0.0001))),
    KitFactory(
        "concat_with",
        lambda n: Flow.range(0, n // 2).concat_with(Flow.range(0, n - n // 2)),
        fusion=False,
    ),
)
