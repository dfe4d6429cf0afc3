"""Bugs that break a rule of chapter 4 (Processor), one small class each.

Every class mutates the control processor (``processors.py``) and names the rule it
breaks, the kit check that must fail on it and the JVM TCK's verdict.
"""

from __future__ import annotations

from .processors import GalleryProcessor, _Downstream

__all__ = ["HoldsErrorUntilDemand", "RecoversButKeepsUpstream"]


class HoldsErrorUntilDemand(GalleryProcessor):
    """Holds on_error until downstream demand."""

    id = "X01"
    rule = "4.2"
    check = "required_spec402_must_immediately_pass_on_on_error_events_received_from_its_upstream_to_its_downstream"
    jvm = "mustImmediatelyPassOnOnErrorEvents... (contested, #559)"

    def error_reaches(self, down: _Downstream, first: _Downstream | None) -> bool:
        return down.demand > 0


class RecoversButKeepsUpstream(GalleryProcessor):
    """Recovers from on_error but keeps requesting from the dead upstream."""

    id = "X05"
    rule = "4.2"
    check = "extra_spec402_no_upstream_calls_after_upstream_on_error"
    jvm = "NONE"

    def on_error(self, error: BaseException) -> None:
        if error is None:
            raise TypeError("rule 2.13: on_error(None)")
        with self.lock:
            for down in self.downstream:
                down.queue.append("fallback")  # "recovers", still holding the dead upstream
        self.drain()
