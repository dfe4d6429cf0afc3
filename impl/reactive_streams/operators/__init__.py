"""The operators behind :class:`reactive_streams.flow.Flow`, one private module per family.

Users reach the operators through ``Flow``'s methods; this package offers what a user may
need besides: the sink of ``handle`` (``HandleSink``), the error of the
``on_backpressure_error``/bounded-buffer strategies, the switch that fuses ``map``/``filter``
into a synchronous source (``RS_FUSION=0`` turns it off by default), and the fusion
protocol a publisher answers (``__rs_sync__``, ``SyncSource``).
"""

from .._core.fusion import SyncSource, fusion, sync_of
from ._backpressure import BufferOverflowError
from ._fused import fusion_enabled, set_fusion
from ._recover import Backoff
from ._transform import HandleSink

__all__ = [
    "Backoff",
    "BufferOverflowError",
    "HandleSink",
    "SyncSource",
    "fusion",
    "fusion_enabled",
    "set_fusion",
    "sync_of",
]
