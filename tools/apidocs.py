"""Build the API reference (HTML, from the docstrings) with pdoc; any warning fails.

Usage: ``PYTHONPATH=impl python tools/apidocs.py OUTPUT_DIR`` (``make docs`` writes
docs/api/, which git ignores). Exit status 1 with the warnings listed, 0 otherwise.

Why pdoc: it is maintained (mitmproxy), documents exactly the public surface that
``__all__`` declares (the same surface tests/test_exports.py guards), reads this
project's reStructuredText docstrings with no configuration, and builds in seconds with
three small dependencies; Sphinx would need a conf.py, stub pages per module and a theme.

The modules are discovered as tests/test_exports.py discovers them: every module with
no ``_`` in its dotted path (``reactive_streams.spark`` only when pyspark is installed).
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys
import warnings
from pathlib import Path
from types import ModuleType

# Public modules left out, each with the reason (pdoc would warn on them).
EXCLUDED: dict[str, str] = {
    # ``def list(self, uri) -> list[Entry]`` inside the class: pdoc resolves ``list``
    # to the method, not the builtin, and cannot read the annotation
    "reactive_streams.spark.connect_fs": "ConnectFS.list's annotation names the method list",
    "reactive_streams.spark.hadoop_fs": "HadoopFS.list's annotation names the method list",
}


def _is_private(dotted: str) -> bool:
    return any(part.startswith("_") for part in dotted.split("."))


def public_modules() -> list[str]:
    """The dotted names to document, parents first; a module its parent's ``__all__``
    lists is documented through the parent (pdoc would add it twice)."""
    import reactive_streams

    names = ["reactive_streams"]
    for info in pkgutil.walk_packages(reactive_streams.__path__, "reactive_streams."):
        if _is_private(info.name) or info.name in EXCLUDED:
            continue
        if info.name.startswith("reactive_streams.spark") and not importlib.util.find_spec(
            "pyspark"
        ):
            continue
        parent, _, leaf = info.name.rpartition(".")
        if leaf in getattr(importlib.import_module(parent), "__all__", ()):
            continue
        names.append(info.name)
    return names


def _resolve_lazy(module: ModuleType) -> None:
    """Names a module's ``__getattr__`` (PEP 562) provides, bound as attributes: pdoc
    looks ``__all__`` up in the module's ``__dict__``."""
    if "__getattr__" not in vars(module):
        return
    for name in getattr(module, "__all__", ()):
        if name not in vars(module):
            setattr(module, name, getattr(module, name))


def build(output: Path) -> list[str]:
    """Write the reference to ``output``; return pdoc's warnings (empty: a clean build)."""
    import pdoc
    import pdoc.render

    names = public_modules()
    for name in names:
        _resolve_lazy(importlib.import_module(name))
    pdoc.render.configure(docformat="restructuredtext", show_source=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.pdoc(*names, output_directory=output)
    return [f"{w.category.__name__}: {w.message}" for w in caught]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: tools/apidocs.py OUTPUT_DIR", file=sys.stderr)
        return 2
    output = Path(argv[0])
    problems = build(output)
    for line in problems:
        print(f"apidocs: {line}", file=sys.stderr)
    pages = len(list(output.rglob("*.html")))
    print(f"apidocs: {pages} pages in {output}, {len(problems)} warnings", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
