"""The four Reactive Streams interfaces, as typing Protocols.

Method names follow PEP 8 (``on_next`` for ``onNext``). ``None`` plays Java's
``null``: passing it where the specification forbids null raises ``TypeError``
(rules 1.9 and 2.13). Every rule cited here is in :mod:`reactive_streams.rules`.
"""

from __future__ import annotations

from typing import Protocol, TypeVar, runtime_checkable

__all__ = ["Processor", "Publisher", "Subscriber", "Subscription"]

T_contra = TypeVar("T_contra", contravariant=True)
T_co = TypeVar("T_co", covariant=True)


@runtime_checkable
class Subscription(Protocol):
    """The one-to-one link between a Publisher and a Subscriber (section 3)."""

    def request(self, n: int) -> None:
        """Add ``n`` to the outstanding demand.

        Rule 3.9: ``n <= 0`` (or a non-int, or a bool) makes the Publisher signal
        ``on_error(ValueError("rule 3.9: ..."))``; it never raises here.
        Rule 3.17: demand saturates at ``2**63 - 1``, which means "unbounded".
        Rule 3.3: calling it from ``on_next`` never recurses deeper than one level.
        Rule 3.6: after cancel or a terminal signal it is a no-op.
        """
        ...

    def cancel(self) -> None:
        """Ask the Publisher to stop signalling (rule 3.12, eventually: rule 1.8).

        Idempotent and thread-safe (rules 3.5, 3.7); drops references to the
        Subscriber (rule 3.13); returns normally (rule 3.15).
        """
        ...


@runtime_checkable
class Subscriber(Protocol[T_contra]):
    """Receives the signals of one Subscription (section 2)."""

    def on_subscribe(self, subscription: Subscription) -> None:
        """First signal, exactly once per subscription (rules 1.9, 2.5)."""
        ...

    def on_next(self, item: T_contra) -> None:
        """One element; never more than requested (rule 1.1). ``item`` is never None."""
        ...

    def on_error(self, error: BaseException) -> None:
        """Terminal failure (rules 1.4, 1.7). ``error`` is never None."""
        ...

    def on_complete(self) -> None:
        """Terminal success (rules 1.5, 1.7)."""
        ...


@runtime_checkable
class Publisher(Protocol[T_co]):
    """A possibly unbounded source of elements, emitted on demand (section 1)."""

    def subscribe(self, subscriber: Subscriber[T_co]) -> None:
        """Start a new Subscription for ``subscriber`` (rules 1.9, 1.10, 1.11).

        ``subscriber`` must not be None (rule 1.9: ``TypeError``). Anything else
        wrong is signalled through ``on_error`` after ``on_subscribe``, never raised.
        """
        ...


@runtime_checkable
class Processor(Subscriber[T_contra], Publisher[T_co], Protocol[T_contra, T_co]):
    """A processing stage: a Subscriber of one type and a Publisher of another (section 4)."""
