"""The per-element send is written once (``Downstream._send``) and each pass-through
hop's ``on_next`` is generated from it and the hop's ``_apply`` (``_core.inline``): the
generated path and the composed one (``Relay.on_next`` calling both) give the same
signals, traced or not, and a step that returns inside ``try`` is not inlined."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from reactive_streams import sources
from reactive_streams._core import relay
from reactive_streams._core.downstream import Downstream
from reactive_streams._core.inline import GENERATED, inline_on_next, render_generated
from reactive_streams._core.relay import SKIP, Relay, SkipMarker
from reactive_streams.flow import Flow
from reactive_streams.operators import set_fusion
from reactive_streams.testing import TestSubscriber
from reactive_streams.tracing import tracing


def _relays() -> list[type]:
    seen: list[type] = []
    todo: list[type] = [Relay]
    while todo:
        cls = todo.pop()
        seen.append(cls)
        todo.extend(cls.__subclasses__())
    return seen


def test_every_step_of_a_relay_is_inlined() -> None:
    import reactive_streams.flow  # noqa: F401  (imports every operator module)

    steps = [c for c in _relays() if "_apply" in c.__dict__ and c.__module__ != __name__]
    assert len(steps) >= 8, steps
    for cls in steps:
        on_next = cls.__dict__["on_next"]
        assert on_next is not relay._composed, cls
        assert on_next.__code__.co_filename == cls.__dict__["_apply"].__code__.co_filename


def test_the_checked_in_generated_file_is_the_code_that_runs() -> None:
    """``_core/_generated_inline.py`` holds, for every step, the ``on_next`` the inliner
    generates from today's sources (``python tools/gen_inline.py`` rewrites it)."""
    import reactive_streams.flow  # noqa: F401  (imports every operator module)

    text = Path(GENERATED).read_text(encoding="utf-8")
    assert text == render_generated(Relay, relay._composed, Downstream._send), (
        "_core/_generated_inline.py is stale: run python tools/gen_inline.py"
    )
    steps = [c for c in _relays() if "_apply" in c.__dict__]
    for cls in (c for c in steps if c.__module__.startswith("reactive_streams.")):
        assert f"\nclass {cls.__qualname__}:\n    def on_next(self, item):\n" in text, cls


def test_a_value_returned_inside_try_is_not_inlined() -> None:
    class Guarded(Relay[int, int]):
        def _apply(self, item: int) -> int | SkipMarker:
            try:
                return item + 1  # the send would run under this try: refused
            except ArithmeticError:
                return SKIP

    assert inline_on_next(Guarded, relay._composed, Downstream._send) is None
    assert Guarded.on_next is relay._composed


def _raise_on(bad: int) -> Callable[[int], int]:
    def fn(x: int) -> int:
        if x == bad:
            raise RuntimeError("step fails")
        return x

    return fn


PIPELINES: dict[str, Callable[[Flow[int]], Flow[Any]]] = {
    "map": lambda f: f.map(lambda x: x * 2),
    "map_raises": lambda f: f.map(_raise_on(3)),
    "map_none": lambda f: f.map(lambda x: None if x == 2 else x),
    "filter": lambda f: f.filter(lambda x: x % 3 != 0),
    "scan": lambda f: f.scan(lambda a, x: a + x, 0),
    "do_on_next": lambda f: f.do_on_next(_raise_on(4)),
    "skip": lambda f: f.skip(2),
    "take_while": lambda f: f.take_while(lambda x: x < 5),
    "take": lambda f: f.take(3),
    "buffer": lambda f: f.buffer(3),
    "drop": lambda f: f.on_backpressure_drop(),
}

KINDS: dict[str, Callable[[], TestSubscriber[Any]]] = {
    "bounded": lambda: TestSubscriber(2, on_next_hook=lambda ts, x: ts.request(1)),
    "unbounded": lambda: TestSubscriber(2**63 - 1),
    "raise": lambda: TestSubscriber(3, on_next_hook=_fail),
    "cancel": lambda: TestSubscriber(3, on_next_hook=lambda ts, x: ts.cancel()),
}


def _fail(ts: TestSubscriber[Any], x: object) -> None:
    raise RuntimeError("subscriber fails")


@pytest.fixture(autouse=True)
def _unfused() -> Iterator[None]:
    logging.disable(logging.ERROR)
    previous = set_fusion(False)
    yield
    set_fusion(previous)
    logging.disable(logging.NOTSET)


def _signals(name: str, kind: str, traced: bool) -> list[tuple[str, str]]:
    subscriber = KINDS[kind]()
    if traced:
        with tracing():
            PIPELINES[name](Flow(sources.range(0, 8))).subscribe(subscriber)
    else:
        PIPELINES[name](Flow(sources.range(0, 8))).subscribe(subscriber)
    return [(s.kind, "" if s.kind == "on_subscribe" else repr(s.value)) for s in subscriber.signals]


@pytest.mark.parametrize("traced", [False, True], ids=["plain", "traced"])
@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_generated_and_composed_paths_agree(
    name: str, kind: str, traced: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    generated = _signals(name, kind, traced)
    for cls in _relays():
        if (
            "on_next" in cls.__dict__
            and cls.__dict__["on_next"].__doc__
            and ("see _core.inline" in cls.__dict__["on_next"].__doc__)
        ):
            monkeypatch.setattr(cls, "on_next", relay._composed)
    assert _signals(name, kind, traced) == generated


def _span(fn: Callable[..., Any]) -> set[int]:
    source, first = inspect.getsourcelines(fn)
    return set(range(first, first + len(source)))


def test_the_inliner_run_now_gives_every_step_an_on_next_with_the_same_signals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The generation itself, at test time (the classes' own on_next were generated at
    import): every step gets one, named and placed as its ``_apply``, and the pipelines
    give the composed path's signals with it (make mutation mutates the inliner)."""
    import reactive_streams.flow  # noqa: F401  (imports every operator module)

    steps = [c for c in _relays() if "_apply" in c.__dict__ and c.__module__ != __name__]
    for cls in steps:
        generated = inline_on_next(cls, relay._composed, Downstream._send)
        assert generated is not None, cls
        assert generated.__code__.co_filename == cls.__dict__["_apply"].__code__.co_filename
        assert generated.__qualname__ == f"{cls.__qualname__}.on_next"
        assert (
            generated.__doc__ == f"{cls.__name__}._apply, then Downstream._send (see _core.inline)."
        )
        # a traceback names real lines: the step's (the send at its return) or the head's
        lines = {line for _, _, line in generated.__code__.co_lines() if line is not None}
        assert lines <= _span(cls.__dict__["_apply"]) | _span(relay._composed), cls
        assert _span(cls.__dict__["_apply"]) & lines, cls
        monkeypatch.setattr(cls, "on_next", generated)
    runs = [(n, k, t) for n in sorted(PIPELINES) for k in sorted(KINDS) for t in (False, True)]
    fresh = [_signals(*run) for run in runs]
    for cls in steps:
        monkeypatch.setattr(cls, "on_next", relay._composed)
    assert [_signals(*run) for run in runs] == fresh


def test_steps_the_inliner_refuses_and_the_show_switch(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bare ``return`` (the step would send None), a value returned inside a nested
    ``try`` are refused; ``else``/``finally`` blocks are kept; RS_INLINE=show prints the
    generated code, and nothing is printed otherwise."""

    class Bare(Relay[int, int]):
        def _apply(self, item: int) -> int | SkipMarker:
            if item:
                return  # type: ignore[return-value]
            return item

    class Nested(Relay[int, int]):
        def _apply(self, item: int) -> int | SkipMarker:
            try:
                try:
                    item += 1
                except ValueError:
                    item = 0
                return item
            except ArithmeticError:
                return SKIP

    class Blocks(Relay[int, int]):
        def _apply(self, item: int) -> int | SkipMarker:
            try:
                item += 1
            except ArithmeticError:
                return SKIP
            else:
                item *= 2
            finally:
                item -= 0
            return item

    assert inline_on_next(Bare, relay._composed, Downstream._send) is None
    assert inline_on_next(Nested, relay._composed, Downstream._send) is None
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("RS_INLINE", "show")
    generated = inline_on_next(Blocks, relay._composed, Downstream._send)
    assert generated is not None
    assert "def on_next(self, item):" in capsys.readouterr().err
    ts: TestSubscriber[int] = TestSubscriber(5)
    monkeypatch.setattr(Blocks, "on_next", generated)
    sources.range(0, 3).subscribe(Blocks(ts))
    ts.assert_values(2, 4, 6).assert_complete()
