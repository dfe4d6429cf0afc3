"""Source positions: exactly-once even when the pipeline changes the record count.

A replayable source wraps every element in a :class:`Positioned` envelope: the
record and the source *position after it* (an opaque, JSON-serialisable value:
``{"file": "a.jsonl", "row": 17}``, ``{"0": 120, "1": 98}`` for a partitioned log).
The sink commits, in the same atomic commit record as the batch, the position of
the last envelope it has fully accounted for (written, filtered out or merged),
and a restarted run resumes with ``source.replay_from(sink.resume_position)``.

Operators and positions (the helpers below are plain functions for ``Flow.map``
and ``Flow.concat_map``; no operator needs to know about positions):

* ``map``: :func:`map_value` keeps the envelope, transforms the record.
* ``filter``: :func:`keep_if` turns a rejected record into a *skip* (an envelope
  with no record), so the sink can commit progress through a long filtered run.
  A plain ``Flow.filter`` on envelopes is still exactly-once for a deterministic
  predicate (a replay re-filters the same records) but commits nothing while
  every record is rejected.
* ``flat_map``: :func:`expand` for ``concat_map`` (one inner at a time). Every
  output but the last carries ``position=None`` ("no new position"): a crash
  between two outputs of one input resumes before that input, never after it.
  An input with no output becomes a skip. An input whose outputs fill a batch is
  split: the sink commits ``{"rs_partial": {"after": <position>, "outputs": k}}``
  and, resumed, drops the first ``k`` replayed outputs (exactly once).
* ``batch``/``buffer``: a ``list`` of envelopes is accepted by the sink as one
  element; each envelope keeps its own position.

Operators that cannot carry a position, and why:

* ``flat_map`` with ``max_concurrency > 1`` and ``merge``: outputs of later inputs
  may be committed before earlier inputs are fully written; committing the later
  position would skip the unwritten ones.
* ``reduce``, ``fold``, ``scan``: the output depends on every earlier record;
  resuming at a position restarts the accumulator (its state would have to be
  committed with the position).
* ``skip``, ``take``: they count elements of *this* run; after a resume the count
  starts again from the resume point.
* ``zip``, ``merge`` of two sources: one stream position cannot name a place in
  two sources (a composite position per source would be needed).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from reactive_streams.api import Publisher

__all__ = [
    "SKIP",
    "Positioned",
    "ReplayableSource",
    "check_position",
    "expand",
    "keep_if",
    "map_value",
]


class _Skip:
    __slots__ = ()

    def __repr__(self) -> str:
        return "SKIP"


SKIP: Any = _Skip()
"""The record of an envelope that produces no row (filtered out, or merged away)."""


class Positioned:
    """``(position, value)``: a record and the source position right after it.

    ``value`` is :data:`SKIP` for an element that produces no row; ``position`` is
    ``None`` for an output that does not complete its input (see :func:`expand`).
    """

    __slots__ = ("position", "value")

    def __init__(self, position: Any, value: Any) -> None:
        if value is None:
            raise TypeError("rule 2.13: a Positioned value must not be None (use SKIP)")
        self.position = position
        self.value = value

    def __repr__(self) -> str:
        return f"Positioned({self.position!r}, {self.value!r})"

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is Positioned
            and other.position == self.position
            and other.value == self.value
        )

    def __hash__(self) -> int:
        return hash((json.dumps(self.position, sort_keys=True), id(type(self.value))))


class ReplayableSource(Protocol):
    """A source that can publish its records again from a committed position."""

    def replay_from(self, position: Any | None) -> Publisher[Positioned]:
        """Envelopes of every record after ``position`` (``None``: from the start)."""
        ...


def check_position(position: Any) -> Any:
    """Return ``position`` if it survives a JSON round trip unchanged, else raise."""
    try:
        back = json.loads(json.dumps(position))
    except (TypeError, ValueError) as e:
        raise ValueError(f"a source position must be JSON-serialisable, got {position!r}") from e
    if back != position:
        raise ValueError(
            f"a source position must survive a JSON round trip, got {position!r} -> {back!r}"
        )
    return position


def map_value(fn: Callable[[Any], Any]) -> Callable[[Positioned], Positioned]:
    """For ``Flow.map``: apply ``fn`` to the record, keep the position (skips pass)."""

    def apply(env: Positioned) -> Positioned:
        if env.value is SKIP:
            return env
        return Positioned(env.position, fn(env.value))

    return apply


def keep_if(predicate: Callable[[Any], object]) -> Callable[[Positioned], Positioned]:
    """For ``Flow.map``: a record failing ``predicate`` becomes a skip (its position stays)."""

    def apply(env: Positioned) -> Positioned:
        if env.value is SKIP or predicate(env.value):
            return env
        return Positioned(env.position, SKIP)

    return apply


def expand(fn: Callable[[Any], Iterable[Any]]) -> Callable[[Positioned], Publisher[Positioned]]:
    """For ``Flow.concat_map``: the records of ``fn(record)``; only the last carries
    the input's position, an empty result becomes a skip."""
    from reactive_streams import sources

    def apply(env: Positioned) -> Publisher[Positioned]:
        if env.value is SKIP:
            return sources.just(env)
        outs = list(fn(env.value))
        if not outs:
            return sources.just(Positioned(env.position, SKIP))
        envs = [Positioned(None, v) for v in outs[:-1]]
        envs.append(Positioned(env.position, outs[-1]))
        return sources.from_iterable(envs)

    return apply
