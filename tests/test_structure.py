"""The shape of impl/reactive_streams, drawn from its source: the import graph has no
circle, ``_core`` is the ground floor, and fusion is asked through its protocol
(``sync_of``), never inferred from another hop's type or private fields."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "impl" / "reactive_streams"

# None left: ``ConnectableFlow`` lives beside ``Flow``; multicast builds plain connectable
# publishers that flow.py wraps (``multicast/_flows.py`` wraps them for ``publish()``).
KNOWN_CYCLES: list[set[str]] = []


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """Every module of the package ``path`` imports, at any depth (lazy imports too),
    except under ``if TYPE_CHECKING:``."""
    name = _module(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for stmt in child.orelse:
                    visit(stmt)
                continue
            if isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    up = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join(up + ([child.module] if child.module else []))
                for alias in child.names:
                    full = f"{base}.{alias.name}"
                    found.add(full if full in modules else base)
            elif isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in found if m in modules and m != name}


@functools.cache
def _graph() -> dict[str, set[str]]:
    paths = {_module(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(paths)
    return {name: _imports(path, modules) for name, path in paths.items()}


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return found


def test_the_import_graph_has_no_circle_but_the_known_one() -> None:
    graph = _graph()
    assert "reactive_streams.trace.state" in graph["reactive_streams.trace.invariants"]
    cycles = _cycles(graph)
    assert [c for c in cycles if c not in KNOWN_CYCLES] == []


def test_the_cycle_finder_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]


def test_core_imports_nothing_from_the_package_above() -> None:
    # the ground floor (demand, the drain, downstream, relay, the pump, fusion, the tracer
    # and the executor protocol); the public modules re-export what users name
    graph = _graph()
    above = {
        (name, dep)
        for name, deps in graph.items()
        if name.startswith("reactive_streams._core")
        for dep in deps
        if not dep.startswith("reactive_streams._core")
    }
    assert above == set()


def test_operators_import_neither_flow_nor_source_classes() -> None:
    graph = _graph()
    bad = {
        (name, dep)
        for name, deps in graph.items()
        if name.startswith("reactive_streams.operators")
        for dep in deps
        if dep in ("reactive_streams.flow", "reactive_streams.sources")
    }
    assert bad == set()


# fusion by inspection: a type test against a publisher/flow/factory class, or a read of
# another object's private ``_source``/``_executor``/``_factory``/``_name`` (a write to an
# object the line builds, ``it._source = source``, is not a read)
_TYPE_TEST = re.compile(
    r"type\([^)]*\) is (not )?\w*(Publisher|Flow|flow_type|SCALAR|ITERABLE|Items|Named)\b"
)
_FOREIGN_READ = re.compile(
    r"\b(?!self\b|cls\b)[a-z_]\w*\._(source|executor|factory|name)\b(?!\s*=[^=])"
)
_ALLOWED = {
    # sources.py (another branch's file) picks a fused factory's hop name at construction
    "sources.py": "self._name = factory.hop if type(factory) is Named else name",
    # the core's fusion module tells its own factory apart (listed_items), for every hop
    "_core/fusion.py": 'if sync.kind != "iterable" or type(factory) is not Items:',
}


def _inspections(text: str, where: str) -> list[str]:
    hits = []
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0]
        if _ALLOWED.get(where) == code.strip():
            continue
        if _TYPE_TEST.search(code) or _FOREIGN_READ.search(code):
            hits.append(f"{where}:{number}: {line.strip()}")
    return hits


def test_no_fusion_by_type_checks_or_private_field_reads_across_hops() -> None:
    hits = []
    for path in sorted(PACKAGE.rglob("*.py")):
        hits += _inspections(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE)))
    assert hits == []


def test_the_inspection_grep_sees_what_it_forbids() -> None:
    assert _inspections("        if kind is _flow_type and type(p) is ScalarPublisher:", "x.py")
    assert _inspections("                self._on_iterable(source._factory)", "x.py")
    assert _inspections("    and publisher._executor is None", "x.py")
    assert not _inspections("        it._source = source", "x.py")
    assert not _inspections("        return self._factory", "x.py")
