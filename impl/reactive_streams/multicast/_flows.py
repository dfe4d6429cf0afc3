"""``publish`` and ``replay`` as Flows: the connectable publishers of ``_publish`` and
``_replay`` wrapped in ``ConnectableFlow`` (which lives beside ``Flow``, so ``flow.py``
imports only the publishers and no import circle forms)."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from ..flow import ConnectableFlow
from ._publish import DEFAULT_BUFFER_SIZE, publish_hub
from ._replay import replay_hub

if TYPE_CHECKING:
    from ..api import Publisher
    from ..executors import Executor, ExecutorLike
    from ._connection import OnDisconnect

__all__ = ["publish", "replay"]

T = TypeVar("T")


def publish(
    source: Publisher[T],
    buffer_size: int = DEFAULT_BUFFER_SIZE,
    on_disconnect: OnDisconnect = "error",
    *,
    executor: ExecutorLike | None = None,
    batch_size: int = 256,
    lead: int | None = None,
) -> ConnectableFlow[T]:
    """Share one subscription to ``source`` among many subscribers, in lockstep, or
    with ``lead=N`` each at its own pace, the fastest at most ``N`` elements ahead of the
    slowest (the connection holds at most ``N`` elements; ``buffer_size`` is not used).

    Nothing is requested from ``source`` until ``connect()``. ``on_disconnect`` says
    what the subscribers of a disconnected connection receive: ``"error"``
    (``DisconnectedError``, overtaking buffered elements), ``"complete"`` (after the
    buffered elements they request) or ``"none"``. With ``executor``, every signal to
    the subscribers is delivered by drain tasks on it, ``batch_size`` elements per task.
    """
    hub = publish_hub(
        source, buffer_size, on_disconnect, executor=executor, batch_size=batch_size, lead=lead
    )
    return ConnectableFlow(hub)


def replay(
    source: Publisher[T],
    bound: int | None = None,
    on_disconnect: OnDisconnect = "error",
    *,
    executor: Executor | None = None,
    batch_size: int = 256,
) -> ConnectableFlow[T]:
    """Share one subscription to ``source``; replay the last ``bound`` elements (None: all).

    Every child receives, at its own pace, the elements from the replay window at the
    moment it arrived onwards, then the terminal signal. See :func:`publish` for
    ``on_disconnect`` and ``executor``.
    """
    hub = replay_hub(source, bound, on_disconnect, executor=executor, batch_size=batch_size)
    return ConnectableFlow(hub)
