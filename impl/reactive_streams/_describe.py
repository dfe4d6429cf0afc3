"""A readable ``repr`` for every Flow stage, from one mechanism: each Flow an operator
returns carries the call that made it (``_desc``: parent flow, name, arguments), set by
one wrapper around every public operator. ``repr`` walks the chain back to the source:
``Flow(range(0, 10).map(f).observe_on(ThreadPoolExecutor))``. Only the call is recorded
(a tuple); the text is built on ``repr``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["describe", "install"]

_LIMIT = 40  # characters of one argument's repr
_flows: tuple[type[Any], ...] = ()  # Flow, once installed (this module cannot import it)


def install(cls: type, skip: Iterable[str] = ()) -> None:
    """Wrap ``cls``'s public methods and static constructors that return a Flow (the
    first class installed is the Flow base class)."""
    global _flows
    _flows = _flows or (cls,)
    skipped = set(skip)
    for name, member in list(vars(cls).items()):
        if name.startswith("_") or name in skipped:
            continue
        if isinstance(member, staticmethod):
            setattr(cls, name, staticmethod(_static(name, member.__func__)))
        elif callable(member) and not isinstance(member, type):
            setattr(cls, name, _method(name, member))


def _static(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def constructor(*args: Any, **kwargs: Any) -> Any:
        result: Any = fn(*args, **kwargs)
        if isinstance(result, _flows):
            for arg in args:  # a loop, not a generator: flat_map's inners are built here
                if arg is result:
                    return result  # from_publisher(flow) is flow
            result._desc = (None, name, args, kwargs)
        return result

    return constructor


def _method(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def operator(self: Any, *args: Any, **kwargs: Any) -> Any:
        result: Any = fn(self, *args, **kwargs)
        if result is not self and isinstance(result, _flows):
            result._desc = (self, name, args, kwargs)  # the outermost call wins
        return result

    return operator


def _is_flow(value: object) -> bool:
    return isinstance(value, _flows)


def describe(flow: Any) -> str:
    """``range(0, 10).map(f)``: the chain of calls that built ``flow`` (iteratively)."""
    calls: list[str] = []
    current: Any = flow
    while current is not None:
        desc = getattr(current, "_desc", None)
        if desc is None:
            calls.append(_source(current.source))
            break
        parent, name, args, kwargs = desc
        shown = [_argument(arg) for arg in args]
        shown += [f"{key}={_argument(value)}" for key, value in kwargs.items()]
        calls.append(f"{name}({', '.join(shown)})")
        current = parent
    return ".".join(reversed(calls))


def _source(publisher: object) -> str:
    """A Flow made without a recorded call: ``just(x)`` (left bare for speed), or
    ``Flow(publisher)``."""
    if hasattr(publisher, "value") and getattr(publisher, "_name", None) == "just":
        return f"just({_argument(publisher.value)})"
    return _argument(publisher)


def _argument(value: object) -> str:
    if _is_flow(value):
        return describe(value)
    if isinstance(value, str | int | float | bool | bytes | type(None)):
        text = repr(value)
        return text if len(text) <= _LIMIT else text[: _LIMIT - 3] + "..."
    qualname = getattr(value, "__qualname__", None)
    if isinstance(qualname, str) and callable(value):
        return qualname.rsplit("<locals>.", 1)[-1]
    text = repr(value)
    if " object at 0x" in text or len(text) > _LIMIT:
        return type(value).__name__
    return text
