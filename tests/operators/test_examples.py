"""Runs every ``python`` block of docs/examples.md, each in a fresh namespace."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples.md"
BLOCKS = re.findall(r"```python\n(.*?)```", EXAMPLES.read_text(encoding="utf-8"), re.DOTALL)


def test_examples_page_has_blocks() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.timeout(60)
@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example_block_runs(index: int) -> None:
    code = compile(BLOCKS[index], f"{EXAMPLES.name}[{index}]", "exec")
    exec(code, {"__name__": f"example_{index}"})
