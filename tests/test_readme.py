"""The README's example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.mark.timeout(60)
def test_readme_example_runs() -> None:
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert len(blocks) == 1
    assert len(blocks[0].strip().splitlines()) <= 12, "the README example stays short"
    namespace: dict[str, object] = {}
    exec(compile(blocks[0], str(README), "exec"), namespace)
    assert namespace["squares"] == [1, 4, 9, 16, 25]
    assert len(namespace["evens"]) == 500  # type: ignore[arg-type]


def test_readme_names_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert "make check" in text
    assert "make test" in text


def test_readme_changelog_says_range_follows_python() -> None:
    text = README.read_text(encoding="utf-8")
    changelog = text[text.index("## Changelog") :]
    assert "`range` follows Python" in changelog
    assert "range_count" in changelog
