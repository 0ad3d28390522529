"""The documentation's runnable examples run: every ```python block preceded by ``<!-- tested -->``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
BLOCK = re.compile(r"<!-- tested -->\s*```python\n(.*?)```", re.DOTALL)
EXAMPLES = [(page.name, i, code) for page in sorted(DOCS.glob("*.md")) for i, code in enumerate(BLOCK.findall(
    page.read_text(encoding="utf-8")))]


def test_the_architecture_page_has_a_tested_example():
    assert any(name == "architecture.md" for name, _, _ in EXAMPLES)


@pytest.mark.parametrize("page, index, code", EXAMPLES, ids=[f"{n}:{i}" for n, i, _ in EXAMPLES])
def test_doc_example_runs(page, index, code):
    exec(compile(code, f"{page} example {index}", "exec"), {})  # noqa: S102 - the docs' own examples
