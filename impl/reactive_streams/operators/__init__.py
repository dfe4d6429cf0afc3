"""The operators behind :class:`reactive_streams.flow.Flow`, one private module per family.

Users reach the operators through ``Flow``'s methods; this package offers what a user may
need besides: the sink of ``handle`` (``HandleSink``), the error of the
``on_backpressure_error``/bounded-buffer strategies, the switch that fuses ``map``/``filter``
into a synchronous source (``RS_FUSION=0`` turns it off by default), the fusion
protocol a publisher answers (``__rs_sync__``, ``SyncSource``), and the element of
``materialize``/``dematerialize`` (``Notification``).
"""

from .._core.fusion import SyncSource, fusion, sync_of
from ._backpressure import BufferOverflowError
from ._fused import fusion_enabled, set_fusion
from ._notification import Notification
from ._recover import Backoff
from ._transform import HandleSink

__all__ = [
    "Backoff",
    "BufferOverflowError",
    "HandleSink",
    "Notification",
    "SyncSource",
    "fusion",
    "fusion_enabled",
    "set_fusion",
    "sync_of",
]
