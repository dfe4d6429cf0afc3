"""Planted bugs: collaborators that misbehave (a third party's fusion answer, a raising
``subscribe``, an inline executor as a timed scheduler). Each puts back the mechanism of
one defect: a timer thread that runs tasks itself, a fusion answer taken unchecked, a
foreign ``subscribe`` called outside ``subscribe_or_fail``."""

from __future__ import annotations

from planted import OPS, PIPE, Mutant, Patch

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "timer-thread-runs-inline-tasks",
        "the shared timer thread calls every executor's execute itself: an inline one runs "
        "the task there, and one slow on_next delays every timer in the process",
        "1.4",
        (
            Patch(
                "executors.py",
                "            if type(executor).execute in _QUEUEING:\n",
                "            if True:\n",
            ),
        ),
        # the machines run timers on a virtual clock (ManualExecutor): only real time and
        # a blocked task show it
        "tests/test_timer_handoff.py",
    ),
    Mutant(
        "fusion-items-answer-unchecked",
        "a third party's items answer is taken at its word: a len() that lies outruns "
        "demand or breaks flat_map's run bookkeeping; one that raises escapes subscribe",
        "1.1",
        (
            Patch(
                "_core/fusion.py",
                '        kind == "items" and not _exact(answer.value)\n',
                '        kind == "items" and False\n',
            ),
        ),
        PIPE,
        "flat_map or concat_map",
        40,  # the lying inners are drawn in a few of the examples
    ),
    Mutant(
        "flat_map-batch-asks-fusion-unchecked",
        "flat_map's batch path asks __rs_sync__ itself instead of sync_of: a stranger's "
        "items answer skips the one check",
        "1.1",
        (
            Patch(
                OPS + "_flat_map.py",
                "        sync = sync_of(result)  # the answer checked (a stranger's: pulled)\n",
                '        ask = getattr(result, "__rs_sync__", None)\n'
                "        sync = None if ask is None else ask()\n",
            ),
        ),
        # the machine's lying inners reach the batch path with too little demand too
        # rarely (survived at 100 examples per cell): the answers' own test kills it
        "tests/test_fusion_answers.py",
    ),
    Mutant(
        "timeout-fallback-raise-stalls",
        "timeout subscribes its fallback outside subscribe_or_fail: a raising subscribe "
        "escapes the drain, whose work counter stays above 0 (no terminal signal, ever)",
        "1.9",
        (
            Patch(
                OPS + "_timed_window.py",
                "        subscribe_or_fail(fallback, inner, inner.on_error)"
                "  # rule 1.9: a raise is its on_error\n",
                "        fallback.subscribe(inner)\n",
            ),
        ),
        PIPE,
        "timeout and not buffer_timeout and not window_timeout",
    ),
    Mutant(
        "arbiter-subscribe-raise-escapes",
        "the arbiter subscribes its next upstream outside subscribe_or_fail: a raising "
        "fallback of on_error_resume or switch_if_empty escapes the caller's request",
        "1.9",
        (
            Patch(
                "_core/arbiter.py",
                "        subscribe_or_fail(publisher, attempt, partial(self._refused, attempt))\n",
                "        publisher.subscribe(attempt)\n",
            ),
        ),
        PIPE,
        "on_error_resume or switch_if_empty",
    ),
    Mutant(
        "arbiter-refused-keeps-subscription",
        "a publisher that gave the arbiter a subscription, then raised from subscribe, is "
        "never cancelled",
        "3.13",
        (
            Patch(
                "_core/arbiter.py",
                "            self._attempt = None\n            self._stop(error)\n",
                "            self._attempt = None\n            self._finish(error)\n",
            ),
        ),
        # the machine's raising sources raise before on_subscribe: nothing to cancel
        "tests/operators/test_raising_subscribe.py",
    ),
    Mutant(
        "operator-upstream-raise-escapes",
        "an operator subscribes its own upstream outside subscribe_or_fail: a raising "
        "source escapes the operator's subscribe, and a subscriber that had on_subscribe "
        "waits for ever",
        "1.9",
        (
            Patch(
                OPS + "_base.py",
                "        subscribe_or_fail(self._source, hop, "
                "partial(deliver_subscribe_then_error, hop))\n",
                "        self._source.subscribe(hop)\n",
            ),
        ),
        # the machine's sources never raise from subscribe (their own upstream is the
        # library's): the raising-subscribe test kills it
        "tests/operators/test_raising_subscribe.py",
    ),
)
