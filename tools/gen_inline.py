#!/usr/bin/env python3
"""Write ``impl/reactive_streams/_core/_generated_inline.py``: every pass-through hop's
``on_next`` as ``_core.inline`` generates it at class creation (the code that runs),
for reading. ``tests/operators/test_inline.py`` fails while the checked-in file differs.

Usage:
    python tools/gen_inline.py            # rewrite the file
    python tools/gen_inline.py --check    # exit 1 if it is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "impl"))

import reactive_streams.flow  # noqa: E402, F401  (imports every operator module)
from reactive_streams._core import relay  # noqa: E402
from reactive_streams._core.downstream import Downstream  # noqa: E402
from reactive_streams._core.inline import GENERATED, render_generated  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args()
    text = render_generated(relay.Relay, relay._composed, Downstream._send)
    path = Path(GENERATED)
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if args.check:
        if old != text:
            print(f"{path.relative_to(ROOT)} is stale; run tools/gen_inline.py")
            return 1
        return 0
    if old != text:
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
