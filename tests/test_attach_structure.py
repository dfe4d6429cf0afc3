"""Every upstream, inner subscription and timer handle is attached through
``_core/attach.py`` (a slot set atomically against a racing cancel), drawn from the
source: an AST scan of impl/reactive_streams for a store of a live value into an attribute
named like one. A store that clears the slot (None, ``NOOP``, ``CANCELLED``, ``GONE``), the
primitive's own construction (``Attach(...)``, ``Slot(...)``) and a constructor's own fields
(nothing else holds the object yet) are not attaches. What is left is either a defect of
the kind of D1-D4 and D11 (check, then store, with a cancel in between) or in ``ALLOWED``,
which says why that store cannot race a cancel.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "impl" / "reactive_streams"

#: attribute names that hold an upstream, an inner's subscription or a timer
NAMES = frozenset(
    {
        "_upstream",
        "upstream",
        "_subscription",
        "subscription",
        "sub",
        "_sub",
        "_inner",
        "inner",
        "_timer",
        "_disposable",
    }
)
CLEARED = frozenset({"None", "NOOP", "CANCELLED", "GONE"})
PRIMITIVE = frozenset({"Attach", "Slot"})

#: test equipment, not the library's attach sites: the conformance kit's probes and its
#: gallery of deliberately broken publishers and subscribers, and ``TestSubscriber``
#: (it records a second ``on_subscribe`` as a violation instead)
SKIPPED = ("_core/attach.py", "tck/", "testing.py")

ALLOWED = {
    "_core/relay.py:Relay._upstream": "upstream's on_subscribe, before on_subscribe goes "
    "downstream: nobody holds a subscription that could cancel yet (pub is SUBSCRIBED)",
    "operators/_drained.py:DemandDrain._upstream": "upstream's on_subscribe, before the drain "
    "delivers on_subscribe downstream: nobody can cancel yet (pub is SUBSCRIBED)",
    "_core/arbiter.py:Arbiter._upstream": "the switch form: checked and stored under the "
    "core's lock, which a cancel takes too (the attach.set point is before it)",
    "operators/_timed_window.py:Timeout._upstream": "the fallback's Attach, an event of the "
    "hop's drain, which also runs the cancel (one at a time, rule 1.3)",
    "operators/_timed_window.py:Timeout._inner": "the fallback's subscriber, stored by the "
    "hop's drain before it subscribes; the cleanup that cancels its Attach runs in the same "
    "drain (one at a time, rule 1.3)",
    "operators/_timed.py:TimedDrain._timer": "armed by the hop's drain, which also disarms "
    "it at the cancel (one at a time, rule 1.3)",
    "multicast/_connection.py:Connection._upstream": "checked and stored under the "
    "connection's lock, which the disconnect takes too",
    "_emitter.py:Emitter._subscription": "checked and stored under the emitter's lock "
    "(the one subscriber of a unicast source)",
    "bridges.py:_BufferingSubscriber._subscription": "checked and stored under the "
    "subscriber's lock, which cancel() takes too",
    "bridges.py:_ResultSubscriber._subscription": "checked and stored under the subscriber's "
    "lock, which cancel() takes too",
    "rx.py:_ObservableSubscription._disposable": "stored, then the end is re-checked "
    "(store-then-check): a cancel meanwhile is seen and disposes",
    "spark/sink.py:SparkSink._subscription": "checked and stored under the sink's lock, "
    "which its cancel takes too",
}


def _live(value: ast.expr | None) -> bool:
    """A store of something that could be an upstream (not a clear, not the primitive)."""
    if value is None or ast.unparse(value) in CLEARED:
        return False
    return not (isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1] in PRIMITIVE)


def _stores(tree: ast.AST) -> list[tuple[str, str, int]]:
    """(class, attribute, line) of every live store into a slot-named attribute, outside
    constructors."""
    found: list[tuple[str, str, int]] = []

    def visit(node: ast.AST, cls: str, in_init: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, child.name, False)
                continue
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, cls, child.name == "__init__")
                continue
            if not in_init and isinstance(child, (ast.Assign, ast.AnnAssign)):
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                for target in targets:
                    pairs: list[tuple[ast.expr, ast.expr | None]]
                    if isinstance(target, ast.Tuple) and isinstance(child.value, ast.Tuple):
                        pairs = list(zip(target.elts, child.value.elts, strict=False))
                    else:
                        pairs = [(target, child.value)]
                    for store, value in pairs:
                        if (
                            isinstance(store, ast.Attribute)
                            and store.attr in NAMES
                            and _live(value)
                        ):
                            found.append((cls, store.attr, child.lineno))
            visit(child, cls, in_init)

    visit(tree, "", False)
    return found


def _attaches() -> dict[str, list[int]]:
    sites: dict[str, list[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        if where.startswith(SKIPPED):
            continue
        for cls, attr, line in _stores(ast.parse(path.read_text(encoding="utf-8"))):
            sites.setdefault(f"{where}:{cls}.{attr}", []).append(line)
    return sites


def test_every_upstream_is_attached_through_the_attach_primitive() -> None:
    sites = _attaches()
    unexplained = {site: lines for site, lines in sites.items() if site not in ALLOWED}
    assert unexplained == {}, (
        "an upstream/inner/timer stored outside _core/attach.py (check-then-store races a "
        "cancel: use Attach or Slot, or say in ALLOWED why it cannot race)"
    )


def test_every_allowed_store_still_exists() -> None:
    stale = set(ALLOWED) - set(_attaches())
    assert stale == set(), "ALLOWED names stores that are gone: drop them"


def test_the_scan_sees_a_check_then_store_and_not_the_primitive() -> None:
    racy = """
class Inner:
    def __init__(self):
        self.subscription = None
    def on_subscribe(self, s):
        if self.subscription is None:
            self.subscription = SerialSubscription(s)
    def cancel(self):
        subscription, self.subscription = self.subscription, None
"""
    assert _stores(ast.parse(racy)) == [("Inner", "subscription", 7)]
    fixed = """
class Inner:
    def on_subscribe(self, s):
        self._upstream.set(s)
    def reset(self):
        self._upstream = Attach()
        self._timer = GONE
"""
    assert _stores(ast.parse(fixed)) == []
