"""Run one workload in this process and print its row as one JSON line.

Usage: ``python -m bench.worker MODULE NAME --n N --runs R [--no-warmup]``.
The orchestrator (:mod:`bench.run`) starts one such process per workload, so
peak RSS (``getrusage``) belongs to that workload alone.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import sys
import traceback

from bench.harness import REGISTRY, measure


def available(spec: str) -> bool:
    """``"pkg.module"`` or ``"pkg.module:Attr.attr"``: does it exist (yet)?"""
    module, _, attrs = spec.partition(":")
    if importlib.util.find_spec(module) is None:
        return False
    obj: object = importlib.import_module(module)
    for name in filter(None, attrs.split(".")):
        if not hasattr(obj, name):
            return False
        obj = getattr(obj, name)
    return True


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("module")
    p.add_argument("name")
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--no-warmup", action="store_true")
    p.add_argument("--limit-n", type=int, default=300_000, help="in-process plain loop size")
    a = p.parse_args(argv)
    try:
        importlib.import_module(a.module)
        needs = REGISTRY[a.name].requires
        if needs is not None and not available(needs):
            print(json.dumps({"name": a.name, "skipped": f"needs {needs}"}))
            return 0
        row = measure(REGISTRY[a.name], a.n, a.runs, warmup=not a.no_warmup, limit_n=a.limit_n)
    except Exception as e:  # report the failure as a row; the run goes on
        traceback.print_exc()
        row = {"name": a.name, "error": f"{type(e).__name__}: {e}"}
        print(json.dumps(row))
        return 1
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
