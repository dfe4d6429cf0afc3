#!/usr/bin/env python3
"""Write the conformance kit's kill table into docs/conformance.md, rendered from the
gallery's bug classes (``reactive_streams.tck.gallery.render_kill_table``).

The table is the block of lines that starts with its header row and ends at the next
blank line. ``tests/tck/test_gallery.py`` fails while the page holds another table.

Usage:
    python tools/gen_kill_table.py            # rewrite the table in place
    python tools/gen_kill_table.py --check    # exit 1 if the page's table is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "impl"))

from reactive_streams.tck.gallery import render_kill_table  # noqa: E402

DOCS = ROOT / "docs" / "conformance.md"


def rewrite(text: str, table: str) -> str:
    header = table.splitlines()[0]
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.rstrip("\n") == header]
    if len(starts) != 1:
        raise SystemExit(f"{DOCS}: expected one kill-table header row, found {len(starts)}")
    start = end = starts[0]
    while end < len(lines) and lines[end].strip():
        end += 1
    return "".join(lines[:start]) + table + "\n" + "".join(lines[end:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the table is stale")
    args = parser.parse_args()
    text = DOCS.read_text(encoding="utf-8")
    new = rewrite(text, render_kill_table())
    if args.check:
        if new != text:
            print(f"{DOCS.relative_to(ROOT)}: the kill table is stale; run tools/gen_kill_table.py")
            return 1
        return 0
    if new != text:
        DOCS.write_text(new, encoding="utf-8")
        print(f"rewrote the kill table in {DOCS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
