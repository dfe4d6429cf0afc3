"""``first_element``, ``last_element`` and ``single``: one element picked from the flow.

Each is a ``_Tail`` (:mod:`._tail`): upstream is consumed without bound, the picked
element waits for downstream demand (rule 1.1), then completion. The error semantics,
named in each message: an empty flow gives ``default`` when one was given, else
``IndexError``; ``single`` fails with ``ValueError`` at a second element (upstream
cancelled at once, rule 3.12). ``first_element`` cancels upstream at its element.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ._tail import MISSING, _Tail

if TYPE_CHECKING:
    from ..api import Subscriber

__all__ = ["FirstElement", "LastElement", "Single"]


class _Pick(_Tail):
    __slots__ = ("_default", "_last")

    hop_name: ClassVar[str]

    def __init__(self, downstream: Subscriber[Any], default: Any) -> None:
        super().__init__(downstream, self.hop_name)
        self._default = default
        self._last: Any = MISSING  # the element kept until the end

    def _at_end(self) -> None:
        if self._last is not MISSING:
            self._queue.append(self._last)
        elif self._default is not MISSING:
            self._queue.append(self._default)
        else:
            raise IndexError(f"{self.hop_name}: the flow completed without an element")

    def _clear(self) -> None:
        super()._clear()
        self._last = MISSING


class FirstElement(_Pick):
    """The first element: upstream is cancelled once it arrived (rule 3.12)."""

    __slots__ = ()

    hop_name = "first_element"

    def on_next(self, item: Any) -> None:
        if not self._stopped_upstream():
            self._decide(item)


class LastElement(_Pick):
    """The last element, known at completion."""

    __slots__ = ()

    hop_name = "last_element"

    def on_next(self, item: Any) -> None:
        if not self._stopped_upstream():
            self._last = item


class Single(_Pick):
    """The one element: a second one fails with ``ValueError`` (upstream cancelled)."""

    __slots__ = ()

    hop_name = "single"

    def on_next(self, item: Any) -> None:
        if self._stopped_upstream():
            return
        if self._last is MISSING:
            self._last = item
        else:
            self._fail(ValueError("single: the flow has more than one element"))
