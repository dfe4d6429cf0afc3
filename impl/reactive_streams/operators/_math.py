"""``min``, ``max``, ``sum``, ``average`` and ``to_dict``: one value folded from the flow.

Each is a ``_Tail`` (:mod:`._tail`): upstream is consumed without bound, the value waits
for downstream demand (rule 1.1), then completion. On an empty flow ``sum`` gives
``start`` and ``to_dict`` ``{}``, while ``min``, ``max`` and ``average`` complete empty
(as Reactor's ``MathFlux``; reactivex fails). A key or value function that raises cancels
upstream and fails the stream with its error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._core.downstream import null_element_error
from ._tail import MISSING, _Tail

if TYPE_CHECKING:
    from ..api import Subscriber

__all__ = ["Average", "Extreme", "Sum", "ToDict"]


class _Fold(_Tail):
    """``_step(item)`` per element (a raise fails the stream); ``_result()`` at the end:
    the value to emit, or ``MISSING`` for none."""

    __slots__ = ()

    def _step(self, item: Any) -> None:
        raise NotImplementedError

    def _result(self) -> Any:
        raise NotImplementedError

    def on_next(self, item: Any) -> None:
        if self._stopped_upstream():
            return
        try:
            self._step(item)
        except Exception as exc:
            self._fail(exc)  # cancel upstream, on_error

    def _at_end(self) -> None:
        value = self._result()
        if value is not MISSING:
            self._queue.append(value)


class Extreme(_Fold):
    """The least (``min``) or greatest (``max``) element by ``key``; the first of equals."""

    __slots__ = ("_best", "_best_key", "_key", "_less")

    def __init__(
        self, downstream: Subscriber[Any], hop: str, key: Callable[[Any], Any] | None
    ) -> None:
        super().__init__(downstream, hop)
        self._key = key
        self._less = hop == "min"
        self._best: Any = MISSING
        self._best_key: Any = None

    def _step(self, item: Any) -> None:
        k = item if self._key is None else self._key(item)
        if self._best is MISSING or (k < self._best_key if self._less else self._best_key < k):
            self._best, self._best_key = item, k

    def _result(self) -> Any:
        return self._best


class Sum(_Fold):
    """``start + x1 + x2 + ...`` (``start`` on an empty flow)."""

    __slots__ = ("_total",)

    def __init__(self, downstream: Subscriber[Any], start: Any) -> None:
        super().__init__(downstream, "sum")
        self._total = start

    def _step(self, item: Any) -> None:
        self._total = self._total + item

    def _result(self) -> Any:
        if self._total is None:  # an ``__add__`` that returned None
            raise null_element_error("sum")  # rule 2.13
        return self._total


class Average(_Fold):
    """The arithmetic mean of ``key(x)`` (a float); an empty flow completes empty."""

    __slots__ = ("_key", "_n", "_total")

    def __init__(self, downstream: Subscriber[Any], key: Callable[[Any], Any] | None) -> None:
        super().__init__(downstream, "average")
        self._key = key
        self._total: Any = 0
        self._n = 0

    def _step(self, item: Any) -> None:
        self._total = self._total + (item if self._key is None else self._key(item))
        self._n += 1

    def _result(self) -> Any:
        return MISSING if self._n == 0 else self._total / self._n


class ToDict(_Fold):
    """``{key(x): value(x)}`` over every element (a later element wins its key)."""

    __slots__ = ("_dict", "_key", "_value")

    def __init__(
        self,
        downstream: Subscriber[Any],
        key: Callable[[Any], Any],
        value: Callable[[Any], Any] | None,
    ) -> None:
        super().__init__(downstream, "to_dict")
        self._key = key
        self._value = value
        self._dict: dict[Any, Any] = {}

    def _step(self, item: Any) -> None:
        self._dict[self._key(item)] = item if self._value is None else self._value(item)

    def _result(self) -> Any:
        return self._dict
