"""One copy of the per-element send, and no call per element for it.

A pass-through hop (:class:`~reactive_streams._core.relay.Relay`) defines its step,
``_apply(item)``, returning the element to send or ``SKIP``; the send is
``Downstream._send`` (tracing off: ``on_next`` and the rule 2.13 fault; on:
``_next_traced``). Calling both per element costs two Python calls per hop, which
measured +70 % on ``map.filter`` (unfused). So each hop's ``on_next`` is generated once,
when its class is created, from three pieces of real, type-checked source: the head
of ``Relay.on_next`` (``_out``, rule 2.8), the hop's ``_apply`` with each
``return value`` replaced by the body of ``Downstream._send`` and each ``return SKIP``
by ``return``. The send stays written once, in ``Downstream._send``.

Without the source (a zip without ``.py`` files) or for a step that returns a value
from inside ``try``, the hop keeps ``Relay.on_next``, which calls both: slower, same
signals. ``RS_INLINE=0`` forces that path (the tests run both).

The generated code, every hop's, is checked in as ``_generated_inline.py`` (written by
``tools/gen_inline.py`` with :func:`render_generated`; a test fails when it is stale), so
that a reader can open the ``on_next`` that runs. It is not imported: the code is
compiled from the hop's own lines, so a traceback names the step's ``return``.
"""

from __future__ import annotations

import ast
import linecache
import os
import sys
import textwrap
from collections.abc import Callable
from typing import Any

__all__ = ["GENERATED", "inline_on_next", "render_generated"]

ENABLED = os.environ.get("RS_INLINE", "1") != "0"  # "show": print each generated on_next


def _function(fn: Callable[..., Any]) -> ast.FunctionDef:
    """``fn``'s definition, parsed, with the line numbers of its file (a fresh tree: the
    caller may rewrite it). The block ends at the first line indented no deeper than
    its ``def`` (cheaper than ``inspect.getsourcelines``, which tokenizes)."""
    code = fn.__code__
    lines = linecache.getlines(code.co_filename)
    if not lines:
        raise OSError(f"no source for {fn!r}")
    start = code.co_firstlineno - 1
    while lines[start].lstrip().startswith("@"):
        start += 1
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = start + 1
    while end < len(lines):
        text = lines[end]
        if text.strip() and len(text) - len(text.lstrip()) <= indent:
            break
        end += 1
    node = ast.parse(textwrap.dedent("".join(lines[start:end]))).body[0]
    if not isinstance(node, ast.FunctionDef):
        raise TypeError(f"not a function: {fn!r}")
    ast.increment_lineno(node, start)
    return node


def _flat(stmts: Any) -> list[ast.stmt]:
    """Statements, a visitor's lists spliced in."""
    out: list[ast.stmt] = []
    for stmt in stmts:
        out.extend(stmt if isinstance(stmt, list) else [stmt])
    return out


class _Params(ast.NodeTransformer):
    """Renames the parameters of an inlined body to the names of the caller."""

    def __init__(self, names: dict[str, str]) -> None:
        self._names = names

    def visit_Name(self, node: ast.Name) -> ast.Name:
        new = self._names.get(node.id)
        return ast.Name(new, node.ctx) if new is not None else node


def _send_statements(send: ast.FunctionDef, value: ast.expr, at: ast.stmt) -> list[ast.stmt]:
    """``Downstream._send``'s body sending ``value``, its returns made ``return``, every
    node at ``at``'s line (a traceback names the step's ``return``)."""
    names = [a.arg for a in send.args.args]  # self, downstream, item
    body = [_Params({names[1]: "downstream", names[2]: "sent_value"}).visit(s) for s in send.body]
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    out: list[ast.stmt] = []
    if isinstance(value, ast.Name):  # send the step's own variable: no assignment
        body = [_Params({"sent_value": value.id}).visit(s) for s in body]
    else:
        out.append(ast.Assign([ast.Name("sent_value", ast.Store())], value))
    out += _flat(_Returns().visit(s) for s in body)
    if not isinstance(out[-1], ast.Return):
        out.append(ast.Return(None))
    for stmt in out:
        for node in ast.walk(stmt):
            if hasattr(node, "lineno"):
                ast.copy_location(node, at)
    return out


class _Returns(ast.NodeTransformer):
    """In the inlined send: ``return False`` becomes ``return``, ``return f()`` becomes
    ``f(); return``."""

    def visit_Return(self, node: ast.Return) -> Any:
        if node.value is None or isinstance(node.value, ast.Constant):
            return ast.Return(None)
        return [ast.Expr(node.value), ast.Return(None)]


class _Step(ast.NodeTransformer):
    """In the hop's step: ``return SKIP`` becomes ``return``, ``return value`` the send."""

    def __init__(self, send: ast.FunctionDef) -> None:
        self._send = send
        self._try = 0
        self.refused = False  # a value returned inside ``try``: the send would be caught

    def visit_Try(self, node: ast.Try) -> ast.Try:
        self._try += 1
        node.body = _flat(self.visit(s) for s in node.body)
        self._try -= 1
        node.handlers = [self.visit(h) for h in node.handlers]
        node.orelse = _flat(self.visit(s) for s in node.orelse)
        node.finalbody = _flat(self.visit(s) for s in node.finalbody)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        return node  # a nested function's returns are its own

    def visit_Lambda(self, node: ast.Lambda) -> ast.Lambda:
        return node

    def visit_Return(self, node: ast.Return) -> Any:
        value = node.value
        if isinstance(value, ast.Name) and value.id == "SKIP":
            return ast.copy_location(ast.Return(None), node)
        if value is None:
            self.refused = True
            return node
        if self._try:
            self.refused = True
        return _send_statements(self._send, value, node)


def _generate(
    cls: type, head: Callable[..., Any], send: Callable[..., Any]
) -> tuple[ast.Module, str, tuple[int, int]] | None:
    """``cls.on_next`` as a module of one function, the file of ``cls._apply`` and the
    lines of ``_apply`` there; None when it cannot be generated."""
    try:
        head_def = _function(head)
        step_def = _function(cls.__dict__["_apply"])
        send_def = _function(send)
        filename = cls.__dict__["_apply"].__code__.co_filename
    except (OSError, TypeError, KeyError, IndexError, SyntaxError):
        return None
    lines = (step_def.lineno, step_def.end_lineno or step_def.lineno)
    prefix: list[ast.stmt] = []
    for stmt in head_def.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # the docstring
        if "_apply" in ast.unparse(stmt):
            break
        prefix.append(stmt)
    item = step_def.args.args[1].arg
    head_item = head_def.args.args[1].arg
    prefix = [_Params({head_item: item}).visit(s) for s in prefix]
    step = _Step(send_def)
    flat = _flat(step.visit(s) for s in step_def.body)
    if step.refused:
        return None
    if isinstance(flat[0], ast.Expr) and isinstance(flat[0].value, ast.Constant):
        flat = flat[1:]  # the step's docstring
    fn = step_def  # renamed, unannotated, its body the generated one
    fn.name = "on_next"
    fn.decorator_list = []
    fn.returns = None
    for arg in fn.args.args:
        arg.annotation = None
    fn.body = prefix + flat
    return ast.fix_missing_locations(ast.Module([fn], [])), filename, lines


def inline_on_next(
    cls: type, head: Callable[..., Any], send: Callable[..., Any]
) -> Callable[..., Any] | None:
    """``cls.on_next`` generated from ``head`` (``Relay.on_next``: its statements up to
    the call of ``_apply``), ``cls._apply`` and ``send`` (``Downstream._send``); None
    when it cannot be generated (the caller keeps ``head`` itself)."""
    if not ENABLED:
        return None
    generated = _generate(cls, head, send)
    if generated is None:
        return None
    module, filename, _ = generated
    if os.environ.get("RS_INLINE") == "show":
        print(ast.unparse(module), file=sys.stderr)
    code = compile(module, filename or "<inline>", "exec")
    namespace: dict[str, Any] = {}
    exec(code, sys.modules[cls.__module__].__dict__, namespace)
    on_next: Callable[..., Any] = namespace["on_next"]
    on_next.__qualname__ = f"{cls.__qualname__}.on_next"
    on_next.__doc__ = f"{cls.__name__}._apply, then Downstream._send (see _core.inline)."
    return on_next


GENERATED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_generated_inline.py")
"""The checked-in copy of every generated ``on_next`` (written by tools/gen_inline.py)."""

_HEADER = '''# AUTOGENERATED by tools/gen_inline.py: ALL EDITS WILL BE LOST.
# ruff: noqa
# mypy: ignore-errors
# fmt: off
"""Every pass-through hop's ``on_next``, as ``_core.inline`` generates it when the hop's
class is created: the head of ``Relay.on_next``, then the hop's ``_apply`` with each
``return value`` replaced by the body of ``Downstream._send`` and each ``return SKIP`` by
``return``.

Not imported: each function runs compiled from the hop's own file and lines, in its
module's globals (a traceback names the step's ``return``); this file is the text of that
code, for reading. ``tests/operators/test_inline.py`` fails when it is stale: after
changing a step, ``Relay.on_next`` or ``Downstream._send``, run
``python tools/gen_inline.py``.
"""
'''


def render_generated(root: type, head: Callable[..., Any], send: Callable[..., Any]) -> str:
    """The text of ``GENERATED``: one class per hop under ``root`` (itself included)
    that defines ``_apply`` in the package, by module and name, holding the ``on_next``
    generated for it (a hop the inliner refuses is listed as keeping ``head``)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    hops: list[type] = []
    todo = [root]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if (
            "_apply" in cls.__dict__
            and cls.__module__.split(".")[0] == root.__module__.split(".")[0]
        ):
            hops.append(cls)
    out = [_HEADER]
    for cls in sorted(hops, key=lambda c: (c.__module__, c.__qualname__)):
        generated = _generate(cls, head, send)
        where = f"{cls.__module__}.{cls.__qualname__}"
        if generated is None:
            out.append(f"\n# {where}: not inlined (it keeps {head.__qualname__})\n")
            continue
        module, filename, (first, last) = generated
        path = os.path.relpath(filename, package).replace(os.sep, "/")
        body = textwrap.indent(ast.unparse(module), "    ")
        out.append(
            f"\n\n# {where}: {cls.__name__}._apply ({path}:{first}-{last}), then"
            f" Downstream._send\nclass {cls.__qualname__.replace('.', '_')}:\n{body}\n"
        )
    return "".join(out)
