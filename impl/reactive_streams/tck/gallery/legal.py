"""Behaviours the specification allows, one small class each: no required check may fail
on them (``rule`` is ``"-"`` and they name no check)."""

from __future__ import annotations

from types import MappingProxyType

from ..._core.demand import MAX_DEMAND
from .processors import GalleryProcessor, _Call, _Downstream
from .publishers import GalleryPublisher

__all__ = ["CoordinatedEmission", "LazyCompletion"]


class LazyCompletion(GalleryPublisher):
    """Lazy completion (on_complete only after an extra request)."""

    id = "P49"
    rule = "-"
    jvm = "tolerated"
    legal = True

    class Subscription(GalleryPublisher.Subscription):
        def complete(self) -> None:
            if self.demand > 0:  # rule 1.5 sets no deadline for on_complete
                super().complete()


class CoordinatedEmission(GalleryProcessor):
    """Coordinated (lockstep) emission, declared."""

    id = "X06"
    rule = "-"
    jvm = "false failure unless declared"
    legal = True
    config = MappingProxyType({"coordinated_emission": True})

    def deliver(self, down: _Downstream) -> list[_Call]:
        return []  # nobody runs ahead...

    def deliver_together(self) -> list[_Call]:
        """An element goes out only when every subscriber wants it."""
        calls: list[_Call] = []
        live = [d for d in self.downstream if d.subscribed and d.subscriber is not None]
        while live and all(d.queue and d.demand > 0 for d in live):
            for down in live:
                if down.demand != MAX_DEMAND:
                    down.demand -= 1
                calls.append((down, "on_next", (down.queue.popleft(),)))
        return calls
