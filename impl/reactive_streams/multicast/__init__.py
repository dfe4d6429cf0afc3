"""Multicasting: one subscription to a source shared by many subscribers.

``publish(source)`` keeps its subscribers in lockstep (the source runs at the pace of
the slowest), or with ``lead=N`` lets each run at its own pace, at most ``N`` elements
ahead of the slowest; ``replay(source, bound)`` buffers and replays to late subscribers, each at
its own pace. Both return a :class:`ConnectableFlow`: nothing flows until ``connect()``,
``Connection.disconnect()`` ends the run (``on_disconnect`` decides what subscribers
see), and ``ref_count()`` connects and disconnects automatically.
"""

from ..flow import ConnectableFlow, RefCountFlow
from ._connection import DISCONNECT_STRATEGIES, Connection, DisconnectedError, OnDisconnect
from ._flows import publish, replay
from ._lead import LeadConnection
from ._publish import DEFAULT_BUFFER_SIZE, PublishConnection
from ._replay import ReplayConnection

__all__ = [
    "DEFAULT_BUFFER_SIZE",
    "DISCONNECT_STRATEGIES",
    "ConnectableFlow",
    "Connection",
    "DisconnectedError",
    "LeadConnection",
    "OnDisconnect",
    "PublishConnection",
    "RefCountFlow",
    "ReplayConnection",
    "publish",
    "replay",
]
